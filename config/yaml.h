/* Lookups in a libyaml document tree, one set for every YAML file read:
 * KubeSchedulerConfiguration (config/) and kubeconfig (kube/). */
#ifndef CONFIG_YAML_H
#define CONFIG_YAML_H

#include <stdbool.h>
#include <stddef.h>

#include <yaml.h>

/* How deep mappings and sequences may nest in a YAML file we read. A
 * kubeconfig or a KubeSchedulerConfiguration needs fewer than ten levels;
 * libyaml takes seconds for tens of thousands (its scanner looks back over
 * every open level), so a file nested past this is refused before it is
 * loaded. */
#define CFG_YAML_DEPTH_MAX 64

/*
 * Reads the events of @len bytes of @text, stopping at the first mapping
 * or sequence nested deeper than CFG_YAML_DEPTH_MAX. Returns -E2BIG with
 * where it starts in *@line and *@column (1-based), -ENOMEM, or 0: not
 * too deep (also when the text is not YAML: the load that follows says
 * where). Thread-safe.
 */
int cfg_yaml_check_depth(const char *text, size_t len, size_t *line, size_t *column);

/* The scalar text of @n (NUL-terminated by libyaml), NULL for none or
 * another kind of node. */
const char *cfg_yaml_text(const yaml_node_t *n);

/* Whether @k is the scalar @s. */
bool cfg_yaml_is_key(const yaml_node_t *k, const char *s);

/* The value of @key in mapping @map of @doc, NULL when absent or @map is
 * not a mapping (the last one when repeated, as Go's YAML readers take it). */
const yaml_node_t *cfg_yaml_get(yaml_document_t *doc, const yaml_node_t *map, const char *key);

#endif

/* Lookups in a libyaml document tree, one set for every YAML file read:
 * KubeSchedulerConfiguration (config/) and kubeconfig (kube/). */
#ifndef CONFIG_YAML_H
#define CONFIG_YAML_H

#include <stdbool.h>

#include <yaml.h>

/* Whether @k is the scalar @s. */
bool cfg_yaml_is_key(const yaml_node_t *k, const char *s);

/* The value of @key in mapping @map of @doc, NULL when absent or @map is
 * not a mapping (the last one when repeated, as Go's YAML readers take it). */
const yaml_node_t *cfg_yaml_get(yaml_document_t *doc, const yaml_node_t *map, const char *key);

#endif

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

/* Where and why a text is not YAML, for the caller's own message. */
struct cfg_yaml_error {
    size_t line, column; /* 1-based */
    const char *problem; /* libyaml's text (static), "unknown" when it has none */
};

/* Loads the first document of @len bytes of @text into @doc (the caller
 * yaml_document_delete()s it), refusing one nested deeper than
 * CFG_YAML_DEPTH_MAX before the load. Returns 0; -EBADMSG when @text is
 * not YAML (where and why in @e); -EINVAL (too deep) or -ENOMEM with why
 * in @err, after "@prefix@name". Thread-safe. */
int cfg_yaml_load(const char *text, size_t len, const char *prefix, const char *name,
                  yaml_document_t *doc, struct cfg_yaml_error *e, char *err);

/* The scalar text of @n (NUL-terminated by libyaml), NULL for none or
 * another kind of node. */
const char *cfg_yaml_text(const yaml_node_t *n);

/* Whether @k is the scalar @s. */
bool cfg_yaml_is_key(const yaml_node_t *k, const char *s);

/* The value of @key in mapping @map of @doc, NULL when absent or @map is
 * not a mapping (the last one when repeated, as Go's YAML readers take it). */
const yaml_node_t *cfg_yaml_get(yaml_document_t *doc, const yaml_node_t *map, const char *key);

#endif

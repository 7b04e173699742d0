#include "config/yaml.h"

#include <string.h>

bool cfg_yaml_is_key(const yaml_node_t *k, const char *s)
{
    size_t l = strlen(s);
    return k != NULL && k->type == YAML_SCALAR_NODE && k->data.scalar.length == l &&
           memcmp(k->data.scalar.value, s, l) == 0;
}

const yaml_node_t *cfg_yaml_get(yaml_document_t *doc, const yaml_node_t *map, const char *key)
{
    const yaml_node_t *v = NULL;
    if (map == NULL || map->type != YAML_MAPPING_NODE)
        return NULL;
    for (const yaml_node_pair_t *pr = map->data.mapping.pairs.start;
         pr < map->data.mapping.pairs.top; pr++)
        if (cfg_yaml_is_key(yaml_document_get_node(doc, pr->key), key))
            v = yaml_document_get_node(doc, pr->value);
    return v;
}

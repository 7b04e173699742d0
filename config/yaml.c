#include "config/yaml.h"

#include <errno.h>
#include <string.h>

#include "base/err.h"

const char *cfg_yaml_text(const yaml_node_t *n)
{
    return n != NULL && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

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

/* Reads the events of @len bytes of @text, stopping at the first mapping
 * or sequence nested deeper than CFG_YAML_DEPTH_MAX. Returns -E2BIG with
 * where it starts in *@line and *@column (1-based), -ENOMEM, or 0: not
 * too deep (also when the text is not YAML: the load that follows says
 * where). */
static int check_depth(const char *text, size_t len, size_t *line, size_t *column)
{
    yaml_parser_t parser;
    yaml_event_t ev;
    int depth = 0, rc = 0;

    if (yaml_parser_initialize(&parser) == 0)
        return -ENOMEM;
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    /* Events, not the document: the parse stops at the level that is one
     * too many, before libyaml has scanned the rest. */
    for (bool more = true; more && rc == 0;) {
        if (yaml_parser_parse(&parser, &ev) == 0) {
            rc = parser.error == YAML_MEMORY_ERROR ? -ENOMEM : 0;
            break;
        }
        if (ev.type == YAML_MAPPING_START_EVENT || ev.type == YAML_SEQUENCE_START_EVENT) {
            if (++depth > CFG_YAML_DEPTH_MAX) {
                *line = ev.start_mark.line + 1;
                *column = ev.start_mark.column + 1;
                rc = -E2BIG;
            }
        } else if (ev.type == YAML_MAPPING_END_EVENT || ev.type == YAML_SEQUENCE_END_EVENT) {
            depth--;
        }
        more = ev.type != YAML_STREAM_END_EVENT;
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&parser);
    return rc;
}

int cfg_yaml_load(const char *text, size_t len, const char *prefix, const char *name,
                  yaml_document_t *doc, struct cfg_yaml_error *e, char *err)
{
    yaml_parser_t parser;
    int rc = check_depth(text, len, &e->line, &e->column);

    if (rc == -E2BIG)
        return err_fail(err, -EINVAL, "%s%s:%zu:%zu: nested deeper than %d levels", prefix, name,
                        e->line, e->column, CFG_YAML_DEPTH_MAX);
    if (rc != 0 || yaml_parser_initialize(&parser) == 0) /* rc: -ENOMEM */
        return err_fail(err, -ENOMEM, "%s%s: out of memory", prefix, name);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (yaml_parser_load(&parser, doc) == 0) {
        if (parser.error == YAML_MEMORY_ERROR) {
            rc = err_fail(err, -ENOMEM, "%s%s: out of memory", prefix, name);
        } else {
            rc = -EBADMSG;
            e->line = parser.problem_mark.line + 1;
            e->column = parser.problem_mark.column + 1;
            e->problem = parser.problem != NULL ? parser.problem : "unknown";
        }
    }
    /* The document owns its nodes: it outlives the parser. */
    yaml_parser_delete(&parser);
    return rc;
}

#include "server/codec/node.h"

#include <errno.h>
#include <string.h>

#include "base/arena.h"
#include "base/err.h"
#include "server/codec/json.h"
#include "server/codec/quantities.h"

enum node_source {
    FROM_ALLOCATABLE = 0,
    FROM_ANNOTATION,
};

/* Reads one resource of a node; a problem becomes the node's reason. */
static void node_quantity(const cJSON *v, enum score_resource r, enum node_source from,
                          int64_t *out, struct codec_node *node)
{
    static const char *const reasons[2][SCORE_NRES] = {
        [FROM_ALLOCATABLE] = {"invalid allocatable cpu", "invalid allocatable memory"},
        [FROM_ANNOTATION] = {"invalid cpu-used annotation", "invalid memory-used annotation"},
    };
    char why[ERR_LEN];

    if (node->invalid != NULL)
        return;
    if (codec_quantity(v, codec_unit_of(r), out, why) != 0 || *out < 0)
        node->invalid = reasons[from][r];
}

int codec_node_decode(const cJSON *node, const struct cfg *cfg, struct codec_node *out, char *err)
{
    const cJSON *meta = NULL, *name, *status, *alloc, *annotations;

    memset(out, 0, sizeof(*out));
    if (cJSON_IsObject(node))
        meta = codec_json_member(node, "metadata");
    name = cJSON_IsObject(meta) ? codec_json_member(meta, "name") : NULL;
    if (!cJSON_IsString(name) || name->valuestring[0] == '\0') {
        err_set(err, "node without a metadata.name string");
        return -EINVAL;
    }
    out->name = name->valuestring;

    status = codec_json_member(node, "status");
    if (status != NULL && !cJSON_IsObject(status)) {
        out->invalid = "invalid node status";
        return 0;
    }
    alloc = codec_json_member(status, "allocatable");
    if (alloc != NULL && !cJSON_IsObject(alloc)) {
        out->invalid = "invalid allocatable";
        return 0;
    }
    annotations = codec_json_member(meta, "annotations");
    if (annotations != NULL && !cJSON_IsObject(annotations)) {
        out->invalid = "invalid annotations";
        return 0;
    }
    for (int r = 0; r < SCORE_NRES; r++) {
        node_quantity(codec_json_member(alloc, score_resource_name((enum score_resource)r)),
                      (enum score_resource)r, FROM_ALLOCATABLE, &out->res.alloc[r], out);
        if (cfg->used_annotation[r][0] != '\0')
            node_quantity(codec_json_member(annotations, cfg->used_annotation[r]),
                          (enum score_resource)r, FROM_ANNOTATION, &out->res.used[r], out);
        out->res.used_non_zero[r] = out->res.used[r];
    }
    return 0;
}

int codec_nodes_alloc(struct arena *a, size_t n, const struct cfg *cfg, struct codec_args *out,
                      char *err)
{
    if (n > (size_t)cfg->max_nodes) {
        err_set(err, "%zu nodes, more than max-nodes (%d)", n, cfg->max_nodes);
        return -E2BIG;
    }
    /* Not zeroed: every decoder below fills its node whole. */
    out->nodes = arena_alloc(a, (n + 1) * sizeof(*out->nodes));
    if (out->nodes == NULL) {
        err_set(err, "out of memory");
        return -ENOMEM;
    }
    return 0;
}

int codec_nodes_decode(struct arena *a, const cJSON *list, bool single_ok, const char *what,
                       const struct cfg *cfg, struct codec_args *out, char *err)
{
    const cJSON *items = codec_json_member(list, "items"), *item;
    size_t i = 0;

    if (!cJSON_IsObject(list)) {
        err_set(err, "%s: want a NodeList object", what);
        return -EINVAL;
    }
    if (items != NULL && !cJSON_IsArray(items)) {
        err_set(err, "%s.items: want an array", what);
        return -EINVAL;
    }
    bool single = items == NULL && single_ok;
    size_t n = single ? 1 : (size_t)cJSON_GetArraySize(items);
    int rc = codec_nodes_alloc(a, n, cfg, out, err);
    if (rc != 0)
        return rc;
    if (single) {
        if (codec_node_decode(list, cfg, &out->nodes[0], err) != 0) {
            err_prefix(err, "%s: ", what);
            return -EINVAL;
        }
        out->n_nodes = 1;
        return 0;
    }
    cJSON_ArrayForEach(item, items)
    {
        if (codec_node_decode(item, cfg, &out->nodes[i], err) != 0) {
            err_prefix(err, "%s.items[%zu]: ", what, i);
            return -EINVAL;
        }
        i++;
    }
    out->n_nodes = n;
    return 0;
}

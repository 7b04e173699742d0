#include "server/codec/args.h"

#include <errno.h>
#include <string.h>

#include "base/arena.h"
#include "base/err.h"
#include "server/codec/json.h"
#include "server/codec/node.h"
#include "server/codec/pod.h"

static int decode_node_names(struct arena *a, const cJSON *names, const struct cfg *cfg,
                             struct codec_args *out, char *err)
{
    const cJSON *item;
    size_t i = 0;

    if (!cJSON_IsArray(names)) {
        err_set(err, "NodeNames: want an array of strings");
        return -EINVAL;
    }
    size_t n = (size_t)cJSON_GetArraySize(names);
    int rc = codec_nodes_alloc(a, n, cfg, out, err);
    if (rc != 0)
        return rc;
    cJSON_ArrayForEach(item, names)
    {
        if (!cJSON_IsString(item)) {
            err_set(err, "NodeNames[%zu]: want a string", i);
            return -EINVAL;
        }
        out->nodes[i] = (struct codec_node){.name = item->valuestring};
        i++;
    }
    out->n_nodes = n;
    out->node_names_mode = true;
    return 0;
}

int codec_args_decode(struct arena *a, const char *body, size_t len, const struct cfg *cfg,
                      struct codec_args *out, char *err)
{
    cJSON *root;
    int rc;

    memset(out, 0, sizeof(*out));
    if ((rc = codec_json_parse(a, body, len, "ExtenderArgs", &root, err)) != 0)
        return rc;
    const cJSON *nodes = codec_json_member_folded(root, "Nodes");
    const cJSON *names = codec_json_member_folded(root, "NodeNames");
    if ((rc = codec_pod_member(a, root, &out->pod, err)) != 0)
        return rc;
    if (nodes != NULL && names != NULL) {
        err_set(err, "both Nodes and NodeNames are set: want exactly one");
        return -EINVAL;
    }
    if (nodes != NULL)
        return codec_nodes_decode(a, nodes, false, "Nodes", cfg, out, err);
    if (names != NULL)
        return decode_node_names(a, names, cfg, out, err);
    err_set(err, "neither Nodes nor NodeNames is set");
    return -EINVAL;
}

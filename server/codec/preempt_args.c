#include "server/codec/preempt_args.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "base/arena.h"
#include "base/hash.h"
#include "base/err.h"
#include "base/table.h"
#include "server/codec/ints.h"
#include "server/codec/json.h"
#include "server/codec/pod.h"

/* One victims entry: {"Pods":[...],"NumPDBViolations":n}. */
static int decode_victims(struct arena *a, const cJSON *v, bool meta, struct codec_victims *out,
                          char *err)
{
    const cJSON *pods = codec_json_field(v, "Pods"), *p;
    const cJSON *pdb = codec_json_field(v, "NumPDBViolations");
    size_t i = 0;

    if (!cJSON_IsObject(v))
        return err_fail(err, -EINVAL, "victims of node %s: want an object", out->node);
    if (pdb != NULL) {
        if (!cJSON_IsNumber(pdb) || pdb->valuedouble < 0 || pdb->valuedouble > 1e15 ||
            pdb->valuedouble != (double)(long long)pdb->valuedouble)
            return err_fail(err, -EINVAL, "victims of node %s: NumPDBViolations: want a count",
                            out->node);
        out->num_pdb_violations = (long long)pdb->valuedouble;
    }
    if (pods != NULL && !cJSON_IsArray(pods))
        return err_fail(err, -EINVAL, "victims of node %s: Pods: want an array", out->node);
    size_t n = pods != NULL ? (size_t)cJSON_GetArraySize(pods) : 0;
    out->uids = arena_calloc(a, n + 1, sizeof(*out->uids));
    out->pods = meta ? NULL : arena_calloc(a, n + 1, sizeof(*out->pods));
    if (out->uids == NULL || (!meta && out->pods == NULL))
        return err_fail(err, -ENOMEM, "out of memory");
    cJSON_ArrayForEach(p, pods)
    {
        const cJSON *uid;
        if (meta) {
            uid = codec_json_field(p, "UID");
        } else {
            struct codec_pod pod;
            int rc = codec_pod_decode(a, p, &pod, err);
            if (rc != 0) {
                err_prefix(err, "victim %zu on node %s: ", i, out->node);
                return rc;
            }
            out->pods[i] = pod.spec;
            uid = codec_json_field(codec_json_field(p, "metadata"), "uid");
        }
        if (!cJSON_IsString(uid) || uid->valuestring[0] == '\0')
            return err_fail(err, -EINVAL, "victim %zu on node %s: no UID", i, out->node);
        out->uids[i++] = uid->valuestring;
    }
    out->n = i;
    return 0;
}

/* Where each node name went in out->nodes: entry i of a fixed table in
 * the request's arena is node i's. */
struct name_index {
    struct table t;
    struct table_entry *entries;
};

static int index_init(struct arena *a, struct name_index *x, size_t keys)
{
    size_t n = table_buckets(keys);
    x->t = table_fixed(arena_calloc(a, n, sizeof(*x->t.buckets)), n);
    x->entries = arena_alloc(a, (keys + 1) * sizeof(*x->entries));
    return x->t.buckets != NULL && x->entries != NULL ? 0 : -ENOMEM;
}

static int decode_map(struct arena *a, const cJSON *map, bool meta, const struct cfg *cfg,
                      struct codec_preempt_args *out, char *err)
{
    struct name_index x;
    const cJSON *v;
    size_t n = (size_t)cJSON_GetArraySize(map);

    if (n > (size_t)cfg->max_nodes)
        return err_fail(err, -E2BIG, "%zu nodes, more than max-nodes (%d)", n, cfg->max_nodes);
    out->nodes = arena_calloc(a, n + 1, sizeof(*out->nodes));
    if (out->nodes == NULL || index_init(a, &x, n) != 0)
        return err_fail(err, -ENOMEM, "out of memory");
    cJSON_ArrayForEach(v, map)
    {
        /* A duplicate key: Go's map keeps the last value, in the first
         * key's place as far as we are concerned (the order is ours). */
        uint64_t hash = hash_fnv1a_str(v->string);
        struct table_entry *e = table_find_hashed(&x.t, v->string, hash);
        size_t k = e != NULL ? (size_t)(e - x.entries) : out->n_nodes; /* its index, or a new one */
        if (cJSON_IsNull(v))
            return err_fail(err, -EINVAL, "victims of node %s: null", v->string);
        memset(&out->nodes[k], 0, sizeof(out->nodes[k]));
        out->nodes[k].node = v->string;
        int rc = decode_victims(a, v, meta, &out->nodes[k], err);
        if (rc != 0)
            return rc;
        if (k == out->n_nodes) {
            x.entries[k].key = v->string;
            table_link(&x.t, &x.entries[k], hash);
            out->n_nodes++;
        }
    }
    return 0;
}

/* The integers of the request as Go reads them (ints.h): the pod's
 * priority, each node's NumPDBViolations (an int64 count). */
static int check_integers(const cJSON *root, char *err)
{
    static const struct codec_int_path paths[] = {
        {.names = {"Pod", "spec", "priority"},
         .depth = 3,
         .fold = 7,
         .min = INT32_MIN,
         .max = INT32_MAX,
         .what = "Pod.spec.priority: want a 32-bit integer"},
        {.names = {"NodeNameToVictims", "*", "NumPDBViolations"},
         .depth = 3,
         .fold = 5,
         .min = 0,
         .max = 1000000000000000LL,
         .what = "NumPDBViolations: want a count"},
        {.names = {"NodeNameToMetaVictims", "*", "NumPDBViolations"},
         .depth = 3,
         .fold = 5,
         .min = 0,
         .max = 1000000000000000LL,
         .what = "NumPDBViolations: want a count"},
    };
    for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
        if (!codec_ints_ok(root, &paths[i]))
            return err_fail(err, -EINVAL, "%s", paths[i].what);
    }
    return 0;
}

int codec_preempt_decode(struct arena *a, const char *body, size_t len, const struct cfg *cfg,
                         struct codec_preempt_args *out, char *err)
{
    cJSON *root;
    int rc;

    memset(out, 0, sizeof(*out));
    if ((rc = codec_json_parse(a, body, len, "ExtenderPreemptionArgs", &root, err)) != 0)
        return rc;
    if ((rc = codec_pod_decode(a, codec_json_field(root, "Pod"), &out->pod, err)) != 0)
        return rc;
    const cJSON *map = codec_json_field(root, "NodeNameToMetaVictims");
    out->meta_form = map != NULL;
    if (map == NULL)
        map = codec_json_field(root, "NodeNameToVictims");
    if (map == NULL)
        return check_integers(root, err); /* no candidates: an empty map */
    if (!cJSON_IsObject(map))
        return err_fail(err, -EINVAL, "%s: want an object",
                        out->meta_form ? "NodeNameToMetaVictims" : "NodeNameToVictims");
    if ((rc = decode_map(a, map, out->meta_form, cfg, out, err)) != 0)
        return rc;
    return check_integers(root, err);
}

#include "server/codec/node.h"

#include <errno.h>
#include <string.h>

#include "base/err.h"
#include "server/codec/json.h"
#include "server/codec/quantities.h"

enum { Q_CPU = SCORE_CPU, Q_MEMORY = SCORE_MEMORY, Q_PODS, Q_COUNT };

/* What a Node object said, read as Go reads it into the typed Node (the
 * rules of nodelist.c's node_scan, on a tree): a repeated struct or map
 * merges, null clears a map and leaves a struct or a string alone, a map
 * entry is the last one given, a wrong type is remembered. */
struct node_seen {
    bool meta_bad, name_bad, status_bad, alloc_bad, ann_bad;
    const cJSON *name, *ann[SCORE_NRES], *q[Q_COUNT];
};

/* Each member of @obj that is the struct field @key, in order. */
#define FOR_FIELD(item, obj, key)                                                                  \
    cJSON_ArrayForEach(item, obj) if (item->string != NULL &&                                      \
                                      codec_name_folds(item->string, strlen(item->string), key))

/* A struct or map field's value: true when it is an object to walk; null
 * clears @map (@n entries) when the field is a map; another type sets *@bad. */
static bool nested(const cJSON *v, const cJSON **map, size_t n, bool *bad)
{
    if (cJSON_IsObject(v))
        return true;
    if (cJSON_IsNull(v) && map != NULL)
        memset(map, 0, n * sizeof(*map));
    else if (!cJSON_IsNull(v))
        *bad = true;
    return false;
}

static void metadata(const cJSON *meta, const struct cfg *cfg, struct node_seen *n)
{
    const cJSON *m, *a;
    FOR_FIELD(m, meta, "name")
    {
        if (cJSON_IsString(m))
            n->name = m;
        else if (!cJSON_IsNull(m))
            n->name_bad = true;
    }
    FOR_FIELD(m, meta, "annotations")
    {
        if (!nested(m, n->ann, SCORE_NRES, &n->ann_bad))
            continue;
        cJSON_ArrayForEach(a, m) /* map keys: exact */
        {
            for (int r = 0; r < SCORE_NRES; r++)
                if (cfg->used_annotation[r][0] != '\0' &&
                    strcmp(a->string, cfg->used_annotation[r]) == 0)
                    n->ann[r] = a;
        }
    }
}

static void status(const cJSON *st, struct node_seen *n)
{
    static const char *const names[Q_COUNT] = {
        [Q_CPU] = "cpu", [Q_MEMORY] = "memory", [Q_PODS] = "pods"};
    const cJSON *al, *q;
    FOR_FIELD(al, st, "allocatable")
    {
        if (!nested(al, n->q, Q_COUNT, &n->alloc_bad))
            continue;
        cJSON_ArrayForEach(q, al)
        {
            for (int i = 0; i < Q_COUNT; i++)
                if (strcmp(q->string, names[i]) == 0)
                    n->q[i] = q;
        }
    }
}

/* A quantity: absent or null is 0; a problem is -EINVAL. */
static int quantity(const cJSON *v, enum score_unit unit, int64_t *out)
{
    char why[ERR_LEN];
    if (v == NULL || cJSON_IsNull(v)) {
        *out = 0;
        return 0;
    }
    return codec_quantity(v, unit, out, why) != 0 || *out < 0 ? -EINVAL : 0;
}

/* The node's data from what it said; the first problem is the reason. */
static void node_data(const struct cfg *cfg, const struct node_seen *n, struct codec_node *out)
{
    static const char *const reasons[2][SCORE_NRES] = {
        {"invalid allocatable cpu", "invalid allocatable memory"},
        {"invalid cpu-used annotation", "invalid memory-used annotation"},
    };
    if (n->status_bad || n->alloc_bad || n->ann_bad) {
        out->invalid = n->status_bad  ? "invalid node status"
                       : n->alloc_bad ? "invalid allocatable"
                                      : "invalid annotations";
        return;
    }
    for (int r = 0; r < SCORE_NRES && out->invalid == NULL; r++) {
        enum score_unit unit = codec_unit_of((enum score_resource)r);
        if (quantity(n->q[r], unit, &out->res.alloc[r]) != 0)
            out->invalid = reasons[0][r];
        else if (cfg->used_annotation[r][0] != '\0' &&
                 quantity(n->ann[r], unit, &out->res.used[r]) != 0)
            out->invalid = reasons[1][r];
        out->res.used_non_zero[r] = out->res.used[r];
    }
    if (!cJSON_IsString(n->q[Q_PODS]) || quantity(n->q[Q_PODS], SCORE_UNIT_BASE, &out->pods) != 0)
        out->pods = -1;
}

int codec_node_decode(const cJSON *node, const struct cfg *cfg, struct codec_node *out, char *err)
{
    struct node_seen n;

    memset(out, 0, sizeof(*out));
    memset(&n, 0, sizeof(n));
    out->pods = -1;
    if (cJSON_IsObject(node)) {
        const cJSON *f;
        FOR_FIELD(f, node, "metadata")
        {
            if (nested(f, NULL, 0, &n.meta_bad))
                metadata(f, cfg, &n);
        }
        FOR_FIELD(f, node, "status")
        {
            if (nested(f, NULL, 0, &n.status_bad))
                status(f, &n);
        }
    }
    if (!cJSON_IsObject(node) || n.meta_bad || n.name_bad || n.name == NULL ||
        n.name->valuestring[0] == '\0') {
        err_set(err, "node without a metadata.name string");
        return -EINVAL;
    }
    out->name = n.name->valuestring;
    node_data(cfg, &n, out);
    return 0;
}

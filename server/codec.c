#include "server/codec.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "scoring/quantity.h"

cJSON *srv_json_member(const cJSON *obj, const char *key)
{
    cJSON *found = NULL, *item;
    cJSON_ArrayForEach(item, obj)
    {
        if (item->string != NULL && strcmp(item->string, key) == 0)
            found = item;
    }
    return cJSON_IsNull(found) ? NULL : found;
}

/* Go's decoder folds case for struct fields: the last member that matches
 * @key case-insensitively wins. Used for the untagged ExtenderArgs. */
cJSON *srv_json_member_folded(const cJSON *obj, const char *key)
{
    cJSON *found = NULL, *item;
    cJSON_ArrayForEach(item, obj)
    {
        if (item->string != NULL && strcasecmp(item->string, key) == 0)
            found = item;
    }
    return cJSON_IsNull(found) ? NULL : found;
}

/* A member that must be an object when present. */
static int object_member(const cJSON *obj, const char *key, const cJSON **out)
{
    *out = srv_json_member(obj, key);
    return *out == NULL || cJSON_IsObject(*out) ? 0 : -EINVAL;
}

/* Parses a quantity value as Quantity.UnmarshalJSON does: a string, trimmed
 * of surrounding white space; JSON null is zero. */
static int quantity_of(const cJSON *v, enum score_unit unit, int64_t *out, char why[SCORE_ERR_LEN])
{
    if (v == NULL || cJSON_IsNull(v)) {
        *out = 0;
        return 0;
    }
    if (!cJSON_IsString(v)) {
        snprintf(why, SCORE_ERR_LEN, "want a quantity string");
        return -EINVAL;
    }
    const char *s = v->valuestring;
    size_t len = strlen(s);
    while (len > 0 && isspace((unsigned char)*s)) {
        s++;
        len--;
    }
    while (len > 0 && isspace((unsigned char)s[len - 1]))
        len--;
    return score_quantity_parse(s, len, unit, out, why);
}

static enum score_unit unit_of(enum score_resource r)
{
    return r == SCORE_CPU ? SCORE_UNIT_MILLI : SCORE_UNIT_BASE;
}

int srv_decode_quantities(const cJSON *list, int64_t out[SCORE_NRES], char err[CODEC_ERR_LEN])
{
    char why[SCORE_ERR_LEN];
    if (!cJSON_IsObject(list)) {
        snprintf(err, CODEC_ERR_LEN, "want an object of quantities");
        return -EINVAL;
    }
    for (int r = 0; r < SCORE_NRES; r++) {
        const char *name = score_resource_name((enum score_resource)r);
        if (quantity_of(srv_json_member(list, name), unit_of((enum score_resource)r), &out[r],
                        why) != 0 ||
            out[r] < 0) {
            snprintf(err, CODEC_ERR_LEN, "%s: %s", name, out[r] < 0 ? "negative" : why);
            return -EINVAL;
        }
    }
    return 0;
}

/* Reads cpu and memory of a ResourceList ("requests", "overhead", ...) into
 * @c, noting which keys are present (a null value counts as present). */
static int resource_list(const cJSON *list, struct score_container *c, char *path, size_t path_len,
                         char err[CODEC_ERR_LEN])
{
    char why[SCORE_ERR_LEN];

    if (list == NULL)
        return 0;
    if (!cJSON_IsObject(list)) {
        snprintf(err, CODEC_ERR_LEN, "%s: want an object", path);
        return -EINVAL;
    }
    for (int r = 0; r < SCORE_NRES; r++) {
        const char *name = score_resource_name((enum score_resource)r);
        const cJSON *v = NULL, *item;
        cJSON_ArrayForEach(item, list)
        {
            if (item->string != NULL && strcmp(item->string, name) == 0)
                v = item;
        }
        if (v == NULL)
            continue;
        c->has[r] = true;
        if (quantity_of(v, unit_of((enum score_resource)r), &c->req[r], why) != 0) {
            snprintf(err, CODEC_ERR_LEN, "%.*s.%s: %s", (int)path_len, path, name, why);
            return -EINVAL;
        }
        if (c->req[r] < 0) {
            snprintf(err, CODEC_ERR_LEN, "%.*s.%s: negative quantity", (int)path_len, path, name);
            return -EINVAL;
        }
    }
    return 0;
}

static int container_list(const cJSON *spec, const char *key, const struct score_container **out,
                          size_t *n, char err[CODEC_ERR_LEN])
{
    const cJSON *list = srv_json_member(spec, key), *c;
    char path[96];
    struct score_container *containers;
    size_t i = 0;

    *out = NULL;
    *n = 0;
    if (list == NULL)
        return 0;
    if (!cJSON_IsArray(list)) {
        snprintf(err, CODEC_ERR_LEN, "Pod.spec.%s: want an array", key);
        return -EINVAL;
    }
    size_t count = (size_t)cJSON_GetArraySize(list);
    if (count == 0)
        return 0;
    containers = cJSON_malloc(count * sizeof(*containers));
    if (containers == NULL) {
        snprintf(err, CODEC_ERR_LEN, "out of memory");
        return -ENOMEM;
    }
    memset(containers, 0, count * sizeof(*containers));
    *out = containers;
    cJSON_ArrayForEach(c, list)
    {
        const cJSON *resources, *policy;
        snprintf(path, sizeof(path), "Pod.spec.%s[%zu]", key, i);
        if (!cJSON_IsObject(c)) {
            snprintf(err, CODEC_ERR_LEN, "%s: want an object", path);
            return -EINVAL;
        }
        if (object_member(c, "resources", &resources) != 0) {
            snprintf(err, CODEC_ERR_LEN, "%s.resources: want an object", path);
            return -EINVAL;
        }
        size_t plen = strlen(path);
        snprintf(path + plen, sizeof(path) - plen, ".resources.requests");
        if (resource_list(srv_json_member(resources, "requests"), &containers[i], path,
                          strlen(path), err) != 0)
            return -EINVAL;
        policy = srv_json_member(c, "restartPolicy");
        if (policy != NULL && !cJSON_IsString(policy)) {
            path[plen] = '\0';
            snprintf(err, CODEC_ERR_LEN, "%s.restartPolicy: want a string", path);
            return -EINVAL;
        }
        containers[i].restartable = policy != NULL && strcmp(policy->valuestring, "Always") == 0;
        i++;
    }
    *n = count;
    return 0;
}

static const char *string_or_empty(const cJSON *obj, const char *key)
{
    const cJSON *v = srv_json_member(obj, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

int srv_decode_pod(const cJSON *pod, struct codec_pod *out, char err[CODEC_ERR_LEN])
{
    const cJSON *meta, *spec, *resources;
    struct score_pod p;
    char path[64];

    memset(out, 0, sizeof(*out));
    memset(&p, 0, sizeof(p));
    if (!cJSON_IsObject(pod)) {
        snprintf(err, CODEC_ERR_LEN, "Pod: want an object");
        return -EINVAL;
    }
    if (object_member(pod, "metadata", &meta) != 0) {
        snprintf(err, CODEC_ERR_LEN, "Pod.metadata: want an object");
        return -EINVAL;
    }
    for (const char *const *k = (const char *const[]){"name", "namespace", NULL}; *k; k++) {
        const cJSON *v = srv_json_member(meta, *k);
        if (v != NULL && !cJSON_IsString(v)) {
            snprintf(err, CODEC_ERR_LEN, "Pod.metadata.%s: want a string", *k);
            return -EINVAL;
        }
    }
    out->name = string_or_empty(meta, "name");
    out->ns = string_or_empty(meta, "namespace");
    if (object_member(meta, "labels", &out->labels) != 0) {
        snprintf(err, CODEC_ERR_LEN, "Pod.metadata.labels: want an object");
        return -EINVAL;
    }
    out->uid = string_or_empty(meta, "uid");
    if (object_member(pod, "spec", &spec) != 0) {
        snprintf(err, CODEC_ERR_LEN, "Pod.spec: want an object");
        return -EINVAL;
    }
    out->node_name = string_or_empty(spec, "nodeName");
    const cJSON *prio = srv_json_member(spec, "priority");
    /* Range first: converting an out-of-range double is undefined. */
    if (prio != NULL && (!cJSON_IsNumber(prio) ||
                         !(prio->valuedouble >= INT32_MIN && prio->valuedouble <= INT32_MAX) ||
                         prio->valuedouble != (double)(int32_t)prio->valuedouble)) {
        snprintf(err, CODEC_ERR_LEN, "Pod.spec.priority: want a 32-bit integer");
        return -EINVAL;
    }
    out->priority = prio != NULL ? (long long)prio->valuedouble : 0;
    out->phase = string_or_empty(srv_json_member(pod, "status"), "phase");
    if (container_list(spec, "containers", &p.containers, &p.n_containers, err) != 0 ||
        container_list(spec, "initContainers", &p.init_containers, &p.n_init_containers, err) != 0)
        return -EINVAL;
    snprintf(path, sizeof(path), "Pod.spec.overhead");
    if (resource_list(srv_json_member(spec, "overhead"), &p.overhead, path, strlen(path), err) != 0)
        return -EINVAL;
    if (object_member(spec, "resources", &resources) != 0) {
        snprintf(err, CODEC_ERR_LEN, "Pod.spec.resources: want an object");
        return -EINVAL;
    }
    snprintf(path, sizeof(path), "Pod.spec.resources.requests");
    if (resource_list(srv_json_member(resources, "requests"), &p.pod_level, path, strlen(path),
                      err) != 0)
        return -EINVAL;
    if (score_pod_request(&p, &out->request) != 0) {
        snprintf(err, CODEC_ERR_LEN, "Pod: total request does not fit in int64");
        return -EINVAL;
    }
    return 0;
}

/* Reads one resource of a node; a problem becomes the node's reason. The
 * reasons are node-independent so kube-scheduler can aggregate them. */
enum node_source {
    FROM_ALLOCATABLE = 0,
    FROM_ANNOTATION,
};

static void node_quantity(const cJSON *v, enum score_resource r, enum node_source from,
                          int64_t *out, struct codec_node *node)
{
    static const char *const reasons[2][SCORE_NRES] = {
        [FROM_ALLOCATABLE] = {"invalid allocatable cpu", "invalid allocatable memory"},
        [FROM_ANNOTATION] = {"invalid cpu-used annotation", "invalid memory-used annotation"},
    };
    char why[SCORE_ERR_LEN];

    if (node->invalid != NULL)
        return;
    if (quantity_of(v, unit_of(r), out, why) != 0 || *out < 0)
        node->invalid = reasons[from][r];
}

int srv_decode_node(cJSON *node, const struct cfg *cfg, struct codec_node *out,
                    char err[CODEC_ERR_LEN])
{
    const cJSON *meta = NULL, *name, *status = NULL, *alloc = NULL, *annotations = NULL;

    memset(out, 0, sizeof(*out));
    out->json = node;
    if (cJSON_IsObject(node))
        meta = srv_json_member(node, "metadata");
    name = cJSON_IsObject(meta) ? srv_json_member(meta, "name") : NULL;
    if (!cJSON_IsString(name) || name->valuestring[0] == '\0') {
        snprintf(err, CODEC_ERR_LEN, "node without a metadata.name string");
        return -EINVAL;
    }
    out->name = name->valuestring;

    status = srv_json_member(node, "status");
    if (status != NULL && !cJSON_IsObject(status)) {
        out->invalid = "invalid node status";
        return 0;
    }
    alloc = srv_json_member(status, "allocatable");
    if (alloc != NULL && !cJSON_IsObject(alloc)) {
        out->invalid = "invalid allocatable";
        return 0;
    }
    annotations = srv_json_member(meta, "annotations");
    if (annotations != NULL && !cJSON_IsObject(annotations)) {
        out->invalid = "invalid annotations";
        return 0;
    }
    for (int r = 0; r < SCORE_NRES; r++) {
        node_quantity(srv_json_member(alloc, score_resource_name((enum score_resource)r)),
                      (enum score_resource)r, FROM_ALLOCATABLE, &out->res.alloc[r], out);
        if (cfg->used_annotation[r][0] != '\0')
            node_quantity(srv_json_member(annotations, cfg->used_annotation[r]),
                          (enum score_resource)r, FROM_ANNOTATION, &out->res.used[r], out);
        out->res.used_non_zero[r] = out->res.used[r];
    }
    return 0;
}

/* Room for @n nodes in out->nodes, within cfg->max_nodes. */
static int alloc_nodes(size_t n, const struct cfg *cfg, struct codec_args *out,
                       char err[CODEC_ERR_LEN])
{
    if (n > (size_t)cfg->max_nodes) {
        snprintf(err, CODEC_ERR_LEN, "%zu nodes, more than max-nodes (%d)", n, cfg->max_nodes);
        return -E2BIG;
    }
    out->nodes = cJSON_malloc(n * sizeof(*out->nodes) + 1);
    if (out->nodes == NULL) {
        snprintf(err, CODEC_ERR_LEN, "out of memory");
        return -ENOMEM;
    }
    return 0;
}

static int decode_node_list(cJSON *list, const struct cfg *cfg, struct codec_args *out,
                            char err[CODEC_ERR_LEN])
{
    cJSON *items, *item;
    size_t i = 0;

    if (!cJSON_IsObject(list)) {
        snprintf(err, CODEC_ERR_LEN, "Nodes: want a NodeList object");
        return -EINVAL;
    }
    items = srv_json_member(list, "items");
    if (items != NULL && !cJSON_IsArray(items)) {
        snprintf(err, CODEC_ERR_LEN, "Nodes.items: want an array");
        return -EINVAL;
    }
    size_t n = (size_t)cJSON_GetArraySize(items);
    int rc = alloc_nodes(n, cfg, out, err);
    if (rc != 0)
        return rc;
    cJSON_ArrayForEach(item, items)
    {
        char why[CODEC_ERR_LEN];
        if (srv_decode_node(item, cfg, &out->nodes[i], why) != 0) {
            snprintf(err, CODEC_ERR_LEN, "Nodes.items[%zu]: %.200s", i, why);
            return -EINVAL;
        }
        i++;
    }
    out->n_nodes = n;
    out->node_list = list;
    return 0;
}

static int decode_node_names(const cJSON *names, const struct cfg *cfg, struct codec_args *out,
                             char err[CODEC_ERR_LEN])
{
    const cJSON *item;
    size_t i = 0;

    if (!cJSON_IsArray(names)) {
        snprintf(err, CODEC_ERR_LEN, "NodeNames: want an array of strings");
        return -EINVAL;
    }
    size_t n = (size_t)cJSON_GetArraySize(names);
    int rc = alloc_nodes(n, cfg, out, err);
    if (rc != 0)
        return rc;
    cJSON_ArrayForEach(item, names)
    {
        if (!cJSON_IsString(item)) {
            snprintf(err, CODEC_ERR_LEN, "NodeNames[%zu]: want a string", i);
            return -EINVAL;
        }
        memset(&out->nodes[i], 0, sizeof(out->nodes[i]));
        out->nodes[i].name = item->valuestring;
        i++;
    }
    out->n_nodes = n;
    out->node_names_mode = true;
    return 0;
}

/* Checks every escape sequence in @body. cJSON reads an invalid \\u escape
 * ("\\uZZZZ", "\\u0e9") as a NUL and, like a real \\u0000, a NUL cuts its C
 * string: "a\\u0000b" would be read as "a", a node name the scheduler never
 * sent, and "Nodes\\uZZZZ" as the key "Nodes". Go refuses the former and
 * keeps the NUL in the latter; we refuse both, and a raw NUL byte too.
 * Returns NULL, or what is wrong (with its offset in *@at). */
static const char *bad_escape(const char *body, size_t len, size_t *at)
{
    const char *end = body + len, *nul = memchr(body, '\0', len);
    if (nul != NULL) {
        *at = (size_t)(nul - body);
        return "NUL character";
    }
    /* Escapes only occur inside strings and are read left to right, so
     * walking from one backslash to the next sees each escape once. */
    for (const char *p = memchr(body, '\\', len); p != NULL;
         p = memchr(p, '\\', (size_t)(end - p))) {
        *at = (size_t)(p - body);
        if (end - p < 2 || strchr("\"\\/bfnrtu", p[1]) == NULL || p[1] == '\0')
            return "invalid escape";
        if (p[1] == 'u') {
            if (end - p < 6 || !isxdigit((unsigned char)p[2]) || !isxdigit((unsigned char)p[3]) ||
                !isxdigit((unsigned char)p[4]) || !isxdigit((unsigned char)p[5]))
                return "invalid \\u escape";
            if (memcmp(p + 2, "0000", 4) == 0)
                return "NUL character";
        }
        p += 2; /* past "\\x", so an escaped backslash is not read twice */
    }
    return NULL;
}

/* Offset of the first byte we refuse, or @len: control characters other
 * than tab, line feed and carriage return (cJSON skips any byte up to 0x20
 * as white space; Go's decoder and our span scanner do not), and bytes that
 * are not well-formed UTF-8 (RFC 3629: no overlongs, no surrogates, nothing
 * past U+10FFFF; Go would replace them with U+FFFD, we answer 400). A raw
 * tab or newline inside a string passes, where Go would refuse it; what we
 * answer stays valid JSON. ASCII runs without control bytes are skipped
 * eight at a time. */
static size_t invalid_byte_at(const unsigned char *s, size_t len)
{
    const uint64_t high = 0x8080808080808080ULL, spaces = 0x2020202020202020ULL;
    size_t i = 0;
    while (i < len) {
        if (i + 8 <= len) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            /* no byte >= 0x80, and no byte < 0x20 (w - 0x20.. borrows there) */
            if ((w & high) == 0 && ((w - spaces) & ~w & high) == 0) {
                i += 8;
                continue;
            }
        }
        unsigned char c = s[i];
        size_t n;
        unsigned lo = 0x80, hi = 0xbf; /* allowed range of the second byte */
        if (c < 0x20) {
            if (c != '\t' && c != '\n' && c != '\r')
                return i;
            i++;
            continue;
        } else if (c < 0x80) {
            i++;
            continue;
        } else if (c >= 0xc2 && c <= 0xdf) {
            n = 1;
        } else if (c >= 0xe0 && c <= 0xef) {
            n = 2;
            lo = c == 0xe0 ? 0xa0 : 0x80;
            hi = c == 0xed ? 0x9f : 0xbf;
        } else if (c >= 0xf0 && c <= 0xf4) {
            n = 3;
            lo = c == 0xf0 ? 0x90 : 0x80;
            hi = c == 0xf4 ? 0x8f : 0xbf;
        } else {
            return i;
        }
        if (i + n >= len || s[i + 1] < lo || s[i + 1] > hi)
            return i;
        for (size_t k = 2; k <= n; k++)
            if ((s[i + k] & 0xc0) != 0x80)
                return i;
        i += n + 1;
    }
    return len;
}

/* What cJSON would let through but Go's decoder (and our span scanner) would
 * not: bad escapes and NULs, control bytes, invalid UTF-8, a byte-order
 * mark. Returns 0 or -EINVAL with the reason and offset in @err. */
static int check_bytes(const char *body, size_t len, char err[CODEC_ERR_LEN])
{
    size_t at;
    const char *why = bad_escape(body, len, &at);
    if (why != NULL) {
        snprintf(err, CODEC_ERR_LEN, "%s in a string at byte %zu", why, at);
        return -EINVAL;
    }
    at = invalid_byte_at((const unsigned char *)body, len);
    if (at != len) {
        snprintf(err, CODEC_ERR_LEN, "%s at byte %zu",
                 (unsigned char)body[at] < 0x20 ? "control character" : "invalid UTF-8", at);
        return -EINVAL;
    }
    if (len >= 3 && memcmp(body, "\xef\xbb\xbf", 3) == 0) {
        snprintf(err, CODEC_ERR_LEN, "byte-order mark before the JSON text");
        return -EINVAL;
    }
    return 0;
}

int srv_decode_args(const char *body, size_t len, const struct cfg *cfg, struct codec_args *out,
                    char err[CODEC_ERR_LEN])
{
    const cJSON *names;
    cJSON *nodes;

    memset(out, 0, sizeof(*out));
    cJSON *root;
    if (srv_parse_object(body, len, "ExtenderArgs", &root, err) != 0)
        return -EINVAL;
    nodes = srv_json_member_folded(root, "Nodes");
    names = srv_json_member_folded(root, "NodeNames");
    if (srv_decode_pod_member(root, &out->pod, err) != 0)
        return -EINVAL;
    if (nodes != NULL && names != NULL) {
        snprintf(err, CODEC_ERR_LEN, "both Nodes and NodeNames are set: want exactly one");
        return -EINVAL;
    }
    if (nodes != NULL)
        return decode_node_list(nodes, cfg, out, err);
    if (names != NULL)
        return decode_node_names(names, cfg, out, err);
    snprintf(err, CODEC_ERR_LEN, "neither Nodes nor NodeNames is set");
    return -EINVAL;
}

int srv_decode_pod_member(const cJSON *root, struct codec_pod *out, char err[CODEC_ERR_LEN])
{
    char why[CODEC_ERR_LEN];
    const cJSON *pod = srv_json_member_folded(root, "Pod");
    if (pod == NULL) {
        snprintf(err, CODEC_ERR_LEN, "Pod: missing");
        return -EINVAL;
    }
    if (srv_decode_pod(pod, out, why) != 0) {
        memcpy(err, why, CODEC_ERR_LEN);
        return -EINVAL;
    }
    return 0;
}

int srv_parse_object(const char *body, size_t len, const char *what, cJSON **out,
                     char err[CODEC_ERR_LEN])
{
    const char *end = NULL;

    *out = NULL;
    if (len == 0) {
        snprintf(err, CODEC_ERR_LEN, "empty body: want %s JSON", what);
        return -EINVAL;
    }
    if (check_bytes(body, len, err) != 0)
        return -EINVAL;
    cJSON *root = cJSON_ParseWithLengthOpts(body, len + 1, &end, 1);
    if (root == NULL) {
        size_t at = end != NULL && end >= body ? (size_t)(end - body) : 0;
        snprintf(err, CODEC_ERR_LEN, "malformed JSON near byte %zu of %zu", at, len);
        return -EINVAL;
    }
    if (!cJSON_IsObject(root)) {
        snprintf(err, CODEC_ERR_LEN, "want a JSON object (%s)", what);
        return -EINVAL;
    }
    *out = root;
    return 0;
}

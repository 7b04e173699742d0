/*
 * libFuzzer target: the filter, prioritize, preempt and bind verbs on
 * arbitrary request bodies, as server/http/request.c calls them (NUL-terminated body, an arena
 * attached to the thread).
 *
 * Properties, besides ASan and UBSan:
 *  - every answer is 200 or 400; 500 only for "out of memory"; a 400 is
 *    {"Error": non-empty, without '%'} and both verbs give the same one;
 *  - a 200 answer is JSON of the verb's shape: prioritize one
 *    {"Host", "Score" 0..10} per node; filter "Error":"", and its passing,
 *    failed and unresolvable nodes are the prioritize hosts, in order, each
 *    once (NodeNames mode: all pass, all score 0);
 *  - prioritize also runs with a second configuration picked from the input
 *    length (strategy, normalize, target percent, thresholds, memory
 *    weight), so that every strategy is exercised: same status and hosts,
 *    scores 0..10;
 *  - a body that cJSON 1.7.15 accepts but Go's decoder refuses gets 400 from
 *    both verbs: a control byte outside strings or a UTF-8 BOM first (cJSON
 *    skips them as white space, server/jspan.c did not: 500s and an endless
 *    loop in the filter answer), a \u escape without four hex digits (cJSON
 *    reads a NUL that cuts the string: "a\uZZZZb" was read as "a").
 *    Reproducers of those bugs, fixed in ef05278 and e9fea0a, are in
 *    tests/fuzz/regressions/args/;
 *  - preempt and bind (no cluster) on the same body: 200 or 400 (500 only
 *    for memory), a 400 as above, and 400 for what Go's decoder refuses;
 *    a preempt 200 is {"NodeNameToMetaVictims": {node: {"Pods": [{"UID":
 *    string}, ...], "NumPDBViolations": n}}} listing exactly the request's
 *    nodes that have victims, in the request's order, with their UIDs and
 *    count (the request read as Go reads it: top-level keys folded, the
 *    last duplicate winning, null as absent, the meta form before the full
 *    one, a node named twice keeping its first place and last value); a
 *    bind 200 is {"Error": non-empty} (no cluster to bind with).
 */
#ifdef FUZZ_TARGET
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "config/config.h"
#include "base/arena.h"
#include "server/codec/json.h"
#include "server/ops/debug_json.h"
#include "server/ops/debug_page.h"
#include "server/verbs/bind.h"
#include "server/verbs/filter.h"
#include "server/verbs/preempt.h"
#include "server/verbs/prioritize.h"
#include "server/verbs/reply.h"
#include "tests/fuzz/fuzz.h"
#include "tests/support/reply_join.h"

/* A reply joined into one malloc'd string before its arena is released
 * (the checks read it after; the server sends the pieces as they are). */
struct flat {
    unsigned status;
    char *body; /* NULL when out of memory */
    size_t len;
};

static void flatten(const struct verb_reply *r, struct flat *out)
{
    out->status = r->status;
    out->body = reply_join(r, &out->len);
    if (out->body == NULL)
        abort();
}

static void fail(const char *what, const struct flat *r)
{
    fprintf(stderr, "fuzz_args: %s\n", what);
    if (r != NULL)
        fprintf(stderr, "reply %u: %.2000s\n", r->status, r->body ? r->body : "(null)");
    abort();
}

/* The last member named @key, JSON null counting as absent (as
 * codec_json_member reads requests). */
static const cJSON *last_member(const cJSON *obj, const char *key)
{
    const cJSON *found = NULL, *item;
    cJSON_ArrayForEach(item, obj)
    {
        if (item->string != NULL && strcmp(item->string, key) == 0)
            found = item;
    }
    return cJSON_IsNull(found) ? NULL : found;
}

/* The last member whose name matches @key ignoring case (Go's decoder on
 * untagged struct fields), JSON null counting as absent. */
static const cJSON *folded_member(const cJSON *obj, const char *key)
{
    const cJSON *found = NULL, *item;
    if (!cJSON_IsObject(obj))
        return NULL;
    cJSON_ArrayForEach(item, obj)
    {
        if (item->string != NULL && strcasecmp(item->string, key) == 0)
            found = item;
    }
    return cJSON_IsNull(found) ? NULL : found;
}

/* Parses a reply (after the arena is released: plain malloc). A 400 or 500
 * is checked here and gives NULL; a 200 gives the parsed body. */
static cJSON *parse_reply(const struct flat *r)
{
    const char *end = NULL;

    if (r->status != 200 && r->status != 400 && r->status != 500)
        fail("status is not 200, 400 or 500", r);
    if (r->body == NULL || memchr(r->body, '\0', r->len) != NULL || r->body[r->len] != '\0')
        fail("body is not a NUL-terminated string of len bytes", r);
    cJSON *j = cJSON_ParseWithLengthOpts(r->body, r->len + 1, &end, 1);
    if (j == NULL)
        fail("body is not JSON", r);
    if (r->status == 200)
        return j;
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(j, "Error");
    if (!cJSON_IsObject(j) || cJSON_GetArraySize(j) != 1 || !cJSON_IsString(e) ||
        e->valuestring[0] == '\0' || strchr(e->valuestring, '%') != NULL)
        fail("error body is not {\"Error\": message without '%'}", r);
    if (r->status == 500 && strcmp(e->valuestring, "out of memory") != 0)
        fail("500 for something else than memory", r);
    cJSON_Delete(j);
    return NULL;
}

/* The hosts of a prioritize answer, checked: an array of {Host, Score}. */
static size_t prioritize_hosts(const cJSON *j, const char **hosts, size_t max, bool all_zero,
                               const struct flat *r)
{
    const cJSON *e;
    size_t n = 0;
    if (!cJSON_IsArray(j))
        fail("prioritize answer is not an array", r);
    cJSON_ArrayForEach(e, j)
    {
        const cJSON *host = cJSON_GetObjectItemCaseSensitive(e, "Host");
        const cJSON *score = cJSON_GetObjectItemCaseSensitive(e, "Score");
        if (!cJSON_IsObject(e) || cJSON_GetArraySize(e) != 2 || !cJSON_IsString(host) ||
            !cJSON_IsNumber(score))
            fail("prioritize entry is not {\"Host\": string, \"Score\": number}", r);
        if (score->valuedouble < 0 || score->valuedouble > 10 ||
            score->valuedouble != (double)score->valueint || (all_zero && score->valueint != 0))
            fail("score out of 0..10", r);
        if (n < max)
            hosts[n] = host->valuestring;
        n++;
    }
    return n;
}

/* Whether @names (a cJSON array of names or of Node objects, or an object
 * whose keys are names) is a subsequence of @hosts; counts them into *n. */
static void check_subsequence(const cJSON *names, int kind, const char **hosts, size_t n_hosts,
                              size_t *n, const struct flat *r)
{
    const cJSON *e;
    size_t at = 0;
    cJSON_ArrayForEach(e, names)
    {
        const char *name = NULL;
        if (kind == 0 && cJSON_IsString(e)) {
            name = e->valuestring;
        } else if (kind == 1) {
            const cJSON *v = last_member(last_member(e, "metadata"), "name");
            name = cJSON_IsString(v) ? v->valuestring : NULL;
        } else if (kind == 2 && cJSON_IsString(e)) {
            name = e->string;
        }
        if (name == NULL)
            fail("filter answer holds a node without a name", r);
        while (at < n_hosts && strcmp(hosts[at], name) != 0)
            at++;
        if (at == n_hosts)
            fail("filter answer names a node out of order or not in prioritize", r);
        at++;
        (*n)++;
    }
}

static void check_filter(const cJSON *j, const char **hosts, size_t n_hosts, const struct flat *r)
{
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(j, "Nodes");
    const cJSON *names = cJSON_GetObjectItemCaseSensitive(j, "NodeNames");
    const cJSON *failed = cJSON_GetObjectItemCaseSensitive(j, "FailedNodes");
    const cJSON *unres = cJSON_GetObjectItemCaseSensitive(j, "FailedAndUnresolvableNodes");
    const cJSON *error = cJSON_GetObjectItemCaseSensitive(j, "Error");
    size_t n = 0;

    if (!cJSON_IsObject(j) || !cJSON_IsObject(failed) || !cJSON_IsObject(unres) ||
        !cJSON_IsString(error) || error->valuestring[0] != '\0')
        fail("filter answer lacks FailedNodes, FailedAndUnresolvableNodes or Error \"\"", r);
    if (cJSON_IsArray(names) && cJSON_IsNull(nodes)) {
        check_subsequence(names, 0, hosts, n_hosts, &n, r);
        if (cJSON_GetArraySize(failed) != 0 || cJSON_GetArraySize(unres) != 0)
            fail("NodeNames mode failed a node", r);
    } else if (cJSON_IsObject(nodes) && cJSON_IsNull(names)) {
        const cJSON *items = last_member(nodes, "items");
        /* the request's other NodeList members come back as they were */
        if (!cJSON_IsArray(items))
            fail("Nodes is not a NodeList with items", r);
        check_subsequence(items, 1, hosts, n_hosts, &n, r);
    } else {
        fail("filter answer has neither Nodes nor NodeNames", r);
    }
    check_subsequence(failed, 2, hosts, n_hosts, &n, r);
    check_subsequence(unres, 2, hosts, n_hosts, &n, r);
    if (n != n_hosts)
        fail("filter and prioritize answers disagree on the number of nodes", r);
}

/* Whether @d holds what cJSON accepts and Go's decoder refuses (see above). */
static bool cjson_lenient(const uint8_t *d, size_t n)
{
    bool in_string = false;
    if (n >= 3 && memcmp(d, "\xef\xbb\xbf", 3) == 0)
        return true;
    for (size_t i = 0; i < n; i++) {
        if (in_string) {
            if (d[i] == '\\' && i + 1 < n && d[i + 1] == 'u')
                for (size_t k = i + 2; k < i + 6; k++)
                    if (k >= n || !isxdigit(d[k]))
                        return true;
            if (d[i] == '\\')
                i++;
            else if (d[i] == '"')
                in_string = false;
        } else if (d[i] == '"') {
            in_string = true;
        } else if (d[i] < 0x20 && d[i] != '\t' && d[i] != '\n' && d[i] != '\r') {
            return true;
        }
    }
    return false;
}

/* The victims value kube-scheduler sent for the node named @key: the last
 * member of that name (the map is decoded key by key, a later duplicate
 * replacing the value). */
static const cJSON *last_value(const cJSON *map, const char *key)
{
    const cJSON *found = NULL, *item;
    cJSON_ArrayForEach(item, map)
    {
        if (strcmp(item->string, key) == 0)
            found = item;
    }
    return found;
}

/* Whether @item is the first member of @map with its name. */
static bool is_first_key(const cJSON *map, const cJSON *item)
{
    for (const cJSON *e = map->child; e != item; e = e->next)
        if (strcmp(e->string, item->string) == 0)
            return false;
    return true;
}

/* The UID of victim @p as the request form gives it. */
static const char *victim_uid(const cJSON *p, bool meta)
{
    const cJSON *uid =
        meta ? folded_member(p, "UID") : last_member(last_member(p, "metadata"), "uid");
    return cJSON_IsString(uid) && uid->valuestring[0] != '\0' ? uid->valuestring : NULL;
}

/* A preempt 200 against the request @req (already known to be accepted). */
static void check_preempt(const cJSON *j, const cJSON *req, const struct flat *r)
{
    const cJSON *out = cJSON_GetObjectItemCaseSensitive(j, "NodeNameToMetaVictims");
    const cJSON *map = folded_member(req, "NodeNameToMetaVictims");
    bool meta = map != NULL;
    const cJSON *item, *got;

    if (!cJSON_IsObject(j) || cJSON_GetArraySize(j) != 1 || !cJSON_IsObject(out))
        fail("preempt answer is not {\"NodeNameToMetaVictims\": object}", r);
    if (!meta)
        map = folded_member(req, "NodeNameToVictims");
    got = out->child;
    cJSON_ArrayForEach(item, map)
    {
        if (!is_first_key(map, item))
            continue;
        const cJSON *v = last_value(map, item->string);
        const cJSON *pods = folded_member(v, "Pods");
        const cJSON *pdb = folded_member(v, "NumPDBViolations");
        if (cJSON_GetArraySize(pods) == 0)
            continue; /* never listed without victims */
        if (got == NULL || strcmp(got->string, item->string) != 0)
            fail("preempt answer misses a node with victims or changes the order", r);
        const cJSON *gpods = cJSON_GetObjectItemCaseSensitive(got, "Pods");
        const cJSON *gpdb = cJSON_GetObjectItemCaseSensitive(got, "NumPDBViolations");
        if (!cJSON_IsObject(got) || cJSON_GetArraySize(got) != 2 || !cJSON_IsArray(gpods) ||
            !cJSON_IsNumber(gpdb) || gpdb->valuedouble != (pdb != NULL ? pdb->valuedouble : 0))
            fail("preempt node is not {\"Pods\": array, \"NumPDBViolations\": the request's}", r);
        if (cJSON_GetArraySize(gpods) != cJSON_GetArraySize(pods))
            fail("preempt answer has another number of victims than the request", r);
        const cJSON *p, *gp = gpods->child;
        cJSON_ArrayForEach(p, pods)
        {
            const cJSON *guid = cJSON_GetObjectItemCaseSensitive(gp, "UID");
            const char *uid = victim_uid(p, meta);
            if (uid == NULL)
                fail("preempt accepted a victim without UID", r);
            if (!cJSON_IsObject(gp) || cJSON_GetArraySize(gp) != 1 || !cJSON_IsString(guid) ||
                strcmp(guid->valuestring, uid) != 0)
                fail("preempt victim is not {\"UID\": the request's UID}", r);
            gp = gp->next;
        }
        got = got->next;
    }
    if (got != NULL)
        fail("preempt answer lists a node the request has no victims for", r);
}

static void check_bind(const cJSON *j, const struct flat *r)
{
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(j, "Error");
    if (!cJSON_IsObject(j) || cJSON_GetArraySize(j) != 1 || !cJSON_IsString(e) ||
        e->valuestring[0] == '\0' || strchr(e->valuestring, '%') != NULL)
        fail("bind without cluster does not fail with {\"Error\": message}", r);
}

/* preempt and bind on @body. */
static void check_preempt_bind(const struct cfg *base, const uint8_t *data, const char *body,
                               size_t size)
{
    struct verb_reply er, br;
    struct flat e, b;

    struct arena *a = arena_acquire();
    if (a == NULL)
        abort();
    const struct verb_ctx ctx = {.cfg = base, .arena = a};
    verb_preempt(&ctx, body, size, &er);
    flatten(&er, &e);
    verb_bind(&ctx, body, size, &br);
    flatten(&br, &b);
    arena_release(a);

    cJSON *ej = parse_reply(&e), *bj = parse_reply(&b);
    if (cjson_lenient(data, size) && (e.status != 400 || b.status != 400))
        fail("a body that Go's decoder refuses is accepted", e.status != 400 ? &e : &b);
    if (ej != NULL) {
        cJSON *req = cJSON_ParseWithLengthOpts(body, size + 1, NULL, 1);
        if (req == NULL)
            fail("preempt accepted a body that is not JSON", &e);
        check_preempt(ej, req, &e);
        cJSON_Delete(req);
    }
    if (bj != NULL)
        check_bind(bj, &b);
    cJSON_Delete(ej);
    cJSON_Delete(bj);
    free(e.body);
    free(b.body);
}

/* The recorded decisions, names from the input included, render as JSON
 * that parses and as a page. */
static void check_debug_pages(struct ops_ring *d, const struct cfg *cfg)
{
    struct ops_query all = {0};
    char *text;
    size_t len;
    if (ops_debug_json(d, &all, &text, &len) != 0)
        abort();
    cJSON *j = cJSON_ParseWithLength(text, len);
    if (j == NULL) {
        fprintf(stderr, "/debug/decisions is not JSON: %.400s\n", text);
        abort();
    }
    cJSON_Delete(j);
    free(text);
    if (ops_debug_page(d, &all, cfg, &text, &len) != 0)
        abort();
    if (strstr(text, "</html>") == NULL)
        abort();
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool ready;
    static struct cfg base;
    struct cfg variant;
    struct verb_reply fr, pr, vr;
    struct flat f, p, v;

    if (!ready) {
        cfg_defaults(&base);
        ready = true;
    }
    cfg_defaults(&variant);
    /* The variant also answers in another mode, with a selector, and keeps
     * its decisions (rendered below): the hosts answered must not change. */
    variant.mode = (enum cfg_mode)((size >> 6) % 3);
    if ((size >> 5) & 1)
        snprintf(variant.select_labels, sizeof(variant.select_labels), "app=x");
    variant.score.strategy = (enum score_strategy)(size % 4);
    variant.score.normalize = (size >> 2) & 1;
    variant.score.target_percent = 1 + (int)((size >> 3) % 100);
    variant.score.threshold_percent[SCORE_CPU] = 50 + (int)((size >> 3) % 51);
    variant.score.weight[SCORE_MEMORY] = (int)((size >> 4) % 3);

    char *body = malloc(size + 1);
    if (body == NULL)
        return 0;
    memcpy(body, data, size);
    body[size] = '\0';
    struct arena *a = arena_acquire();
    if (a == NULL)
        abort();
    static struct ops_metrics metrics;
    static struct ops_ring decisions;
    static bool ring_ready;
    if (!ring_ready && ops_ring_init(&decisions, 4, 1 << 20) == 0)
        ring_ready = true;
    const struct verb_ctx ctx = {.cfg = &base, .arena = a},
                          vctx = {.cfg = &variant,
                                  .arena = a,
                                  .metrics = &metrics,
                                  .decisions = ring_ready ? &decisions : NULL};
    verb_filter(&ctx, body, size, &fr);
    flatten(&fr, &f);
    verb_prioritize(&ctx, body, size, &pr);
    flatten(&pr, &p);
    verb_prioritize(&vctx, body, size, &vr);
    flatten(&vr, &v);
    arena_release(a);

    cJSON *fj = parse_reply(&f), *pj = parse_reply(&p), *vj = parse_reply(&v);
    if (f.status != p.status || p.status != v.status)
        fail("filter and prioritize give different statuses", f.status != p.status ? &f : &v);
    if (f.status == 400 && (strcmp(f.body, p.body) != 0 || strcmp(p.body, v.body) != 0))
        fail("filter and prioritize give different errors", &f);
    if (p.status != 400 && cjson_lenient(data, size))
        fail("a body that Go's decoder refuses is accepted", &p);
    if (pj != NULL) {
        size_t max = (size_t)cJSON_GetArraySize(pj);
        const char **hosts = malloc((max + 1) * sizeof(*hosts));
        const char **vhosts = malloc((max + 1) * sizeof(*vhosts));
        if (hosts == NULL || vhosts == NULL)
            abort();
        const cJSON *names = cJSON_GetObjectItemCaseSensitive(fj, "NodeNames");
        bool names_mode = cJSON_IsArray(names);
        size_t n = prioritize_hosts(pj, hosts, max, names_mode, &p);
        check_filter(fj, hosts, n, &f);
        if (prioritize_hosts(vj, vhosts, max, names_mode, &v) != n)
            fail("prioritize answers of the two configurations differ in length", &v);
        for (size_t i = 0; i < n; i++)
            if (strcmp(hosts[i], vhosts[i]) != 0)
                fail("prioritize answers of the two configurations differ in hosts", &v);
        free(hosts);
        free(vhosts);
    }
    cJSON_Delete(fj);
    cJSON_Delete(pj);
    cJSON_Delete(vj);
    free(f.body);
    free(p.body);
    free(v.body);
    if (ring_ready)
        check_debug_pages(&decisions, &variant);
    check_preempt_bind(&base, data, body, size);
    free(body);
    return 0;
}
#endif

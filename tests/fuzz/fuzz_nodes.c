/*
 * libFuzzer target: the NodeList scanner (server/codec/nodelist.c, what
 * requests and `rank` read nodes with) against two references that share
 * none of its code:
 *
 *  - a strict JSON validator written here from RFC 8259 plus our refusals
 *    (NUL in any form, a lone surrogate escape, a byte-order mark, more
 *    than CODEC_MAX_DEPTH levels): the scanner accepts exactly what it
 *    accepts, and refuses with the same class of error at the same byte;
 *  - the cJSON path: cJSON's tree of the same bytes, each item decoded by
 *    codec_node_decode() (what the informer uses), the list read by the
 *    rules of nodelist.h written again here on the tree. An accepted body
 *    gives the same verdict (0, -EINVAL or -E2BIG) and, when accepted, the
 *    same nodes: name, reason, allocatable, used, pods; each node's span
 *    is the item (cJSON_Compare of its parse), and the list's other members
 *    come back in order.
 *
 * One difference is the rule, not a finding: Quantity.UnmarshalJSON reads
 * a quantity's bytes as they stand, so the scanner refuses one holding an
 * escape, while cJSON has already decoded it; a node whose text holds a
 * backslash may then be unusable for the scanner alone.
 */
#ifdef FUZZ_TARGET
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/arena.h"
#include "config/config.h"
#include "server/codec/node.h"
#include "server/codec/nodelist.h"
#include "server/codec/scan.h"
#include "tests/fuzz/fuzz.h"

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz_nodes: " __VA_ARGS__);                                           \
            fputc('\n', stderr);                                                                   \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* ---- the strict reference validator ---- */

struct ref {
    const unsigned char *p, *start, *end;
    int depth;
    int cls;
    size_t at;
};

static bool ref_fail(struct ref *r, const unsigned char *at, int cls)
{
    /* a control character where the grammar wanted something else is
     * named as one (outside strings: inside them it is already) */
    if (cls == CODEC_SCAN_SYNTAX && at < r->end && *at < 0x20 && *at != ' ' && *at != '\t' &&
        *at != '\n' && *at != '\r')
        cls = CODEC_SCAN_CONTROL;
    r->cls = cls;
    r->at = (size_t)(at - r->start);
    return false;
}

static void ref_ws(struct ref *r)
{
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
        r->p++;
}

static int ref_hex(const unsigned char *p, const unsigned char *end, unsigned *out)
{
    *out = 0;
    if (end - p < 4)
        return -1;
    for (int i = 0; i < 4; i++) {
        int c = p[i], d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            d = c - 'A' + 10;
        else
            return -1;
        *out = *out * 16 + (unsigned)d;
    }
    return 0;
}

/* Length of the well-formed UTF-8 character at @p (RFC 3629 table), 0 if
 * none. */
static size_t ref_utf8(const unsigned char *p, const unsigned char *end)
{
    size_t n = (size_t)(end - p);
    unsigned c = p[0];
    if (c >= 0xc2 && c <= 0xdf)
        return n >= 2 && (p[1] & 0xc0) == 0x80 ? 2 : 0;
    if (c >= 0xe0 && c <= 0xef) {
        unsigned lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
        return n >= 3 && p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 ? 3 : 0;
    }
    if (c >= 0xf0 && c <= 0xf4) {
        unsigned lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
        return n >= 4 && p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 && (p[3] & 0xc0) == 0x80
                   ? 4
                   : 0;
    }
    return 0;
}

static bool ref_string(struct ref *r)
{
    r->p++; /* the quote */
    for (;;) {
        if (r->p >= r->end)
            return ref_fail(r, r->p, CODEC_SCAN_SYNTAX);
        unsigned c = *r->p;
        if (c == '"') {
            r->p++;
            return true;
        }
        if (c < 0x20)
            return ref_fail(r, r->p, CODEC_SCAN_CONTROL);
        if (c < 0x80) {
            if (c != '\\') {
                r->p++;
                continue;
            }
            const unsigned char *bs = r->p;
            if (r->end - bs < 2)
                return ref_fail(r, bs, CODEC_SCAN_SYNTAX);
            if (bs[1] != 'u') {
                if (strchr("\"\\/bfnrt", bs[1]) == NULL || bs[1] == 0)
                    return ref_fail(r, bs, CODEC_SCAN_ESCAPE);
                r->p += 2;
                continue;
            }
            unsigned u, lo;
            if (ref_hex(bs + 2, r->end, &u) != 0)
                return ref_fail(r, bs, CODEC_SCAN_ESCAPE);
            if (u == 0)
                return ref_fail(r, bs, CODEC_SCAN_NUL);
            if (u >= 0xdc00 && u <= 0xdfff)
                return ref_fail(r, bs, CODEC_SCAN_ESCAPE); /* a low half first */
            if (u >= 0xd800 && u <= 0xdbff) {
                if (r->end - bs < 12 || bs[6] != '\\' || bs[7] != 'u' ||
                    ref_hex(bs + 8, r->end, &lo) != 0 || lo < 0xdc00 || lo > 0xdfff)
                    return ref_fail(r, bs, CODEC_SCAN_ESCAPE);
                r->p += 12;
                continue;
            }
            r->p += 6;
            continue;
        }
        size_t n = ref_utf8(r->p, r->end);
        if (n == 0)
            return ref_fail(r, r->p, CODEC_SCAN_UTF8);
        r->p += n;
    }
}

static bool ref_digits(struct ref *r)
{
    if (r->p >= r->end || *r->p < '0' || *r->p > '9')
        return ref_fail(r, r->p, CODEC_SCAN_SYNTAX);
    while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
        r->p++;
    return true;
}

static bool ref_number(struct ref *r)
{
    if (*r->p == '-')
        r->p++;
    if (r->p < r->end && *r->p == '0') {
        r->p++;
        if (r->p < r->end && *r->p >= '0' && *r->p <= '9')
            return ref_fail(r, r->p, CODEC_SCAN_SYNTAX);
    } else if (!ref_digits(r)) {
        return false;
    }
    if (r->p < r->end && *r->p == '.') {
        r->p++;
        if (!ref_digits(r))
            return false;
    }
    if (r->p < r->end && (*r->p == 'e' || *r->p == 'E')) {
        r->p++;
        if (r->p < r->end && (*r->p == '+' || *r->p == '-'))
            r->p++;
        if (!ref_digits(r))
            return false;
    }
    return true;
}

static bool ref_value(struct ref *r);

static bool ref_container(struct ref *r, unsigned char close)
{
    if (r->depth >= CODEC_MAX_DEPTH)
        return ref_fail(r, r->p, CODEC_SCAN_DEPTH);
    r->depth++;
    r->p++;
    ref_ws(r);
    if (r->p < r->end && *r->p == close) {
        r->p++;
        r->depth--;
        return true;
    }
    for (;;) {
        if (close == '}') {
            ref_ws(r);
            if (r->p >= r->end || *r->p != '"')
                return ref_fail(r, r->p, CODEC_SCAN_SYNTAX);
            if (!ref_string(r))
                return false;
            ref_ws(r);
            if (r->p >= r->end || *r->p != ':')
                return ref_fail(r, r->p, CODEC_SCAN_SYNTAX);
            r->p++;
        }
        if (!ref_value(r))
            return false;
        ref_ws(r);
        if (r->p < r->end && *r->p == ',') {
            r->p++;
            continue;
        }
        if (r->p < r->end && *r->p == close) {
            r->p++;
            r->depth--;
            return true;
        }
        return ref_fail(r, r->p, CODEC_SCAN_SYNTAX);
    }
}

static bool ref_literal(struct ref *r, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n) != 0)
        return ref_fail(r, r->p, CODEC_SCAN_SYNTAX);
    r->p += n;
    return true;
}

static bool ref_value(struct ref *r)
{
    ref_ws(r);
    if (r->p >= r->end)
        return ref_fail(r, r->p, CODEC_SCAN_SYNTAX);
    switch (*r->p) {
    case '{':
        return ref_container(r, '}');
    case '[':
        return ref_container(r, ']');
    case '"':
        return ref_string(r);
    case 't':
        return ref_literal(r, "true");
    case 'f':
        return ref_literal(r, "false");
    case 'n':
        return ref_literal(r, "null");
    case '-':
        return ref_number(r);
    default:
        if (*r->p >= '0' && *r->p <= '9')
            return ref_number(r);
        return ref_fail(r, r->p, CODEC_SCAN_SYNTAX);
    }
}

/* The reference verdict on @d: CODEC_SCAN_OK, or the class and offset. */
static int ref_validate(const uint8_t *d, size_t n, size_t *at)
{
    struct ref r = {d, d, d + n, 0, CODEC_SCAN_OK, 0};
    if (n >= 3 && memcmp(d, "\xef\xbb\xbf", 3) == 0) {
        *at = 0;
        return CODEC_SCAN_BOM;
    }
    if (ref_value(&r)) {
        ref_ws(&r);
        if (r.p == r.end)
            return CODEC_SCAN_OK;
        ref_fail(&r, r.p, CODEC_SCAN_SYNTAX);
    }
    *at = r.at;
    return r.cls;
}

/* ---- the cJSON path: nodelist.h's list rules on a tree ---- */

struct expect {
    int rc;
    struct codec_node nodes[64];
    const cJSON *items[64];
    size_t n;
    const cJSON *members[256]; /* the list's members other than "items" */
    size_t n_members;
    bool overflow; /* more members than kept: not compared */
};

static bool is_field(const cJSON *item, const char *name)
{
    return item->string != NULL && codec_name_folds(item->string, strlen(item->string), name);
}

/* One "items" array into @e; its fault in *@fault (0, -EINVAL, -E2BIG). */
static void ref_items(const cJSON *arr, const struct cfg *cfg, struct expect *e, int *fault)
{
    const cJSON *it;
    size_t count = 0;
    char err[ERR_LEN];
    e->n = 0;
    *fault = 0;
    cJSON_ArrayForEach(it, arr)
    {
        if (count < (size_t)cfg->max_nodes) {
            if (codec_node_decode(it, cfg, &e->nodes[e->n], err) != 0) {
                if (*fault == 0)
                    *fault = -EINVAL;
            } else {
                e->items[e->n++] = it;
            }
        }
        count++;
    }
    if (count > (size_t)cfg->max_nodes)
        *fault = -E2BIG;
}

static void ref_list(const cJSON *root, const struct cfg *cfg, struct expect *e)
{
    const cJSON *m;
    size_t items_len = 0;
    int items_fault = 0, twice = 0;
    cJSON_ArrayForEach(m, root)
    {
        if (!is_field(m, "items")) {
            if (e->n_members < sizeof(e->members) / sizeof(e->members[0]))
                e->members[e->n_members++] = m;
            else
                e->overflow = true;
            continue;
        }
        size_t before = items_len;
        e->n = 0;
        items_len = 0;
        items_fault = 0;
        if (cJSON_IsArray(m)) {
            ref_items(m, cfg, e, &items_fault);
            items_len = (size_t)cJSON_GetArraySize(m);
            if (before > 0 && items_len > 0 && twice == 0)
                twice = -EINVAL;
        } else if (!cJSON_IsNull(m)) {
            items_fault = -EINVAL;
        }
    }
    e->rc = twice != 0 ? twice : items_fault;
}

static void ref_decode(const cJSON *root, const struct cfg *cfg, struct expect *e)
{
    char err[ERR_LEN];
    const cJSON *m;
    bool list = false;
    memset(e, 0, sizeof(*e));
    if (!cJSON_IsObject(root)) {
        e->rc = -EINVAL;
        return;
    }
    cJSON_ArrayForEach(m, root) list = list || is_field(m, "items");
    if (list) {
        ref_list(root, cfg, e);
        return;
    }
    if (codec_node_decode(root, cfg, &e->nodes[0], err) != 0) {
        e->rc = -EINVAL;
        return;
    }
    e->items[0] = root;
    e->n = 1;
}

/* ---- the comparison ---- */

static bool span_has(struct codec_span s, char c)
{
    return memchr(s.p, c, s.len) != NULL;
}

/* Two trees alike member by member, in order (cJSON_Compare looks keys up
 * by name, which a repeated key defeats). */
static bool same_tree(const cJSON *x, const cJSON *y)
{
    if ((x->type & 0xff) != (y->type & 0xff))
        return false;
    if ((x->string == NULL) != (y->string == NULL) ||
        (x->string != NULL && strcmp(x->string, y->string) != 0))
        return false;
    if (cJSON_IsString(x))
        return strcmp(x->valuestring, y->valuestring) == 0;
    if (cJSON_IsNumber(x))
        return x->valuedouble == y->valuedouble ||
               (x->valuedouble != x->valuedouble && y->valuedouble != y->valuedouble);
    const cJSON *a = x->child, *b = y->child;
    for (; a != NULL && b != NULL; a = a->next, b = b->next)
        if (!same_tree(a, b))
            return false;
    return a == NULL && b == NULL;
}

static void same_span(struct codec_span s, const cJSON *want, const char *what)
{
    cJSON *got = cJSON_ParseWithLength(s.p, s.len);
    CHECK(got != NULL, "%s span %.*s does not parse", what, (int)s.len, s.p);
    /* the span's own value has no member name; compare below it */
    const char *name = want->string;
    ((cJSON *)(uintptr_t)want)->string = NULL;
    bool same = same_tree(got, want);
    ((cJSON *)(uintptr_t)want)->string = (char *)(uintptr_t)name;
    CHECK(same, "%s span %.*s", what, (int)s.len, s.p);
    cJSON_Delete(got);
}

static void same_node(const struct codec_node *got, const struct codec_node *want, size_t i)
{
    CHECK(strcmp(got->name, want->name) == 0, "node %zu name %s, want %s", i, got->name,
          want->name);
    /* A quantity with an escape: the scanner's reason may be an earlier
     * quantity than the cJSON path's (which decoded the escape). */
    bool escaped = span_has(got->json, '\\');
    bool quantity_reason = got->invalid != NULL && (strstr(got->invalid, "allocatable ") != NULL ||
                                                    strstr(got->invalid, "-used ") != NULL);
    if (!(escaped && quantity_reason)) {
        CHECK((got->invalid == NULL) == (want->invalid == NULL) &&
                  (got->invalid == NULL || strcmp(got->invalid, want->invalid) == 0),
              "node %s reason %s, want %s", got->name, got->invalid ? got->invalid : "-",
              want->invalid ? want->invalid : "-");
    }
    if (got->invalid == NULL && want->invalid == NULL) {
        for (int r = 0; r < SCORE_NRES; r++) {
            CHECK(got->res.alloc[r] == want->res.alloc[r], "node %s alloc[%d] %lld, want %lld",
                  got->name, r, (long long)got->res.alloc[r], (long long)want->res.alloc[r]);
            CHECK(got->res.used[r] == want->res.used[r], "node %s used[%d]", got->name, r);
        }
    }
    CHECK(got->pods == want->pods || (escaped && got->pods == -1), "node %s pods %lld, want %lld",
          got->name, (long long)got->pods, (long long)want->pods);
}

static void compare(const struct codec_args *got, int rc, const struct expect *e)
{
    CHECK(rc == e->rc, "verdict %d, cJSON path %d", rc, e->rc);
    if (rc != 0)
        return;
    CHECK(got->n_nodes == e->n, "%zu nodes, cJSON path %zu", got->n_nodes, e->n);
    for (size_t i = 0; i < e->n; i++) {
        same_node(&got->nodes[i], &e->nodes[i], i);
        same_span(got->nodes[i].json, e->items[i], "node");
    }
    CHECK(got->n_list_members == e->n_members, "%zu list members, want %zu", got->n_list_members,
          e->n_members);
    for (size_t i = 0; i < e->n_members; i++) {
        const struct codec_member *m = &got->list_members[i];
        cJSON *key = cJSON_ParseWithLength(m->key.p, m->key.len);
        CHECK(cJSON_IsString(key) && strcmp(key->valuestring, e->members[i]->string) == 0,
              "member %zu key %.*s", i, (int)m->key.len, m->key.p);
        cJSON_Delete(key);
        same_span(m->value, e->members[i], "member");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct cfg cfg;
    static bool ready;
    if (!ready) {
        cfg_defaults(&cfg);
        ready = true;
    }
    cfg.max_nodes = 1 + (int)(size % 5); /* past it now and then: -E2BIG */
    /* the used-annotations on for half the inputs, with names the
     * dictionary has */
    strcpy(cfg.used_annotation[SCORE_CPU], size % 2 ? "cpu-extender.io/cpu-used" : "");
    strcpy(cfg.used_annotation[SCORE_MEMORY], size % 2 ? "cpu-extender.io/memory-used" : "");

    /* the grammar */
    size_t ref_at = 0;
    int ref_cls = ref_validate(data, size, &ref_at);
    struct codec_scan s;
    int scan_rc = codec_scan_validate((const char *)data, size, &s);
    CHECK((scan_rc == 0) == (ref_cls == CODEC_SCAN_OK), "scanner %s, reference class %d at %zu",
          scan_rc == 0 ? "accepts" : s.why, ref_cls, ref_at);
    if (scan_rc != 0) {
        CHECK(s.cls == ref_cls && (size_t)(s.at - s.start) == ref_at,
              "scanner class %d at %zu (%s), reference %d at %zu", s.cls, (size_t)(s.at - s.start),
              s.why, ref_cls, ref_at);
    }

    /* the decoders */
    struct arena *a = arena_acquire();
    CHECK(a != NULL, "arena");
    struct codec_args got;
    char err[ERR_LEN];
    int rc = codec_nodelist_decode(a, (const char *)data, size, &cfg, "Nodes", &got, err);
    CHECK(rc == 0 || err[0] != '\0', "a refusal without a message");
    if (ref_cls == CODEC_SCAN_OK) {
        cJSON *root = cJSON_ParseWithLength((const char *)data, size);
        CHECK(root != NULL, "cJSON refuses what the reference accepts");
        static struct expect e;
        ref_decode(root, &cfg, &e);
        if (!e.overflow)
            compare(&got, rc, &e);
        cJSON_Delete(root);
    } else {
        CHECK(rc == -EINVAL, "malformed body, verdict %d", rc);
    }
    arena_release(a);
    return 0;
}
#endif

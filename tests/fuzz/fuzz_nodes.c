/*
 * libFuzzer target: the Node scanner (server/codec/nodelist.c, the one
 * Node decoder: requests, `rank` and the node informer) against a strict
 * JSON validator written here from RFC 8259 plus our refusals (NUL in any
 * form, a lone surrogate escape, a byte-order mark, more than
 * CODEC_MAX_DEPTH levels), sharing none of its code: the scanner accepts
 * exactly what it accepts, and refuses with the same class of error at the
 * same byte. A malformed body is refused as such; each node of an accepted
 * list, its span read again as one Node (codec_node_decode(), what the
 * informer uses), is the same node.
 */
#ifdef FUZZ_TARGET
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "config/config.h"
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

/* ---- the decoders ---- */

/* Each node of a list, read again from its span as one Node, is the same. */
static void same_alone(struct arena *a, const struct codec_args *got, const struct cfg *cfg)
{
    char err[ERR_LEN];
    for (size_t i = 0; i < got->n_nodes; i++) {
        const struct codec_node *n = &got->nodes[i];
        struct codec_node alone;
        CHECK(codec_node_decode(a, n->json.p, n->json.len, cfg, &alone, err) == 0,
              "node %s alone: %s", n->name, err);
        CHECK(strcmp(alone.name, n->name) == 0, "node %s alone is %s", n->name, alone.name);
        CHECK((alone.invalid == NULL) == (n->invalid == NULL) &&
                  (n->invalid == NULL || strcmp(alone.invalid, n->invalid) == 0),
              "node %s alone: reason %s, in the list %s", n->name,
              alone.invalid ? alone.invalid : "-", n->invalid ? n->invalid : "-");
        CHECK(memcmp(&alone.res, &n->res, sizeof(n->res)) == 0 && alone.pods == n->pods,
              "node %s alone: other capacity", n->name);
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
    if (ref_cls != CODEC_SCAN_OK)
        CHECK(rc == -EINVAL, "malformed body, verdict %d", rc);
    else if (rc == 0)
        same_alone(a, &got, &cfg);
    arena_release(a);
    return 0;
}
#endif

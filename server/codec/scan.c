#include "server/codec/scan.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "base/err.h"
#include "base/utf8.h"

static bool is_ws(char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

int codec_scan_fail(struct codec_scan *s, int cls, const char *why)
{
    /* Outside strings, a control character where the grammar wanted
     * something else is named as what it is. */
    if (cls == CODEC_SCAN_SYNTAX && s->p < s->end && (unsigned char)*s->p < 0x20 && !is_ws(*s->p)) {
        cls = CODEC_SCAN_CONTROL;
        why = "control character";
    }
    if (s->why == NULL) {
        s->why = why;
        s->at = s->p < s->end ? s->p : s->end;
        s->cls = cls;
    }
    s->p = s->end; /* nothing after the first failure is read */
    return -EINVAL;
}

/* A failure at @at rather than at the scan point. */
static int fail_at(struct codec_scan *s, const char *at, int cls, const char *why)
{
    s->p = at;
    return codec_scan_fail(s, cls, why);
}

void codec_scan_init(struct codec_scan *s, const char *body, size_t len)
{
    s->start = s->p = body;
    s->end = body + len;
    s->depth = 0;
    s->why = NULL;
    s->at = NULL;
    s->cls = CODEC_SCAN_OK;
    if (len >= 3 && memcmp(body, "\xef\xbb\xbf", 3) == 0)
        codec_scan_fail(s, CODEC_SCAN_BOM, "byte-order mark before the JSON text");
}

char codec_scan_peek(struct codec_scan *s)
{
    const char *p = s->p;
    while (p < s->end && is_ws(*p))
        p++;
    s->p = p;
    return p < s->end ? *p : '\0';
}

/* The first byte at or after @p that ends a run of plain string bytes: a
 * quote, a backslash, a control character or a byte of a multi-byte UTF-8
 * sequence. Sixteen bytes at a time where SSE2 is there: most of a Node
 * object's bytes are inside strings (image names, managed fields). */
static const char *plain_run(const char *p, const char *end)
{
#ifdef __SSE2__
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
    const __m128i space = _mm_set1_epi8(0x20);
    while (end - p >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        /* Signed: bytes 0x80..0xff are negative, so one compare finds the
         * control characters and the non-ASCII bytes. */
        __m128i stop =
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                         _mm_cmplt_epi8(v, space));
        int mask = _mm_movemask_epi8(stop);
        if (mask != 0)
            return p + __builtin_ctz((unsigned)mask);
        p += 16;
    }
#endif
    while (p < end) {
        unsigned char c = (unsigned char)*p;
        if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80)
            return p;
        p++;
    }
    return p;
}

/* Checks the escape at @p (a backslash) and returns the byte after it, or
 * NULL after recording the failure. A \u escape of a high surrogate must be
 * followed by one of a low surrogate. */
static const char *escape(struct codec_scan *s, const char *p)
{
    const char *end = s->end;
    unsigned u, lo;
    if (end - p < 2) {
        fail_at(s, p, CODEC_SCAN_SYNTAX, "an unterminated string");
        return NULL;
    }
    if (p[1] != 'u') {
        if (strchr("\"\\/bfnrt", p[1]) == NULL || p[1] == '\0') {
            fail_at(s, p, CODEC_SCAN_ESCAPE, "invalid escape in a string");
            return NULL;
        }
        return p + 2;
    }
    if (end - p < 6 || codec_str_hex4(p + 2, &u) != 0) {
        fail_at(s, p, CODEC_SCAN_ESCAPE, "invalid \\u escape in a string");
        return NULL;
    }
    if (u == 0) {
        fail_at(s, p, CODEC_SCAN_NUL, "NUL character in a string");
        return NULL;
    }
    if (u < 0xd800 || u > 0xdfff)
        return p + 6;
    if (u >= 0xdc00 || end - p < 12 || p[6] != '\\' || p[7] != 'u' ||
        codec_str_hex4(p + 8, &lo) != 0 || lo < 0xdc00 || lo > 0xdfff) {
        fail_at(s, p, CODEC_SCAN_ESCAPE, "invalid \\u escape in a string: an unpaired surrogate");
        return NULL;
    }
    return p + 12;
}

/* The closing quote of the string whose body starts at @p, or NULL after
 * recording the failure; *@escaped is set when it holds an escape. */
static inline const char *string_end(struct codec_scan *s, const char *p, bool *escaped)
{
    const char *end = s->end;
    for (;;) {
        p = plain_run(p, end);
        if (p >= end) {
            fail_at(s, p, CODEC_SCAN_SYNTAX, "an unterminated string");
            return NULL;
        }
        unsigned char c = (unsigned char)*p;
        if (c == '"')
            return p;
        if (c == '\\') {
            *escaped = true;
            if ((p = escape(s, p)) == NULL)
                return NULL;
        } else if (c < 0x20) {
            fail_at(s, p, CODEC_SCAN_CONTROL, "control character in a string");
            return NULL;
        } else {
            size_t n = utf8_seq_len((const unsigned char *)p, (size_t)(end - p));
            if (n == 0) {
                fail_at(s, p, CODEC_SCAN_UTF8, "invalid UTF-8");
                return NULL;
            }
            p += n;
        }
    }
}

int codec_scan_string(struct codec_scan *s, struct codec_str *out)
{
    bool escaped = false;
    if (s->p >= s->end || *s->p != '"')
        return codec_scan_fail(s, CODEC_SCAN_SYNTAX, "want a string");
    const char *q = string_end(s, s->p + 1, &escaped);
    if (q == NULL)
        return -EINVAL;
    out->p = s->p + 1;
    out->len = (size_t)(q - out->p);
    out->escaped = escaped;
    s->p = q + 1;
    return 0;
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

int codec_scan_number(struct codec_scan *s, struct codec_span *out)
{
    const char *p = s->p, *end = s->end;

    if (p < end && *p == '-')
        p++;
    if (p >= end || !is_digit(*p))
        return fail_at(s, p, CODEC_SCAN_SYNTAX, "want a digit");
    if (*p == '0') {
        p++;
        if (p < end && is_digit(*p))
            return fail_at(s, p, CODEC_SCAN_SYNTAX, "a number with a leading zero");
    } else {
        while (p < end && is_digit(*p))
            p++;
    }
    if (p < end && *p == '.') {
        p++;
        if (p >= end || !is_digit(*p))
            return fail_at(s, p, CODEC_SCAN_SYNTAX, "want a digit after the decimal point");
        while (p < end && is_digit(*p))
            p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        if (p >= end || !is_digit(*p))
            return fail_at(s, p, CODEC_SCAN_SYNTAX, "want a digit in the exponent");
        while (p < end && is_digit(*p))
            p++;
    }
    out->p = s->p;
    out->len = (size_t)(p - s->p);
    s->p = p;
    return 0;
}

/* A scalar at the scan point: a string, a number, true, false or null. */
static int scalar(struct codec_scan *s)
{
    struct codec_str str;
    struct codec_span num;
    const char *p = s->p;
    size_t left = (size_t)(s->end - p);

    switch (p < s->end ? *p : '\0') {
    case '"':
        return codec_scan_string(s, &str);
    case 't':
        if (left >= 4 && memcmp(p, "true", 4) == 0) {
            s->p += 4;
            return 0;
        }
        break;
    case 'f':
        if (left >= 5 && memcmp(p, "false", 5) == 0) {
            s->p += 5;
            return 0;
        }
        break;
    case 'n':
        if (left >= 4 && memcmp(p, "null", 4) == 0) {
            s->p += 4;
            return 0;
        }
        break;
    default:
        if (*p == '-' || is_digit(*p))
            return codec_scan_number(s, &num);
        break;
    }
    return codec_scan_fail(s, CODEC_SCAN_SYNTAX,
                           p < s->end ? "want a value" : "the body ends early");
}

#define STR_(x)   #x
#define STR(x)    STR_(x)
#define DEPTH_WHY "JSON nested too deeply: more than " STR(CODEC_MAX_DEPTH) " levels"

static int open_container(struct codec_scan *s)
{
    if (s->depth >= CODEC_MAX_DEPTH)
        return codec_scan_fail(s, CODEC_SCAN_DEPTH, DEPTH_WHY);
    s->depth++;
    s->p++;
    return 0;
}

int codec_scan_object(struct codec_scan *s)
{
    if (codec_scan_peek(s) != '{')
        return codec_scan_fail(s, CODEC_SCAN_SYNTAX, "want an object");
    return open_container(s);
}

int codec_scan_members(struct codec_scan *s,
                       int (*fn)(struct codec_scan *s, struct codec_str key, void *ctx), void *ctx)
{
    if (codec_scan_object(s) != 0)
        return -EINVAL;
    for (bool first = true;; first = false) {
        struct codec_str key;
        bool more;
        if (codec_scan_member(s, first, &key, &more) != 0)
            return -EINVAL;
        if (!more)
            return 0;
        if (fn(s, key, ctx) != 0)
            return -EINVAL;
    }
}

int codec_scan_array(struct codec_scan *s)
{
    if (codec_scan_peek(s) != '[')
        return codec_scan_fail(s, CODEC_SCAN_SYNTAX, "want an array");
    return open_container(s);
}

/* What may come after an element or member: a comma or the closing
 * bracket @close. Sets *@more; at the close the container is left. */
static int separator(struct codec_scan *s, bool first, char close, bool *more)
{
    char c = codec_scan_peek(s);
    if (c == close) {
        s->p++;
        s->depth--;
        *more = false;
        return 0;
    }
    if (!first) {
        if (c != ',')
            return codec_scan_fail(s, CODEC_SCAN_SYNTAX,
                                   close == '}' ? "want ',' or '}'" : "want ',' or ']'");
        s->p++;
        (void)codec_scan_peek(s); /* past the white space, to the next value */
    }
    *more = true;
    return 0;
}

int codec_scan_member(struct codec_scan *s, bool first, struct codec_str *key, bool *more)
{
    if (separator(s, first, '}', more) != 0 || !*more)
        return s->why != NULL ? -EINVAL : 0;
    if (codec_scan_peek(s) != '"')
        return codec_scan_fail(s, CODEC_SCAN_SYNTAX, "want a member name");
    if (codec_scan_string(s, key) != 0)
        return -EINVAL;
    if (codec_scan_peek(s) != ':')
        return codec_scan_fail(s, CODEC_SCAN_SYNTAX, "want ':'");
    s->p++;
    codec_scan_peek(s);
    return 0;
}

int codec_scan_element(struct codec_scan *s, bool first, bool *more)
{
    if (separator(s, first, ']', more) != 0)
        return -EINVAL;
    return 0;
}

/* The kind of container at each depth below the one skip started at: one
 * bit per level, 1 for an object. */
struct kinds {
    uint64_t bits[(CODEC_MAX_DEPTH + 63) / 64];
};

static void set_kind(struct kinds *k, unsigned level, bool object)
{
    uint64_t m = (uint64_t)1 << (level % 64);
    k->bits[level / 64] = object ? k->bits[level / 64] | m : k->bits[level / 64] & ~m;
}

static bool is_object(const struct kinds *k, unsigned level)
{
    return (k->bits[level / 64] >> (level % 64)) & 1;
}

/* White space as JSON has it. */
static const char *skip_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    return p;
}

/*
 * Validates one value and passes over it: the hot loop of every request
 * (most of a Node object is skipped). A state machine on a local pointer,
 * the kind of each open container in a bit per level; the helpers it calls
 * (strings, numbers, literals) are the same as the pull functions'.
 */
int codec_scan_skip(struct codec_scan *s)
{
    struct kinds k;
    const unsigned base = s->depth;
    const char *p = s->p, *end = s->end;
    bool escaped;

value:
    p = skip_ws(p, end);
    if (p >= end)
        goto fail_early;
    switch (*p) {
    case '{':
    case '[':
        if (s->depth >= CODEC_MAX_DEPTH) {
            s->p = p;
            return codec_scan_fail(s, CODEC_SCAN_DEPTH, DEPTH_WHY);
        }
        set_kind(&k, s->depth++, *p == '{');
        p = skip_ws(p + 1, end);
        if (p < end && (*p == '}' || *p == ']') && (*p == '}') == is_object(&k, s->depth - 1)) {
            p++;
            s->depth--;
            goto after;
        }
        if (is_object(&k, s->depth - 1))
            goto key;
        goto value;
    case '"':
        escaped = false;
        if ((p = string_end(s, p + 1, &escaped)) == NULL)
            return -EINVAL;
        p++;
        goto after;
    default:
        s->p = p;
        if (scalar(s) != 0)
            return -EINVAL;
        p = s->p;
        goto after;
    }
key:
    if (p >= end || *p != '"') {
        s->p = p;
        return codec_scan_fail(s, CODEC_SCAN_SYNTAX, "want a member name");
    }
    escaped = false;
    if ((p = string_end(s, p + 1, &escaped)) == NULL)
        return -EINVAL;
    p = skip_ws(p + 1, end);
    if (p >= end || *p != ':') {
        s->p = p;
        return codec_scan_fail(s, CODEC_SCAN_SYNTAX, "want ':'");
    }
    p++;
    goto value;
after:
    if (s->depth == base) {
        s->p = p;
        return 0;
    }
    p = skip_ws(p, end);
    if (p < end && *p == ',') {
        p = skip_ws(p + 1, end);
        if (is_object(&k, s->depth - 1))
            goto key;
        goto value;
    }
    if (p < end && *p == (is_object(&k, s->depth - 1) ? '}' : ']')) {
        p++;
        s->depth--;
        goto after;
    }
    s->p = p;
    return codec_scan_fail(s, CODEC_SCAN_SYNTAX,
                           is_object(&k, s->depth - 1) ? "want ',' or '}'" : "want ',' or ']'");
fail_early:
    s->p = p;
    return codec_scan_fail(s, CODEC_SCAN_SYNTAX, "the body ends early");
}

int codec_scan_end(struct codec_scan *s)
{
    if (s->why != NULL)
        return -EINVAL;
    char c = codec_scan_peek(s);
    if (c == '\0' && s->p == s->end)
        return 0;
    return codec_scan_fail(s, CODEC_SCAN_SYNTAX, "bytes after the JSON value");
}

int codec_scan_validate(const char *body, size_t len, struct codec_scan *s)
{
    codec_scan_init(s, body, len);
    if (s->why != NULL || codec_scan_skip(s) != 0)
        return -EINVAL;
    return codec_scan_end(s);
}

void codec_scan_error(const struct codec_scan *s, char *err)
{
    size_t at = (size_t)(s->at - s->start), len = (size_t)(s->end - s->start);
    switch (s->cls) {
    case CODEC_SCAN_SYNTAX:
        err_set(err, "malformed JSON at byte %zu of %zu: %s", at, len, s->why);
        break;
    case CODEC_SCAN_BOM:
        err_set(err, "%s", s->why);
        break;
    default:
        err_set(err, "%s at byte %zu", s->why, at);
        break;
    }
}

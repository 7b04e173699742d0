#include "server/codec/span.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char *skip_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

/* @p at the opening quote; returns just past the closing one. memchr finds
 * the candidates (most of a Node object's bytes are inside strings); a quote
 * is escaped when an odd number of backslashes stands before it. */
static const char *skip_string(const char *p, const char *end)
{
    const char *from = p + 1;
    for (;;) {
        const char *q = memchr(from, '"', (size_t)(end - from));
        if (q == NULL)
            return end;
        const char *b = q;
        while (b > from && b[-1] == '\\')
            b--;
        if ((q - b) % 2 == 0)
            return q + 1;
        from = q + 1;
    }
}

/* What matters while skipping a container: strings, and brackets. */
enum {
    OTHER = 0,
    QUOTE,
    OPEN,
    CLOSE,
};

static const unsigned char structural[256] = {
    ['"'] = QUOTE, ['{'] = OPEN, ['['] = OPEN, ['}'] = CLOSE, [']'] = CLOSE,
};

/* Skips one value: a string, a nested object or array (by counting brackets
 * outside strings: no recursion, whatever the depth), or a scalar. */
static const char *skip_value(const char *p, const char *end)
{
    if (p >= end)
        return end;
    if (*p == '"')
        return skip_string(p, end);
    if (*p == '{' || *p == '[') {
        size_t depth = 0;
        while (p < end) {
            switch (structural[(unsigned char)*p]) {
            case QUOTE:
                p = skip_string(p, end);
                continue;
            case OPEN:
                depth++;
                break;
            case CLOSE:
                if (--depth == 0)
                    return p + 1;
                break;
            default:
                break;
            }
            p++;
        }
        return end;
    }
    while (p < end && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\t' &&
           *p != '\n' && *p != '\r')
        p++;
    return p;
}

struct codec_span codec_span_root(const char *body, size_t len)
{
    const char *end = body + len, *p = skip_ws(body, end);
    struct codec_span s = {p, (size_t)(skip_value(p, end) - p)};
    return s;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)tolower((unsigned char)c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

bool codec_span_key_is(struct codec_span key, const char *name, bool fold)
{
    const char *p = key.p + 1, *end = key.p + key.len - 1;
    size_t i = 0;

    while (p < end) {
        int c = (unsigned char)*p++;
        if (c == '\\' && p < end) {
            char e = *p++;
            switch (e) {
            case 'u':
                if (end - p < 4)
                    return false;
                c = 0;
                for (int k = 0; k < 4; k++) {
                    int h = hexval(p[k]);
                    if (h < 0)
                        return false;
                    c = c * 16 + h;
                }
                p += 4;
                if (c >= 0x80) /* our names are ASCII */
                    return false;
                break;
            case 'b':
                c = '\b';
                break;
            case 'f':
                c = '\f';
                break;
            case 'n':
                c = '\n';
                break;
            case 'r':
                c = '\r';
                break;
            case 't':
                c = '\t';
                break;
            default:
                c = (unsigned char)e;
                break;
            }
        }
        if (name[i] == '\0')
            return false;
        if (fold ? tolower(c) != tolower((unsigned char)name[i]) : c != (unsigned char)name[i])
            return false;
        i++;
    }
    return name[i] == '\0';
}

void codec_span_members(struct codec_span obj,
                        void (*fn)(void *ctx, struct codec_span key, struct codec_span value),
                        void *ctx)
{
    const char *end = obj.p + obj.len, *p = obj.p;
    if (obj.len == 0 || *p != '{')
        return;
    p = skip_ws(p + 1, end);
    while (p < end && *p == '"') {
        struct codec_span key = {p, 0}, value;
        p = skip_string(p, end);
        key.len = (size_t)(p - key.p);
        p = skip_ws(p, end);
        p = skip_ws(p + 1, end); /* ':' */
        value.p = p;
        p = skip_value(p, end);
        value.len = (size_t)(p - value.p);
        fn(ctx, key, value);
        p = skip_ws(p, end);
        if (p < end && *p == ',')
            p = skip_ws(p + 1, end);
    }
}

struct find {
    const char *key;
    bool fold, found;
    struct codec_span value;
};

static void find_member(void *ctx, struct codec_span key, struct codec_span value)
{
    struct find *f = ctx;
    if (codec_span_key_is(key, f->key, f->fold)) {
        f->found = true;
        f->value = value;
    }
}

bool codec_span_member(struct codec_span obj, const char *key, bool fold, struct codec_span *out)
{
    struct find f = {.key = key, .fold = fold};
    codec_span_members(obj, find_member, &f);
    if (f.found)
        *out = f.value;
    return f.found;
}

/* Members of a NodeList object at @p ('{'); returns the end of the object.
 * Descends into "items" (recording its elements) instead of skipping it. */
static const char *scan_list(const char *p, const char *end, struct codec_node_list_spans *out)
{
    const char *start = p;
    out->n_members = 0;
    out->overflow = false;
    out->n_elements = 0;
    p = skip_ws(p + 1, end);
    while (p < end && *p == '"') {
        struct codec_span key = {p, 0}, value;
        p = skip_string(p, end);
        key.len = (size_t)(p - key.p);
        p = skip_ws(skip_ws(p, end) + 1, end);
        value.p = p;
        if (codec_span_key_is(key, "items", false)) {
            out->n_elements = 0; /* the last "items" wins */
            if (p < end && *p == '[') {
                p = skip_ws(p + 1, end);
                while (p < end && *p != ']') {
                    const char *e = p;
                    p = skip_value(p, end);
                    if (p == e)
                        break; /* not JSON the parser accepted: stop rather than spin */
                    if (out->n_elements < out->max_elements) {
                        out->elements[out->n_elements].p = e;
                        out->elements[out->n_elements].len = (size_t)(p - e);
                    }
                    out->n_elements++;
                    p = skip_ws(p, end);
                    if (p < end && *p == ',')
                        p = skip_ws(p + 1, end);
                }
                p = p < end ? p + 1 : end;
            } else {
                p = skip_value(p, end);
            }
        } else {
            p = skip_value(p, end);
            value.len = (size_t)(p - value.p);
            if (out->n_members < CODEC_SPAN_MAX_MEMBERS) {
                out->keys[out->n_members] = key;
                out->values[out->n_members] = value;
                out->n_members++;
            } else {
                out->overflow = true;
            }
        }
        p = skip_ws(p, end);
        if (p < end && *p == ',')
            p = skip_ws(p + 1, end);
    }
    p = p < end ? p + 1 : end;
    out->list.p = start;
    out->list.len = (size_t)(p - start);
    return p;
}

void codec_span_node_list(const char *body, size_t len, struct codec_node_list_spans *out)
{
    struct codec_span root = codec_span_root(body, len);
    const char *end = root.p + root.len, *p = root.p;

    out->found = false;
    if (root.len == 0 || *p != '{')
        return;
    p = skip_ws(p + 1, end);
    while (p < end && *p == '"') {
        struct codec_span key = {p, 0};
        p = skip_string(p, end);
        key.len = (size_t)(p - key.p);
        p = skip_ws(skip_ws(p, end) + 1, end);
        if (codec_span_key_is(key, "Nodes", true) && p < end && *p == '{') {
            p = scan_list(p, end, out); /* a later "Nodes" overwrites */
            out->found = true;
        } else {
            if (codec_span_key_is(key, "Nodes", true))
                out->found = false; /* the last one is not an object */
            p = skip_value(p, end);
        }
        p = skip_ws(p, end);
        if (p < end && *p == ',')
            p = skip_ws(p + 1, end);
    }
}

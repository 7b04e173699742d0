#include "server/jspan.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char *skip_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

/* @p at the opening quote; returns just past the closing one. */
static const char *skip_string(const char *p, const char *end)
{
    for (p++; p < end && *p != '"'; p++)
        if (*p == '\\')
            p++;
    return p < end ? p + 1 : end;
}

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
            if (*p == '"') {
                p = skip_string(p, end);
                continue;
            }
            if (*p == '{' || *p == '[')
                depth++;
            else if ((*p == '}' || *p == ']') && --depth == 0)
                return p + 1;
            p++;
        }
        return end;
    }
    while (p < end && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\t' &&
           *p != '\n' && *p != '\r')
        p++;
    return p;
}

struct jspan srv_span_root(const char *body, size_t len)
{
    const char *end = body + len, *p = skip_ws(body, end);
    struct jspan s = {p, (size_t)(skip_value(p, end) - p)};
    return s;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)tolower((unsigned char)c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

bool srv_span_key_is(struct jspan key, const char *name, bool fold)
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

void srv_span_members(struct jspan obj, void (*fn)(void *ctx, struct jspan key, struct jspan value),
                      void *ctx)
{
    const char *end = obj.p + obj.len, *p = obj.p;
    if (obj.len == 0 || *p != '{')
        return;
    p = skip_ws(p + 1, end);
    while (p < end && *p == '"') {
        struct jspan key = {p, 0}, value;
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
    struct jspan value;
};

static void find_member(void *ctx, struct jspan key, struct jspan value)
{
    struct find *f = ctx;
    if (srv_span_key_is(key, f->key, f->fold)) {
        f->found = true;
        f->value = value;
    }
}

bool srv_span_member(struct jspan obj, const char *key, bool fold, struct jspan *out)
{
    struct find f = {.key = key, .fold = fold};
    srv_span_members(obj, find_member, &f);
    if (f.found)
        *out = f.value;
    return f.found;
}

size_t srv_span_elements(struct jspan arr, struct jspan *out, size_t max)
{
    const char *end = arr.p + arr.len, *p = arr.p;
    size_t n = 0;
    if (arr.len == 0 || *p != '[')
        return 0;
    p = skip_ws(p + 1, end);
    while (p < end && *p != ']') {
        const char *start = p;
        p = skip_value(p, end);
        if (n < max) {
            out[n].p = start;
            out[n].len = (size_t)(p - start);
        }
        n++;
        p = skip_ws(p, end);
        if (p < end && *p == ',')
            p = skip_ws(p + 1, end);
    }
    return n;
}

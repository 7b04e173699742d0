#include "base/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/utf8.h"

void buf_init(struct buf *b, size_t hint)
{
    buf_init_arena(b, NULL, hint);
}

void buf_init_arena(struct buf *b, struct arena *a, size_t hint)
{
    b->len = 0;
    b->cap = hint < 256 ? 256 : hint;
    b->arena = a;
    b->data = a != NULL ? arena_alloc(a, b->cap) : malloc(b->cap);
    b->failed = b->data == NULL;
}

/* Room for @cap bytes holding what @b has so far, or NULL. */
static char *regrow(struct buf *b, size_t cap)
{
    if (b->arena == NULL)
        return realloc(b->data, cap);
    char *d = arena_alloc(b->arena, cap);
    if (d != NULL)
        memcpy(d, b->data, b->len);
    return d;
}

static bool reserve(struct buf *b, size_t more)
{
    if (b->failed)
        return false;
    if (b->cap - b->len > more)
        return true;
    size_t cap = b->cap;
    while (cap - b->len <= more) {
        if (cap > SIZE_MAX / 2)
            goto out_fail;
        cap *= 2;
    }
    char *d = regrow(b, cap);
    if (d == NULL)
        goto out_fail;
    b->data = d;
    b->cap = cap;
    return true;

out_fail:
    if (b->arena == NULL)
        free(b->data);
    b->data = NULL;
    b->failed = true;
    return false;
}

void buf_raw(struct buf *b, const char *s, size_t len)
{
    if (!reserve(b, len))
        return;
    memcpy(b->data + b->len, s, len);
    b->len += len;
}

void buf_str(struct buf *b, const char *s)
{
    buf_raw(b, s, strlen(s));
}

void buf_int(struct buf *b, int64_t v)
{
    /* Digits by hand: snprintf was a tenth of a NodeNames prioritize call
     * (one score per node). The magnitude as unsigned covers INT64_MIN. */
    char text[24];
    size_t i = sizeof(text);
    uint64_t m = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do {
        text[--i] = (char)('0' + m % 10);
        m /= 10;
    } while (m != 0);
    if (v < 0)
        text[--i] = '-';
    buf_raw(b, text + i, sizeof(text) - i);
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n >= 0 && reserve(b, (size_t)n + 1)) {
        vsnprintf(b->data + b->len, (size_t)n + 1, fmt, again);
        b->len += (size_t)n;
    }
    va_end(again);
}

void buf_json_strn(struct buf *b, const char *s, size_t len)
{
    /* Worst case per byte: "\u00XX" (6) or U+FFFD (3). */
    if (len > (SIZE_MAX - 2) / 6 || !reserve(b, 6 * len + 2))
        return;
    const unsigned char *c = (const unsigned char *)s, *end = c + len;
    char *p = b->data + b->len;
    *p++ = '"';
    while (c < end) {
        if (*c >= 0x80) {
            size_t n = utf8_seq_len(c, (size_t)(end - c));
            if (n == 0) {
                memcpy(p, "\xef\xbf\xbd", 3);
                p += 3;
                c++;
            } else {
                memcpy(p, c, n);
                p += n;
                c += n;
            }
            continue;
        }
        if (*c == '"' || *c == '\\') {
            *p++ = '\\';
            *p++ = (char)*c;
        } else if (*c < 0x20) {
            p += sprintf(p, "\\u%04x", *c);
        } else {
            *p++ = (char)*c;
        }
        c++;
    }
    *p++ = '"';
    b->len = (size_t)(p - b->data);
}

char *buf_take(struct buf *b, size_t *len)
{
    if (!reserve(b, 1))
        return NULL;
    b->data[b->len] = '\0';
    char *d = b->data;
    *len = b->len;
    b->data = NULL;
    b->len = b->cap = 0;
    return d;
}

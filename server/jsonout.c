#include "server/jsonout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void srv_out_init(struct jsonout *o, size_t hint)
{
    o->len = 0;
    o->cap = hint < 256 ? 256 : hint;
    o->buf = malloc(o->cap);
    o->failed = o->buf == NULL;
}

static bool reserve(struct jsonout *o, size_t more)
{
    if (o->failed)
        return false;
    if (o->cap - o->len > more)
        return true;
    size_t cap = o->cap;
    while (cap - o->len <= more) {
        if (cap > SIZE_MAX / 2)
            goto out_fail;
        cap *= 2;
    }
    char *b = realloc(o->buf, cap);
    if (b == NULL)
        goto out_fail;
    o->buf = b;
    o->cap = cap;
    return true;

out_fail:
    free(o->buf);
    o->buf = NULL;
    o->failed = true;
    return false;
}

void srv_out_raw(struct jsonout *o, const char *s, size_t len)
{
    if (!reserve(o, len))
        return;
    memcpy(o->buf + o->len, s, len);
    o->len += len;
}

void srv_out_str(struct jsonout *o, const char *s)
{
    srv_out_raw(o, s, strlen(s));
}

void srv_out_quoted(struct jsonout *o, const char *s)
{
    size_t n = strlen(s);
    if (!reserve(o, 6 * n + 2))
        return;
    char *p = o->buf + o->len;
    *p++ = '"';
    for (const unsigned char *c = (const unsigned char *)s; *c != '\0'; c++) {
        if (*c == '"' || *c == '\\') {
            *p++ = '\\';
            *p++ = (char)*c;
        } else if (*c < 0x20) {
            p += sprintf(p, "\\u%04x", *c);
        } else {
            *p++ = (char)*c;
        }
    }
    *p++ = '"';
    o->len = (size_t)(p - o->buf);
}

void srv_utf8_trim(char *s)
{
    size_t len = strlen(s), start = len;
    /* Back over continuation bytes (10xxxxxx) to the last lead byte. */
    while (start > 0 && ((unsigned char)s[start - 1] & 0xC0) == 0x80 && len - start < 3)
        start--;
    if (start == 0)
        return;
    unsigned char lead = (unsigned char)s[start - 1];
    size_t want = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    if (want > 1 && len - (start - 1) < want)
        s[start - 1] = '\0';
}

void srv_out_int(struct jsonout *o, int64_t v)
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
    srv_out_raw(o, text + i, sizeof(text) - i);
}

char *srv_out_take(struct jsonout *o, size_t *len)
{
    if (!reserve(o, 1))
        return NULL;
    o->buf[o->len] = '\0';
    char *b = o->buf;
    *len = o->len;
    o->buf = NULL;
    o->len = o->cap = 0;
    return b;
}

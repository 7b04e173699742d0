#include "server/codec/str.h"

#include <string.h>

#include "base/arena.h"

/* The code point of the escape at @p (the backslash), its length in *@n.
 * Only for strings the scanner passed: the escape is known good. */
static unsigned decode_escape(const char *p, size_t *n)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    unsigned u = 0, lo = 0xdc00; /* the scanner checked the digits */
    if (p[1] != 'u') {
        *n = 2;
        return (unsigned char)to[strchr(from, p[1]) - from];
    }
    codec_str_hex4(p + 2, &u);
    *n = 6;
    if (u >= 0xd800 && u <= 0xdbff) {
        codec_str_hex4(p + 8, &lo);
        *n = 12;
        u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
    }
    return u;
}

static size_t put_utf8(unsigned u, char *out)
{
    if (u < 0x80) {
        out[0] = (char)u;
        return 1;
    }
    if (u < 0x800) {
        out[0] = (char)(0xc0 | u >> 6);
        out[1] = (char)(0x80 | (u & 0x3f));
        return 2;
    }
    if (u < 0x10000) {
        out[0] = (char)(0xe0 | u >> 12);
        out[1] = (char)(0x80 | (u >> 6 & 0x3f));
        out[2] = (char)(0x80 | (u & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | u >> 18);
    out[1] = (char)(0x80 | (u >> 12 & 0x3f));
    out[2] = (char)(0x80 | (u >> 6 & 0x3f));
    out[3] = (char)(0x80 | (u & 0x3f));
    return 4;
}

size_t codec_str_decode(struct codec_str str, char *buf, size_t cap)
{
    size_t o = 0;
    const char *p = str.p, *end = str.p + str.len;
    while (p < end) {
        char tmp[4];
        size_t n, w;
        const char *bytes = p;
        if (*p == '\\') {
            w = put_utf8(decode_escape(p, &n), tmp);
            bytes = tmp;
        } else {
            n = w = 1;
        }
        if (o + w >= cap)
            return (size_t)-1;
        memcpy(buf + o, bytes, w);
        o += w;
        p += n;
    }
    if (cap == 0)
        return (size_t)-1;
    buf[o] = '\0';
    return o;
}

static char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

bool codec_name_folds(const char *p, size_t n, const char *lit)
{
    const char *end = p + n;
    for (; *lit != '\0'; lit++) {
        char c = lower(*lit);
        if (p < end && lower(*p) == c) {
            p++;
        } else if (c == 's' && end - p >= 2 && memcmp(p, "\xc5\xbf", 2) == 0) {
            p += 2; /* U+017F LATIN SMALL LETTER LONG S */
        } else if (c == 'k' && end - p >= 3 && memcmp(p, "\xe2\x84\xaa", 3) == 0) {
            p += 3; /* U+212A KELVIN SIGN */
        } else {
            return false;
        }
    }
    return p == end;
}

bool codec_str_is(struct codec_str str, const char *lit, bool fold_case)
{
    char small[64];
    const char *p = str.p;
    size_t n = str.len;
    if (str.escaped) {
        n = codec_str_decode(str, small, sizeof(small));
        if (n == (size_t)-1)
            return false; /* longer than any name compared with */
        p = small;
    }
    if (fold_case)
        return codec_name_folds(p, n, lit);
    return n == strlen(lit) && memcmp(p, lit, n) == 0;
}

char *codec_str_copy(struct arena *a, struct codec_str str)
{
    if (!str.escaped)
        return arena_strndup(a, str.p, str.len);
    char *out = arena_alloc(a, str.len + 1); /* decoding never grows a string */
    if (out != NULL)
        codec_str_decode(str, out, str.len + 1);
    return out;
}

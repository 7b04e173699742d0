/*
 * Strings as the scanner finds them in a body: the bytes between the
 * quotes, undecoded, so that a name is compared or copied only when a
 * decoder wants it. Field names compare as Go's encoding/json matches
 * struct fields; map keys exactly.
 */
#ifndef SERVER_CODEC_STR_H
#define SERVER_CODEC_STR_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

struct arena;

/* A string as it stands in the body: the bytes between the quotes, and
 * whether they hold an escape (then codec_str_copy() decodes them). */
struct codec_str {
    const char *p;
    size_t len;
    bool escaped;
};

/* The value of the four hex digits at @p into *@out: 0, or -EINVAL when
 * one is not a hex digit. The scanner checks \u escapes with it; the
 * decoder below reads the ones it checked. */
static inline int codec_str_hex4(const char *p, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned char c = (unsigned char)p[i];
        unsigned d = c >= '0' && c <= '9'   ? c - '0'
                     : c >= 'a' && c <= 'f' ? c - 'a' + 10
                     : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                            : 16;
        if (d == 16)
            return -EINVAL;
        v = v * 16 + d;
    }
    *out = v;
    return 0;
}

/* Does the name @p (@n bytes, decoded) match the ASCII field name @lit as
 * Go's encoding/json matches struct fields? Case folded as bytes.EqualFold
 * folds: ASCII letters, and the two characters outside ASCII that fold to
 * one, U+017F to "s" and U+212A (Kelvin) to "k". Map keys (resource names,
 * annotations, labels) are not folded: compare them exactly. */
bool codec_name_folds(const char *p, size_t n, const char *lit);

/* Does @str decode to @lit? Folded with @fold as codec_name_folds(). */
bool codec_str_is(struct codec_str str, const char *lit, bool fold);

/* The decoded string of @str into @buf (@cap bytes, NUL added); returns
 * its length, or (size_t)-1 when it does not fit. The scanner checked the
 * escapes. */
size_t codec_str_decode(struct codec_str str, char *buf, size_t cap);

/* A NUL-terminated copy of the decoded @str in @a; NULL when out of memory. */
char *codec_str_copy(struct arena *a, struct codec_str str);

#endif

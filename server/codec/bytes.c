#include "server/codec/bytes.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "base/err.h"
#include "base/utf8.h"

/* Checks every escape sequence in @body. cJSON reads an invalid \\u escape
 * ("\\uZZZZ", "\\u0e9") as a NUL and, like a real \\u0000, a NUL cuts its C
 * string: "a\\u0000b" would be read as "a", a node name the scheduler never
 * sent, and "Nodes\\uZZZZ" as the key "Nodes". Go refuses the former and
 * keeps the NUL in the latter; we refuse both, and a raw NUL byte too.
 * Returns NULL, or what is wrong (with its offset in *@at). */
static const char *bad_escape(const char *body, size_t len, size_t *at)
{
    const char *end = body + len, *nul = memchr(body, '\0', len);
    if (nul != NULL) {
        *at = (size_t)(nul - body);
        return "NUL character";
    }
    /* Escapes only occur inside strings and are read left to right, so
     * walking from one backslash to the next sees each escape once. */
    for (const char *p = memchr(body, '\\', len); p != NULL;
         p = memchr(p, '\\', (size_t)(end - p))) {
        *at = (size_t)(p - body);
        if (end - p < 2 || strchr("\"\\/bfnrtu", p[1]) == NULL || p[1] == '\0')
            return "invalid escape";
        if (p[1] == 'u') {
            if (end - p < 6 || !isxdigit((unsigned char)p[2]) || !isxdigit((unsigned char)p[3]) ||
                !isxdigit((unsigned char)p[4]) || !isxdigit((unsigned char)p[5]))
                return "invalid \\u escape";
            if (memcmp(p + 2, "0000", 4) == 0)
                return "NUL character";
        }
        p += 2; /* past "\\x", so an escaped backslash is not read twice */
    }
    return NULL;
}

/* Offset of the first byte we refuse, or @len: control characters other
 * than tab, line feed and carriage return (cJSON skips any byte up to 0x20
 * as white space; Go's decoder and our span scanner do not), and bytes that
 * are not well-formed UTF-8 (RFC 3629: no overlongs, no surrogates, nothing
 * past U+10FFFF; Go would replace them with U+FFFD, we answer 400). A raw
 * tab or newline inside a string passes, where Go would refuse it; what we
 * answer stays valid JSON. ASCII runs without control bytes are skipped
 * eight at a time. */
static size_t invalid_byte_at(const unsigned char *s, size_t len)
{
    const uint64_t high = 0x8080808080808080ULL, spaces = 0x2020202020202020ULL;
    size_t i = 0;
    while (i < len) {
        if (i + 8 <= len) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            /* no byte >= 0x80, and no byte < 0x20 (w - 0x20.. borrows there) */
            if ((w & high) == 0 && ((w - spaces) & ~w & high) == 0) {
                i += 8;
                continue;
            }
        }
        unsigned char c = s[i];
        if (c < 0x20) {
            if (c != '\t' && c != '\n' && c != '\r')
                return i;
            i++;
        } else if (c < 0x80) {
            i++;
        } else {
            size_t n = utf8_seq_len(s + i, len - i);
            if (n == 0)
                return i;
            i += n;
        }
    }
    return len;
}

int codec_check_bytes(const char *body, size_t len, char *err)
{
    size_t at;
    const char *why = bad_escape(body, len, &at);
    if (why != NULL) {
        err_set(err, "%s in a string at byte %zu", why, at);
        return -EINVAL;
    }
    at = invalid_byte_at((const unsigned char *)body, len);
    if (at != len) {
        err_set(err, "%s at byte %zu",
                (unsigned char)body[at] < 0x20 ? "control character" : "invalid UTF-8", at);
        return -EINVAL;
    }
    if (len >= 3 && memcmp(body, "\xef\xbb\xbf", 3) == 0) {
        err_set(err, "byte-order mark before the JSON text");
        return -EINVAL;
    }
    return 0;
}

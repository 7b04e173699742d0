#include "base/base64.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *base64_encode(const char *in, size_t n)
{
    char *out = malloc((n + 2) / 3 * 4 + 1), *o = out;
    if (out == NULL)
        return NULL;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)(unsigned char)in[i] << 16;
        if (i + 1 < n)
            v |= (unsigned)(unsigned char)in[i + 1] << 8;
        if (i + 2 < n)
            v |= (unsigned char)in[i + 2];
        *o++ = alphabet[v >> 18 & 63];
        *o++ = alphabet[v >> 12 & 63];
        *o++ = i + 1 < n ? alphabet[v >> 6 & 63] : '=';
        *o++ = i + 2 < n ? alphabet[v & 63] : '=';
    }
    *o = '\0';
    return out;
}

int base64_decode(const char *in, size_t len, char **out, size_t *out_len)
{
    char *buf = malloc(len / 4 * 3 + 4);
    size_t n = 0, quad = 0, pad = 0;
    unsigned int acc = 0;

    if (buf == NULL)
        return -ENOMEM;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)in[i];
        if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n')
            continue;
        if (ch == '=') {
            /* Padding only in the last two places of a quad. */
            if (quad < 2)
                goto out_invalid;
            pad++;
            acc <<= 6;
            quad++;
        } else {
            const char *at = ch != '\0' ? strchr(alphabet, ch) : NULL;
            if (at == NULL || pad > 0)
                goto out_invalid;
            acc = acc << 6 | (unsigned int)(at - alphabet);
            quad++;
        }
        if (quad == 4) {
            buf[n++] = (char)(acc >> 16 & 0xff);
            if (pad < 2)
                buf[n++] = (char)(acc >> 8 & 0xff);
            if (pad < 1)
                buf[n++] = (char)(acc & 0xff);
            /* Nothing but whitespace may follow the padding: another '='
             * finds quad < 2, a letter finds pad > 0. */
            quad = 0;
            acc = 0;
        }
    }
    if (quad != 0)
        goto out_invalid;
    buf[n] = '\0';
    *out = buf;
    *out_len = n;
    return 0;

out_invalid:
    free(buf);
    return -EINVAL;
}

#include "base/base64.h"

#include <errno.h>
#include <stdlib.h>

static int b64_value(unsigned char ch)
{
    if (ch >= 'A' && ch <= 'Z')
        return ch - 'A';
    if (ch >= 'a' && ch <= 'z')
        return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9')
        return ch - '0' + 52;
    if (ch == '+')
        return 62;
    if (ch == '/')
        return 63;
    return -1;
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
            int v = b64_value(ch);
            if (v < 0 || pad > 0)
                goto out_invalid;
            acc = acc << 6 | (unsigned int)v;
            quad++;
        }
        if (quad == 4) {
            buf[n++] = (char)(acc >> 16 & 0xff);
            if (pad < 2)
                buf[n++] = (char)(acc >> 8 & 0xff);
            if (pad < 1)
                buf[n++] = (char)(acc & 0xff);
            quad = 0;
            acc = 0;
            if (pad > 0) {
                /* Nothing but whitespace may follow the padding. */
                for (i++; i < len; i++)
                    if (in[i] != ' ' && in[i] != '\t' && in[i] != '\r' && in[i] != '\n')
                        goto out_invalid;
                break;
            }
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

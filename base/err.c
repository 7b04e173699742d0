#include "base/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void err_utf8_trim(char *s)
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

int err_fail(char *err, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, ERR_LEN, fmt, ap);
    va_end(ap);
    err_utf8_trim(err);
    return rc;
}

void err_prefix(char *err, const char *fmt, ...)
{
    char head[ERR_LEN];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(head, sizeof(head), fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    size_t h = (size_t)n < sizeof(head) ? (size_t)n : sizeof(head) - 1;
    size_t tail = strnlen(err, ERR_LEN - 1);
    /* Too long together: the message's end goes (err.h), not the context. */
    if (h + tail > ERR_LEN - 1)
        tail = ERR_LEN - 1 - h;
    memmove(err + h, err, tail);
    memcpy(err, head, h);
    err[h + tail] = '\0';
    err_utf8_trim(err);
}

#include "server/http/limits.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int http_content_length(const char *v, unsigned long long *out)
{
    /* Digits only: strtoull alone would take a sign, spaces and a tail. */
    if (*v == '\0' || v[strspn(v, "0123456789")] != '\0')
        return -EINVAL;
    errno = 0;
    unsigned long long n = strtoull(v, NULL, 10);
    if (errno == ERANGE)
        return -EINVAL;
    *out = n;
    return 0;
}

static bool is_tchar(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

bool http_is_header_name(const char *name, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!is_tchar((unsigned char)name[i]))
            return false;
    return n > 0;
}

bool http_is_header_value(const char *value, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)value[i];
        if ((c < 0x20 && c != '\t') || c == 0x7f)
            return false;
    }
    return true;
}

const char *http_framing_refusal(const struct http_framing *f, unsigned *status)
{
    *status = 400;
    if (f->http11 && f->hosts == 0)
        return "missing required Host header";
    if (f->hosts > 1)
        return "too many Host headers";
    if (f->encodings > 0) {
        *status = 501;
        if (f->encodings > 1)
            return "unsupported Transfer-Encoding: more than one header";
        if (!(f->te_len == 7 && strncasecmp(f->transfer_encoding, "chunked", 7) == 0))
            return "unsupported Transfer-Encoding: only chunked is";
        *status = 400;
        if (f->lengths > 0)
            return "both Transfer-Encoding and Content-Length: want one";
    }
    if (f->lengths > 1)
        return "more than one Content-Length";
    return NULL;
}

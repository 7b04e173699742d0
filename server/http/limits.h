/*
 * What a request's headers must satisfy before its body is read: the
 * checks that do not need libmicrohttpd, so that they are tested alone.
 */
#ifndef SERVER_HTTP_LIMITS_H
#define SERVER_HTTP_LIMITS_H

#include <stdbool.h>
#include <stddef.h>

/* A Content-Length value: decimal digits only, no sign, no space, no
 * overflow (strtoull would read "12abc" as 12 and "-1" as a huge number).
 * Returns 0 with *@out, or -EINVAL. */
int http_content_length(const char *v, unsigned long long *out);

/* A header name is a token (RFC 9110 5.6.2), as Go's readRequest wants:
 * "Content-Length " with its space is no Content-Length. */
bool http_is_header_name(const char *name, size_t n);

/* A header value has no control characters but tab (Go's
 * ValidHeaderFieldValue): a CR, LF or NUL in it hides a line. */
bool http_is_header_value(const char *value, size_t n);

/* What a request head says about where its body ends, counted over all of
 * its header lines. */
struct http_framing {
    bool http11;                   /* HTTP/1.1, not 1.0 */
    int hosts, lengths, encodings; /* Host, Content-Length, Transfer-Encoding headers */
    const char *transfer_encoding; /* the first one's value, @te_len long (no trailing OWS) */
    size_t te_len;
};

/*
 * Why a head with @f is refused, or NULL; *@status gets 400, or 501 for a
 * Transfer-Encoding other than one "chunked" (as Go's server). Refused:
 * HTTP/1.1 without Host, more than one Host, more than one Content-Length
 * (equal or not), Transfer-Encoding twice or not exactly chunked, and
 * Transfer-Encoding with a Content-Length: two readers could take the body
 * to end at two places (request smuggling). Go takes Transfer-Encoding
 * over a Content-Length; RFC 9112 6.1 lets a server refuse both, and no
 * client of ours sends both.
 */
const char *http_framing_refusal(const struct http_framing *f, unsigned *status);

#endif

#include "server/http/head.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

#define BARE_LF "bare LF line ending in the request head: want CR LF"
#define NUL     "NUL byte in the request head"

static void refuse(struct http_head *h, const char *why)
{
    if (h->why == NULL)
        h->why = why;
}

/* A header line starts at @start: right after the previous line's CR LF,
 * or the head is not what libmicrohttpd made of it. */
static void line_starts(struct http_head *h, const char *start)
{
    const char *e = h->eol;
    if (h->why != NULL)
        return;
    if (start == e + 2 && e[0] == '\0' && e[1] == '\0')
        return;
    if (start == e + 1 && e[0] == '\0')
        refuse(h, BARE_LF);
    else if (start < h->lo || start >= h->hi)
        refuse(h, "folded header line (obsolete line folding)"); /* joined in a copy */
    else
        refuse(h, NUL);
}

static bool name_is(const char *key, size_t n, const char *name)
{
    return n == strlen(name) && strncasecmp(key, name, n) == 0;
}

static size_t trimmed_len(const char *v, size_t n)
{
    while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t'))
        n--;
    return n;
}

/* What the handler and the framing rule need of one header. */
static void note(struct http_head *h, const char *key, size_t key_size, const char *value, size_t n)
{
    struct http_framing *f = &h->framing;
    if (name_is(key, key_size, MHD_HTTP_HEADER_HOST)) {
        f->hosts++;
    } else if (name_is(key, key_size, MHD_HTTP_HEADER_CONTENT_LENGTH)) {
        f->lengths++;
    } else if (name_is(key, key_size, MHD_HTTP_HEADER_TRANSFER_ENCODING)) {
        if (f->encodings++ == 0) {
            f->transfer_encoding = value;
            f->te_len = n;
        }
    } else if (name_is(key, key_size, MHD_HTTP_HEADER_CONTENT_ENCODING)) {
        if (n > 0 && !(n == 8 && strncasecmp(value, "identity", 8) == 0)) {
            h->content_encoding = value;
            h->content_encoding_len = n;
        }
    } else if (name_is(key, key_size, MHD_HTTP_HEADER_EXPECT)) {
        h->expect_continue =
            h->expect_continue || (n == 12 && strncasecmp(value, "100-continue", 12) == 0);
    }
}

/* MHD_KeyValueIteratorN over the headers, in the order they came. */
static enum MHD_Result on_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                 size_t key_size, const char *value, size_t value_size)
{
    struct http_head *h = cls;
    (void)kind;
    line_starts(h, key);
    if (h->why != NULL)
        return MHD_NO;
    /* name ':' OWS value OWS, and nothing else on the line */
    const char *p = key + key_size + 1;
    while (p < value && (*p == ' ' || *p == '\t'))
        p++;
    if (key[key_size] != '\0' || p != value) {
        refuse(h, NUL);
        return MHD_NO;
    }
    p = value + value_size;
    while (*p == ' ' || *p == '\t')
        p++;
    h->eol = p;
    if (!http_is_header_name(key, key_size))
        refuse(h, "invalid header name");
    else if (!http_is_header_value(value, value_size))
        refuse(h, "invalid header value");
    else
        note(h, key, key_size, value, trimmed_len(value, value_size));
    return h->why == NULL ? MHD_YES : MHD_NO;
}

/* The empty line that ends the head: CR LF, after the last line's. */
static void head_ends(struct http_head *h)
{
    const char *e = h->eol;
    if (h->why != NULL)
        return;
    if (h->hi == e + 4 && memcmp(e, "\0\0\0\0", 4) == 0)
        return;
    if (h->hi == e + 3 || h->hi == e + 2)
        refuse(h, BARE_LF);
    else
        refuse(h, NUL);
}

int http_head_read(struct MHD_Connection *conn, const char *method, const char *url,
                   const char *version, size_t target_len, struct http_head *h,
                   struct http_refusal *r)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    size_t m = strlen(method);

    memset(h, 0, sizeof(*h));
    *r = (struct http_refusal){OPS_REFUSAL_HEAD_SYNTAX, MHD_HTTP_BAD_REQUEST, NULL};
    if (ci == NULL) {
        r->why = "malformed request head";
        return -EPROTO;
    }
    h->lo = method;
    h->hi = method + ci->header_size;
    /* METHOD SP target SP HTTP/1.x: a NUL in the method or the target, or
     * a second space, leaves these apart (Go: "malformed HTTP request"). */
    if (m == 0 || url != method + m + 1 || version != url + target_len + 1 ||
        strlen(version) != 8) {
        r->why = "malformed request line: want METHOD SP target SP HTTP/1.x";
        return -EPROTO;
    }
    h->eol = version + 8;
    MHD_get_connection_values_n(conn, MHD_HEADER_KIND, on_header, h);
    head_ends(h);
    if (h->why != NULL) {
        r->why = h->why;
        return -EPROTO;
    }
    h->framing.http11 = strcmp(version, MHD_HTTP_VERSION_1_0) != 0;
    r->reason = OPS_REFUSAL_HEAD_FRAMING;
    r->why = http_framing_refusal(&h->framing, &r->status);
    return r->why != NULL ? -EPROTO : 0;
}

/*
 * The request head as libmicrohttpd 0.9.75 received it, walked once at the
 * handler's first call: every byte of it accounted for, so that a head
 * that could be read two ways (request smuggling) is refused before its
 * body, and what the handler needs later (Expect, Content-Encoding) is
 * noted on the way.
 *
 * libmicrohttpd ends each line at CR LF or at a bare LF, writes NULs over
 * the CR LF and the colon, hands names and values over as C strings (a NUL
 * in a value silently cuts it) and joins a folded line onto the previous
 * one in a copy. The head it parsed is the head that came only if every
 * line starts where the previous one's value (and white space) ended plus
 * the two bytes of CR LF; checking that finds bare LFs, folding and hidden
 * NULs, which the parsed strings cannot show. (This leans on libmicrohttpd
 * keeping names and values where they arrived in its read buffer, as
 * 0.9.75 does.) MHD_OPTION_STRICT_FOR_CLIENT is no substitute: at 1 it
 * refuses a missing Host and spaces in the target with its own HTML page,
 * and -1 is the level that checks white space before the colon (inverted
 * in 0.9.75).
 */
#ifndef SERVER_HTTP_HEAD_H
#define SERVER_HTTP_HEAD_H

/* The libmicrohttpd version the buffer layout above was verified on (the
 * http_framing suite proves it). tests/server/http/test_head.c fails on any
 * other version until the framing suite has been run on it and this is
 * moved: an upgrade must not silently undo the refusals. */
#define HTTP_HEAD_VERIFIED_MHD "0.9.75"

#include <stdbool.h>
#include <stddef.h>

#include <microhttpd.h>

#include "server/http/limits.h"
#include "server/http/refuse.h"

struct http_head {
    struct http_framing framing;
    bool expect_continue;         /* Expect: 100-continue */
    const char *content_encoding; /* other than identity, @content_encoding_len long; or NULL */
    size_t content_encoding_len;
    /* the walk */
    const char *lo, *hi; /* the head in libmicrohttpd's read buffer */
    const char *eol;     /* where the line just walked ended, before its CR LF */
    const char *why;     /* the first thing refused (a 400), or NULL */
};

/*
 * Walks the head of the request on @conn, whose request line libmicrohttpd
 * split into @method, @url and @version (the handler's arguments, still
 * pointing into its read buffer) and whose target was @target_len bytes as
 * received. Fills @h and returns 0, or -EPROTO with why the head is
 * refused in @r: OPS_REFUSAL_HEAD_SYNTAX (400) for a line that is not what
 * libmicrohttpd made of it or an invalid header, OPS_REFUSAL_HEAD_FRAMING
 * for framing (http_framing_refusal: 400, or 501 for an unsupported
 * Transfer-Encoding).
 */
int http_head_read(struct MHD_Connection *conn, const char *method, const char *url,
                   const char *version, size_t target_len, struct http_head *h,
                   struct http_refusal *r);

#endif

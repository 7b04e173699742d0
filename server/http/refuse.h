/*
 * Requests refused at their head, before any body is read: counted in
 * cpu_extender_http_refused_total by a fixed reason, logged as the access
 * log does (server/ops/access_log.h), and answered with a JSON Error.
 */
#ifndef SERVER_HTTP_REFUSE_H
#define SERVER_HTTP_REFUSE_H

#include <stdbool.h>
#include <stddef.h>

#include <microhttpd.h>

#include "server/ops/labels.h"

struct http_server;
struct http_request;

struct http_refusal {
    enum ops_refusal reason;
    unsigned status;
    const char *why; /* the Error text, ours (no escaping needed) */
};

/*
 * Counts and logs @r for the request @rq on @conn and answers it; with
 * @close the connection is closed after the answer, since what follows
 * the head cannot be trusted to be where the next request starts (and a
 * body nobody reads is not waited for).
 */
enum MHD_Result http_refuse(struct http_server *s, struct MHD_Connection *conn,
                            const struct http_request *rq, const struct http_refusal *r,
                            bool close);

/* 415 for a body in the Content-Encoding @enc (@n bytes, the client's:
 * named in the Error only when it is a plain word), connection closed. */
enum MHD_Result http_refuse_encoding(struct http_server *s, struct MHD_Connection *conn,
                                     const struct http_request *rq, const char *enc, size_t n);

#endif

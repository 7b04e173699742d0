/*
 * The GET endpoints: /healthz, /readyz, /version, /metrics, and /debug,
 * /debug/decisions when the debug endpoints are on.
 */
#ifndef SERVER_HTTP_ENDPOINTS_H
#define SERVER_HTTP_ENDPOINTS_H

#include <microhttpd.h>

#include "server/http/server.h"

/* Answers the GET route of @rq (not a verb) on @conn. */
enum MHD_Result http_serve_get(struct http_server *s, struct MHD_Connection *conn,
                               const struct http_request *rq);

#endif

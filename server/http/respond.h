/* Queueing an answer on a libmicrohttpd connection. */
#ifndef SERVER_HTTP_RESPOND_H
#define SERVER_HTTP_RESPOND_H

#include <stdbool.h>
#include <stddef.h>

#include <microhttpd.h>

#include "base/buf.h"

/* Sends @len bytes of @body (copied) as application/json with @status and,
 * when @allow is not NULL, an Allow header. */
enum MHD_Result http_send_json(struct MHD_Connection *conn, unsigned status, const char *body,
                               size_t len, const char *allow);

/* Sends @body (malloc'd, @len bytes) as @type, handed over, not copied:
 * libmicrohttpd frees it once sent, and this frees it when it cannot be
 * queued. HTML gets a Content-Security-Policy that runs no script. */
enum MHD_Result http_send_owned(struct MHD_Connection *conn, unsigned status, const char *type,
                                char *body, size_t len);

/*
 * Sends the @n pieces at @pieces (base/buf.h) one after the other as one
 * application/json body with @status, without copying them: they must
 * stay valid until libmicrohttpd is done with the answer, which it says by
 * calling @done(@cls) (also when the answer cannot be queued, and when the
 * client goes away first).
 */
enum MHD_Result http_send_pieces(struct MHD_Connection *conn, unsigned status,
                                 const struct buf_piece *pieces, size_t n, void (*done)(void *cls),
                                 void *cls);

/* Sends {"Error": @msg} for errors raised before any JSON is parsed. */
enum MHD_Result http_send_error(struct MHD_Connection *conn, unsigned status, const char *msg,
                                const char *allow);

/* The same with "Connection: close" when @close: for a request refused at
 * its head, since what follows the head cannot be trusted to be where the
 * next request starts, and a body nobody reads is not waited for; and with
 * Retry-After: @retry_after seconds when not 0 (a 503 for a request
 * refused for now, kube-scheduler's next attempt may pass). */
enum MHD_Result http_send_error_with(struct MHD_Connection *conn, unsigned status, const char *msg,
                                     const char *allow, bool close, int retry_after);

#endif

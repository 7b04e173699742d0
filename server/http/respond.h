/* Queueing an answer on a libmicrohttpd connection. */
#ifndef SERVER_HTTP_RESPOND_H
#define SERVER_HTTP_RESPOND_H

#include <stddef.h>

#include <microhttpd.h>

/* Sends @len bytes of @body (copied) as application/json with @status and,
 * when @allow is not NULL, an Allow header. */
enum MHD_Result http_send_json(struct MHD_Connection *conn, unsigned status, const char *body,
                               size_t len, const char *allow);

/* Sends @body (malloc'd, @len bytes) as @type, handed over, not copied:
 * libmicrohttpd frees it once sent, and this frees it when it cannot be
 * queued. HTML gets a Content-Security-Policy that runs no script. */
enum MHD_Result http_send_owned(struct MHD_Connection *conn, unsigned status, const char *type,
                                char *body, size_t len);

/* Sends {"Error": @msg} for errors raised before any JSON is parsed (the
 * texts are ours and need no escaping). */
enum MHD_Result http_send_error(struct MHD_Connection *conn, unsigned status, const char *msg,
                                const char *allow);

/* The same with "Connection: close": for a request refused at its head,
 * since what follows the head cannot be trusted to be where the next
 * request starts, and a body nobody reads is not waited for. */
enum MHD_Result http_send_refusal(struct MHD_Connection *conn, unsigned status, const char *msg,
                                  const char *allow);

#endif

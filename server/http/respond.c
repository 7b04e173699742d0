#include "server/http/respond.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static enum MHD_Result send_json(struct MHD_Connection *conn, unsigned status, const char *body,
                                 size_t len, const char *allow, bool close, int retry_after)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(len, (void *)(uintptr_t)body, MHD_RESPMEM_MUST_COPY);
    if (r == NULL)
        return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
    if (allow != NULL)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
    if (close)
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
    if (retry_after > 0) {
        char retry[16];
        snprintf(retry, sizeof(retry), "%d", retry_after);
        MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, retry);
    }
    enum MHD_Result ret = MHD_queue_response(conn, status, r);
    MHD_destroy_response(r);
    return ret;
}

enum MHD_Result http_send_json(struct MHD_Connection *conn, unsigned status, const char *body,
                               size_t len, const char *allow)
{
    return send_json(conn, status, body, len, allow, false, 0);
}

enum MHD_Result http_send_owned(struct MHD_Connection *conn, unsigned status, const char *type,
                                char *body, size_t len)
{
    struct MHD_Response *r = MHD_create_response_from_buffer_with_free_callback(len, body, free);
    if (r == NULL) {
        free(body);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    /* The one HTML page (/debug) shows names from requests and runs no
     * script: the browser is told to run none, whatever got through. */
    if (strncmp(type, "text/html", 9) == 0)
        MHD_add_response_header(r, "Content-Security-Policy",
                                "default-src 'none'; style-src 'unsafe-inline'; "
                                "form-action 'self'; base-uri 'none'");
    enum MHD_Result ret = MHD_queue_response(conn, status, r);
    MHD_destroy_response(r);
    return ret;
}

enum MHD_Result http_send_pieces(struct MHD_Connection *conn, unsigned status,
                                 const struct buf_piece *pieces, size_t n, void (*done)(void *cls),
                                 void *cls)
{
    /* libmicrohttpd copies the vector and sends from the pieces (sendmsg;
     * under TLS one record per piece), then calls @done. */
    struct MHD_IoVec *iov = n <= UINT_MAX ? calloc(n + 1, sizeof(*iov)) : NULL;
    struct MHD_Response *r = NULL;
    if (iov != NULL) {
        for (size_t i = 0; i < n; i++)
            iov[i] = (struct MHD_IoVec){pieces[i].p, pieces[i].len};
        r = MHD_create_response_from_iovec(iov, (unsigned)n, done, cls);
        free(iov);
    }
    if (r == NULL) {
        done(cls);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
    enum MHD_Result ret = MHD_queue_response(conn, status, r);
    MHD_destroy_response(r);
    return ret;
}

enum MHD_Result http_send_error_with(struct MHD_Connection *conn, unsigned status, const char *msg,
                                     const char *allow, bool close, int retry_after)
{
    /* @msg escaped as a JSON string (a message may quote a path or header
     * of the request), in a body sized from it. */
    struct buf b;
    size_t len;
    buf_init(&b, strlen(msg) + sizeof("{\"Error\":\"\"}\n"));
    buf_str(&b, "{\"Error\":");
    buf_json_str(&b, msg);
    buf_raw(&b, "}\n", 2);
    char *body = buf_take(&b, &len);
    if (body == NULL)
        return MHD_NO;
    enum MHD_Result ret = send_json(conn, status, body, len, allow, close, retry_after);
    free(body);
    return ret;
}

enum MHD_Result http_send_error(struct MHD_Connection *conn, unsigned status, const char *msg,
                                const char *allow)
{
    return http_send_error_with(conn, status, msg, allow, false, 0);
}

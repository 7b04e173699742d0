#include "server/http/refuse.h"

#include <stdio.h>

#include "base/clock.h"
#include "server/http/respond.h"
#include "server/http/server.h"
#include "server/ops/access_log.h"
#include "server/ops/metrics.h"

enum MHD_Result http_refuse(struct http_server *s, struct MHD_Connection *conn,
                            const struct http_request *rq, const struct http_refusal *r, bool close)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    ops_metrics_refused(&s->metrics, r->reason);
    ops_access_log_refused(r->reason, r->status, r->why, ci != NULL ? ci->client_addr : NULL,
                           clock_since(&rq->start));
    return http_send_error_with(conn, r->status, r->why, NULL, close, 0);
}

static bool is_plain_word(const char *w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((w[i] >= 'a' && w[i] <= 'z') || (w[i] >= 'A' && w[i] <= 'Z') ||
              (w[i] >= '0' && w[i] <= '9') || w[i] == '-' || w[i] == '.' || w[i] == '_'))
            return false;
    return n > 0 && n <= 32;
}

/* Nothing decodes a compressed body (kube-scheduler never compresses
 * requests), and read as JSON it would give a misleading parse error. */
enum MHD_Result http_refuse_encoding(struct http_server *s, struct MHD_Connection *conn,
                                     const struct http_request *rq, const char *enc, size_t n)
{
    char msg[128];
    if (is_plain_word(enc, n))
        snprintf(msg, sizeof(msg),
                 "Content-Encoding %.*s is not supported: send the body uncompressed", (int)n, enc);
    else
        snprintf(msg, sizeof(msg),
                 "this Content-Encoding is not supported: send the body uncompressed");
    const struct http_refusal r = {OPS_REFUSAL_CONTENT_ENCODING, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE,
                                   msg};
    return http_refuse(s, conn, rq, &r, true);
}

#include "server/http/request.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/clock.h"
#include "base/log.h"
#include "server/http/endpoints.h"
#include "server/http/guard.h"
#include "server/http/head.h"
#include "server/http/limits.h"
#include "server/http/refuse.h"
#include "server/http/respond.h"
#include "server/http/server.h"
#include "server/http/target.h"
#include "server/http/tls.h"
#include "server/ops/access_log.h"
#include "server/ops/shadow.h"
#include "server/verbs/bind.h"
#include "server/verbs/filter.h"
#include "server/verbs/preempt.h"
#include "server/verbs/prioritize.h"
#include "server/verbs/reply.h"

/* First body buffer of a chunked body; it doubles up to max-body-bytes. */
#define BODY_INITIAL (64 * 1024)

/* Appends an upload chunk to the body in the request's arena; past the cap
 * the rest is drained and dropped so that the 413 can be sent once the
 * request is complete. */
static void take_chunk(struct http_request *rq, const char *data, size_t size)
{
    if (rq->too_large || !http_is_verb_route(rq->route) || !rq->method_ok || rq->arena == NULL)
        return;
    if (size > (size_t)rq->cfg->max_body_bytes - rq->len) {
        rq->too_large = true;
        return;
    }
    if (rq->len + size + 1 > rq->cap) {
        /* Only a chunked body grows here: with Content-Length the buffer
         * was sized at the headers. */
        size_t cap = rq->cap ? rq->cap : BODY_INITIAL;
        while (cap < rq->len + size + 1)
            cap *= 2;
        char *b = arena_alloc(rq->arena, cap);
        if (b == NULL) {
            rq->too_large = true; /* answered as 413: nothing better to say */
            return;
        }
        if (rq->len > 0)
            memcpy(b, rq->body, rq->len);
        rq->body = b;
        rq->cap = cap;
    }
    memcpy(rq->body + rq->len, data, size);
    rq->len += size;
    rq->body[rq->len] = '\0';
}

/* Sets up a verb request at its headers: an arena, and a body buffer of the
 * announced size. The buffer is virtual memory until the bytes arrive, so a
 * client that announces much and sends little costs address space only. */
static void start_verb(struct http_request *rq, unsigned long long length, bool has_length)
{
    rq->arena = arena_acquire();
    if (rq->arena == NULL || !has_length)
        return;
    rq->cap = (size_t)length + 1;
    rq->body = arena_alloc(rq->arena, rq->cap);
    if (rq->body == NULL)
        rq->cap = 0;
    else
        rq->body[0] = '\0';
}

static enum MHD_Result serve_verb(struct http_server *s, struct MHD_Connection *conn,
                                  struct http_request *rq)
{
    struct verb_reply reply;
    const char *body = rq->body ? rq->body : "";
    const struct verb_ctx ctx = {
        .cfg = rq->cfg,
        .arena = rq->arena,
        .cl = s->cluster,
        .metrics = &s->metrics,
        .decisions = ops_shadow_kept(rq->cfg) > 0 ? &s->decisions : NULL,
        .start = rq->start,
    };
    enum ops_verb verb = http_verb_of(rq->route);

    if (rq->arena == NULL)
        return http_send_error(conn, 500, "out of memory", NULL);
    switch (rq->route) {
    case HTTP_ROUTE_FILTER:
        verb_filter(&ctx, body, rq->len, &reply);
        break;
    case HTTP_ROUTE_PRIORITIZE:
        verb_prioritize(&ctx, body, rq->len, &reply);
        break;
    case HTTP_ROUTE_PREEMPT:
        verb_preempt(&ctx, body, rq->len, &reply);
        break;
    default:
        verb_bind(&ctx, body, rq->len, &reply);
        break;
    }
    double seconds = clock_since(&rq->start);
    ops_metrics_request(&s->metrics, verb, reply.status, seconds, rq->len, reply.facts.nodes);
    ops_access_log(verb, reply.status, &reply.facts, reply.error, seconds, rq->len);
    /* The request is done with: its body and tree go back in one call. */
    arena_release(rq->arena);
    rq->arena = NULL;
    rq->body = NULL;
    if (reply.body == NULL)
        return http_send_error(conn, 500, "out of memory", NULL);
    return http_send_owned(conn, reply.status, "application/json", reply.body, reply.len);
}

/* A verb request refused before its body was read: too large, or a
 * Content-Length that is not a number. Counted and logged as verbs are. */
static enum MHD_Result serve_refused(struct http_server *s, struct MHD_Connection *conn,
                                     struct http_request *rq, unsigned status)
{
    struct verb_reply reply;
    enum ops_verb verb = http_verb_of(rq->route);
    double seconds = clock_since(&rq->start);
    char msg[ERR_LEN];

    verb_reply_init(&reply);
    if (status == MHD_HTTP_CONTENT_TOO_LARGE)
        snprintf(msg, sizeof(msg), "request body larger than %lld bytes", rq->cfg->max_body_bytes);
    else
        snprintf(msg, sizeof(msg), "Content-Length is not a decimal number");
    verb_reply_error(&reply, status, msg);
    ops_metrics_request(&s->metrics, verb, status, seconds, rq->len, 0);
    ops_access_log(verb, status, &reply.facts, reply.error, seconds, rq->len);
    if (reply.body == NULL)
        return http_send_error(conn, 500, "out of memory", NULL);
    return http_send_owned(conn, reply.status, "application/json", reply.body, reply.len);
}

/* The 404 or 405 of a request that routes nowhere; @close for one
 * answered before its body, which is then never read. */
static enum MHD_Result send_unrouted(struct MHD_Connection *conn, const struct http_request *rq,
                                     bool close)
{
    enum MHD_Result (*answer)(struct MHD_Connection *, unsigned, const char *, const char *) =
        close ? http_send_refusal : http_send_error;
    if (rq->route == HTTP_ROUTE_NOT_FOUND)
        return answer(conn, MHD_HTTP_NOT_FOUND, "no such path", NULL);
    return answer(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed",
                  http_is_verb_route(rq->route) ? "POST" : "GET, HEAD");
}

static enum MHD_Result serve_final(struct http_server *s, struct MHD_Connection *conn,
                                   struct http_request *rq)
{
    if (rq->route == HTTP_ROUTE_NOT_FOUND || !rq->method_ok)
        return send_unrouted(conn, rq, false);
    if (rq->too_large)
        return serve_refused(s, conn, rq, MHD_HTTP_CONTENT_TOO_LARGE);
    if (http_is_verb_route(rq->route))
        return serve_verb(s, conn, rq);
    return http_serve_get(s, conn, rq);
}

/* The first call of a verb request routed and allowed: its encoding and
 * length checked, its body buffer set up. */
static enum MHD_Result on_verb_headers(struct http_server *s, struct MHD_Connection *conn,
                                       struct http_request *rq, const struct http_head *h)
{
    unsigned long long length = 0;

    if (h->content_encoding != NULL)
        return http_refuse_encoding(s, conn, rq, h->content_encoding, h->content_encoding_len);
    /* Refuse an announced oversize body before it is sent; MHD then closes
     * the connection instead of reading it. */
    const char *cl =
        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (cl != NULL && http_content_length(cl, &length) != 0)
        return serve_refused(s, conn, rq, MHD_HTTP_BAD_REQUEST);
    if (length > (unsigned long long)rq->cfg->max_body_bytes) {
        rq->too_large = true;
        return serve_final(s, conn, rq);
    }
    start_verb(rq, length, cl != NULL);
    return MHD_YES;
}

/* The first call of a request: its headers are in. @url and @version
 * still show where libmicrohttpd found the target and the version. */
static enum MHD_Result on_headers(struct http_server *s, struct MHD_Connection *conn,
                                  const char *url, const char *method, const char *version,
                                  struct http_request *rq)
{
    struct http_head h;
    struct http_refusal r;

    rq->started = true;
    http_guard_headers_done(rq->listener->guard, conn);
    rq->cfg = cfg_live_acquire(&s->live);
    rq->start = clock_mono();
    if (http_head_read(conn, method, url, version, rq->target_len, &h, &r) != 0)
        return http_refuse(s, conn, rq, &r, true);
    if (rq->target_refusal != NULL) {
        r = (struct http_refusal){OPS_REFUSAL_TARGET, MHD_HTTP_BAD_REQUEST, rq->target_refusal};
        return http_refuse(s, conn, rq, &r, true);
    }
    rq->route = http_route_of(rq->cfg, rq->path);
    if (rq->listener->ops_only && !http_is_ops_route(rq->cfg, rq->route))
        rq->route = HTTP_ROUTE_NOT_FOUND;
    /* mTLS: everything but the probes (kubelet has no client certificate;
     * they reveal nothing) needs a verified client. The operations
     * listener asks for none. */
    if (s->mtls && !rq->listener->ops_only && rq->route != HTTP_ROUTE_HEALTHZ &&
        rq->route != HTTP_ROUTE_READYZ) {
        r = (struct http_refusal){OPS_REFUSAL_CLIENT_CERTIFICATE, MHD_HTTP_FORBIDDEN,
                                  http_tls_client_refusal(conn)};
        if (r.why != NULL)
            return http_refuse(s, conn, rq, &r, false);
    }
    if (http_is_verb_route(rq->route))
        rq->method_ok = strcmp(method, MHD_HTTP_METHOD_POST) == 0;
    else
        rq->method_ok =
            strcmp(method, MHD_HTTP_METHOD_GET) == 0 || strcmp(method, MHD_HTTP_METHOD_HEAD) == 0;
    /* A client that waits for 100 Continue gets the 404 or 405 now:
     * libmicrohttpd sends 100 Continue for any request the first call
     * leaves unanswered, inviting a body nobody wants (Go's server answers
     * without 100 and closes alike). */
    if (h.expect_continue && (rq->route == HTTP_ROUTE_NOT_FOUND || !rq->method_ok))
        return send_unrouted(conn, rq, true);
    if (!http_is_verb_route(rq->route) || !rq->method_ok)
        return MHD_YES;
    return on_verb_headers(s, conn, rq, &h);
}

enum MHD_Result http_on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                const char *method, const char *version, const char *upload_data,
                                size_t *upload_data_size, void **req_cls)
{
    const struct http_listener *l = cls;
    struct http_server *s = l->server;
    struct http_request *rq = *req_cls;
    /* @url is decoded by libmicrohttpd and cut at a %00: rq->path instead;
     * the pointer still shows where the target was (http_head_read). */

    if (rq == NULL)
        return MHD_NO; /* http_on_uri found no memory */
    if (!rq->started)
        return on_headers(s, conn, url, method, version, rq);
    if (*upload_data_size != 0) {
        /* A body dripping in is the guard's: its watchdog cuts it at the
         * request deadline from the headers, bytes arriving or not. */
        take_chunk(rq, upload_data, *upload_data_size);
        *upload_data_size = 0;
        return MHD_YES;
    }
    http_guard_body_done(l->guard, conn);
    return serve_final(s, conn, rq);
}

void *http_on_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
    (void)conn;
    struct http_request *rq = calloc(1, sizeof(*rq));
    if (rq == NULL)
        return NULL;
    rq->listener = cls;
    if (uri == NULL)
        uri = "";
    rq->target_len = strlen(uri);
    rq->target_refusal = http_target_read(uri, rq->path);
    return rq; /* from here on, http_on_completed frees it on every path */
}

void http_on_completed(void *cls, struct MHD_Connection *conn, void **req_cls,
                       enum MHD_RequestTerminationCode toe)
{
    const struct http_listener *l = cls;
    struct http_request *rq = *req_cls;
    (void)toe;
    http_guard_request_done(l->guard, conn);
    if (rq == NULL)
        return;
    arena_release(rq->arena); /* a request cut short still holds it */
    if (rq->cfg != NULL)
        cfg_live_release(rq->cfg);
    free(rq);
    *req_cls = NULL;
}

void http_on_mhd_log(void *cls, const char *fmt, va_list ap)
{
    char msg[ERR_LEN];
    (void)cls;
    vsnprintf(msg, sizeof(msg), fmt, ap);
    msg[strcspn(msg, "\n")] = '\0';
    LOG(LOG_DEBUG, "libmicrohttpd", LOG_STR("detail", msg));
}

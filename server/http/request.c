#include "server/http/request.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
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
#include "server/verbs/deadline.h"
#include "server/verbs/filter.h"
#include "server/verbs/memory.h"
#include "server/verbs/preempt.h"
#include "server/verbs/prioritize.h"
#include "server/verbs/reply.h"

/* First body buffer of a chunked body; it doubles up to max-body-bytes. */
#define BODY_INITIAL (64 * 1024)

/* The longest a request waits for room in the memory budget (less when
 * its deadline, 80 % of schedulerTimeoutMs after its headers, is nearer),
 * and the Retry-After of its 503 when none came. */
#define BUDGET_WAIT_NS       1000000000LL
#define BUDGET_RETRY_SECONDS 1

/* How long a request waits for the memory of a request it closed to come
 * back before it closes another. */
#define EVICT_WAIT_NS (200 * 1000 * 1000ULL)

/* What a verb request's answer gives back once libmicrohttpd has sent it
 * (or dropped it): the arena, which holds the body the answer points into
 * and the answer itself, and the request's reservation in the memory
 * budget. It lives in that arena. */
struct http_hold {
    struct http_server *s;
    struct arena *arena;
    size_t reserved;
    bool grow_refused; /* the arena needed more than reserved and the budget had none */
};

/* arena_grow_fn: more than the charge, if the budget has it now (no wait:
 * the request is under way). */
static size_t hold_grow(void *ctx, size_t want)
{
    struct http_hold *h = ctx;
    if (http_budget_try(h->s->budget, want) != 0) {
        h->grow_refused = true;
        return 0;
    }
    h->reserved += want;
    return want;
}

/* The answer was sent or dropped (libmicrohttpd's free callback), or the
 * request ended without one: @cls, a struct http_hold, goes with its arena. */
static void hold_done(void *cls)
{
    struct http_hold *h = cls;
    struct http_budget *budget = h->s->budget;
    size_t reserved = h->reserved;
    arena_release(h->arena);
    http_budget_release(budget, reserved);
}

/* Appends an upload chunk to the body in the request's arena; past the cap
 * the rest is drained and dropped so that the 413 can be sent once the
 * request is complete. */
static void take_chunk(struct http_request *rq, const char *data, size_t size)
{
    if (rq->too_large || rq->no_room || rq->oom || !http_is_verb_route(rq->route) ||
        !rq->method_ok || rq->arena == NULL)
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
            rq->oom = true; /* the server's fault, not the body's: 500 */
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

/* Sets up a verb request at its headers, its memory reserved (rq->reserved):
 * an arena held to that (it may take more from the budget while there is
 * some), and a body buffer of the announced size. The buffer is virtual
 * memory until the bytes arrive, so a client that announces much and
 * sends little costs address space only. */
static void start_verb(struct http_server *s, struct http_request *rq, unsigned long long length,
                       bool has_length)
{
    rq->arena = arena_acquire();
    struct http_hold *h = rq->arena != NULL ? arena_alloc(rq->arena, sizeof(*h)) : NULL;
    if (h == NULL) {
        rq->oom = true;
        return;
    }
    *h = (struct http_hold){.s = s, .arena = rq->arena, .reserved = rq->reserved};
    rq->reserved = 0;
    rq->hold = h;
    arena_set_limit(rq->arena, h->reserved);
    arena_set_grow(rq->arena, hold_grow, h);
    if (!has_length)
        return;
    rq->cap = (size_t)length + 1;
    rq->body = arena_alloc(rq->arena, rq->cap);
    if (rq->body == NULL) {
        rq->cap = 0;
        rq->oom = true;
    } else {
        rq->body[0] = '\0';
    }
}

/* The largest body of @rq's verb whose charge the whole budget holds
 * (charges grow with the length: a binary search). */
static size_t largest_admitted(struct http_server *s, const struct http_request *rq)
{
    uint64_t budget = http_budget_size(s->budget);
    enum ops_verb verb = http_verb_of(rq->route);
    size_t lo = 0, hi = (size_t)rq->cfg->max_body_bytes;
    if (verb_memory_charge(verb, 0, rq->cfg) > budget)
        return 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo + 1) / 2;
        if (verb_memory_charge(verb, mid, rq->cfg) <= budget)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Reserves @charge bytes of the memory budget for @rq, waiting until
 * @until. While there is no room, a stalled upload or an answer left
 * unread that holds memory is closed to make some (issue 23: four
 * uploads that announce 32 MiB and send a byte held the budget for the
 * request deadline); its memory comes back when libmicrohttpd ends it. */
static int reserve_memory(struct http_server *s, const struct http_request *rq, size_t charge,
                          const struct timespec *until)
{
    uint64_t size = http_budget_size(s->budget), end = clock_ns_of(until);
    if (size != 0 && charge > size)
        return http_budget_reserve(s->budget, charge, until); /* -E2BIG: nothing to wait for */
    int rc = http_budget_try(s->budget, charge);
    while (rc != 0 && clock_mono_ns() < end && http_guard_evict_for_memory(rq->listener->guard)) {
        uint64_t step = clock_add_ns(clock_mono_ns(), EVICT_WAIT_NS);
        const struct timespec t = clock_timespec_of(step < end ? step : end);
        rc = http_budget_reserve(s->budget, charge, &t);
    }
    if (rc != 0)
        rc = http_budget_reserve(s->budget, charge, until);
    return rc;
}

/* A verb request refused before the verb saw it (too large, over or out
 * of the memory budget, a body that could not be stored, a bad
 * Content-Length): counted and logged as verbs are, and answered with
 * @msg (ours: no escaping needed), with Retry-After when @retry. */
static enum MHD_Result serve_refused(struct http_server *s, struct MHD_Connection *conn,
                                     const struct http_request *rq, unsigned status,
                                     const char *msg, bool retry)
{
    const struct ops_request_facts facts = {.best_score = -1};
    enum ops_verb verb = http_verb_of(rq->route);
    double seconds = clock_since(&rq->start);

    ops_report(&s->metrics, verb, status, &facts, msg, seconds, rq->len);
    if (retry)
        return http_send_error_with(conn, status, msg, NULL, false, BUDGET_RETRY_SECONDS);
    return http_send_error(conn, status, msg, NULL);
}

/* 500 "out of memory": counted, and said at error with what failed. */
static enum MHD_Result serve_out_of_memory(struct http_server *s, struct MHD_Connection *conn,
                                           const struct http_request *rq, const char *what)
{
    ops_metrics_memory_refused(&s->metrics, OPS_MEMORY_OUT_OF_MEMORY);
    LOG(LOG_ERROR, "out of memory", LOG_STR("verb", ops_verb_name(http_verb_of(rq->route))),
        LOG_STR("while", what), LOG_UINT("bodyBytes", rq->len),
        LOG_UINT("reservedBytes", rq->hold != NULL ? rq->hold->reserved : rq->reserved));
    return serve_refused(s, conn, rq, 500, "out of memory", false);
}

/* 503 with Retry-After: no room in the memory budget for the @needed
 * bytes of @rq at its headers, or (@more) for more than it reserved. */
static enum MHD_Result serve_no_room(struct http_server *s, struct MHD_Connection *conn,
                                     const struct http_request *rq, size_t needed, bool more)
{
    char msg[ERR_LEN];
    snprintf(msg, sizeof(msg),
             "memory budget exhausted: %llu of %llu bytes reserved by the requests in flight, "
             "this one needs %s%zu; retry",
             (unsigned long long)http_budget_reserved(s->budget),
             (unsigned long long)http_budget_size(s->budget), more ? "more than " : "", needed);
    ops_metrics_memory_refused(&s->metrics, OPS_MEMORY_BUDGET_EXHAUSTED);
    return serve_refused(s, conn, rq, MHD_HTTP_SERVICE_UNAVAILABLE, msg, true);
}

/* Before an answer is queued: during drain (finding 6 of issue 23), and
 * for a client without a verified certificate where one is required, the
 * answer says Connection: close and the connection closes after it.
 * libmicrohttpd closes when the request asked to: the request is made to
 * ask (its headers' strings must live as long as the connection: static). */
static void close_after_answer_if_due(struct http_server *s, struct MHD_Connection *conn,
                                      struct http_request *rq)
{
    if (rq->closing || (!rq->uncertified && !atomic_load(&s->draining)))
        return;
    rq->closing = MHD_set_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONNECTION,
                                           "close") == MHD_YES;
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
    struct http_hold *hold = rq->hold;

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
    /* The arena needed more than the charge and the budget had none: the
     * budget's refusal, not a failure of the machine. */
    if (reply.status == 500 && hold->grow_refused)
        return serve_no_room(s, conn, rq, hold->reserved, true);
    if (reply.status == 500)
        return serve_out_of_memory(s, conn, rq, "decoding or answering");
    double seconds = clock_since(&rq->start);
    ops_report(&s->metrics, verb, reply.status, &reply.facts, reply.error, seconds, rq->len);
    /* The answer points into the arena (and, for a filter, into the body):
     * both go with it, given back by hold_done once it is sent. */
    rq->hold = NULL;
    rq->arena = NULL;
    rq->body = NULL;
    close_after_answer_if_due(s, conn, rq); /* the drain may have begun while it was decided */
    return http_send_pieces(conn, reply.status, reply.pieces, reply.n_pieces, hold_done, hold);
}

/* The 404 or 405 of a request that routes nowhere; @close for one
 * answered before its body, which is then never read. */
static enum MHD_Result send_unrouted(struct MHD_Connection *conn, const struct http_request *rq,
                                     bool close)
{
    if (rq->route == HTTP_ROUTE_NOT_FOUND)
        return http_send_error_with(conn, MHD_HTTP_NOT_FOUND, "no such path", NULL, close, 0);
    return http_send_error_with(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed",
                                http_is_verb_route(rq->route) ? "POST" : "GET, HEAD", close, 0);
}

static enum MHD_Result serve_final(struct http_server *s, struct MHD_Connection *conn,
                                   struct http_request *rq)
{
    char msg[ERR_LEN];

    if (rq->route == HTTP_ROUTE_NOT_FOUND || !rq->method_ok)
        return send_unrouted(conn, rq, false);
    if (rq->too_large) {
        snprintf(msg, sizeof(msg), "request body larger than %lld bytes", rq->cfg->max_body_bytes);
        return serve_refused(s, conn, rq, MHD_HTTP_CONTENT_TOO_LARGE, msg, false);
    }
    if (rq->over_budget) {
        snprintf(msg, sizeof(msg),
                 "this request needs %zu bytes of memory, more than the memory budget of %llu "
                 "bytes: send at most %zu bytes",
                 rq->charge, (unsigned long long)http_budget_size(s->budget),
                 largest_admitted(s, rq));
        ops_metrics_memory_refused(&s->metrics, OPS_MEMORY_OVER_BUDGET);
        return serve_refused(s, conn, rq, MHD_HTTP_CONTENT_TOO_LARGE, msg, false);
    }
    if (rq->no_room)
        return serve_no_room(s, conn, rq, rq->charge, false);
    if (rq->oom)
        return serve_out_of_memory(s, conn, rq, "reading the body");
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
        return serve_refused(s, conn, rq, MHD_HTTP_BAD_REQUEST,
                             "Content-Length is not a decimal number", false);
    if (length > (unsigned long long)rq->cfg->max_body_bytes) {
        rq->too_large = true;
        return serve_final(s, conn, rq);
    }
    /* The memory first, before a byte of the body is read: a chunked
     * body is charged as the largest one allowed. */
    size_t announced = cl != NULL ? (size_t)length : (size_t)rq->cfg->max_body_bytes;
    size_t charge = verb_memory_charge(http_verb_of(rq->route), announced, rq->cfg);
    /* It stops waiting for room a second after its headers, or at its
     * deadline when that is nearer. */
    uint64_t wait = verb_deadline_budget_ns(rq->cfg);
    if (wait == 0 || wait > BUDGET_WAIT_NS)
        wait = BUDGET_WAIT_NS;
    const struct timespec until = clock_timespec_of(clock_add_ns(clock_ns_of(&rq->start), wait));
    int rc = reserve_memory(s, rq, charge, &until);
    rq->charge = charge;
    if (rc != 0) {
        rq->over_budget = rc == -E2BIG;
        rq->no_room = rc != -E2BIG;
        /* No body is waited for by a client that asked for 100 Continue,
         * nor read for one announced too large for the budget (as for
         * max-body-bytes); a 503 waits for the body, so that the client,
         * still sending, reads the answer instead of a reset. */
        if (h->expect_continue || rq->over_budget)
            return serve_final(s, conn, rq);
        return MHD_YES;
    }
    rq->reserved = charge;
    http_guard_body_reserved(rq->listener->guard, conn, announced);
    start_verb(s, rq, length, cl != NULL);
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
    http_guard_set_phase(rq->listener->guard, conn, HTTP_PHASE_BODY);
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
     * listener asks for none. A client without one gets one answer per
     * connection: it cannot keep a slot kube-scheduler needs. */
    const char *uncertified =
        s->mtls && !rq->listener->ops_only ? http_tls_client_refusal(conn) : NULL;
    rq->uncertified = uncertified != NULL;
    close_after_answer_if_due(s, conn, rq);
    if (uncertified != NULL && rq->route != HTTP_ROUTE_HEALTHZ && rq->route != HTTP_ROUTE_READYZ) {
        r = (struct http_refusal){OPS_REFUSAL_CLIENT_CERTIFICATE, MHD_HTTP_FORBIDDEN, uncertified};
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
    /* At the headers on_headers does it once the head has been read: the
     * added header would be read as the client's. */
    if (rq->started)
        close_after_answer_if_due(s, conn, rq);
    enum MHD_Result ret;
    if (!rq->started) {
        ret = on_headers(s, conn, url, method, version, rq);
    } else if (*upload_data_size != 0) {
        /* A body dripping in is the guard's: its watchdog cuts it at the
         * request deadline from the headers, bytes arriving or not. */
        take_chunk(rq, upload_data, *upload_data_size);
        *upload_data_size = 0;
        if (rq->hold != NULL)
            http_guard_body_progress(l->guard, conn, rq->len);
        return MHD_YES;
    } else {
        http_guard_set_phase(l->guard, conn, HTTP_PHASE_BUSY);
        ret = serve_final(s, conn, rq);
    }
    /* An answer queued by this call starts the write deadline (slots.h). */
    const union MHD_ConnectionInfo *ci =
        rq->queued ? NULL : MHD_get_connection_info(conn, MHD_CONNECTION_INFO_HTTP_STATUS);
    if (ci != NULL && ci->http_status != 0) {
        rq->queued = true;
        http_guard_set_phase(l->guard, conn, HTTP_PHASE_SEND);
    }
    return ret;
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
    http_guard_set_phase(l->guard, conn, HTTP_PHASE_IDLE);
    if (rq == NULL)
        return;
    /* A request cut short, or answered without its arena, still holds
     * its memory. */
    if (rq->hold != NULL)
        hold_done(rq->hold);
    else
        arena_release(rq->arena);
    if (rq->reserved != 0)
        http_budget_release(l->server->budget, rq->reserved);
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

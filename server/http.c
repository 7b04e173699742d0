#include "server/http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "config/live.h"
#include "server/arena.h"
#include "server/access_log.h"
#include "server/cluster.h"
#include "server/debug.h"
#include "server/jsonout.h"
#include "server/log.h"
#include "server/metrics.h"
#include "server/tls.h"
#include "server/verbs.h"
#include "version.h"

/* Headers and MHD's own buffers per connection; 128 KiB also makes MHD hand
 * over the body in 64 KiB chunks (fewer callbacks than the 32 KiB default). */
#define CONNECTION_MEMORY (128 * 1024)
/* First body buffer; it doubles up to max-body-bytes. A client announcing a
 * huge Content-Length and trickling gets no large allocation up front. */
#define BODY_INITIAL (64 * 1024)
#define PATH_MAX_LEN 1024

enum route {
    ROUTE_NOT_FOUND = 0,
    ROUTE_FILTER,
    ROUTE_PRIORITIZE,
    ROUTE_PREEMPT,
    ROUTE_BIND,
    ROUTE_HEALTHZ,
    ROUTE_READYZ,
    ROUTE_VERSION,
    ROUTE_METRICS,
    ROUTE_DEBUG,
    ROUTE_DEBUG_DECISIONS,
};

struct srv {
    struct MHD_Daemon *daemon;
    struct cfg_live live;     /* what requests use; swapped by srv_reload() */
    char listen[CFG_STR_LEN]; /* what the daemon was started with */
    int connection_limit, per_ip_connection_limit, idle_timeout_seconds;
    bool mtls; /* client certificates are required (set at start) */
    char tls_cert[CFG_STR_LEN], tls_key[CFG_STR_LEN], client_ca[CFG_STR_LEN]; /* at start */
    atomic_bool ready;
    struct srv_cluster *cluster; /* borrowed; NULL: request-only */
    struct srv_metrics metrics;
    struct srv_decisions decisions; /* recorded while debug endpoints are on */
};

/* Per-request state, from the first handler call to NOTIFY_COMPLETED. A
 * verb request holds an arena from its headers on: the body is read into
 * it and parsed in it, and all of it goes in one arena_release(). */
struct request {
    const struct cfg *cfg; /* a reference for the request's whole life */
    struct timespec start; /* when the headers arrived */
    enum route route;
    bool method_ok;
    bool too_large;
    struct arena *arena;
    char *body;
    size_t len, cap;
};

static bool is_post_route(enum route r)
{
    return r == ROUTE_FILTER || r == ROUTE_PRIORITIZE || r == ROUTE_PREEMPT || r == ROUTE_BIND;
}

/* Collapses repeated slashes: kube-scheduler joins urlPrefix and verb with
 * "/" and a verb written "/filter" yields "//filter". */
static void normalize_path(const char *url, char out[PATH_MAX_LEN])
{
    size_t j = 0;
    for (size_t i = 0; url[i] != '\0' && j + 1 < PATH_MAX_LEN; i++)
        if (url[i] != '/' || j == 0 || out[j - 1] != '/')
            out[j++] = url[i];
    out[j] = '\0';
}

static enum route route_of(const struct cfg *cfg, const char *url)
{
    char path[PATH_MAX_LEN];
    size_t plen = strlen(cfg->prefix);

    normalize_path(url, path);
    if (strncmp(path, cfg->prefix, plen) == 0) {
        if (strcmp(path + plen, "/filter") == 0)
            return ROUTE_FILTER;
        if (strcmp(path + plen, "/prioritize") == 0)
            return ROUTE_PRIORITIZE;
        if (strcmp(path + plen, "/preempt") == 0)
            return ROUTE_PREEMPT;
        if (strcmp(path + plen, "/bind") == 0)
            return ROUTE_BIND;
    }
    if (strcmp(path, "/healthz") == 0)
        return ROUTE_HEALTHZ;
    if (strcmp(path, "/readyz") == 0)
        return ROUTE_READYZ;
    if (strcmp(path, "/version") == 0)
        return ROUTE_VERSION;
    if (strcmp(path, "/metrics") == 0)
        return ROUTE_METRICS;
    if (strcmp(path, "/debug") == 0 || strcmp(path, "/debug/") == 0)
        return ROUTE_DEBUG;
    if (strcmp(path, "/debug/decisions") == 0)
        return ROUTE_DEBUG_DECISIONS;
    return ROUTE_NOT_FOUND;
}

static enum MHD_Result send_json(struct MHD_Connection *conn, unsigned status, const char *body,
                                 size_t len, const char *allow)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(len, (void *)(uintptr_t)body, MHD_RESPMEM_MUST_COPY);
    if (r == NULL)
        return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
    if (allow != NULL)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
    enum MHD_Result ret = MHD_queue_response(conn, status, r);
    MHD_destroy_response(r);
    return ret;
}

/* Sends @body (malloc'd, @len bytes), which is handed over, not copied:
 * MHD frees it once sent, and this frees it when it cannot be queued. */
static enum MHD_Result send_owned(struct MHD_Connection *conn, unsigned status, const char *type,
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

/* For errors raised before any JSON is parsed: the texts are ours and need
 * no escaping. */
static enum MHD_Result send_error(struct MHD_Connection *conn, unsigned status, const char *msg,
                                  const char *allow)
{
    char body[512];
    int n = snprintf(body, sizeof(body), "{\"Error\":\"%s\"}", msg);
    return send_json(conn, status, body, (size_t)n, allow);
}

static enum srv_verb verb_of(enum route r)
{
    switch (r) {
    case ROUTE_FILTER:
        return SRV_VERB_FILTER;
    case ROUTE_PRIORITIZE:
        return SRV_VERB_PRIORITIZE;
    case ROUTE_PREEMPT:
        return SRV_VERB_PREEMPT;
    default:
        return SRV_VERB_BIND;
    }
}

static enum MHD_Result serve_metrics(struct srv *s, struct MHD_Connection *conn)
{
    char *text;
    size_t len, kept, kept_bytes;
    srv_decisions_usage(&s->decisions, &kept, &kept_bytes);
    if (srv_metrics_render(&s->metrics, s->cluster, kept, kept_bytes, &text, &len) != 0)
        return send_error(conn, 500, "out of memory", NULL);
    return send_owned(conn, 200, "text/plain; version=0.0.4", text, len);
}

static enum MHD_Result serve_verb(struct srv *s, struct MHD_Connection *conn, struct request *rq)
{
    struct verb_reply reply;
    const char *body = rq->body ? rq->body : "";
    const struct srv_verb_ctx ctx = {
        .cfg = rq->cfg,
        .cl = s->cluster,
        .metrics = &s->metrics,
        .decisions = rq->cfg->debug_endpoints ? &s->decisions : NULL,
        .start = rq->start,
    };

    if (rq->arena == NULL)
        return send_error(conn, 500, "out of memory", NULL);
    memset(&reply, 0, sizeof(reply));
    reply.best_score = -1;
    switch (rq->route) {
    case ROUTE_FILTER:
        srv_filter(&ctx, body, rq->len, &reply);
        break;
    case ROUTE_PRIORITIZE:
        srv_prioritize(&ctx, body, rq->len, &reply);
        break;
    case ROUTE_PREEMPT:
        srv_preempt(&ctx, body, rq->len, &reply);
        break;
    default:
        srv_bind(&ctx, body, rq->len, &reply);
        break;
    }
    double seconds = srv_seconds_since(&rq->start);
    srv_metrics_request(&s->metrics, verb_of(rq->route), reply.status, seconds, rq->len,
                        reply.nodes);
    srv_access_log(verb_of(rq->route), &reply, seconds, rq->len);
    /* The request is done with: its body and tree go back in one call. */
    arena_release(rq->arena);
    rq->arena = NULL;
    rq->body = NULL;
    if (reply.body == NULL)
        return send_error(conn, 500, "out of memory", NULL);
    return send_owned(conn, reply.status, "application/json", reply.body, reply.len);
}

/* GET /debug (HTML) and /debug/decisions (JSON), when enabled. */
static enum MHD_Result serve_debug(struct srv *s, struct MHD_Connection *conn,
                                   const struct request *rq)
{
    struct srv_decision_query q = {0};
    const char *id = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "id");
    const char *limit = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "limit");
    char *text = NULL;
    size_t len;
    int rc;

    if (!rq->cfg->debug_endpoints)
        return send_error(conn, MHD_HTTP_NOT_FOUND,
                          "debug endpoints are off: start with --debug-endpoints", NULL);
    q.pod = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "pod");
    if (q.pod != NULL && q.pod[0] == '\0')
        q.pod = NULL;
    if ((id != NULL && srv_debug_parse_count(id, &q.id) != 0) ||
        (limit != NULL && srv_debug_parse_count(limit, &q.limit) != 0))
        return send_error(conn, MHD_HTTP_BAD_REQUEST,
                          "id and limit must be whole numbers from 1 to 2^63", NULL);
    if (rq->route == ROUTE_DEBUG_DECISIONS) {
        rc = srv_debug_decisions_json(&s->decisions, &q, &text, &len);
        if (rc != 0)
            return send_error(conn, 500, "out of memory", NULL);
        return send_owned(conn, 200, "application/json", text, len);
    }
    rc = srv_debug_page(&s->decisions, &q, rq->cfg, &text, &len);
    if (rc != 0)
        return send_error(conn, 500, "out of memory", NULL);
    return send_owned(conn, 200, "text/html; charset=utf-8", text, len);
}

/* Ready when not draining and, with a cluster, once its first lists are in;
 * the reason says which. */
static enum MHD_Result serve_readyz(struct srv *s, struct MHD_Connection *conn)
{
    char why[512] = "serving (request-only: no cluster)";
    bool ready = atomic_load(&s->ready);
    struct jsonout o;
    size_t len;

    if (!ready)
        snprintf(why, sizeof(why), "shutting down");
    else if (s->cluster != NULL)
        ready = srv_cluster_is_ready(s->cluster, why, sizeof(why));
    srv_out_init(&o, sizeof(why) + 128);
    srv_out_str(&o, ready ? "{\"ready\":true,\"reason\":" : "{\"ready\":false,\"reason\":");
    srv_out_quoted(&o, why); /* the API server's or libcurl's words, escaped */
    if (s->cluster != NULL) {
        size_t nodes, pods;
        kube_state_counts(srv_cluster_state(s->cluster), &nodes, &pods);
        srv_out_str(&o, ",\"nodes\":");
        srv_out_int(&o, (int64_t)nodes);
        srv_out_str(&o, ",\"pods\":");
        srv_out_int(&o, (int64_t)pods);
        srv_out_str(&o, ",\"unknownNodeNames\":");
        srv_out_int(&o, (int64_t)srv_cluster_unknown_total(s->cluster));
    }
    srv_out_str(&o, "}");
    char *body = srv_out_take(&o, &len);
    if (body == NULL)
        return send_error(conn, 500, "out of memory", NULL);
    return send_owned(conn, ready ? 200 : 503, "application/json", body, len);
}

static enum MHD_Result serve_final(struct srv *s, struct MHD_Connection *conn, struct request *rq)
{
    char body[512];
    int n;

    if (rq->route == ROUTE_NOT_FOUND)
        return send_error(conn, MHD_HTTP_NOT_FOUND, "no such path", NULL);
    if (!rq->method_ok)
        return send_error(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed",
                          is_post_route(rq->route) ? "POST" : "GET, HEAD");
    if (rq->too_large) {
        struct verb_reply reply = {.status = MHD_HTTP_CONTENT_TOO_LARGE, .best_score = -1};
        double seconds = srv_seconds_since(&rq->start);
        srv_metrics_request(&s->metrics, verb_of(rq->route), MHD_HTTP_CONTENT_TOO_LARGE, seconds,
                            rq->len, 0);
        snprintf(reply.error, sizeof(reply.error), "request body larger than %lld bytes",
                 rq->cfg->max_body_bytes);
        n = snprintf(body, sizeof(body), "{\"Error\":\"%s\"}", reply.error);
        reply.body = body;
        reply.len = (size_t)n;
        srv_access_log(verb_of(rq->route), &reply, seconds, rq->len);
        return send_json(conn, MHD_HTTP_CONTENT_TOO_LARGE, body, (size_t)n, NULL);
    }
    switch (rq->route) {
    case ROUTE_FILTER:
    case ROUTE_PRIORITIZE:
    case ROUTE_PREEMPT:
    case ROUTE_BIND:
        return serve_verb(s, conn, rq);
    case ROUTE_HEALTHZ:
        return send_json(conn, 200, "{\"status\":\"ok\"}", 15, NULL);
    case ROUTE_READYZ:
        return serve_readyz(s, conn);
    case ROUTE_METRICS:
        return serve_metrics(s, conn);
    case ROUTE_DEBUG:
    case ROUTE_DEBUG_DECISIONS:
        return serve_debug(s, conn, rq);
    case ROUTE_VERSION:
        n = snprintf(
            body, sizeof(body), "{\"version\":\"%s\",\"strategy\":\"%s\",\"configHash\":\"%s\"}",
            CPU_EXTENDER_VERSION, score_strategy_name(rq->cfg->score.strategy), rq->cfg->hash);
        return send_json(conn, 200, body, (size_t)n, NULL);
    case ROUTE_NOT_FOUND:
        break;
    }
    return MHD_NO;
}

/* Appends an upload chunk to the body in the request's arena; past the cap
 * the rest is drained and dropped so that the 413 can be sent once the
 * request is complete. */
static void take_chunk(struct request *rq, const char *data, size_t size)
{
    if (rq->too_large || !is_post_route(rq->route) || !rq->method_ok || rq->arena == NULL)
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
static void start_verb(struct request *rq, unsigned long long length, bool has_length)
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

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **req_cls)
{
    struct srv *s = cls;
    struct request *rq = *req_cls;
    (void)version;

    if (rq == NULL) {
        rq = calloc(1, sizeof(*rq));
        if (rq == NULL)
            return MHD_NO;
        *req_cls = rq; /* from here on, on_completed frees it on every path */
        rq->cfg = cfg_live_acquire(&s->live);
        clock_gettime(CLOCK_MONOTONIC, &rq->start);
        rq->route = route_of(rq->cfg, url);
        /* mTLS: everything but the probes (kubelet has no client
         * certificate; they reveal nothing) needs a verified client. */
        if (s->mtls && rq->route != ROUTE_HEALTHZ && rq->route != ROUTE_READYZ &&
            !srv_tls_client_verified(conn))
            return send_error(conn, MHD_HTTP_FORBIDDEN, "client certificate required", NULL);
        if (is_post_route(rq->route))
            rq->method_ok = strcmp(method, MHD_HTTP_METHOD_POST) == 0;
        else
            rq->method_ok = strcmp(method, MHD_HTTP_METHOD_GET) == 0 ||
                            strcmp(method, MHD_HTTP_METHOD_HEAD) == 0;
        /* Refuse an announced oversize body before it is sent; MHD then
         * closes the connection instead of reading it. */
        const char *cl =
            MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        unsigned long long length = cl != NULL ? strtoull(cl, NULL, 10) : 0;
        if (!is_post_route(rq->route) || !rq->method_ok)
            return MHD_YES;
        if (length > (unsigned long long)rq->cfg->max_body_bytes) {
            rq->too_large = true;
            return serve_final(s, conn, rq);
        }
        start_verb(rq, length, cl != NULL);
        return MHD_YES;
    }
    if (*upload_data_size != 0) {
        /* The idle timeout (above kube-scheduler's 90 s keep-alive) resets
         * on every byte; a body dripping in is cut at this total deadline. */
        if (srv_seconds_since(&rq->start) > rq->cfg->request_timeout_seconds) {
            log_msg(CFG_LOG_WARN, "request body too slow, connection closed",
                    "received=%zu seconds=%d", rq->len, rq->cfg->request_timeout_seconds);
            return MHD_NO;
        }
        take_chunk(rq, upload_data, *upload_data_size);
        *upload_data_size = 0;
        return MHD_YES;
    }
    return serve_final(s, conn, rq);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **req_cls,
                         enum MHD_RequestTerminationCode toe)
{
    struct request *rq = *req_cls;
    (void)cls;
    (void)conn;
    (void)toe;
    if (rq == NULL)
        return;
    arena_release(rq->arena); /* a request cut short still holds it */
    cfg_live_release(rq->cfg);
    free(rq);
    *req_cls = NULL;
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
    char msg[512];
    (void)cls;
    vsnprintf(msg, sizeof(msg), fmt, ap);
    msg[strcspn(msg, "\n")] = '\0';
    log_unquote(msg);
    log_msg(CFG_LOG_DEBUG, "libmicrohttpd", "detail=\"%s\"", msg);
}

/* Resolves host:port into @ss (numeric addresses or names like localhost). */
static int resolve(const struct cfg *cfg, struct sockaddr_storage *ss, char err[CFG_ERR_LEN])
{
    char host[CFG_STR_LEN], port_text[16];
    struct addrinfo hints = {.ai_family = AF_UNSPEC,
                             .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
    struct addrinfo *res = NULL;
    int port, rc;

    if (cfg_listen_split(cfg->listen, host, &port) != 0) {
        snprintf(err, CFG_ERR_LEN, "listen: bad address %s", cfg->listen);
        return -EINVAL;
    }
    snprintf(port_text, sizeof(port_text), "%d", port);
    rc = getaddrinfo(host, port_text, &hints, &res);
    if (rc != 0) {
        snprintf(err, CFG_ERR_LEN, "listen: cannot resolve %s: %s", host, gai_strerror(rc));
        return -EINVAL;
    }
    memcpy(ss, res->ai_addr, res->ai_addrlen);
    freeaddrinfo(res);
    return 0;
}

int srv_start(const struct cfg *cfg, struct srv_cluster *cluster, struct srv **out,
              char err[CFG_ERR_LEN])
{
    struct sockaddr_storage ss;
    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC |
                     MHD_USE_ERROR_LOG;
    struct srv *s;

    memset(&ss, 0, sizeof(ss));
    if (resolve(cfg, &ss, err) != 0)
        return -EINVAL;
    if (ss.ss_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    s = calloc(1, sizeof(*s));
    if (s == NULL) {
        snprintf(err, CFG_ERR_LEN, "out of memory");
        return -ENOMEM;
    }
    if (cfg_live_init(&s->live, cfg) != 0) {
        snprintf(err, CFG_ERR_LEN, "out of memory");
        free(s);
        return -ENOMEM;
    }
    snprintf(s->listen, sizeof(s->listen), "%s", cfg->listen);
    s->connection_limit = cfg->connection_limit;
    s->per_ip_connection_limit = cfg->per_ip_connection_limit;
    s->idle_timeout_seconds = cfg->idle_timeout_seconds;
    s->mtls = cfg->client_ca[0] != '\0';
    snprintf(s->tls_cert, sizeof(s->tls_cert), "%s", cfg->tls_cert);
    snprintf(s->tls_key, sizeof(s->tls_key), "%s", cfg->tls_key);
    snprintf(s->client_ca, sizeof(s->client_ca), "%s", cfg->client_ca);
    atomic_init(&s->ready, true);
    s->cluster = cluster;
    srv_metrics_init(&s->metrics);
    if (srv_decisions_init(&s->decisions, cfg->debug_endpoints ? cfg->decisions_kept : 0,
                           cfg->decisions_max_bytes) != 0) {
        snprintf(err, CFG_ERR_LEN, "out of memory");
        cfg_live_destroy(&s->live);
        free(s);
        return -ENOMEM;
    }
    struct MHD_OptionItem opts[16];
    size_t n = 0;
    char *trust = NULL;
#define OPT(o, v, p) (opts[n++] = (struct MHD_OptionItem){(o), (intptr_t)(v), (p)})
    OPT(MHD_OPTION_SOCK_ADDR, 0, &ss);
    OPT(MHD_OPTION_CONNECTION_LIMIT, cfg->connection_limit, NULL);
    OPT(MHD_OPTION_PER_IP_CONNECTION_LIMIT, cfg->per_ip_connection_limit, NULL);
    OPT(MHD_OPTION_CONNECTION_TIMEOUT, cfg->idle_timeout_seconds, NULL);
    OPT(MHD_OPTION_CONNECTION_MEMORY_LIMIT, CONNECTION_MEMORY, NULL);
    OPT(MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)on_completed, NULL);
    if (cfg->tls_cert[0] != '\0') {
        flags |= MHD_USE_TLS;
        /* One-argument options take their argument from ptr_value. */
        OPT(MHD_OPTION_HTTPS_CERT_CALLBACK, 0, (void *)srv_tls_cert_callback);
        OPT(MHD_OPTION_HTTPS_PRIORITIES, 0, SRV_TLS_PRIORITIES);
        if (cfg->client_ca[0] != '\0') {
            trust = srv_tls_read_pem(cfg->client_ca, err);
            if (trust == NULL)
                goto out_free;
            /* MHD only asks for a client certificate; on_request checks it. */
            OPT(MHD_OPTION_HTTPS_MEM_TRUST, 0, trust);
        }
    }
    OPT(MHD_OPTION_END, 0, NULL);
#undef OPT
    s->daemon = MHD_start_daemon(flags, 0, NULL, NULL, on_request, s, MHD_OPTION_EXTERNAL_LOGGER,
                                 on_mhd_log, NULL, MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
    free(trust);
    if (s->daemon == NULL) {
        snprintf(err, CFG_ERR_LEN,
                 "cannot serve on %s: address in use or not available, or TLS setup failed "
                 "(details at --log-level debug)",
                 cfg->listen);
        goto out_free;
    }
    *out = s;
    return 0;

out_free:
    srv_decisions_destroy(&s->decisions);
    cfg_live_destroy(&s->live);
    free(s);
    return -EINVAL;
}

int srv_port(const struct srv *s)
{
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info != NULL ? info->port : -1;
}

void srv_set_unready(struct srv *s)
{
    atomic_store(&s->ready, false);
}

static unsigned connections(const struct srv *s)
{
    const union MHD_DaemonInfo *info =
        MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info != NULL ? info->num_connections : 0;
}

void srv_stop(struct srv *s, int drain_seconds)
{
    if (s == NULL)
        return;
    /* Quiesce keeps the connections but hands the listening socket back.
     * It may not be closed before MHD_stop_daemon (its polling thread may
     * still look at the descriptor), but shutting it down stops listening
     * at once: new connections are refused instead of waiting in the
     * backlog until they are reset. */
    MHD_socket listener = MHD_quiesce_daemon(s->daemon);
    if (listener != MHD_INVALID_SOCKET)
        shutdown(listener, SHUT_RDWR);
    struct timespec deadline, now;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += drain_seconds;
    for (;;) {
        unsigned open = connections(s);
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (open == 0 || now.tv_sec > deadline.tv_sec ||
            (now.tv_sec == deadline.tv_sec && now.tv_nsec >= deadline.tv_nsec))
            break;
        struct timespec tick = {0, 20 * 1000 * 1000};
        nanosleep(&tick, NULL);
    }
    MHD_stop_daemon(s->daemon);
    if (listener != MHD_INVALID_SOCKET)
        close(listener);
    srv_decisions_destroy(&s->decisions);
    cfg_live_destroy(&s->live);
    free(s);
}

int srv_reload(struct srv *s, const struct cfg *next)
{
    /* The daemon's socket and limits were set at start. */
    if (strcmp(next->listen, s->listen) != 0 || next->connection_limit != s->connection_limit ||
        next->per_ip_connection_limit != s->per_ip_connection_limit ||
        next->idle_timeout_seconds != s->idle_timeout_seconds ||
        strcmp(next->tls_cert, s->tls_cert) != 0 || strcmp(next->tls_key, s->tls_key) != 0 ||
        strcmp(next->client_ca, s->client_ca) != 0)
        log_msg(CFG_LOG_WARN, "listen, connection and TLS settings take effect on restart",
                "listen=%s", s->listen);
    if (cfg_live_swap(&s->live, next) != 0)
        return -ENOMEM;
    /* With the debug endpoints off nothing is recorded: keep nothing. */
    int kept = next->debug_endpoints ? next->decisions_kept : 0;
    if (srv_decisions_configure(&s->decisions, kept, next->decisions_max_bytes) != 0)
        log_msg(CFG_LOG_ERROR, "decisions ring not resized: out of memory", "kept=%d", kept);
    return 0;
}

void srv_note_reload(struct srv *s, bool accepted)
{
    srv_metrics_reload(&s->metrics, accepted);
}

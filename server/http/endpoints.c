#include "server/http/endpoints.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/clock.h"
#include "scoring/placement.h"
#include "server/http/respond.h"
#include "server/ops/debug_json.h"
#include "server/ops/debug_page.h"
#include "version.h"

/* What /metrics shows of the cluster, read now. */
static void cluster_gauges(struct cluster *cl, struct ops_cluster_gauges *g)
{
    char why[ERR_LEN];
    struct score_spread_sums sums = {0};

    g->present = cl != NULL;
    if (cl == NULL)
        return;
    kube_state_counts(cluster_state(cl), &g->nodes, &g->pods);
    g->ready = cluster_is_ready(cl, why, sizeof(why));
    g->unknown_nodes = cluster_unknown_total(cl);
    kube_state_cpu_spread(cluster_state(cl), &sums);
    g->cpu_ratio_cv = score_spread_cv(&sums);
    g->cpu_ratio_mean = score_spread_mean(&sums);
    struct cluster_counts c;
    cluster_counts(cl, &c);
    g->watch_restarts[OPS_RESOURCE_NODES] = c.nodes.watch_restarts;
    g->watch_restarts[OPS_RESOURCE_PODS] = c.pods.watch_restarts;
    g->relists[OPS_RESOURCE_NODES] = c.nodes.relists;
    g->relists[OPS_RESOURCE_PODS] = c.pods.relists;
    g->list_pages_shrunk[OPS_RESOURCE_NODES] = c.nodes.pages_shrunk;
    g->list_pages_shrunk[OPS_RESOURCE_PODS] = c.pods.pages_shrunk;
    g->api_errors[OPS_RESOURCE_NODES] = c.nodes.errors;
    g->api_errors[OPS_RESOURCE_PODS] = c.pods.errors;
    g->api_errors[OPS_RESOURCE_NODE_METRICS] = c.usage_errors;
    g->usage_polled = c.usage_polled;
    g->has_usage_sample = c.usage_newest > 0;
    g->usage_sample_age = c.usage_newest > 0 ? clock_wall() - c.usage_newest : 0;
}

static enum MHD_Result serve_metrics(struct http_server *s, struct MHD_Connection *conn)
{
    char *text;
    size_t len, kept, kept_bytes;
    struct ops_cluster_gauges g = {0};
    ops_ring_usage(&s->decisions, &kept, &kept_bytes);
    cluster_gauges(s->cluster, &g);
    if (ops_metrics_render(&s->metrics, &g, kept, kept_bytes, &text, &len) != 0)
        return http_send_error(conn, 500, "out of memory", NULL);
    return http_send_owned(conn, 200, "text/plain; version=0.0.4", text, len);
}

/* A 400 for a debug query, in the format of the page asked for. */
static enum MHD_Result bad_query(struct MHD_Connection *conn, bool json, const char *msg)
{
    char *text;
    size_t len;
    if (json)
        return http_send_error(conn, MHD_HTTP_BAD_REQUEST, msg, NULL);
    if (ops_debug_page_error(msg, &text, &len) != 0)
        return http_send_error(conn, 500, "out of memory", NULL);
    return http_send_owned(conn, MHD_HTTP_BAD_REQUEST, "text/html; charset=utf-8", text, len);
}

/* GET /debug (HTML) and /debug/decisions (JSON), when enabled. */
static enum MHD_Result serve_debug(struct http_server *s, struct MHD_Connection *conn,
                                   const struct http_request *rq)
{
    struct ops_query q = {0};
    const char *id = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "id");
    const char *limit = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "limit");
    const char *disagreed = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "disagreed");
    char *text = NULL;
    size_t len;
    int rc;

    if (!rq->cfg->debug_endpoints)
        return http_send_error(conn, MHD_HTTP_NOT_FOUND,
                               "debug endpoints are off: start with --debug-endpoints", NULL);
    bool json = rq->route == HTTP_ROUTE_DEBUG_DECISIONS;
    q.pod = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "pod");
    if (q.pod != NULL && q.pod[0] == '\0')
        q.pod = NULL;
    if ((id != NULL && ops_debug_parse_count(id, &q.id) != 0) ||
        (limit != NULL && ops_debug_parse_count(limit, &q.limit) != 0))
        return bad_query(conn, json, "id and limit must be whole numbers from 1 to 2^63");
    if (disagreed != NULL && strcmp(disagreed, "1") != 0 && strcmp(disagreed, "0") != 0)
        return bad_query(conn, json, "disagreed must be 1 or 0");
    q.disagreed = disagreed != NULL && strcmp(disagreed, "1") == 0;
    rc = json ? ops_debug_json(&s->decisions, &q, &text, &len)
              : ops_debug_page(&s->decisions, &q, rq->cfg, &text, &len);
    if (rc != 0)
        return http_send_error(conn, 500, "out of memory", NULL);
    return http_send_owned(conn, 200, json ? "application/json" : "text/html; charset=utf-8", text,
                           len);
}

/* Ready when not draining and, with a cluster, once its first lists are in;
 * the reason says which. */
static enum MHD_Result serve_readyz(struct http_server *s, struct MHD_Connection *conn)
{
    char why[512] = "serving (request-only: no cluster)";
    bool ready = atomic_load(&s->ready);
    struct buf o;
    size_t len;

    if (!ready)
        snprintf(why, sizeof(why), "shutting down");
    else if (s->cluster != NULL)
        ready = cluster_is_ready(s->cluster, why, sizeof(why));
    buf_init(&o, sizeof(why) + 128);
    buf_str(&o, ready ? "{\"ready\":true,\"reason\":" : "{\"ready\":false,\"reason\":");
    buf_json_str(&o, why); /* the API server's or libcurl's words, escaped */
    if (s->cluster != NULL) {
        size_t nodes, pods;
        kube_state_counts(cluster_state(s->cluster), &nodes, &pods);
        buf_printf(&o, ",\"nodes\":%zu,\"pods\":%zu,\"unknownNodeNames\":%llu", nodes, pods,
                   (unsigned long long)cluster_unknown_total(s->cluster));
    }
    buf_str(&o, "}");
    char *body = buf_take(&o, &len);
    if (body == NULL)
        return http_send_error(conn, 500, "out of memory", NULL);
    return http_send_owned(conn, ready ? 200 : 503, "application/json", body, len);
}

enum MHD_Result http_serve_get(struct http_server *s, struct MHD_Connection *conn,
                               const struct http_request *rq)
{
    char body[512];
    int n;

    switch (rq->route) {
    case HTTP_ROUTE_HEALTHZ:
        return http_send_json(conn, 200, "{\"status\":\"ok\"}", 15, NULL);
    case HTTP_ROUTE_READYZ:
        return serve_readyz(s, conn);
    case HTTP_ROUTE_METRICS:
        return serve_metrics(s, conn);
    case HTTP_ROUTE_DEBUG:
    case HTTP_ROUTE_DEBUG_DECISIONS:
        return serve_debug(s, conn, rq);
    case HTTP_ROUTE_VERSION:
        n = snprintf(
            body, sizeof(body), "{\"version\":\"%s\",\"strategy\":\"%s\",\"configHash\":\"%s\"}",
            CPU_EXTENDER_VERSION, score_strategy_name(rq->cfg->score.strategy), rq->cfg->hash);
        return http_send_json(conn, 200, body, (size_t)n, NULL);
    default:
        return http_send_error(conn, MHD_HTTP_NOT_FOUND, "no such path", NULL);
    }
}

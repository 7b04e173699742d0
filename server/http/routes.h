/* Which endpoint a request path names. */
#ifndef SERVER_HTTP_ROUTES_H
#define SERVER_HTTP_ROUTES_H

#include <stdbool.h>

#include "config/config.h"
#include "server/ops/labels.h"

enum http_route {
    HTTP_ROUTE_NOT_FOUND = 0,
    HTTP_ROUTE_FILTER,
    HTTP_ROUTE_PRIORITIZE,
    HTTP_ROUTE_PREEMPT,
    HTTP_ROUTE_BIND,
    HTTP_ROUTE_HEALTHZ,
    HTTP_ROUTE_READYZ,
    HTTP_ROUTE_VERSION,
    HTTP_ROUTE_METRICS,
    HTTP_ROUTE_DEBUG,
    HTTP_ROUTE_DEBUG_DECISIONS,
};

/* The route of @decoded_path (http_target_read's, without the query)
 * under cfg->prefix. Repeated slashes collapse (kube-scheduler joins
 * urlPrefix and verb with "/", and a verb written "/filter" yields
 * "//filter"). */
enum http_route http_route_of(const struct cfg *cfg, const char *decoded_path);

/* Is @r one of the four verbs (POST)? */
bool http_is_verb_route(enum http_route r);

/* Is @r served by the metrics listener under @cfg? /healthz, /readyz,
 * /metrics and /version; the /debug pages with metrics-listen-debug. */
bool http_is_ops_route(const struct cfg *cfg, enum http_route r);

/* The verb of a verb route. */
enum ops_verb http_verb_of(enum http_route r);

#endif

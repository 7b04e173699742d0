#include "server/http/routes.h"

#include <string.h>

#include "base/path.h"
#include "server/http/target.h"

bool http_is_verb_route(enum http_route r)
{
    return r == HTTP_ROUTE_FILTER || r == HTTP_ROUTE_PRIORITIZE || r == HTTP_ROUTE_PREEMPT ||
           r == HTTP_ROUTE_BIND;
}

bool http_is_ops_route(const struct cfg *cfg, enum http_route r)
{
    switch (r) {
    case HTTP_ROUTE_HEALTHZ:
    case HTTP_ROUTE_READYZ:
    case HTTP_ROUTE_METRICS:
    case HTTP_ROUTE_VERSION:
        return true;
    case HTTP_ROUTE_DEBUG:
    case HTTP_ROUTE_DEBUG_DECISIONS:
        return cfg->metrics_listen_debug;
    default:
        return false;
    }
}

enum http_route http_route_of(const struct cfg *cfg, const char *decoded_path)
{
    char path[HTTP_PATH_MAX];
    size_t plen = strlen(cfg->prefix);

    path_squash(decoded_path, strlen(decoded_path), path, sizeof(path), false);
    if (strncmp(path, cfg->prefix, plen) == 0) {
        if (strcmp(path + plen, "/filter") == 0)
            return HTTP_ROUTE_FILTER;
        if (strcmp(path + plen, "/prioritize") == 0)
            return HTTP_ROUTE_PRIORITIZE;
        if (strcmp(path + plen, "/preempt") == 0)
            return HTTP_ROUTE_PREEMPT;
        if (strcmp(path + plen, "/bind") == 0)
            return HTTP_ROUTE_BIND;
    }
    if (strcmp(path, "/healthz") == 0)
        return HTTP_ROUTE_HEALTHZ;
    if (strcmp(path, "/readyz") == 0)
        return HTTP_ROUTE_READYZ;
    if (strcmp(path, "/version") == 0)
        return HTTP_ROUTE_VERSION;
    if (strcmp(path, "/metrics") == 0)
        return HTTP_ROUTE_METRICS;
    if (strcmp(path, "/debug") == 0 || strcmp(path, "/debug/") == 0)
        return HTTP_ROUTE_DEBUG;
    if (strcmp(path, "/debug/decisions") == 0)
        return HTTP_ROUTE_DEBUG_DECISIONS;
    return HTTP_ROUTE_NOT_FOUND;
}

enum ops_verb http_verb_of(enum http_route r)
{
    switch (r) {
    case HTTP_ROUTE_FILTER:
        return OPS_VERB_FILTER;
    case HTTP_ROUTE_PRIORITIZE:
        return OPS_VERB_PRIORITIZE;
    case HTTP_ROUTE_PREEMPT:
        return OPS_VERB_PREEMPT;
    default:
        return OPS_VERB_BIND;
    }
}

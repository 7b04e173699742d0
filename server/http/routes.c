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

/* The paths under the prefix (the verbs) and the others, in the order of
 * enum http_route. */
static const char *const verb_paths[] = {"/filter", "/prioritize", "/preempt", "/bind"};
static const char *const other_paths[] = {"/healthz", "/readyz", "/version",
                                          "/metrics", "/debug",  "/debug/decisions"};
_Static_assert(sizeof(verb_paths) / sizeof(verb_paths[0]) == OPS_VERB_COUNT &&
                   HTTP_ROUTE_FILTER - HTTP_ROUTE_FILTER == OPS_VERB_FILTER &&
                   HTTP_ROUTE_PRIORITIZE - HTTP_ROUTE_FILTER == OPS_VERB_PRIORITIZE &&
                   HTTP_ROUTE_PREEMPT - HTTP_ROUTE_FILTER == OPS_VERB_PREEMPT &&
                   HTTP_ROUTE_BIND - HTTP_ROUTE_FILTER == OPS_VERB_BIND,
               "the verbs' routes follow enum ops_verb (http_verb_of subtracts)");
_Static_assert(sizeof(other_paths) / sizeof(other_paths[0]) ==
                   HTTP_ROUTE_DEBUG_DECISIONS - HTTP_ROUTE_HEALTHZ + 1,
               "the other paths follow enum http_route");

enum http_route http_route_of(const struct cfg *cfg, const char *decoded_path)
{
    char path[HTTP_PATH_MAX];
    size_t plen = strlen(cfg->prefix);

    path_squash(decoded_path, strlen(decoded_path), path, sizeof(path), false);
    if (strncmp(path, cfg->prefix, plen) == 0)
        for (size_t i = 0; i < sizeof(verb_paths) / sizeof(verb_paths[0]); i++)
            if (strcmp(path + plen, verb_paths[i]) == 0)
                return (enum http_route)(HTTP_ROUTE_FILTER + i);
    for (size_t i = 0; i < sizeof(other_paths) / sizeof(other_paths[0]); i++)
        if (strcmp(path, other_paths[i]) == 0)
            return (enum http_route)(HTTP_ROUTE_HEALTHZ + i);
    return strcmp(path, "/debug/") == 0 ? HTTP_ROUTE_DEBUG : HTTP_ROUTE_NOT_FOUND;
}

enum ops_verb http_verb_of(enum http_route r)
{
    /* The verbs' routes are in the order of enum ops_verb; any other is bind. */
    return http_is_verb_route(r) ? (enum ops_verb)(r - HTTP_ROUTE_FILTER) : OPS_VERB_BIND;
}

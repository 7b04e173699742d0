/*
 * The HTTP service's own state, shared by the files of server/http: the
 * daemon, the live configuration and what the operations endpoints read.
 * Nothing outside server/http sees it (daemon.h is the face).
 */
#ifndef SERVER_HTTP_SERVER_H
#define SERVER_HTTP_SERVER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include <microhttpd.h>

#include "config/config.h"
#include "config/live.h"
#include "server/cluster/cluster.h"
#include "server/http/budget.h"
#include "server/http/guard.h"
#include "server/http/routes.h"
#include "server/http/target.h"
#include "server/ops/metrics.h"
#include "server/ops/ring.h"

/* One listening daemon of the server and the guard of its connections:
 * the verbs' (listen), or the operations' (metrics-listen), which serves
 * only the GET endpoints a monitoring system and the kubelet need. */
struct http_listener {
    struct http_server *server;
    struct MHD_Daemon *daemon; /* NULL: not started */
    struct http_guard *guard;
    bool ops_only; /* /healthz /readyz /metrics /version, /debug when asked */
};

struct http_server {
    struct http_listener main, ops; /* ops.daemon NULL without metrics-listen */
    struct cfg_live live;           /* what requests use; swapped by http_reload() */
    bool mtls;                      /* client certificates are required on main (set at start) */
    atomic_bool ready;
    atomic_bool draining;    /* http_stop has begun: every answer closes its connection */
    struct cluster *cluster; /* borrowed; NULL: request-only */
    struct ops_metrics metrics;
    struct ops_ring decisions;  /* recorded while debug endpoints are on */
    struct http_budget *budget; /* memory of the verb requests in flight (budget.h) */
};

/* Per-request state, from the request line (http_on_uri) to
 * NOTIFY_COMPLETED. A verb request reserves its memory in the budget and
 * takes an arena at its headers: the body is read into it, parsed in it,
 * and the answer written in it; the arena and the reservation go to the
 * answer (struct http_hold, in the arena itself), which gives both back
 * once libmicrohttpd has sent it. */
struct http_request {
    const struct http_listener *listener; /* the daemon it came in on */
    const struct cfg *cfg;                /* a reference for the request's whole life */
    struct timespec start;                /* when the headers arrived */
    bool started;                         /* the access handler has seen the headers */
    size_t target_len;                    /* the request-target's length as received */
    const char *target_refusal;           /* why the target is refused, or NULL */
    char path[HTTP_PATH_MAX];             /* the target's path, decoded; "" if longer */
    enum http_route route;
    bool method_ok;
    bool uncertified; /* mTLS listener, no verified client certificate: one answer, then close */
    bool closing;     /* the answer will say Connection: close, and the connection closes */
    bool queued;      /* an answer is queued: the guard times its writing */
    bool too_large;
    bool no_room;           /* the memory budget had none: 503 once the body is drained */
    bool oom;               /* the body could not be allocated: 500 once it is drained */
    bool over_budget;       /* needs more than the whole memory budget: 413 */
    size_t charge;          /* the memory it needs (verb_memory_charge) */
    size_t reserved;        /* of it, reserved in the budget until hold owns it */
    struct http_hold *hold; /* in the arena: what the answer gives back when sent */
    struct arena *arena;
    char *body;
    size_t len, cap;
};

#endif

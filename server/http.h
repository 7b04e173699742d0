/*
 * The HTTP service (libmicrohttpd): routing, body limits, keep-alive.
 *
 *   POST <prefix>/filter, /prioritize, /preempt, /bind   the extender verbs
 *   GET  /healthz, /readyz, /version                  probes and build info
 *   GET  /metrics                                     Prometheus text (server/metrics.h)
 *
 * Repeated slashes in a path collapse and a query string is ignored; other
 * paths get 404, other methods 405, bodies over max-body-bytes 413.
 * One thread per connection, so a long scoring call never delays /healthz.
 */
#ifndef SERVER_HTTP_H
#define SERVER_HTTP_H

#include "config/config.h"
#include "server/cluster.h"

struct srv;

/*
 * Binds cfg->listen and starts serving with a copy of @cfg, scoring from
 * @cluster's state (borrowed, must outlive the server; NULL: request-only).
 * Returns 0 and the server in *@out, or -errno with a message in @err.
 */
int srv_start(const struct cfg *cfg, struct srv_cluster *cluster, struct srv **out,
              char err[CFG_ERR_LEN]);

/*
 * Serves new requests with a copy of @next from now on; requests in flight
 * finish with the configuration they started with. The listen address and
 * the connection settings keep their values until a restart (a warning is
 * logged). Returns 0 or -ENOMEM. Thread-safe.
 */
int srv_reload(struct srv *s, const struct cfg *next);

/* Counts a configuration reload in /metrics, accepted or rejected.
 * Thread-safe. */
void srv_note_reload(struct srv *s, bool accepted);

/* The bound port (useful with port 0). */
int srv_port(const struct srv *s);

/* Marks the service not ready: /readyz answers 503 from now on. Thread-safe. */
void srv_set_unready(struct srv *s);

/*
 * Stops accepting connections, lets the requests in flight finish for up to
 * @drain_seconds (idle keep-alive connections are closed at the deadline),
 * then closes everything and frees @s.
 */
void srv_stop(struct srv *s, int drain_seconds);

#endif

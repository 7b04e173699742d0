/*
 * The HTTP service (libmicrohttpd): routing, body limits, keep-alive.
 *
 *   POST <prefix>/filter, /prioritize, /preempt, /bind   the extender verbs
 *   GET  /healthz, /readyz, /version                  probes and build info
 *   GET  /metrics                                     Prometheus text (server/ops/metrics.h)
 *
 * With metrics-listen, a second listener serves the GET endpoints alone
 * (and /debug when metrics-listen-debug): every other path is 404 there,
 * and it never asks for a client certificate. The main listener keeps
 * serving them too.
 *
 * Repeated slashes in a path collapse and a query string is ignored; other
 * paths get 404, other methods 405, bodies over max-body-bytes 413.
 * One thread per connection, so a long scoring call never delays /healthz.
 * This room is the only includer of microhttpd.h and GnuTLS.
 */
#ifndef SERVER_HTTP_DAEMON_H
#define SERVER_HTTP_DAEMON_H

#include <stdbool.h>

#include "config/config.h"
#include "server/cluster/cluster.h"

struct http_server;

/*
 * Binds cfg->listen (and cfg->metrics_listen when set) and starts serving with a copy of @cfg,
 * scoring from
 * @cluster's state (borrowed, must outlive the server; NULL: request-only).
 * Returns 0 and the server in *@out, or -errno with a message in @err.
 */
int http_start(const struct cfg *cfg, struct cluster *cluster, struct http_server **out, char *err);

/*
 * Serves new requests with a copy of @next from now on; requests in flight
 * finish with the configuration they started with. The listen addresses,
 * the connection settings and TLS keep their values until a restart (the
 * caller says so: cfg_diff). Returns 0 or -ENOMEM. Thread-safe.
 */
int http_reload(struct http_server *s, const struct cfg *next);

/* Notes a configuration reload in /metrics: @valid (taken) or rejected,
 * and whether it @changed anything. Thread-safe. */
void http_note_reload(struct http_server *s, bool valid, bool changed);

/* The bound port (useful with port 0). */
int http_port(const struct http_server *s);

/* The bound port of the metrics listener, -1 without one. */
int http_metrics_port(const struct http_server *s);

/* Marks the service not ready: /readyz answers 503 from now on. Thread-safe. */
void http_set_unready(struct http_server *s);

/*
 * Stops accepting connections, lets the requests in flight finish for up to
 * @drain_seconds (idle keep-alive connections are closed at the deadline),
 * then closes everything and frees @s.
 */
void http_stop(struct http_server *s, int drain_seconds);

#endif

/*
 * The connection slots and the requests in them, for the guard
 * (guard.h): which phase each connection's request is in and since when,
 * which to cut at the request deadline, and which to close to make room
 * when the slots are full. No libmicrohttpd in here: times are passed in
 * (CLOCK_MONOTONIC seconds) and a connection is cut by shutdown(2) of its
 * descriptor, so that this is tested alone with socket pairs.
 */
#ifndef SERVER_HTTP_SLOTS_H
#define SERVER_HTTP_SLOTS_H

#include <pthread.h>
#include <sys/socket.h>

#include "server/ops/metrics.h"

enum http_phase {
    HTTP_PHASE_HEAD = 0, /* waiting for a request's headers (TLS handshake included) */
    HTTP_PHASE_BODY,     /* headers in, body not complete */
    HTTP_PHASE_BUSY,     /* complete: being answered */
    HTTP_PHASE_IDLE,     /* between requests (keep-alive) */
};

struct http_slot; /* one connection, from its accept to its close */

struct http_slots {
    pthread_mutex_t lock; /* guards the list and every entry in it */
    struct http_slot *head;
    int connection_limit, per_ip_limit;
    struct ops_metrics *metrics; /* borrowed: every cut and refusal is counted there */
};

/* An incomplete request younger than this (seconds) is never closed to
 * make room: a correct client's headers take milliseconds, and without it
 * a burst of new connections would close each other's requests. */
#define HTTP_SLOTS_EVICT_MIN_AGE 0.5

/* Sets up @s for at most @connection_limit connections, at most
 * @per_ip_limit of them from one address, counting what it cuts or
 * refuses in @metrics (cpu_extender_http_refused_total, borrowed) and
 * logging it (ops_access_log_refused). Returns 0 or -errno. */
int http_slots_init(struct http_slots *s, int connection_limit, int per_ip_limit,
                    struct ops_metrics *metrics);

/* Frees every entry left and the lock (no other thread may use @s). */
void http_slots_destroy(struct http_slots *s);

/*
 * Whether a new connection from @addr may be accepted at @now: when its
 * address is at the per-IP limit, the incomplete request from that address
 * that has waited longest (at least HTTP_SLOTS_EVICT_MIN_AGE) is closed to
 * make room, and only when there is none is the answer -EBUSY; when it
 * takes the last slot, the longest-waiting incomplete request of any
 * address is closed for the next one (libmicrohttpd stops accepting at
 * the total limit). Returns 0 or -EBUSY. Thread-safe.
 */
int http_slots_admit(struct http_slots *s, const struct sockaddr *addr, double now);

/* Tracks the connection on descriptor @fd from @addr (IPv4 or IPv6),
 * waiting for its first request's headers since @now. Returns the entry,
 * or NULL when out of memory (the connection is then served untracked,
 * never cut). Thread-safe. */
struct http_slot *http_slots_add(struct http_slots *s, int fd, const struct sockaddr *addr,
                                 double now);

/* Forgets @c and frees it; call before the descriptor is closed, so that
 * no cut can reach a descriptor reused meanwhile. Thread-safe. */
void http_slots_remove(struct http_slots *s, struct http_slot *c);

/* The request on @c entered @phase at @now. Thread-safe. */
void http_slots_set_phase(struct http_slots *s, struct http_slot *c, enum http_phase phase,
                          double now);

/*
 * One watchdog look at @now: cuts every request whose headers, or whose
 * body, are not complete @deadline seconds after its phase began (a
 * request on a kept-alive connection begins with its first byte, read from
 * the kernel's TCP_INFO since libmicrohttpd has read the bytes already),
 * and, when every slot is taken, makes room as http_slots_admit does.
 * Requests being answered and idle connections are never cut.
 * Thread-safe.
 */
void http_slots_tick(struct http_slots *s, double now, double deadline);

#endif

/*
 * The connection slots and the requests in them, for the guard
 * (guard.h): which phase each connection's request is in and since when,
 * which to cut at the request and write deadlines, which to close to make
 * room when the slots are full, and which upload or unread answer to
 * close when the memory budget is short. No libmicrohttpd in here: times are passed in
 * (CLOCK_MONOTONIC seconds) and a connection is cut by shutdown(2) of its
 * descriptor, so that this is tested alone with socket pairs.
 */
#ifndef SERVER_HTTP_SLOTS_H
#define SERVER_HTTP_SLOTS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#include "server/ops/metrics.h"

enum http_phase {
    HTTP_PHASE_HEAD = 0, /* waiting for a request's headers (TLS handshake included) */
    HTTP_PHASE_BODY,     /* headers in, body not complete */
    HTTP_PHASE_BUSY,     /* complete: being answered */
    HTTP_PHASE_IDLE,     /* between requests (keep-alive) */
    HTTP_PHASE_SEND,     /* answer queued: being written to the client */
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

/* The write deadline (seconds): an answer not taken by its client this
 * long after it was queued is cut, its memory given back. Twice
 * kube-scheduler's default httpTimeout (5 s): an answer later than that
 * is read by nobody, and a /debug page over a port-forward has room. */
#define HTTP_SLOTS_WRITE_DEADLINE 10.0

/* Sets up @s for at most @connection_limit connections, at most
 * @per_ip_limit of them from one address, counting what it cuts or
 * refuses in @metrics (cpu_extender_http_refused_total, borrowed) and
 * logging it (ops_access_log_refused). Returns 0 or -errno. */
int http_slots_init(struct http_slots *s, int connection_limit, int per_ip_limit,
                    struct ops_metrics *metrics);

/* Frees every entry left and the lock (no other thread may use @s). */
void http_slots_destroy(struct http_slots *s);

/* When the slots are nearly full, an address holding 1/HTTP_SLOTS_HEAVY_SHARE
 * of them (16 of 64, 4 of 16) or more gets a new connection only in
 * exchange for one of its own. */
#define HTTP_SLOTS_HEAVY_SHARE 4

/*
 * Whether a new connection from @addr may be accepted at @now. When its
 * address is at the per-IP limit, or the new connection takes the last
 * slot and its address holds a heavy share already, one of that
 * address's own connections is closed to make room, and only when none
 * may be is the answer -EBUSY (at once: the backlog behind it moves on);
 * otherwise, when it takes the last slot, one connection of the address
 * holding the most is closed for the next one (libmicrohttpd stops
 * accepting at the total limit). Which one: the idle keep-alive
 * connection idle longest, else the incomplete request (headers before
 * bodies) waiting longest, else the answer unread longest; each at least
 * HTTP_SLOTS_EVICT_MIN_AGE in that state. Requests being decided are
 * never closed. Returns 0 or -EBUSY. Thread-safe.
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

/* The request on @c reserved memory in the budget for a body of
 * @announced bytes (0: it reserved none). Thread-safe. */
void http_slots_set_body(struct http_slots *s, struct http_slot *c, size_t announced, double now);

/* The request on @c has received @received bytes of its body by @now.
 * Thread-safe. */
void http_slots_body_progress(struct http_slots *s, struct http_slot *c, size_t received,
                              double now);

/*
 * The memory budget is short at @now: closes the request holding memory
 * that is furthest from giving it back, at least HTTP_SLOTS_EVICT_MIN_AGE
 * into its phase: an upload that has received nothing for
 * HTTP_SLOTS_EVICT_MIN_AGE, or that at its rate so far would not be
 * complete within the request @deadline (seconds) of its headers; an
 * answer whose client has taken nothing for HTTP_SLOTS_EVICT_MIN_AGE.
 * The longest stalled, or slowest, goes first. Returns whether one was
 * closed (its memory comes back when libmicrohttpd ends it). Thread-safe.
 */
bool http_slots_evict_for_memory(struct http_slots *s, double now, double deadline);

/*
 * One watchdog look at @now: cuts every request whose headers, or whose
 * body, are not complete @deadline seconds after its phase began (a
 * request on a kept-alive connection begins with its first byte, read from
 * the kernel's TCP_INFO since libmicrohttpd has read the bytes already),
 * every answer its client has not taken HTTP_SLOTS_WRITE_DEADLINE seconds
 * after it was queued, and, when every slot is taken, makes room as
 * http_slots_admit does. Requests being decided are never cut; idle
 * connections only to make room. Thread-safe.
 */
void http_slots_tick(struct http_slots *s, double now, double deadline);

#endif

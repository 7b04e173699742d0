/*
 * Connection slots for requests that finish (issue 14, availability).
 *
 * libmicrohttpd's only clock on a connection is an inactivity timeout,
 * reset by every byte: a client that sends a header byte every half
 * second, or a TLS handshake that stops after its ClientHello, keeps its
 * slot until the idle timeout (120 s) or forever, and a few dozen of them
 * fill the per-IP and total limits, leaving kube-scheduler and the
 * kubelet's /healthz nothing. The guard follows every connection
 * (MHD_OPTION_NOTIFY_CONNECTION) through the phases of its requests
 * (slots.h) and, from a watchdog thread every 100 ms:
 *
 *   - cuts a request whose headers (TLS handshake included) are not
 *     complete within the request deadline of the request's first byte
 *     (of the connection's accept, for its first request), or whose body
 *     is not complete within the deadline of its headers;
 *   - cuts an answer its client has not taken within the write deadline
 *     (HTTP_SLOTS_WRITE_DEADLINE, 10 s) of its queueing;
 *   - when a new connection would fill the last slot, or an address is at
 *     its per-IP limit, closes a connection to make room (issue 23): the
 *     keep-alive connection idle longest, else the incomplete request
 *     waiting longest, else the answer unread longest, each at least half
 *     a second in that state, from the address itself when it is at its
 *     limit or holds a quarter of the slots (else it is refused at once,
 *     so the backlog keeps moving), from the address holding the most
 *     otherwise; only when there is none is the new connection refused
 *     (per IP) or left in the backlog (total).
 *
 * And when the memory budget is short, a request that would wait closes
 * the stalled upload or unread answer holding memory (slots.h,
 * http_slots_evict_for_memory). Requests being decided are never cut.
 */
#ifndef SERVER_HTTP_GUARD_H
#define SERVER_HTTP_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#include <microhttpd.h>

#include "server/http/slots.h"
#include "server/ops/metrics.h"

struct http_guard;

/*
 * Starts the watchdog for at most @connection_limit connections, at most
 * @per_ip_limit of them from one address, and the request deadline
 * @request_timeout_seconds; what it cuts or refuses is counted in
 * @metrics (borrowed, must outlive the guard). Returns 0 and the guard in
 * *@out, or -errno.
 */
int http_guard_start(int connection_limit, int per_ip_limit, int request_timeout_seconds,
                     struct ops_metrics *metrics, struct http_guard **out);

/* A new request deadline, from the next watchdog look on. Thread-safe. */
void http_guard_set_request_timeout(struct http_guard *g, int seconds);

/* Stops the watchdog and frees @g (NULL is fine); call after
 * MHD_stop_daemon, which notified every connection closed. */
void http_guard_stop(struct http_guard *g);

/* MHD_AcceptPolicyCallback (@cls: the guard): the per-IP limit, and room
 * made when the slots are nearly full (http_slots_admit). */
enum MHD_Result http_guard_accept(void *cls, const struct sockaddr *addr, socklen_t addrlen);

/* MHD_NotifyConnectionCallback (@cls: the guard): a connection is tracked
 * from its start to its close. */
void http_guard_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
                       enum MHD_ConnectionNotificationCode code);

/* The request on @conn entered @phase: HTTP_PHASE_BODY when its headers
 * are complete (the access handler's first call), HTTP_PHASE_BUSY when its
 * body is (the final call), HTTP_PHASE_SEND when its answer was queued,
 * HTTP_PHASE_IDLE when it was answered or ended (NOTIFY_COMPLETED).
 * Thread-safe. */
void http_guard_set_phase(struct http_guard *g, struct MHD_Connection *conn, enum http_phase phase);

/* The request on @conn reserved memory for a body of @announced bytes;
 * it has received @received of them. Thread-safe. */
void http_guard_body_reserved(struct http_guard *g, struct MHD_Connection *conn, size_t announced);
void http_guard_body_progress(struct http_guard *g, struct MHD_Connection *conn, size_t received);

/* The memory budget is short: closes the upload or unread answer holding
 * memory that is furthest from giving it back (http_slots_evict_for_memory).
 * Returns whether one was closed. Thread-safe. */
bool http_guard_evict_for_memory(struct http_guard *g);

#endif

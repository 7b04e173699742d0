#include "server/http/guard.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include "base/clock.h"
#include "server/http/slots.h"

/* How often the watchdog looks: the deadline is kept to within this. */
#define TICK_MS 100

struct http_guard {
    struct http_slots slots;
    atomic_int request_timeout_seconds;
    atomic_bool stop;
    pthread_t watchdog;
};

static double now_seconds(void)
{
    return (double)clock_mono_ns() / (double)CLOCK_NS_PER_SEC;
}

enum MHD_Result http_guard_accept(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
    struct http_guard *g = cls;
    (void)addrlen;
    return http_slots_admit(&g->slots, addr, now_seconds()) == 0 ? MHD_YES : MHD_NO;
}

void http_guard_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
                       enum MHD_ConnectionNotificationCode code)
{
    struct http_guard *g = cls;

    if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
        if (*socket_context != NULL)
            http_slots_remove(&g->slots, *socket_context);
        *socket_context = NULL;
        return;
    }
    const union MHD_ConnectionInfo *fd =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    const union MHD_ConnectionInfo *addr =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (fd == NULL || addr == NULL || addr->client_addr == NULL)
        return; /* untracked: served, but never cut */
    *socket_context = http_slots_add(&g->slots, fd->connect_fd, addr->client_addr, now_seconds());
}

static struct http_slot *slot_of(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci != NULL ? ci->socket_context : NULL;
}

void http_guard_set_phase(struct http_guard *g, struct MHD_Connection *conn, enum http_phase phase)
{
    struct http_slot *c = slot_of(conn);
    if (c != NULL)
        http_slots_set_phase(&g->slots, c, phase, now_seconds());
}

void http_guard_body_reserved(struct http_guard *g, struct MHD_Connection *conn, size_t announced)
{
    struct http_slot *c = slot_of(conn);
    if (c != NULL)
        http_slots_set_body(&g->slots, c, announced, now_seconds());
}

void http_guard_body_progress(struct http_guard *g, struct MHD_Connection *conn, size_t received)
{
    struct http_slot *c = slot_of(conn);
    if (c != NULL)
        http_slots_body_progress(&g->slots, c, received, now_seconds());
}

bool http_guard_evict_for_memory(struct http_guard *g)
{
    return http_slots_evict_for_memory(&g->slots, now_seconds(),
                                       atomic_load(&g->request_timeout_seconds));
}

static void *watchdog(void *arg)
{
    struct http_guard *g = arg;
    const struct timespec tick = {0, TICK_MS * 1000 * 1000};
    while (!atomic_load(&g->stop)) {
        nanosleep(&tick, NULL);
        http_slots_tick(&g->slots, now_seconds(), atomic_load(&g->request_timeout_seconds));
    }
    return NULL;
}

int http_guard_start(int connection_limit, int per_ip_limit, int request_timeout_seconds,
                     struct ops_metrics *metrics, struct http_guard **out)
{
    struct http_guard *g = calloc(1, sizeof(*g));
    int rc;

    if (g == NULL)
        return -ENOMEM;
    rc = http_slots_init(&g->slots, connection_limit, per_ip_limit, metrics);
    if (rc != 0)
        goto out_free;
    atomic_init(&g->request_timeout_seconds, request_timeout_seconds);
    atomic_init(&g->stop, false);
    rc = -pthread_create(&g->watchdog, NULL, watchdog, g);
    if (rc != 0)
        goto out_destroy_slots;
    *out = g;
    return 0;

out_destroy_slots:
    http_slots_destroy(&g->slots);
out_free:
    free(g);
    return rc;
}

void http_guard_set_request_timeout(struct http_guard *g, int seconds)
{
    atomic_store(&g->request_timeout_seconds, seconds);
}

void http_guard_stop(struct http_guard *g)
{
    if (g == NULL)
        return;
    atomic_store(&g->stop, true);
    pthread_join(g->watchdog, NULL);
    http_slots_destroy(&g->slots);
    free(g);
}

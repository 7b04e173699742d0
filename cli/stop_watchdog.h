/*
 * The bound on a shutdown: drainSeconds for what is in flight, then
 * CLI_STOP_GRACE_SECONDS more, whatever still waits (a bind on a hung API
 * server, a credential plugin that never ends, a thread stuck anywhere).
 * The pod's grace period ends in a SIGKILL; exiting on our own before it
 * leaves a log line that says why.
 */
#ifndef CLI_STOP_WATCHDOG_H
#define CLI_STOP_WATCHDOG_H

#include <pthread.h>
#include <stdbool.h>

struct kube_client;

#define CLI_STOP_GRACE_SECONDS 3 /* after the drain: cancelled requests end within about 1 */
#define CLI_STOP_LATE_STATUS   1 /* exit status when the grace ran out */

/* A watchdog: one per shutdown, owned by the caller. */
struct cli_stop_watchdog {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond; /* CLOCK_MONOTONIC */
    bool done;           /* the shutdown finished in time */
    int drain_seconds;
    struct kube_client *client; /* NULL: request-only */
};

/*
 * Starts watching a shutdown that begins now: after @drain_seconds every
 * request of @client (NULL: none) to the API server is cancelled
 * (kube_client_cancel), so that whoever waits on one gets an error at
 * once; after CLI_STOP_GRACE_SECONDS more the process exits with
 * CLI_STOP_LATE_STATUS (_exit: no thread is waited for). Call with the
 * signals the serve loop waits for blocked (the thread inherits the
 * mask). Returns 0 or -errno (no thread: the shutdown is then unbounded,
 * which the caller logs).
 */
int cli_stop_watchdog_start(struct cli_stop_watchdog *w, int drain_seconds,
                            struct kube_client *client);

/* The client is about to be freed: the watchdog no longer cancels its
 * requests (it still ends the process when the grace runs out). */
void cli_stop_watchdog_forget_client(struct cli_stop_watchdog *w);

/* The shutdown ended in time: stops the watchdog and joins its thread. */
void cli_stop_watchdog_end(struct cli_stop_watchdog *w);

#endif

#include "cli/stop_watchdog.h"

#include <errno.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "kube/client.h"

/* Waits until @at (CLOCK_MONOTONIC ns) or until the shutdown is done;
 * true when it is. Called with w->lock held. */
static bool wait_done_until(struct cli_stop_watchdog *w, uint64_t at)
{
    const struct timespec ts = clock_timespec_of(at);
    while (!w->done)
        if (pthread_cond_timedwait(&w->cond, &w->lock, &ts) == ETIMEDOUT)
            break;
    return w->done;
}

static void *watch(void *arg)
{
    struct cli_stop_watchdog *w = arg;
    uint64_t start = clock_mono_ns();
    uint64_t drained = clock_add_ns(start, (uint64_t)w->drain_seconds * CLOCK_NS_PER_SEC);
    uint64_t late = clock_add_ns(drained, (uint64_t)CLI_STOP_GRACE_SECONDS * CLOCK_NS_PER_SEC);

    pthread_mutex_lock(&w->lock);
    if (wait_done_until(w, drained))
        goto out_unlock;
    /* The drain is over: nothing in flight may wait for the API server
     * any longer (a bind's answer is an error now, not a hang). */
    if (w->client != NULL)
        kube_client_cancel(w->client);
    if (wait_done_until(w, late))
        goto out_unlock;
    pthread_mutex_unlock(&w->lock);
    LOG(LOG_ERROR, "stopped late: something in flight did not end after the drain; exiting",
        LOG_INT("drainSeconds", w->drain_seconds), LOG_INT("graceSeconds", CLI_STOP_GRACE_SECONDS));
    _exit(CLI_STOP_LATE_STATUS);

out_unlock:
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

int cli_stop_watchdog_start(struct cli_stop_watchdog *w, int drain_seconds,
                            struct kube_client *client)
{

    w->done = false;
    w->drain_seconds = drain_seconds > 0 ? drain_seconds : 0;
    w->client = client;
    int rc = clock_cond_init(&w->cond);
    if (rc != 0)
        return rc;
    pthread_mutex_init(&w->lock, NULL);
    rc = pthread_create(&w->thread, NULL, watch, w);
    if (rc != 0) {
        pthread_mutex_destroy(&w->lock);
        pthread_cond_destroy(&w->cond);
        return -rc;
    }
    return 0;
}

void cli_stop_watchdog_forget_client(struct cli_stop_watchdog *w)
{
    /* Under the lock the cancel is made under: it is done or never will be. */
    pthread_mutex_lock(&w->lock);
    w->client = NULL;
    pthread_mutex_unlock(&w->lock);
}

void cli_stop_watchdog_end(struct cli_stop_watchdog *w)
{
    pthread_mutex_lock(&w->lock);
    w->done = true;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    pthread_mutex_destroy(&w->lock);
    pthread_cond_destroy(&w->cond);
}

#include "server/cluster/usage.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/heap.h"
#include "base/log.h"
#include "server/cluster/prom_usage.h"
#include "server/codec/node_metrics.h"

struct cluster_usage {
    struct kube_client *client;
    struct kube_state *state;
    struct cfg_live *live;
    struct cluster_prom *prom; /* the Prometheus client, the thread's alone */
    bool prom_polled;          /* the last round was Prometheus's (for the log) */
    size_t prom_missing;       /* nodes the last Prometheus round had no series for */
    pthread_t thread;
    pthread_mutex_t lock; /* guards why, polled, errors and newest */
    char why[ERR_LEN];    /* the last poll's failure, "" when it worked */
    bool polled;
    unsigned long long errors; /* polls that failed */
    double newest;             /* timestamp of the newest sample stored, 0: none */
    pthread_mutex_t stop_lock;
    pthread_cond_t stop_cond;
    atomic_bool stop;
};

bool cluster_usage_needed(const struct cfg *c)
{
    return cluster_usage_reads(c, SCORE_CPU) || cluster_usage_reads(c, SCORE_MEMORY);
}

struct store {
    struct kube_state *state;
    const struct kube_usage_rules *rules;
    int stored;
    double newest;
};

static void store_sample(void *ctx, const struct codec_node_sample *s)
{
    struct store *st = ctx;
    if (kube_state_usage_put(st->state, s->node, s->usage, s->timestamp, s->window, st->rules) ==
        0) {
        st->stored++;
        if (s->timestamp > st->newest)
            st->newest = s->timestamp;
    }
}

/* Do @a and @b say the same but for their numbers? libcurl's messages
 * carry the milliseconds a connect took ("after 0 ms"), which must not
 * make every failed round a new state to log. */
static bool same_error(const char *a, const char *b)
{
    for (;;) {
        while (*a >= '0' && *a <= '9')
            a++;
        while (*b >= '0' && *b <= '9')
            b++;
        if (*a != *b)
            return false;
        if (*a == '\0')
            return true;
        a++;
        b++;
    }
}

/* A round's outcome: the error kept for the counts, logged once per
 * change of state (or of the provider). */
static void record(struct cluster_usage *u, const char *why, double newest, const char *source)
{
    bool prom = strcmp(source, "prometheus") == 0;
    pthread_mutex_lock(&u->lock);
    bool changed = !same_error(why, u->why) || (u->polled && prom != u->prom_polled);
    memcpy(u->why, why, sizeof(u->why));
    u->polled = true;
    u->prom_polled = prom;
    u->errors += why[0] != '\0';
    if (newest > u->newest)
        u->newest = newest;
    pthread_mutex_unlock(&u->lock);
    if (changed && why[0] != '\0')
        LOG(LOG_WARN, "node metrics unavailable, usage goes stale", LOG_STR("source", source),
            LOG_STR("error", why));
    else if (changed)
        LOG(LOG_INFO, "node metrics available", LOG_STR("source", source));
}

static void poll_once(struct cluster_usage *u, const struct kube_usage_rules *rules)
{
    char err[ERR_LEN] = "", why[ERR_LEN] = "";
    struct kube_response r = {0};
    struct store st = {.state = u->state, .rules = rules};
    size_t skipped = 0, nodes, pods;

    kube_state_counts(u->state, &nodes, &pods);
    /* Bounded from what was asked: a server that sends more (a broken
     * proxy, a hostile one) costs an error, not the process's memory. */
    const struct kube_bounds b = {.body_max = codec_node_metrics_bound(nodes), .stop = &u->stop};
    int rc = kube_get_bounded(u->client, "/apis/metrics.k8s.io/v1beta1/nodes", 30, &b, &r, err);
    if (rc != 0)
        memcpy(why, err, sizeof(why));
    else if (r.status != 200)
        err_set(why, "metrics.k8s.io answered %ld (is metrics-server installed?)", r.status);
    else if (codec_node_metrics(r.body, r.len, store_sample, &st, &skipped, err) < 0)
        memcpy(why, err, sizeof(why));
    free(r.body);
    /* A large answer's body and tree are freed: return their pages (glibc
     * keeps freed heap for reuse otherwise, and idle RSS stays at the peak). */
    if (r.len > (1u << 20))
        heap_trim();
    if (skipped > 0)
        LOG(LOG_DEBUG, "node metrics samples ignored", LOG_UINT("count", skipped));
    record(u, why, st.newest, "metrics.k8s.io/v1beta1");
}

/* One Prometheus round (server/cluster/prom_usage.h). */
static void prom_once(struct cluster_usage *u, const struct cfg *c,
                      const struct kube_usage_rules *rules)
{
    char why[ERR_LEN] = "";
    struct cluster_prom_round round;
    if (cluster_prom_round(&u->prom, c, u->state, rules, &u->stop, &round, why) == 0 &&
        round.missing != u->prom_missing) {
        /* Logged when the count changes, not every round: a node absent
         * for an hour is one line, and its usage is stale meanwhile. */
        LOG(round.missing > 0 ? LOG_WARN : LOG_INFO,
            round.missing > 0 ? "nodes without a Prometheus series, their usage goes stale"
                              : "every node has its Prometheus series",
            LOG_UINT("nodes", round.missing), LOG_UINT("stored", round.stored));
        u->prom_missing = round.missing;
    }
    if (round.skipped > 0)
        LOG(LOG_DEBUG, "Prometheus series ignored", LOG_UINT("count", round.skipped));
    record(u, why, round.newest, "prometheus");
}

static void *usage_main(void *arg)
{
    struct cluster_usage *u = arg;
    while (!atomic_load(&u->stop)) {
        const struct cfg *c = cfg_live_acquire(u->live);
        bool needed = cluster_usage_needed(c);
        int interval = cfg_usage_interval(c);
        /* The history rules: usageWindowSeconds, usageAggregation,
         * usageMinSamples, and the samples a node keeps for them. */
        struct kube_usage_rules rules = {.window_seconds = c->usage_window_seconds,
                                         .min_samples = (size_t)c->usage_min_samples,
                                         .keep =
                                             kube_usage_keep(c->usage_window_seconds, interval)};
        memcpy(rules.agg, c->usage_agg, sizeof(rules.agg));
        bool prom = c->usage_prometheus;
        /* Prometheus's round reads its queries and options from c, so it
         * holds the reference (a reload's new configuration serves
         * requests meanwhile; the next round reads it). */
        if (needed && prom)
            prom_once(u, c, &rules);
        cfg_live_release(c);
        if (needed && !prom)
            poll_once(u, &rules);
        if (!needed) {
            /* Nothing reads usage now: nothing to report on /readyz. */
            pthread_mutex_lock(&u->lock);
            u->polled = false;
            u->why[0] = '\0';
            pthread_mutex_unlock(&u->lock);
        }
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += needed ? interval : 1;
        pthread_mutex_lock(&u->stop_lock);
        while (!atomic_load(&u->stop) &&
               pthread_cond_timedwait(&u->stop_cond, &u->stop_lock, &until) == 0)
            ;
        pthread_mutex_unlock(&u->stop_lock);
    }
    return NULL;
}

int cluster_usage_start(struct kube_client *client, struct kube_state *st, struct cfg_live *live,
                        struct cluster_usage **out, char *err)
{
    struct cluster_usage *u = calloc(1, sizeof(*u));
    if (u == NULL)
        return err_fail(err, -ENOMEM, "out of memory");
    u->client = client;
    u->state = st;
    u->live = live;
    pthread_mutex_init(&u->lock, NULL);
    pthread_mutex_init(&u->stop_lock, NULL);
    pthread_cond_init(&u->stop_cond, NULL);
    if (pthread_create(&u->thread, NULL, usage_main, u) != 0) {
        err_set(err, "cannot start the metrics thread");
        pthread_cond_destroy(&u->stop_cond);
        pthread_mutex_destroy(&u->stop_lock);
        pthread_mutex_destroy(&u->lock);
        free(u);
        return -EAGAIN;
    }
    *out = u;
    return 0;
}

bool cluster_usage_polled(struct cluster_usage *u)
{
    pthread_mutex_lock(&u->lock);
    bool polled = u->polled;
    pthread_mutex_unlock(&u->lock);
    return polled;
}

void cluster_usage_counts(struct cluster_usage *u, unsigned long long *errors, double *newest)
{
    pthread_mutex_lock(&u->lock);
    *errors = u->errors;
    *newest = u->newest;
    pthread_mutex_unlock(&u->lock);
}

void cluster_usage_describe(struct cluster_usage *u, char *out, size_t n)
{
    snprintf(out, n, "%s", "");
    if (u == NULL)
        return;
    pthread_mutex_lock(&u->lock);
    if (u->polled)
        snprintf(out, n, "usage from %s: %s", u->prom_polled ? "prometheus" : "metrics.k8s.io",
                 u->why[0] != '\0' ? u->why : "ok");
    pthread_mutex_unlock(&u->lock);
}

void cluster_usage_stop(struct cluster_usage *u)
{
    if (u == NULL)
        return;
    pthread_mutex_lock(&u->stop_lock);
    atomic_store(&u->stop, true);
    pthread_cond_broadcast(&u->stop_cond);
    pthread_mutex_unlock(&u->stop_lock);
    pthread_join(u->thread, NULL);
    pthread_cond_destroy(&u->stop_cond);
    pthread_mutex_destroy(&u->stop_lock);
    pthread_mutex_destroy(&u->lock);
    cluster_prom_free(u->prom);
    free(u);
}

/*
 * The usage poller: while a used source is usage or max, every
 * metricsIntervalSeconds it lists the nodes' usage samples from
 * metrics.k8s.io, or with usageProvider prometheus every
 * prometheusIntervalSeconds runs a Prometheus round (prom_usage.h), and
 * stores them in the state. One thread; its health goes to /readyz's neighbours (the
 * log) and the wait of `rank`.
 */
#ifndef SERVER_CLUSTER_USAGE_H
#define SERVER_CLUSTER_USAGE_H

#include <stdbool.h>

#include "base/err.h"
#include "config/config.h"
#include "config/live.h"
#include "kube/client.h"
#include "kube/state.h"

struct cluster_usage;

/* Does @c score resource @r, or (needed) any resource, from usage (a used
 * source usage or max)? */
static inline bool cluster_usage_reads(const struct cfg *c, int r)
{
    return c->used_source[r] == SCORE_USED_USAGE || c->used_source[r] == SCORE_USED_MAX;
}
bool cluster_usage_needed(const struct cfg *c);

/* Starts the poller on @client and @st (borrowed), reading the interval
 * and whether to poll from @live on each round. Returns 0 or -EAGAIN /
 * -ENOMEM with @err. */
int cluster_usage_start(struct kube_client *client, struct kube_state *st, struct cfg_live *live,
                        struct cluster_usage **out, char *err);

/* Has a poll finished (well or not) since the start? Thread-safe. */
bool cluster_usage_polled(struct cluster_usage *u);

/* Failed polls so far, and the timestamp (wall seconds) of the newest
 * sample stored, 0 before the first. Thread-safe. */
void cluster_usage_counts(struct cluster_usage *u, unsigned long long *errors, double *newest);

/* "usage from prometheus: ok" or "usage from metrics.k8s.io: <the last
 * round's error>", or "" before the first round: what /readyz adds to its
 * reason (a failing provider leaves the service ready: stalePolicy
 * decides what stale usage means). Thread-safe. */
void cluster_usage_describe(struct cluster_usage *u, char *out, size_t n);

/* Stops and joins the thread, frees @u (NULL is fine). */
void cluster_usage_stop(struct cluster_usage *u);

#endif

/*
 * The Prometheus usage provider (usageProvider: prometheus): one round
 * runs prometheusCpuQuery and prometheusMemoryQuery as instant queries,
 * finds each series's node (by InternalIP for the instance label, by name
 * for any other) and stores one sample per node in the state. A node a
 * round cannot read (a query failed, it is absent from an answer, it is
 * named twice) gets no sample: its usage ages into stale, never into 0.
 * Driven by the usage poller's thread (server/cluster/usage.c).
 */
#ifndef SERVER_CLUSTER_PROM_USAGE_H
#define SERVER_CLUSTER_PROM_USAGE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "config/config.h"
#include "kube/state.h"

/* The client and what it was made from, kept between rounds. */
struct cluster_prom;

/* What one round did. */
struct cluster_prom_round {
    size_t stored;  /* nodes given a sample */
    size_t missing; /* known nodes no answer had a usable series for */
    size_t skipped; /* series without the label, a usable value or a known node */
    double newest;  /* when the samples were taken (our wall clock), 0 when none stored */
};

/*
 * One round under @c, storing into @st with @rules; *@pp is the client
 * kept between rounds (NULL at first; made again when the URL or a
 * credential file option changes). Returns 0, or a negative errno with
 * @why (ERR_LEN) when a query failed (nothing stored then). *@stop ends a
 * query in progress within about a second.
 */
int cluster_prom_round(struct cluster_prom **pp, const struct cfg *c, struct kube_state *st,
                       const struct kube_usage_rules *rules, const atomic_bool *stop,
                       struct cluster_prom_round *out, char *why);

/* Frees what cluster_prom_round kept (NULL is fine). */
void cluster_prom_free(struct cluster_prom *p);

#endif

/*
 * GET /metrics: counters and histograms in the Prometheus text format
 * (version 0.0.4), names cpu_extender_*, base units (seconds, bytes).
 *
 *   cpu_extender_requests_total{verb,status}          verb requests answered
 *   cpu_extender_request_duration_seconds{verb,status} histogram, headers to answer
 *   cpu_extender_request_body_bytes{verb}              histogram
 *   cpu_extender_request_nodes{verb}                   histogram, candidates per answered request
 *   cpu_extender_unknown_nodes_total                    names the cluster state did not know
 *   cpu_extender_cluster_nodes, _cluster_pods           what the state holds (with a cluster)
 *   cpu_extender_cluster_ready                          1 once the first lists are in
 *   cpu_extender_config_reloads_total{result}           accepted / rejected
 *   cpu_extender_build_info{version}                    always 1
 *
 * Every counter is a relaxed atomic: recording costs a few atomic adds and
 * never takes a lock on the request path.
 */
#ifndef SERVER_METRICS_H
#define SERVER_METRICS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "server/cluster.h"

enum srv_verb {
    SRV_VERB_FILTER = 0,
    SRV_VERB_PRIORITIZE,
    SRV_VERB_PREEMPT,
    SRV_VERB_BIND,
    SRV_VERB_COUNT,
};

/* The statuses a verb answers; anything else is "other". */
enum srv_status_class {
    SRV_STATUS_200 = 0,
    SRV_STATUS_400,
    SRV_STATUS_413,
    SRV_STATUS_500,
    SRV_STATUS_OTHER,
    SRV_STATUS_COUNT,
};

#define SRV_DURATION_BUCKETS 16
#define SRV_BYTES_BUCKETS    12
#define SRV_NODES_BUCKETS    10

struct srv_histogram_d {
    atomic_ullong bucket[SRV_DURATION_BUCKETS]; /* not cumulative; summed when printed */
    atomic_ullong count;
    atomic_ullong sum_ns;
};

struct srv_histogram_n {
    atomic_ullong
        bucket[SRV_BYTES_BUCKETS > SRV_NODES_BUCKETS ? SRV_BYTES_BUCKETS : SRV_NODES_BUCKETS];
    atomic_ullong count;
    atomic_ullong sum;
};

struct srv_metrics {
    atomic_ullong requests[SRV_VERB_COUNT][SRV_STATUS_COUNT];
    struct srv_histogram_d duration[SRV_VERB_COUNT][SRV_STATUS_COUNT];
    struct srv_histogram_n body_bytes[SRV_VERB_COUNT];
    struct srv_histogram_n nodes[SRV_VERB_COUNT];
    atomic_ullong reloads_accepted, reloads_rejected;
};

/* Zeroes @m. */
void srv_metrics_init(struct srv_metrics *m);

/*
 * Records one answered verb request: @status, @seconds from its headers to
 * its answer, @body_bytes received and @nodes candidates (recorded for 200
 * answers of the verbs that have candidates: not bind). Thread-safe,
 * lock-free.
 */
void srv_metrics_request(struct srv_metrics *m, enum srv_verb verb, unsigned status, double seconds,
                         size_t body_bytes, size_t nodes);

/* Counts a configuration reload, accepted or rejected. Thread-safe. */
void srv_metrics_reload(struct srv_metrics *m, bool accepted);

/*
 * Writes the exposition text into a malloc'd buffer (*@out, *@len), the
 * cluster's gauges included when @cl is not NULL. Returns 0 or -ENOMEM.
 */
int srv_metrics_render(struct srv_metrics *m, struct srv_cluster *cl, char **out, size_t *len);

#endif

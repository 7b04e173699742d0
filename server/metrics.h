/*
 * GET /metrics: counters and histograms in the Prometheus text format
 * (version 0.0.4), names cpu_extender_*, base units (seconds, bytes).
 *
 *   cpu_extender_requests_total{verb,status}          verb requests answered
 *   cpu_extender_request_duration_seconds{verb,status} histogram, headers to answer
 *   cpu_extender_request_body_bytes{verb}              histogram
 *   cpu_extender_request_nodes{verb}                   histogram, candidates per answered request
 *   cpu_extender_filter_decisions_total{result,reason}  node verdicts of filter calls
 *   cpu_extender_prioritize_score_spread               histogram, max - min score per call
 *   cpu_extender_stale_nodes_total                      node decisions made on stale used data
 *   cpu_extender_answers_total{verb,kind}               scored, shadow, pass-through, neutral
 *   cpu_extender_decisions_kept, _decisions_kept_bytes  the decisions ring
 *   cpu_extender_cpu_requested_ratio_cv, _mean         placement quality (with a cluster)
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

/* Why a node passed or failed a filter (the metric's reason label). */
enum srv_reason {
    SRV_REASON_FITS = 0,
    SRV_REASON_UNKNOWN_NODE, /* not in the cluster state: passed, score 0 */
    SRV_REASON_INSUFFICIENT_CPU,
    SRV_REASON_INSUFFICIENT_MEMORY,
    SRV_REASON_INSUFFICIENT_BOTH,
    SRV_REASON_STALE,        /* stale used data under stalePolicy full (failed) or pass */
    SRV_REASON_INVALID_NODE, /* unusable allocatable or annotations */
    SRV_REASON_COUNT,
};

/* What a filter or prioritize call answered. */
enum srv_answer {
    SRV_ANSWER_SCORED = 0,           /* what scoring said (mode enforce) */
    SRV_ANSWER_SHADOW,               /* scored and recorded; neutral answer */
    SRV_ANSWER_PASSTHROUGH_MODE,     /* mode passthrough: neutral, not scored */
    SRV_ANSWER_PASSTHROUGH_SELECTOR, /* the pod is outside the selector */
    SRV_ANSWER_NEUTRAL_DEADLINE,     /* would have answered too late */
    SRV_ANSWER_COUNT,
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
    atomic_ullong filter_decisions[2][SRV_REASON_COUNT]; /* [failed][reason] */
    struct srv_histogram_n score_spread;
    atomic_ullong stale_nodes;
    atomic_ullong answers[SRV_VERB_COUNT][SRV_ANSWER_COUNT];
};

/* The label values: "fits", "unknown_node", "insufficient_cpu", ... */
const char *srv_reason_name(enum srv_reason r);

/* "scored", "shadow", "passthrough_mode", "passthrough_selector",
 * "neutral_deadline". */
const char *srv_answer_name(enum srv_answer a);

/* "filter", "prioritize", "preempt" or "bind". */
const char *srv_verb_name(enum srv_verb v);

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

/*
 * Records what one filter or prioritize call decided: its answer kind and,
 * when nodes were scored, per node the verdict and reason (filter), the
 * stale ones, and the score spread (prioritize, @spread >= 0).
 * @failed[r] / @passed[r] count nodes per reason. Thread-safe, lock-free.
 */
void srv_metrics_decision(struct srv_metrics *m, enum srv_verb verb, enum srv_answer answer,
                          const size_t passed[SRV_REASON_COUNT],
                          const size_t failed[SRV_REASON_COUNT], size_t stale, int spread);

/* Counts a configuration reload, accepted or rejected. Thread-safe. */
void srv_metrics_reload(struct srv_metrics *m, bool accepted);

/*
 * Writes the exposition text into a malloc'd buffer (*@out, *@len), the
 * cluster's gauges included when @cl is not NULL, and the ring's size
 * (@kept decisions in @kept_bytes). Returns 0 or -ENOMEM.
 */
int srv_metrics_render(struct srv_metrics *m, struct srv_cluster *cl, size_t kept,
                       size_t kept_bytes, char **out, size_t *len);

#endif

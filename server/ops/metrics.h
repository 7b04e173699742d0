/*
 * GET /metrics: counters and histograms in the Prometheus text format
 * (version 0.0.4), names cpu_extender_*, base units (seconds, bytes).
 *
 * The families, their labels and meaning are listed in the man page
 * (docs/cpu-extender.1, ENDPOINTS, /metrics); process_* come from
 * server/ops/process.h.
 *
 * Every counter is a relaxed atomic: recording costs a few atomic adds and
 * never takes a lock on the request path.
 */
#ifndef SERVER_OPS_METRICS_H
#define SERVER_OPS_METRICS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "server/ops/labels.h"
#include "server/ops/ring.h"

/* The statuses a verb answers; anything else is "other". */
enum ops_status_class {
    OPS_STATUS_200 = 0,
    OPS_STATUS_400,
    OPS_STATUS_413,
    OPS_STATUS_500,
    OPS_STATUS_503,
    OPS_STATUS_OTHER,
    OPS_STATUS_COUNT,
};

#define OPS_DURATION_BUCKETS 18 /* 25 us to 10 s */
#define OPS_BYTES_BUCKETS    12
#define OPS_NODES_BUCKETS    10
#define OPS_RANK_BUCKETS     5 /* 1, 2, 3, 5, 10 */

struct ops_histogram_d {
    atomic_ullong bucket[OPS_DURATION_BUCKETS]; /* not cumulative; summed when printed */
    atomic_ullong count;
    atomic_ullong sum_ns;
};

struct ops_histogram_n {
    atomic_ullong
        bucket[OPS_BYTES_BUCKETS > OPS_NODES_BUCKETS ? OPS_BYTES_BUCKETS : OPS_NODES_BUCKETS];
    atomic_ullong count;
    atomic_ullong sum;
};

struct ops_metrics {
    atomic_ullong requests[OPS_VERB_COUNT][OPS_STATUS_COUNT];
    struct ops_histogram_d duration[OPS_VERB_COUNT][OPS_STATUS_COUNT];
    struct ops_histogram_n body_bytes[OPS_VERB_COUNT];
    struct ops_histogram_n nodes[OPS_VERB_COUNT];
    atomic_ullong reloads_accepted, reloads_rejected;
    atomic_bool last_reload_ok;     /* the start counts as a good load */
    atomic_llong last_reload_ok_ms; /* wall clock of the start or the last good reload */
    atomic_ullong filter_decisions[2][OPS_REASON_COUNT]; /* [failed][reason] */
    struct ops_histogram_n score_spread;
    atomic_ullong stale_nodes;
    atomic_ullong answers[OPS_VERB_COUNT][OPS_ANSWER_COUNT];
    atomic_ullong refused[OPS_REFUSAL_COUNT];
    atomic_ullong memory_budget_bytes, memory_reserved_bytes; /* gauges; budget 0: none */
    atomic_ullong memory_waits;
    atomic_ullong memory_refused[OPS_MEMORY_COUNT];
    /* The shadow report, [0] mode shadow, [1] enforce (the decision's). */
    atomic_ullong shadow_compared[2], shadow_agreed[2], shadow_elsewhere[2];
    struct ops_histogram_n shadow_rank[2];
};

/* Zeroes @m; the configuration it starts with counts as loaded now. */
void ops_metrics_init(struct ops_metrics *m);

/*
 * Records one answered verb request: @status, @seconds from its headers to
 * its answer, @body_bytes received and @nodes candidates (recorded for 200
 * answers of the verbs that have candidates: not bind). Thread-safe,
 * lock-free.
 */
void ops_metrics_request(struct ops_metrics *m, enum ops_verb verb, unsigned status, double seconds,
                         size_t body_bytes, size_t nodes);

/*
 * Records what one filter or prioritize call decided: its answer kind and,
 * when nodes were scored, per node the verdict and reason (filter), the
 * stale ones, and the score spread (prioritize, @spread >= 0).
 * @failed[r] / @passed[r] count nodes per reason. Thread-safe, lock-free.
 */
void ops_metrics_decision(struct ops_metrics *m, enum ops_verb verb, enum ops_answer answer,
                          const size_t passed[OPS_REASON_COUNT],
                          const size_t failed[OPS_REASON_COUNT], size_t stale, int spread);

/* Counts a request refused before its body was read, a request cut before
 * it completed, or a connection not accepted, by @reason. Thread-safe,
 * lock-free. */
void ops_metrics_refused(struct ops_metrics *m, enum ops_refusal reason);

/* Sets the memory budget's gauges: its size (0: none) and what is
 * reserved. Thread-safe, lock-free. */
void ops_metrics_memory(struct ops_metrics *m, unsigned long long budget,
                        unsigned long long reserved);

/* Counts a request that waited for room in the memory budget, and one
 * refused for memory by @reason. Thread-safe, lock-free. */
void ops_metrics_memory_waited(struct ops_metrics *m);
void ops_metrics_memory_refused(struct ops_metrics *m, enum ops_memory_refusal reason);

/* Counts the comparison @c of a decision made in mode enforce (@enforce)
 * or shadow with its pod's binding: compared, agreed and the rank, or
 * bound elsewhere. Thread-safe, lock-free. */
void ops_metrics_shadow(struct ops_metrics *m, bool enforce, const struct ops_comparison *c);

/* Notes a configuration reload: @valid (read and in use now, or
 * rejected), and whether it @changed anything (an unchanged valid one is
 * not counted in the reloads counter, but is a successful last reload).
 * Thread-safe. */
void ops_metrics_reload(struct ops_metrics *m, bool valid, bool changed);

/* The API resources a cluster connection reads (the resource label). */
enum ops_resource {
    OPS_RESOURCE_NODES = 0,    /* list + watch */
    OPS_RESOURCE_PODS,         /* list + watch */
    OPS_RESOURCE_NODE_METRICS, /* nodes.metrics.k8s.io, polled */
    OPS_RESOURCE_COUNT,
};
#define OPS_WATCHED_RESOURCES 2 /* the first two are watched */

/* What the cluster state looks like, read by the caller when /metrics is
 * scraped (this module does not know the cluster). */
struct ops_cluster_gauges {
    bool present; /* false: request-only, only unknown_nodes is shown */
    bool ready;
    size_t nodes, pods;
    unsigned long long unknown_nodes;
    double cpu_ratio_cv, cpu_ratio_mean; /* placement quality */
    unsigned long long watch_restarts[OPS_WATCHED_RESOURCES], relists[OPS_WATCHED_RESOURCES];
    unsigned long long list_pages_shrunk[OPS_WATCHED_RESOURCES];
    unsigned long long api_errors[OPS_RESOURCE_COUNT];
    bool usage_polled;       /* a used source reads metrics.k8s.io */
    bool has_usage_sample;   /* and a sample came in */
    double usage_sample_age; /* seconds since the newest sample's timestamp */
};

/*
 * Writes the exposition text into a malloc'd buffer (*@out, *@len): the
 * counters of @m, the cluster gauges @cluster and the ring's size (@kept
 * decisions in @kept_bytes). Returns 0 or -ENOMEM.
 */
int ops_metrics_render(struct ops_metrics *m, const struct ops_cluster_gauges *cluster, size_t kept,
                       size_t kept_bytes, char **out, size_t *len);

#endif

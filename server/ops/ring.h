/*
 * The decisions ring: the most recent filter and prioritize decisions with
 * everything behind them (per node: inputs, terms, value, score, verdict,
 * reason), for GET /debug and /debug/decisions. Bounded twice: at most
 * decisions-kept records and decisions-max-bytes of memory; the oldest go
 * first. A record is immutable once added and reference-counted, so a
 * reader renders it outside the lock while requests keep adding.
 */
#ifndef SERVER_OPS_RING_H
#define SERVER_OPS_RING_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "base/table.h"
#include "scoring/fit.h"
#include "scoring/strategy.h"
#include "scoring/usage_window.h"
#include "scoring/used.h"
#include "server/ops/labels.h"

/* The sum of the maximum scores of kube-scheduler's default score plugins
 * (v1 defaults: TaintToleration 3, NodeAffinity 2, NodeResourcesFit 1,
 * PodTopologySpread 2, InterPodAffinity 2, NodeResourcesBalancedAllocation 1,
 * ImageLocality 1; each plugin scores 0..100 times its weight). */
#define OPS_DEFAULT_PLUGINS_MAX 1200

/* What kube-scheduler adds to a node's total for an extender score:
 * score * weight * (MaxNodeScore / MaxExtenderPriority). */
#define OPS_INFLUENCE(score, weight) ((long long)(score) * (weight)*10)

/* The longest node name a comparison keeps (a DNS subdomain). */
#define OPS_NODE_NAME_MAX 253

/* At most this many bindings are remembered whose decision was not in the
 * ring yet (a binding seen before the decision was recorded). */
#define OPS_EARLY_BINDINGS_MAX 1024

/*
 * Where kube-scheduler bound a decision's pod, against where the decision
 * would have put it (server/ops/shadow.h computes it). The decision's
 * order: nodes that fit before those that do not, then by score; a node's
 * rank is 1 + the nodes strictly ahead of it, so nodes that tie share a
 * rank (kube-scheduler would have been sent the same score for them).
 */
struct ops_comparison {
    struct timespec time;                   /* wall clock, when the binding was seen */
    char bound_name[OPS_NODE_NAME_MAX + 1]; /* where the pod went (longer names cut) */
    long bound;                             /* its index in nodes, -1 when it was not a candidate */
    long ours;                              /* the decision's node: best, else the highest score */
    int rank;             /* the bound node's rank, 0 when it was not a candidate */
    int score_difference; /* ours' score minus the bound node's (0 when not a candidate) */
    bool agreed;          /* rank 1 on a node that fits */
};

/* A node's usage window when a decision was made: the samples in it, their
 * aggregate and the newest sample, per resource. */
struct ops_usage_window {
    size_t samples;
    int64_t aggregate[SCORE_NRES];
    int64_t newest[SCORE_NRES];
};

/* One node of a decision. */
struct ops_record_node {
    const char *name;   /* inside the record */
    const char *reason; /* "" when the node fits */
    enum score_verdict verdict;
    enum ops_reason code;
    bool unknown, from_state, forced_zero;
    struct score_explain explain;
    enum score_used_source source[SCORE_NRES];   /* where used came from (from_state) */
    enum score_used_outcome outcome[SCORE_NRES]; /* fresh, fell back, stale */
    /* The usage window behind used (inside the record), NULL when used
     * came from no usage: a pointer, so that decisions without usage pay
     * 8 bytes a node for it, not 40. */
    const struct ops_usage_window *window;
};

struct ops_record {
    uint64_t id;          /* 1, 2, ... in the order recorded */
    struct timespec time; /* wall clock, when the answer was ready */
    double seconds;       /* headers to answer */
    enum ops_verb verb;   /* filter or prioritize */
    enum ops_answer answer;
    const char *pod_ns, *pod_name; /* inside the record */
    const char *pod_uid;           /* inside the record, "" when the pod had none */
    struct score_pod_request request;
    struct score_params params;
    /* usageWindowSeconds and usageAggregation the decision was made with */
    int usage_window_seconds;
    enum score_usage_agg usage_agg[SCORE_NRES];
    enum score_used_source asked[SCORE_NRES]; /* the used source configured, per resource */
    int scheduler_weight;
    bool node_names_mode, with_cluster;
    size_t candidates; /* nodes in the request */
    size_t n_passed;   /* of them, passed by the filter as computed */
    long best;         /* the fitting node with the highest score (then value), -1: none */
    size_t n_nodes;
    struct ops_record_node *nodes; /* n_nodes, or none for a pass-through answer */
    size_t bytes;                  /* the record's whole allocation */
    atomic_int refs;
    /* The comparison with the pod's binding: written once by whoever
     * claims the record (ops_ring_claim, ops_ring_add_claim), read through
     * ops_record_comparison() once published. */
    atomic_int comparison_state;
    struct ops_comparison comparison;
    /* In the ring's index of comparable decisions by pod UID (under its
     * lock): key pod_uid, hash set by the ring for every record. */
    struct table_entry by_uid;
};

/* A binding seen before its decision was recorded. */
struct ops_early_binding {
    uint64_t hash;    /* of uid */
    char *uid, *node; /* one malloc'd block: uid, then node */
};

struct ops_ring {
    pthread_mutex_t lock;
    struct ops_record **ring; /* cap slots; the newest at (head + count - 1) % cap */
    size_t cap, head, count;
    size_t bytes, max_bytes;
    uint64_t next_id;
    /* The comparable decisions (prioritize, nodes scored, a pod UID) by
     * UID: a fixed table for the ring's capacity, chains newest first. */
    struct table by_uid;
    /* Bindings no decision was found for, newest at (early_head +
     * n_early - 1) % cap_early; at most min(cap, OPS_EARLY_BINDINGS_MAX). */
    struct ops_early_binding *early;
    size_t cap_early, early_head, n_early;
};

/* Starts an empty ring that keeps up to @kept decisions in @max_bytes.
 * Returns 0 or -ENOMEM. */
int ops_ring_init(struct ops_ring *d, int kept, long long max_bytes);

/* Applies new bounds (a reload): the oldest decisions beyond them go.
 * Returns 0 or -ENOMEM (the old bounds stay). Thread-safe. */
int ops_ring_configure(struct ops_ring *d, int kept, long long max_bytes);

/* Frees every record; no request may run any more. */
void ops_ring_destroy(struct ops_ring *d);

/*
 * Allocates a record for @n_nodes nodes with room for @strings bytes of
 * names (each name's length + 1, the pod's namespace and name included),
 * zeroed, one reference held by the caller. NULL when memory ran out.
 */
struct ops_record *ops_record_new(size_t n_nodes, size_t strings);

/* Copies @s into the record's string space; returns the copy. The caller
 * sized that space with ops_record_new(). */
const char *ops_record_strdup(struct ops_record *rec, const char *s);

/* Copies @w into the record's string space, aligned for its integers
 * (size it sizeof(*w) + 8 each); returns the copy, or NULL when the space
 * is short (the caller sized it wrong: no window, never an overrun). */
const struct ops_usage_window *ops_record_window(struct ops_record *rec,
                                                 const struct ops_usage_window *w);

/* Drops one reference; the last frees the record. */
void ops_record_release(struct ops_record *rec);

/*
 * The comparison side (issue 16): a decision the pod's binding can be
 * compared with is a prioritize decision with nodes scored and a pod UID.
 *
 * Claims, for its comparison, the newest such decision of pod @uid: 0
 * with a reference in *@out for the caller to compare, publish and
 * release; -EALREADY when that decision was claimed before (a binding is
 * compared once); -ENOENT when the ring has none, and then the binding
 * (@uid, @node) is remembered for ops_ring_add_claim(). Thread-safe.
 */
int ops_ring_claim(struct ops_ring *d, const char *uid, const char *node, struct ops_record **out);

/*
 * Gives @rec (and the caller's reference) to the ring and returns its id.
 * A record larger than the byte bound, or any record when the ring keeps
 * none, is dropped (id 0). Also claims @rec when the binding of its pod
 * was seen before (ops_ring_claim() returned -ENOENT for its UID): then
 * *@claimed holds a reference to it and @node (@n bytes) the bound node;
 * else *@claimed is NULL. Thread-safe.
 */
uint64_t ops_ring_add_claim(struct ops_ring *d, struct ops_record *rec, struct ops_record **claimed,
                            char *node, size_t n);

/* Publishes @c as the comparison of @rec, which the caller claimed. */
void ops_record_set_comparison(struct ops_record *rec, const struct ops_comparison *c);

/* The published comparison of @rec, or NULL while there is none.
 * Thread-safe. */
const struct ops_comparison *ops_record_comparison(const struct ops_record *rec);

/* Which records a reader wants; zero fields match everything. */
struct ops_query {
    uint64_t id;     /* only this one */
    const char *pod; /* "namespace/name", or "name" in any namespace */
    uint64_t limit;  /* at most this many, newest first */
    bool disagreed;  /* only decisions compared with a binding that disagreed */
};

/*
 * Takes references to the records matching @q, newest first, into a
 * malloc'd array (*@out, *@n); release each and free the array.
 * Returns 0 or -ENOMEM. Thread-safe.
 */
int ops_ring_find(struct ops_ring *d, const struct ops_query *q, struct ops_record ***out,
                  size_t *n);

/* How many records and bytes are kept. Thread-safe. */
void ops_ring_usage(struct ops_ring *d, size_t *count, size_t *bytes);

/* The id of the newest decision recorded, kept or not since (0: none yet):
 * an id above it was never given. Thread-safe. */
uint64_t ops_ring_newest_id(struct ops_ring *d);

#endif

/*
 * The cluster as the extender sees it: per node its allocatable, the sum of
 * the effective requests of its assigned non-terminal pods (kept up to date
 * event by event, both the real and the non-zero form), its latest
 * metrics.k8s.io sample and the pods placed on it recently.
 *
 * Writers are the informer and metrics threads (through server/cluster/);
 * readers are request threads. One rwlock guards everything, writers
 * first; a reader copies what it needs (kube_state_view, or for a request's
 * many names kube_state_view_list: one lock per KUBE_VIEW_BATCH names) and
 * releases it at once.
 */
#ifndef KUBE_STATE_H
#define KUBE_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scoring/placement.h"
#include "scoring/resources.h"
#include "scoring/usage_window.h"

/* How long a placement is remembered: the longest in-flight-seconds. */
#define KUBE_PLACEMENT_KEEP_SECONDS 3600

/* A node as the Node object describes it. */
struct kube_node_info {
    const char *name;
    int64_t alloc[SCORE_NRES];
    int64_t annotation[SCORE_NRES]; /* the configured used annotations, 0 when absent */
    const char *invalid;     /* why allocatable is unusable, or NULL: a static text (the state
                                keeps the pointer, as the codec's reasons are) */
    const char *internal_ip; /* status.addresses' InternalIP, NULL or "" when none; copied
(KUBE_IP_LEN at most, longer is none) */
};

/* The longest InternalIP kept, its NUL included (an IPv6 text is at most 45). */
#define KUBE_IP_LEN 64

/* A pod as far as the sums need it. */
struct kube_pod_info {
    const char *uid;
    const char *node; /* spec.nodeName, "" when unassigned */
    bool terminal;    /* phase Succeeded or Failed: no longer charged */
    int64_t real[SCORE_NRES];
    int64_t non_zero[SCORE_NRES];
    /* What the pod counts in flight once placed (inFlightEstimate,
     * scoring/podreq.h score_pod_estimate); without estimated, non_zero. */
    bool estimated;
    int64_t estimate[SCORE_NRES];
};

/* A copy of what the state knows of one node (kube_state_view). */
struct kube_node_view {
    int64_t alloc[SCORE_NRES];
    int64_t annotation[SCORE_NRES];
    const char *invalid; /* why allocatable is unusable (a static text), or NULL */
    int64_t req_real[SCORE_NRES];
    int64_t req_non_zero[SCORE_NRES];
    size_t n_pods;
    bool pods_synced;          /* the pod list is in */
    double requests_age;       /* seconds the pod watch has been out of sync, 0 when in sync */
    bool has_usage;            /* the window holds usageMinSamples samples */
    int64_t usage[SCORE_NRES]; /* the window's aggregate (kube_usage_rules) */
    double usage_age;          /* seconds since the newest sample's timestamp */
    size_t usage_samples;      /* samples in the window, whether enough or not */
    int64_t usage_newest[SCORE_NRES]; /* the newest sample (0 before the first): /debug, rank */
    int64_t in_flight[SCORE_NRES];    /* estimates of pods placed after the sample window began */
    size_t n_in_flight;
};

struct kube_state;

/* Returns a new empty state, or NULL when out of memory. */
struct kube_state *kube_state_new(void);

/* Frees @st (NULL is fine). No thread may use it any more. */
void kube_state_free(struct kube_state *st);

/*
 * A full node list replaces what is known: begin, put every node, end.
 * Nodes not put since begin are removed. Same for pods. Not thread-safe
 * against another list of the same kind (one informer per kind).
 */
void kube_state_nodes_begin(struct kube_state *st);
void kube_state_nodes_end(struct kube_state *st);
void kube_state_pods_begin(struct kube_state *st);
void kube_state_pods_end(struct kube_state *st);

/* Adds or replaces a node; returns 0 or -ENOMEM. */
int kube_state_node_put(struct kube_state *st, const struct kube_node_info *n);
/* Removes a node (its pods' sums stay until the pods go). */
void kube_state_node_delete(struct kube_state *st, const char *name);

/*
 * Adds or replaces a pod by uid, moving its requests between node sums.
 * A pod that becomes assigned outside a list counts as placed at @now (for
 * in-flight damping). Returns 0 or -ENOMEM.
 */
int kube_state_pod_put(struct kube_state *st, const struct kube_pod_info *p, double now);
/* Removes a pod by uid. */
void kube_state_pod_delete(struct kube_state *st, const char *uid);

/* Whether pod @uid is known with a node name (charged or terminal): what
 * tells a binding (the first event with spec.nodeName) from the updates
 * after it. Thread-safe. */
bool kube_state_pod_is_assigned(struct kube_state *st, const char *uid);

/* Records that we bound pod @uid to @node at @now, charging the pod's
 * in-flight estimate (known from the pod watch) as in flight until the watch and the
 * metrics catch up. Returns 0, or -ENOENT when the pod is not known. */
int kube_state_placed(struct kube_state *st, const char *node, const char *uid, double now);

/* How a node's usage samples become its usage (scoring/usage_window.h). */
struct kube_usage_rules {
    int window_seconds;                   /* usageWindowSeconds; 0: the newest sample */
    enum score_usage_agg agg[SCORE_NRES]; /* usageAggregation */
    size_t min_samples;                   /* usageMinSamples: fewer is no usage (stale) */
    size_t keep; /* samples kept per node, 1..SCORE_USAGE_MAX_SAMPLES: enough for the window */
};

/* The history one node keeps under @rules: kube_usage_keep() samples. */
size_t kube_usage_keep(int window_seconds, int interval_seconds);

/*
 * Adds the usage sample of @node taken at @timestamp over @window seconds
 * to its history (a sample no newer than the newest is the same one read
 * again, or one out of order: not added) and aggregates the history by
 * @rules into the usage views report. Returns 0, or -ENOENT when no Node
 * object of that name is known, -ENOMEM. Memory: 24 bytes per kept sample
 * per node, allocated at its first sample.
 */
int kube_state_usage_put(struct kube_state *st, const char *node, const int64_t usage[SCORE_NRES],
                         double timestamp, double window, const struct kube_usage_rules *rules);

/* Empties every node's usage history: each is stale until it holds
 * usageMinSamples new samples (the samples held no longer mean usage). */
void kube_state_usage_forget(struct kube_state *st);

/* Watch health of the pod informer: in sync (true) or broken since @now. */
void kube_state_pods_health(struct kube_state *st, bool in_sync, double now);

/*
 * Copies what is known of node @name at @now into *@out; placements older
 * than @in_flight_seconds are ignored. Returns 0, or -ENOENT when no Node
 * object of that name is known. Thread-safe.
 */
int kube_state_view(struct kube_state *st, const char *name, double now, int in_flight_seconds,
                    struct kube_node_view *out);

/* Names looked up under one read lock: a writer waits for at most this
 * many (a few microseconds), a request of 5000 names takes 40 locks. */
#define KUBE_VIEW_BATCH 128

/*
 * kube_state_view() of each of the names [@first, @first + @n) of a list of
 * @total names (a request's NodeNames), @names pointing at the first of
 * them, into @out[i], found[i] saying whether the node is known (out[i] is
 * left alone when not). The calling thread remembers by position which
 * node each name was, for its next list of @total names (none with @total
 * 0): kube-scheduler sends the same list call after call, and a name found
 * where it was costs a comparison instead of a lookup. What is remembered
 * is checked (the name, and no node added, removed or changed in kind
 * since), never trusted: the views are those of kube_state_view().
 * Memory: 8 bytes a name per thread for the two list lengths it saw last,
 * freed when it ends. Thread-safe.
 */
void kube_state_view_list(struct kube_state *st, const char *const *names, size_t n, size_t first,
                          size_t total, double now, int in_flight_seconds,
                          struct kube_node_view *out, bool *found);

/* Looks up the requests of pod @uid on node @node, for preemption victims.
 * Returns 0, or -ENOENT when the pod is not charged to that node. Thread-safe. */
int kube_state_pod_request(struct kube_state *st, const char *uid, const char *node,
                           int64_t real[SCORE_NRES], int64_t non_zero[SCORE_NRES]);

/* Adds every known node's CPU requested (the real requests of its pods)
 * and allocatable to @sums: the placement-quality gauge. Thread-safe. */
void kube_state_cpu_spread(struct kube_state *st, struct score_spread_sums *sums);

/* Calls @fn with the name and InternalIP ("" when none) of every node
 * whose Node object is known, under the read lock: @fn copies what it
 * needs and takes no lock of the state. Thread-safe. */
void kube_state_each_node(struct kube_state *st,
                          void (*fn)(void *ctx, const char *name, const char *internal_ip),
                          void *ctx);

/* The Node objects known and the pods known (any phase, assigned or not),
 * for logs and /readyz. O(nodes). Thread-safe. */
void kube_state_counts(struct kube_state *st, size_t *nodes, size_t *pods);

#endif

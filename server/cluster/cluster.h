/*
 * The connection to the cluster: the node and pod informers and the
 * metrics.k8s.io poller feeding the state (kube/state.h) that the verbs
 * score from. Where the cluster is comes from kube/discover.h; without one
 * there is no cluster at all and the verbs work from the request alone.
 */
#ifndef SERVER_CLUSTER_CLUSTER_H
#define SERVER_CLUSTER_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "config/config.h"
#include "kube/client.h"
#include "kube/informer.h"
#include "kube/state.h"
#include "kube/target.h"

struct cluster;

/* Told of each binding the pod watch shows: a pod seen with spec.nodeName
 * that the state knew without one, or did not know (a relist after a gap
 * included). Called on the pod informer's thread; @uid and @node are
 * valid during the call only. */
struct cluster_bound_hook {
    void (*fn)(void *ctx, const char *uid, const char *node);
    void *ctx;
};

/*
 * Starts watching the cluster of @t (copied) with @c. Returns 0 with *@out
 * set, or -errno with @err (bad credentials files, out of memory).
 * Unreachable API servers are not an error: the informers keep retrying
 * and cluster_is_ready() says why.
 */
int cluster_start(const struct cfg *c, const struct kube_target *t, struct cluster **out,
                  char *err);

/*
 * Waits up to @seconds for the first lists and, when a used source needs
 * them, the first metrics poll (for `rank`, which answers once). Returns 0
 * or -ETIMEDOUT with what is missing in @err.
 */
int cluster_wait(struct cluster *cl, int seconds, char *err);

/* Uses @next from now on (annotation names, metrics polling). */
int cluster_reload(struct cluster *cl, const struct cfg *next);

/* Stops the threads and frees everything (NULL is fine). */
void cluster_stop(struct cluster *cl);

/* Whether the first full lists of nodes and pods are in; otherwise @why
 * (@n bytes) says what is missing or failing. Thread-safe. */
bool cluster_is_ready(struct cluster *cl, char *why, size_t n);

/* Calls @hook (copied; NULL or a NULL fn: none) for every binding from now
 * on. Returns once a call of the previous hook that was running has
 * returned, so that its ctx may go. Thread-safe. */
void cluster_on_bound(struct cluster *cl, const struct cluster_bound_hook *hook);

/* The state the verbs read. Thread-safe (the state has its own lock). */
struct kube_state *cluster_state(struct cluster *cl);

/* The API client (for bind). Thread-safe. */
struct kube_client *cluster_client(struct cluster *cl);

/* Counts a node name the state does not know (passed with score 0); the
 * first few are logged. Thread-safe. */
void cluster_count_unknown(struct cluster *cl, const char *node);

/* How many unknown node names requests have carried. Thread-safe. */
unsigned long long cluster_unknown_total(struct cluster *cl);

/* What the connection has gone through, for /metrics. */
struct cluster_counts {
    struct kube_informer_counts nodes, pods; /* the two informers */
    bool usage_polled;                       /* a used source reads metrics.k8s.io */
    unsigned long long usage_errors;         /* metrics.k8s.io polls that failed */
    double usage_newest;                     /* newest sample's timestamp, 0: none yet */
};

/* The counts now. Thread-safe. */
void cluster_counts(struct cluster *cl, struct cluster_counts *out);

#endif

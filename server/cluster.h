/*
 * The connection to the cluster: resolves where it is (kube/client.h),
 * runs the node and pod informers and the metrics.k8s.io poller, and feeds
 * what they see into the state (kube/state.h) that the verbs score from.
 *
 * Without a cluster (no --kubeconfig, no KUBECONFIG, not in a pod) there is
 * no srv_cluster at all and the verbs work from the request alone.
 */
#ifndef SERVER_CLUSTER_H
#define SERVER_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include <cjson/cJSON.h>

#include "kube/client.h"
#include "kube/informer.h"
#include "kube/state.h"

struct srv_cluster;

/*
 * Finds the cluster for @c (kube_resolve_target with @envp; @home_fallback
 * adds ~/.kube/config, as kubectl does) and starts
 * watching it. Returns 0 with *@out set, 0 with *@out NULL when there is no
 * cluster to watch (request-only), or -errno with @err when one was named
 * but cannot be used (unreadable kubeconfig, bad credentials file).
 * Unreachable API servers are not an error: the informers keep retrying and
 * srv_cluster_ready() says why.
 */
int srv_cluster_start(const struct cfg *c, char **envp, const char *incluster_dir,
                      bool home_fallback, struct srv_cluster **out, char err[KUBE_ERR_LEN]);

/*
 * Waits up to @seconds for the first lists and, when a used source needs
 * them, the first metrics poll (for `rank`, which answers once). Returns 0
 * or -ETIMEDOUT with what is missing in @err.
 */
int srv_cluster_wait(struct srv_cluster *cl, int seconds, char err[KUBE_ERR_LEN]);

/* Uses @next from now on (annotation names, metrics polling). */
int srv_cluster_reload(struct srv_cluster *cl, const struct cfg *next);

/* Stops the threads and frees everything (NULL is fine). */
void srv_cluster_stop(struct srv_cluster *cl);

/* Whether the first full lists of nodes and pods are in; otherwise @why
 * (@n bytes) says what is missing or failing. Thread-safe. */
bool srv_cluster_is_ready(struct srv_cluster *cl, char *why, size_t n);

/* The state the verbs read. Thread-safe (the state has its own lock). */
struct kube_state *srv_cluster_state(struct srv_cluster *cl);

/* Counts a node name the state does not know (passed with score 0); the
 * first few are logged. Thread-safe. */
void srv_cluster_count_unknown(struct srv_cluster *cl, const char *node);

/* How many unknown node names requests have carried. Thread-safe. */
unsigned long long srv_cluster_unknown_total(struct srv_cluster *cl);

/*
 * Applies one Node object of a list or watch event to @st, decoded as the
 * Node objects of requests are (allocatable; @c's used annotations). An
 * object that cannot be used is logged and skipped (-EINVAL). Returns 0,
 * -EINVAL or -ENOMEM. Thread-safe as the state is.
 */
int srv_cluster_apply_node(struct kube_state *st, const struct cfg *c, enum kube_event ev,
                           const cJSON *obj);

/*
 * Applies one Pod object to @st: its effective request (the same rules as
 * a request's pod), node, and whether it is terminal; @now dates a new
 * placement. A pod that cannot be decoded is logged and forgotten
 * (-EINVAL): better uncharged than charged a guess. Returns 0, -EINVAL or
 * -ENOMEM.
 */
int srv_cluster_apply_pod(struct kube_state *st, enum kube_event ev, const cJSON *obj, double now);

/* Wall-clock seconds, the time base of the state (metrics timestamps are
 * wall-clock). */
double srv_cluster_now(void);

/*
 * Binds pod @ns/@name (uid @uid, may be "") to @node through the API server
 * (POST .../pods/NAME/binding). A pod already bound to @node counts as
 * success (kubernetes#96579: our earlier answer may have been lost).
 * Returns 0 or -errno with a message in @err. Thread-safe.
 */
int srv_cluster_bind(struct srv_cluster *cl, const char *ns, const char *name, const char *uid,
                     const char *node, char err[KUBE_ERR_LEN]);

#endif

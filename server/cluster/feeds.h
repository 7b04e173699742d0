/*
 * What the informers deliver, applied to the cluster state: Node and Pod
 * objects decoded by the same codec as requests, so that a node's
 * allocatable and a pod's effective request are the same numbers whether
 * they came in a request or from the watch.
 */
#ifndef SERVER_CLUSTER_FEEDS_H
#define SERVER_CLUSTER_FEEDS_H

#include <cjson/cJSON.h>

#include "config/config.h"
#include "kube/informer.h"
#include "kube/state.h"
#include "server/cluster/cluster.h"

/*
 * Applies one Node object of a list or watch event to @st, decoded as the
 * Node objects of requests are (allocatable; @c's used annotations). An
 * object that cannot be used is logged and skipped (-EINVAL). Returns 0,
 * -EINVAL or -ENOMEM. Thread-safe as the state is.
 */
int cluster_apply_node(struct kube_state *st, const struct cfg *c, enum kube_event ev,
                       const cJSON *obj);

/*
 * Applies one Pod object to @st: its effective request (the same rules as
 * a request's pod), node, and whether it is terminal; @now dates a new
 * placement. A pod that cannot be decoded is logged and forgotten
 * (-EINVAL): better uncharged than charged a guess. When the object is a
 * binding (a node name the state did not know the pod with) and @hook is
 * not NULL, @hook is told once the state has it. @est says what a
 * placement of the pod counts in flight (NULL: its requests). Returns 0,
 * -EINVAL or -ENOMEM.
 */
int cluster_apply_pod(struct kube_state *st, enum kube_event ev, const cJSON *obj, double now,
                      const struct cluster_bound_hook *hook,
                      const struct score_in_flight_rules *est);

#endif

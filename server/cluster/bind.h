/* Binding a pod to a node through the API server (the bind verb). */
#ifndef SERVER_CLUSTER_BIND_H
#define SERVER_CLUSTER_BIND_H

#include <stdint.h>

#include "server/cluster/cluster.h"

#define CLUSTER_BIND_TIMEOUT 30 /* seconds: the bind's bound when the caller has no deadline */

/*
 * Binds pod @ns/@name (uid @uid, may be "") to @node: POST
 * .../pods/NAME/binding. A pod already bound to @node counts as success
 * (kubernetes#96579: our earlier answer may have been lost); a bound pod
 * is charged to its node at once (in flight) until the watch catches up.
 * Names must be safe as URL path segments (the codec checks them).
 * The whole call ends by @deadline_ns (CLOCK_MONOTONIC; 0: within
 * CLUSTER_BIND_TIMEOUT seconds a request) with -ETIMEDOUT: kube-scheduler
 * has given up on the answer by then, and a bind left waiting on a hung
 * API server would hold its connection slot for nothing.
 * Returns 0 or -errno with a message in @err (ERR_LEN). Thread-safe.
 */
int cluster_bind(struct cluster *cl, const char *ns, const char *name, const char *uid,
                 const char *node, uint64_t deadline_ns, char *err);

#endif

/* Binding a pod to a node through the API server (the bind verb). */
#ifndef SERVER_CLUSTER_BIND_H
#define SERVER_CLUSTER_BIND_H

#include "server/cluster/cluster.h"

/*
 * Binds pod @ns/@name (uid @uid, may be "") to @node: POST
 * .../pods/NAME/binding. A pod already bound to @node counts as success
 * (kubernetes#96579: our earlier answer may have been lost); a bound pod
 * is charged to its node at once (in flight) until the watch catches up.
 * Names must be safe as URL path segments (the codec checks them).
 * Returns 0 or -errno with a message in @err (ERR_LEN). Thread-safe.
 */
int cluster_bind(struct cluster *cl, const char *ns, const char *name, const char *uid,
                 const char *node, char *err);

#endif

/*
 * The shadow report (issue 16): when a pod the extender scored is seen
 * bound, kube-scheduler's choice is compared with the extender's. The
 * decision's record in the ring gets the comparison (the node it would
 * have chosen, the bound node's rank in its order, the score difference)
 * and /metrics counts it. This is the evidence for moving from shadow to
 * enforce: how often kube-scheduler already puts pods where the extender
 * would, and how far off it is when it does not.
 *
 * Only decisions kept in the ring are compared, so the memory is the
 * ring's: decisionsKept records within decisionsMaxBytes, plus at most
 * min(decisionsKept, OPS_EARLY_BINDINGS_MAX) bindings seen before their
 * decision was recorded.
 */
#ifndef SERVER_OPS_SHADOW_H
#define SERVER_OPS_SHADOW_H

#include <stdint.h>

#include "config/config.h"
#include "server/ops/metrics.h"
#include "server/ops/ring.h"

/* How many decisions the ring keeps under @c: decisionsKept while the
 * debug endpoints are on or the mode is shadow (what the comparison
 * needs), else 0. */
int ops_shadow_kept(const struct cfg *c);

/*
 * A binding of pod @uid to @node was seen: compares it with the newest
 * comparable decision of that pod in @d and counts it in @m (NULL: not
 * counted); a pod without one is remembered in case its decision comes
 * after (ops_shadow_add). A pod is compared once. Thread-safe.
 */
void ops_shadow_bound(struct ops_ring *d, struct ops_metrics *m, const char *uid, const char *node);

/* ops_ring_add_claim() of @rec, comparing it at once when its pod was seen bound
 * before (the race of a slow answer against the binding). Returns the id.
 * Thread-safe. */
uint64_t ops_shadow_add(struct ops_ring *d, struct ops_metrics *m, struct ops_record *rec);

#endif

/*
 * The effective pod request exactly as kube-scheduler charges it
 * (component-helpers resource.PodRequests):
 *   max(sum of containers + sidecars, each init container + the sidecars
 *       started before it), then pod-level requests override, + overhead.
 */
#ifndef SCORING_PODREQ_H
#define SCORING_PODREQ_H

#include "scoring/resources.h"

/* Defaults charged by the scoring plugins for a container whose requests lack
 * the key (schedutil.DefaultMilliCPURequest / DefaultMemoryRequest). */
#define SCORE_DEFAULT_MILLI_CPU 100
#define SCORE_DEFAULT_MEMORY    (200LL * 1024 * 1024)

/* Both views of one pod's request: real for filtering and BalancedAllocation,
 * non_zero (defaults per container for absent keys) for the other strategies. */
struct score_pod_request {
    int64_t real[SCORE_NRES];
    int64_t non_zero[SCORE_NRES];
};

/*
 * Computes the effective request of @pod into *@out.
 * Returns 0, or -ERANGE if a sum overflows int64 (inputs are >= 0).
 * Pure and thread-safe.
 */
int score_pod_request(const struct score_pod *pod, struct score_pod_request *out);

#endif

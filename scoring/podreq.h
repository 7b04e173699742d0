/*
 * The effective pod request exactly as kube-scheduler v1.37 charges it
 * (component-helpers resource.PodRequests, with the options and the feature
 * gates at their v1.37 defaults that NodeResourcesFit and NodeInfo pass):
 *   max(sum of containers + sidecars, each init container + the sidecars
 *       started before it), then pod-level requests override, + overhead.
 * tests/oracle compares every view below against that code.
 */
#ifndef SCORING_PODREQ_H
#define SCORING_PODREQ_H

#include <stdint.h>

#include "scoring/resources.h"

/* Defaults charged by the scoring plugins for a container whose requests lack
 * the key (schedutil.DefaultMilliCPURequest / DefaultMemoryRequest). */
#define SCORE_DEFAULT_MILLI_CPU 100
#define SCORE_DEFAULT_MEMORY    (200LL * 1024 * 1024)

/* The views of one pod's request.
 *
 * fit: PodRequests from the spec alone, no defaults: the pod being placed,
 * as NodeResourcesFit's PreFilter takes it (computePodResourceRequest; a pod
 * not yet scheduled has no resize status). What the filters check.
 *
 * real: PodRequests with the resize status (UseStatusResources, pod-level
 * status maps), no defaults: what a pod charges its node (NodeInfo's
 * Requested) and what BalancedAllocation takes of the pod being placed.
 * Equal to fit for a pod without resize status. Per container: the largest
 * of spec, allocated and actuated requests, as aggregated sums
 * (AggregateContainerRequests: max(spec, actuated, allocated); without the
 * spec when the resize is Infeasible).
 *
 * non_zero: what the pod adds to its node's NonZeroRequested once it runs
 * there (NodeInfo: PodInfo.CalculateResource). Without pod-level requests,
 * every container (regular, init, sidecar) whose requests lack the key counts
 * 100m / 200Mi. With pod-level requests (pod_level_set), a key is defaulted
 * only if the pod as a whole lacks it: no container, init container, pod-level
 * request, overhead or resize status names it; then every container gets the
 * default (they all lack it). A key the pod has anywhere is charged as real.
 *
 * non_zero_scored: the pod being placed, as NodeResourcesFit's scorers are
 * meant to take it (calculatePodResourceRequest with the feature gates on:
 * the resize status, the per-container defaults always, then the pod-level
 * override). Differs from non_zero only for a pod with pod-level requests
 * whose containers name a key only in part. kube-scheduler v1.37.2 itself
 * scores without the pod-level override and status, as NewFit never passes
 * the gates to the scorer it embeds; tests/oracle excludes those cases by a
 * rule that says so. */
struct score_pod_request {
    int64_t fit[SCORE_NRES];
    int64_t real[SCORE_NRES];
    int64_t non_zero[SCORE_NRES];
    int64_t non_zero_scored[SCORE_NRES];
};

/*
 * Computes the effective request of @pod into *@out.
 * Returns 0, or -ERANGE if a sum overflows int64 (inputs are >= 0).
 * Pure and thread-safe.
 */
int score_pod_request(const struct score_pod *pod, struct score_pod_request *out);

/* What a pod placed but not yet in the usage samples is counted as
 * (inFlightEstimate). */
enum score_in_flight {
    SCORE_IN_FLIGHT_REQUESTS = 0, /* its requests, as non_zero charges them */
    SCORE_IN_FLIGHT_LIMITS,       /* per container the limit where set, else the request */
    SCORE_IN_FLIGHT_FACTOR,       /* the limit where set, else request x factor */
};

struct score_in_flight_rules {
    enum score_in_flight mode;
    int64_t factor_milli[SCORE_NRES]; /* factor mode: thousandths, 1..10000 (0.001..10) */
};

/* "requests", "limits" or "factor"; NULL past the last. */
const char *score_in_flight_name(enum score_in_flight m);

/*
 * The in-flight estimate of @pod under @rules into @out, per resource.
 * requests: non_zero of score_pod_request. limits and factor: each container
 * (regular, init, sidecar) and the pod-level list count their limit where
 * set, else their request (a missing request the scoring default), in
 * factor mode times factor_milli / 1000 rounded up to the whole millicore
 * or byte; then the same rules as the request (the larger of containers +
 * sidecars and each init container + the sidecars before it, pod-level
 * override, overhead added unscaled); a sum past INT64_MAX saturates there.
 * Returns 0 or -ERANGE (the request itself does not fit in int64).
 */
int score_pod_estimate(const struct score_pod *pod, const struct score_in_flight_rules *rules,
                       int64_t out[SCORE_NRES]);

#endif

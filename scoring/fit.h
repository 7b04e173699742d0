/*
 * The filter rule: does the pod fit into what the node has free?
 * Mirrors NodeResourcesFit.Filter for cpu and memory, with an optional
 * per-resource ceiling: a node fails when used + request would exceed
 * threshold_percent of its allocatable.
 */
#ifndef SCORING_FIT_H
#define SCORING_FIT_H

#include "scoring/quantity.h"
#include "scoring/resources.h"

enum score_verdict {
    SCORE_FITS = 0,
    SCORE_UNFIT,        /* preemption could make room: FailedNodes */
    SCORE_UNRESOLVABLE, /* the request alone is over the limit: FailedAndUnresolvableNodes */
};

/*
 * Judges @node for a pod whose real request is @request. threshold_percent
 * holds 1..100 per resource. A resource the pod does not request (0) is not
 * checked, as in kube-scheduler. On failure @reason gets a short,
 * node-independent text without '%' ("Insufficient cpu").
 * Pure and thread-safe.
 */
enum score_verdict score_fit(const int threshold_percent[SCORE_NRES], const struct score_node *node,
                             const int64_t request[SCORE_NRES], char reason[SCORE_ERR_LEN]);

/*
 * The same judgement as score_fit() without the text: returns the set of
 * resources the pod does not fit by, bit (1u << r) per enum score_resource
 * (0 when it fits), and stores the verdict in *@verdict. score_fit() is this
 * plus the reason; the placement model and the simulation call it per node
 * and per update, where formatting a text each time would cost more than
 * the check. Pure and thread-safe.
 */
unsigned score_fit_mask(const int threshold_percent[SCORE_NRES], const struct score_node *node,
                        const int64_t request[SCORE_NRES], enum score_verdict *verdict);

#endif

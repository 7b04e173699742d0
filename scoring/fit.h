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

/* A verdict and the resources that were short (bit 1 << r each). */
struct score_fit {
    enum score_verdict verdict;
    unsigned short_of;
};

/*
 * Judges @node for a pod whose real request is @request. threshold_percent
 * holds 1..100 per resource. A resource the pod does not request (0) is not
 * checked, as in kube-scheduler. Pure and thread-safe.
 */
struct score_fit score_fit(const int threshold_percent[SCORE_NRES], const struct score_node *node,
                           const int64_t request[SCORE_NRES]);

/* The short, node-independent reason kube-scheduler aggregates in the
 * pod's event for the resources @short_of ("Insufficient cpu",
 * "Insufficient cpu, Insufficient memory"); "" for none. A static text
 * without '%'. */
const char *score_fit_reason(unsigned short_of);

#endif

/*
 * Scoring strategies: a 0..100 value per node, mapped to kube-scheduler's
 * extender range 0..10. Integer arithmetic wherever kube-scheduler uses it.
 *
 *   spread   = NodeResourcesFit LeastAllocated: (alloc - req) * 100 / alloc
 *   pack     = NodeResourcesFit MostAllocated:  min(req, alloc) * 100 / alloc
 *   balanced = NodeResourcesBalancedAllocation before 1.36: (1 - std) * 100
 *   target   = TargetLoadPacking-like, peak at target_percent utilisation
 *
 * with req = used + pod request (non-zero defaults; real requests for
 * balanced), a weighted mean Σ w·value / Σ w over resources with non-zero
 * allocatable and weight, then score = (value + 5) / 10, or, normalised,
 * (10 * value + vmax / 2) / vmax against the best candidate.
 */
#ifndef SCORING_STRATEGY_H
#define SCORING_STRATEGY_H

#include "scoring/podreq.h"
#include "scoring/resources.h"

#define SCORE_MAX_VALUE 100 /* framework.MaxNodeScore */
#define SCORE_MAX_SCORE 10  /* extenderv1.MaxExtenderPriority */

enum score_strategy {
    SCORE_SPREAD = 0,
    SCORE_PACK,
    SCORE_BALANCED,
    SCORE_TARGET,
};

struct score_params {
    enum score_strategy strategy;
    int weight[SCORE_NRES];            /* 0..100; 0 leaves the resource out */
    int target_percent;                /* 1..100, for SCORE_TARGET */
    int threshold_percent[SCORE_NRES]; /* 1..100, for the filter */
    bool normalize;
};

/* One resource's part of a node's value: the inputs and what they gave. */
struct score_term {
    int64_t alloc;     /* allocatable */
    int64_t used;      /* already used on the node */
    int64_t pod;       /* the pod's request counted (non-zero or real) */
    int64_t requested; /* used + pod, saturated at INT64_MAX */
    int weight;
    bool skipped;    /* allocatable 0 or weight 0: left out of the mean */
    int value;       /* 0..100 for spread/pack/target; 0 for balanced */
    double fraction; /* balanced only: min(requested / alloc, 1) */
};

/* Everything behind one node's score. */
struct score_explain {
    enum score_strategy strategy;
    struct score_term term[SCORE_NRES];
    int value; /* 0..100 */
    int score; /* 0..10, set by score_finish() */
};

/* Returns "spread", "pack", "balanced" or "target". */
const char *score_strategy_name(enum score_strategy s);

/* Parses a strategy name; returns 0 or -EINVAL. */
int score_strategy_parse(const char *name, enum score_strategy *out);

/*
 * Computes the 0..100 value of @node for a pod requesting @req under @p and
 * fills *@out with every input and term. score is left 0 until
 * score_finish(). Pure and thread-safe.
 */
void score_node_value(const struct score_params *p, const struct score_node *node,
                      const struct score_pod_request *req, struct score_explain *out);

/*
 * Maps the values of @n explanations to 0..10 scores in place, normalised
 * against the best value when p->normalize is set.
 */
void score_finish(const struct score_params *p, struct score_explain *ex, size_t n);

#endif

/*
 * A cheap upper bound of a node's value for a pod (score_node_value), for
 * the simulation's pass over every node of a pod with its own request: a
 * node whose bound does not beat the best value so far cannot win, and the
 * exact value (integer divisions and the whole explanation) is computed
 * only for the others. The decision is the exact values' either way.
 */
#ifndef PLACEMENT_SIM_BOUND_H
#define PLACEMENT_SIM_BOUND_H

#include <stdbool.h>
#include <stdint.h>

#include "scoring/strategy.h"

/* Far above the error of the few double operations below (a few 1e-14 on
 * values up to 100), far below the 1 between two integer values. */
#define SIM_BOUND_MARGIN 1e-6

/* Quantities in 0 .. 2^52: their sums are exact in int64 and the doubles
 * below are within a few ulps. Not below 0: score_node_value casts a
 * negative share to int, which wraps to any value far enough below (no
 * request or annotation is negative; the codecs refuse them). */
static inline bool sim_bound_small(int64_t x)
{
    return (uint64_t)x < (1ULL << 52);
}

/* The target formula over a real utilisation x in percent (target_load()
 * before its truncations, which only lower it): at least f(q) for the
 * integer q = floor(x). */
static inline double sim_bound_target(double q, int t)
{
    if (q > 100)
        return 0;
    if (q <= t)
        return t + (100.0 - t) * q / t;
    return t * (100.0 - q) / (100 - t);
}

/* One resource's term: at least the strategy's integer term for
 * requested = used + pod on @alloc (> 0). */
static inline double sim_bound_term(enum score_strategy s, int64_t requested, int64_t alloc, int t)
{
    double x = 100.0 * (double)requested / (double)alloc;
    switch (s) {
    case SCORE_SPREAD: /* (alloc - req) * 100 / alloc, 0 beyond alloc */
        return requested > alloc ? 0 : 100.0 - x;
    case SCORE_PACK: /* min(req, alloc) * 100 / alloc; a negative share truncates to 0 */
        return requested > alloc ? 100 : x < 0 ? 0 : x;
    case SCORE_TARGET: {
        if (t < 1 || t > 100)
            break;
        /* q = floor(exact x) is one of the integers within SIM_BOUND_MARGIN of x. */
        double lo = sim_bound_target((double)(int64_t)(x - SIM_BOUND_MARGIN), t);
        double hi = sim_bound_target((double)(int64_t)(x + SIM_BOUND_MARGIN), t);
        return x - SIM_BOUND_MARGIN < 0 ? hi > t ? hi : t : lo > hi ? lo : hi;
    }
    case SCORE_BALANCED:
        break;
    }
    return SCORE_MAX_VALUE;
}

/* Whether sim_node_bound() bounds the values of a pod requesting @req under
 * @p: not balanced (its doubles are the value itself), requests in
 * 0 .. 2^52. Checked once per pod. */
static inline bool sim_bound_usable(const struct score_params *p,
                                    const struct score_pod_request *req)
{
    return p->strategy != SCORE_BALANCED && sim_bound_small(req->non_zero_scored[SCORE_CPU]) &&
           sim_bound_small(req->non_zero_scored[SCORE_MEMORY]);
}

/*
 * For a pod sim_bound_usable() accepted, once per node: an integer at
 * least score_node_value(@p, @node, @req)'s value: the same formulas in
 * double precision before truncation, plus a margin far above their
 * rounding error; SCORE_MAX_VALUE where that is not cheap (a quantity
 * beyond 2^52). Pure and thread-safe; inline, as it runs once per node
 * and pod.
 */
static inline int sim_node_bound(const struct score_params *p, const struct score_node *node,
                                 const struct score_pod_request *req)
{
    double weighted = 0;
    int weights = 0;

    for (int r = 0; r < SCORE_NRES; r++) {
        int64_t alloc = node->alloc[r], used = node->used_non_zero[r];
        if (alloc <= 0 || p->weight[r] <= 0)
            continue; /* skipped, as score_node_value does */
        /* Both sim_bound_small() in one comparison. */
        if (((uint64_t)alloc | (uint64_t)used) >= (1ULL << 52))
            return SCORE_MAX_VALUE;
        weighted += p->weight[r] * sim_bound_term(p->strategy, used + req->non_zero_scored[r],
                                                  alloc, p->target_percent);
        weights += p->weight[r];
    }
    if (weights == 0)
        return 0;
    double v = weighted / weights + SIM_BOUND_MARGIN;
    return v >= SCORE_MAX_VALUE ? SCORE_MAX_VALUE : v <= 0 ? 0 : (int)v;
}

#endif

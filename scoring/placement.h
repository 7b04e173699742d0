/*
 * Placement quality: how evenly a resource's requests are spread across
 * nodes, as the coefficient of variation (standard deviation / mean) of
 * requested / allocatable. 0 is perfectly even; spreading strategies push
 * it down, packing pushes it up. Pure and thread-safe.
 */
#ifndef SCORING_PLACEMENT_H
#define SCORING_PLACEMENT_H

#include <stddef.h>

/* Running mean and sum of squared deviations of requested / allocatable
 * (Welford's method: no cancellation when the ratios are all alike);
 * start zeroed. */
struct score_spread_sums {
    size_t n;
    double mean, m2;
};

/* Adds one node; a node with no allocatable is left out. */
void score_spread_add(struct score_spread_sums *s, long long requested, long long allocatable);

/*
 * The population coefficient of variation of the ratios added, or 0 when
 * there are none or their mean is 0 (nothing requested anywhere).
 */
double score_spread_cv(const struct score_spread_sums *s);

/* The mean of the ratios added, 0 when none. */
double score_spread_mean(const struct score_spread_sums *s);

#endif

/*
 * Usage over a window: how a node's recent usage samples become the one
 * usage it is scored by (usageWindowSeconds, usageAggregation,
 * usageMinSamples). Pure: the cluster state keeps the samples and calls
 * this when one arrives.
 *
 * The window is the samples taken in (newest - window, newest]: measured
 * from the newest sample, not from now (the age of the newest decides
 * staleness, usageMaxAgeSeconds). Aggregations, each per resource:
 *   latest   the newest sample
 *   avg      the mean, truncated
 *   max      the largest
 *   pNN      the NN-th percentile as PromQL's quantile_over_time takes it:
 *            rank q x (n - 1) over the sorted values, interpolated linearly
 *            between the two nearest, truncated to an integer
 */
#ifndef SCORING_USAGE_WINDOW_H
#define SCORING_USAGE_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scoring/resources.h"

enum score_usage_agg {
    SCORE_AGG_LATEST = 0,
    SCORE_AGG_AVG,
    SCORE_AGG_MAX,
    SCORE_AGG_P50,
    SCORE_AGG_P90,
    SCORE_AGG_P95,
    SCORE_AGG_P99,
};

/* Most samples a window may hold per node: what bounds the history's
 * memory (24 bytes a sample). */
#define SCORE_USAGE_MAX_SAMPLES 256

struct score_usage_sample {
    double time; /* the sample's timestamp, wall seconds */
    int64_t value[SCORE_NRES];
};

/* Returns "latest", "avg", "max", "p50", "p90", "p95" or "p99". */
const char *score_usage_agg_name(enum score_usage_agg a);

/*
 * Parses usageAggregation: one name for both resources ("p90"), or
 * "cpu=NAME,memory=NAME" (either may be left out: it stays latest).
 * Returns 0 or -EINVAL.
 */
int score_usage_agg_parse_list(const char *text, enum score_usage_agg out[SCORE_NRES]);

/*
 * Aggregates the @n samples of @s (oldest first, times increasing) over
 * the window of @window_seconds before the newest (0: the newest alone),
 * each resource by @agg. Writes the result to @out and returns how many
 * samples the window held (0 when @n is 0). @scratch holds at least
 * SCORE_USAGE_MAX_SAMPLES values; @n is at most that.
 */
size_t score_usage_aggregate(const struct score_usage_sample *s, size_t n, double window_seconds,
                             const enum score_usage_agg agg[SCORE_NRES], int64_t out[SCORE_NRES],
                             int64_t *scratch);

#endif

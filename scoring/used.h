/*
 * What is already used on a node, from the configured source:
 *
 *   requests    the sum of the effective requests of the node's assigned,
 *               non-terminal pods (what kube-scheduler itself charges)
 *   usage       metrics.k8s.io usage, plus the requests of pods placed
 *               since the sample's window began (in-flight damping: a burst
 *               of pods must not pile onto the node the last sample showed
 *               empty)
 *   max         max(requests, usage) per view
 *   annotation  a number the node carries in an annotation
 *
 * Each source has a freshness limit; past it the stale policy decides:
 * fall back to requests, treat the node as full, or pass it unscored.
 * Pure and thread-safe.
 */
#ifndef SCORING_USED_H
#define SCORING_USED_H

#include <stdbool.h>
#include <stdint.h>

#include "scoring/resources.h"

enum score_used_source {
    SCORE_USED_REQUESTS = 0,
    SCORE_USED_USAGE,
    SCORE_USED_MAX,
    SCORE_USED_ANNOTATION,
};

enum score_stale_policy {
    SCORE_STALE_REQUESTS = 0, /* use requests instead (even stale ones: the best known) */
    SCORE_STALE_FULL,         /* the node fails the filter and scores 0 */
    SCORE_STALE_PASS,         /* the node passes the filter and scores 0 */
};

/* What the state knows of one resource on one node. Ages in seconds. */
struct score_used_inputs {
    bool has_requests;    /* the pod list is in: the sums are meaningful */
    int64_t req_real;     /* sum of real requests */
    int64_t req_non_zero; /* with the per-container defaults */
    double req_age;       /* since the pod watch was last known in sync */
    bool has_usage;
    int64_t usage;
    double usage_age;   /* since the sample's timestamp */
    int64_t in_flight;  /* requests of pods placed after the sample's window began */
    int64_t annotation; /* the node's used annotation, 0 when it has none */
};

struct score_used_limits {
    double requests_max_age; /* seconds; <= 0: never stale */
    double usage_max_age;
    enum score_stale_policy policy;
};

enum score_used_outcome {
    SCORE_USED_FRESH = 0,  /* the configured source, within its limit */
    SCORE_USED_FELL_BACK,  /* stale or missing: requests were used instead */
    SCORE_USED_STALE_FULL, /* stale: treat as full */
    SCORE_USED_STALE_PASS, /* stale: pass unscored */
};

/* The result for one resource. used_real feeds the filter and balanced,
 * used_non_zero the other strategies (kube-scheduler's Requested and
 * NonZeroRequested); they differ only for the requests source. */
struct score_used {
    enum score_used_outcome outcome;
    enum score_used_source source; /* the one that gave the values */
    int64_t used_real;
    int64_t used_non_zero;
};

/* Returns "requests", "usage", "max" or "annotation". */
const char *score_used_source_name(enum score_used_source s);
/* Returns "requests", "full" or "pass". */
const char *score_stale_policy_name(enum score_stale_policy p);
/* Returns "fresh", "fell-back", "stale-full" or "stale-pass". */
const char *score_used_outcome_name(enum score_used_outcome o);

/*
 * Resolves what is used for one resource from @in under @source and @lim.
 * Sums saturate at INT64_MAX. Pure and thread-safe.
 */
void score_used_resolve(enum score_used_source source, const struct score_used_inputs *in,
                        const struct score_used_limits *lim, struct score_used *out);

#endif

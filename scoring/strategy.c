#include "scoring/strategy.h"

#include <errno.h>
#include <math.h>
#include <string.h>

static const char *const strategy_names[] = {
    [SCORE_SPREAD] = "spread",
    [SCORE_PACK] = "pack",
    [SCORE_BALANCED] = "balanced",
    [SCORE_TARGET] = "target",
};

const char *score_strategy_name(enum score_strategy s)
{
    return strategy_names[s];
}

int score_strategy_parse(const char *name, enum score_strategy *out)
{
    for (size_t i = 0; i < sizeof(strategy_names) / sizeof(strategy_names[0]); i++) {
        if (strcmp(name, strategy_names[i]) == 0) {
            *out = (enum score_strategy)i;
            return 0;
        }
    }
    return -EINVAL;
}

/* x * 100 / d, truncated, for 0 <= x <= d: in 64 bits when the product
 * fits (every real quantity: up to 92 PB or 92 billion cores), else in 128.
 * The same number either way; the 128-bit division is a library call that
 * cost a fifth of a simulation. */
static int share_of(int64_t x, int64_t d)
{
    if (x <= INT64_MAX / SCORE_MAX_VALUE)
        return (int)(x * SCORE_MAX_VALUE / d);
    return (int)(((__int128)x * SCORE_MAX_VALUE) / d);
}

/* leastRequestedScore: free share of the node, truncated. */
static int least_allocated(int64_t req, int64_t alloc)
{
    if (req > alloc)
        return 0;
    return share_of(alloc - req, alloc);
}

/* mostRequestedScore: used share of the node, truncated, capped at 100. */
static int most_allocated(int64_t req, int64_t alloc)
{
    int64_t used = req < alloc ? req : alloc;
    return share_of(used, alloc);
}

/* Highest (100) at t percent utilisation, falling linearly to t at 0 % and
 * to 0 at 100 %; 0 beyond the allocatable. Evaluated left to right in
 * integers, exactly as the formula is written. */
static int target_load(int64_t req, int64_t alloc, int t)
{
    __int128 p = req >= 0 && req <= INT64_MAX / 100 ? (__int128)(req * 100 / alloc)
                                                    : ((__int128)req * 100) / alloc;
    if (p > 100)
        return 0;
    if (p < 0) /* not from a request (negative quantities are refused), but pure */
        p = 0;
    int q = (int)p; /* 0..100 from here: int arithmetic, no 128-bit division */
    if (q <= t)
        return t + (100 - t) * q / t;
    return t * (100 - q) / (100 - t);
}

/* balancedResourceScorer before #135573: weights ignored, float64. */
static int balanced(const struct score_explain *ex)
{
    double fractions[SCORE_NRES], total = 0, std = 0;
    int n = 0;
    for (int r = 0; r < SCORE_NRES; r++) {
        if (ex->term[r].skipped)
            continue;
        fractions[n] = ex->term[r].fraction;
        total += fractions[n];
        n++;
    }
    if (n == 2) {
        std = fabs((fractions[0] - fractions[1]) / 2);
    } else if (n > 2) {
        double mean = total / n, sum = 0;
        for (int i = 0; i < n; i++)
            sum = sum + (fractions[i] - mean) * (fractions[i] - mean);
        std = sqrt(sum / n);
    }
    return (int)((1 - std) * SCORE_MAX_VALUE);
}

void score_node_value(const struct score_params *p, const struct score_node *node,
                      const struct score_pod_request *req, struct score_explain *out)
{
    const int64_t *pod = p->strategy == SCORE_BALANCED ? req->real : req->non_zero_scored;
    int64_t weighted = 0, weights = 0;

    /* Every field written, none cleared first: the simulation calls this
     * once per (pod, node) and a memset of the whole was a sixth of it. */
    out->strategy = p->strategy;
    out->score = 0;
    for (int r = 0; r < SCORE_NRES; r++) {
        struct score_term *t = &out->term[r];
        t->alloc = node->alloc[r];
        t->used = p->strategy == SCORE_BALANCED ? node->used[r] : node->used_non_zero[r];
        t->pod = pod[r];
        if (__builtin_add_overflow(t->used, t->pod, &t->requested))
            t->requested = INT64_MAX;
        t->weight = p->weight[r];
        t->value = 0;
        t->fraction = 0;
        t->skipped = t->alloc <= 0 || t->weight <= 0;
        if (t->skipped)
            continue;
        switch (p->strategy) {
        case SCORE_SPREAD:
            t->value = least_allocated(t->requested, t->alloc);
            break;
        case SCORE_PACK:
            t->value = most_allocated(t->requested, t->alloc);
            break;
        case SCORE_TARGET:
            t->value = target_load(t->requested, t->alloc, p->target_percent);
            break;
        case SCORE_BALANCED:
            t->fraction = (double)t->requested / (double)t->alloc;
            if (t->fraction > 1)
                t->fraction = 1;
            continue;
        }
        weighted += (int64_t)t->value * t->weight;
        weights += t->weight;
    }
    if (p->strategy == SCORE_BALANCED)
        out->value = balanced(out);
    else
        out->value = weights == 0 ? 0 : (int)(weighted / weights);
}

void score_finish(const struct score_params *p, struct score_explain *ex, size_t n)
{
    int vmax = 0;

    if (p->normalize)
        for (size_t i = 0; i < n; i++)
            vmax = ex[i].value > vmax ? ex[i].value : vmax;
    for (size_t i = 0; i < n; i++) {
        if (!p->normalize)
            ex[i].score = (ex[i].value + 5) / 10;
        else
            ex[i].score = vmax == 0 ? 0 : (10 * ex[i].value + vmax / 2) / vmax;
    }
}

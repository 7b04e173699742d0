#include "scoring/used.h"

static const char *const source_names[] = {
    [SCORE_USED_REQUESTS] = "requests",
    [SCORE_USED_USAGE] = "usage",
    [SCORE_USED_MAX] = "max",
    [SCORE_USED_ANNOTATION] = "annotation",
};

static const char *const policy_names[] = {
    [SCORE_STALE_REQUESTS] = "requests",
    [SCORE_STALE_FULL] = "full",
    [SCORE_STALE_PASS] = "pass",
};

static const char *const outcome_names[] = {
    [SCORE_USED_FRESH] = "fresh",
    [SCORE_USED_FELL_BACK] = "fell-back",
    [SCORE_USED_STALE_FULL] = "stale-full",
    [SCORE_USED_STALE_PASS] = "stale-pass",
};

const char *score_used_source_name(enum score_used_source s)
{
    return source_names[s];
}

const char *score_stale_policy_name(enum score_stale_policy p)
{
    return policy_names[p];
}

const char *score_used_outcome_name(enum score_used_outcome o)
{
    return outcome_names[o];
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static bool is_stale(double age, double max_age)
{
    return max_age > 0 && age > max_age;
}

/* The requests as they are: also the fallback of every other source. */
static void use_requests(const struct score_used_inputs *in, struct score_used *out)
{
    out->source = SCORE_USED_REQUESTS;
    out->used_real = in->req_real;
    out->used_non_zero = in->req_non_zero;
}

/* A source that cannot be used: the policy decides. Requests stand in even
 * when they are stale themselves, being the best there is; without a pod
 * list at all there is nothing to fall back to and the node passes. */
static void stale(const struct score_used_inputs *in, const struct score_used_limits *lim,
                  struct score_used *out)
{
    out->outcome = lim->policy == SCORE_STALE_FULL ? SCORE_USED_STALE_FULL : SCORE_USED_STALE_PASS;
    if (lim->policy == SCORE_STALE_REQUESTS && in->has_requests) {
        use_requests(in, out);
        out->outcome = SCORE_USED_FELL_BACK;
    }
}

void score_used_resolve(enum score_used_source source, const struct score_used_inputs *in,
                        const struct score_used_limits *lim, struct score_used *out)
{
    *out = (struct score_used){.source = source};
    bool requests_ok = in->has_requests && !is_stale(in->req_age, lim->requests_max_age);
    bool usage_ok = in->has_usage && !is_stale(in->usage_age, lim->usage_max_age);
    int64_t usage = usage_ok ? score_add_sat(in->usage, in->in_flight) : 0;

    if ((source == SCORE_USED_REQUESTS && !requests_ok) ||
        (source == SCORE_USED_USAGE && !usage_ok) ||
        (source == SCORE_USED_MAX && !(usage_ok && requests_ok))) {
        stale(in, lim, out);
        return;
    }
    switch (source) {
    case SCORE_USED_REQUESTS:
        use_requests(in, out);
        return;
    case SCORE_USED_USAGE:
        out->used_real = out->used_non_zero = usage;
        return;
    case SCORE_USED_MAX:
        out->used_real = max64(in->req_real, usage);
        out->used_non_zero = max64(in->req_non_zero, usage);
        return;
    case SCORE_USED_ANNOTATION:
        /* The node's own word, current with the Node object; a node without
         * the annotation uses nothing, as in request-only mode. */
        out->used_real = out->used_non_zero = in->annotation;
        return;
    }
}

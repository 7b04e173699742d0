#include "scoring/fit.h"

const char *score_resource_name(enum score_resource r)
{
    return r == SCORE_CPU ? "cpu" : "memory";
}

/* used + request <= alloc * threshold / 100, in 128 bits: no input can wrap. */
static bool within(__int128 amount, int64_t alloc, int threshold_percent)
{
    return amount * 100 <= (__int128)alloc * threshold_percent;
}

struct score_fit score_fit(const int threshold_percent[SCORE_NRES], const struct score_node *node,
                           const int64_t request[SCORE_NRES])
{
    struct score_fit f = {SCORE_FITS, 0};

    for (int r = 0; r < SCORE_NRES; r++) {
        if (request[r] <= 0)
            continue;
        __int128 total = (__int128)node->used[r] + request[r];
        if (within(total, node->alloc[r], threshold_percent[r]))
            continue;
        if (!within(request[r], node->alloc[r], threshold_percent[r]))
            f.verdict = SCORE_UNRESOLVABLE;
        else if (f.verdict == SCORE_FITS)
            f.verdict = SCORE_UNFIT;
        f.short_of |= 1u << r;
    }
    return f;
}

const char *score_fit_reason(unsigned short_of)
{
    static const char *const reasons[1u << SCORE_NRES] = {
        [0] = "",
        [1u << SCORE_CPU] = "Insufficient cpu",
        [1u << SCORE_MEMORY] = "Insufficient memory",
        [(1u << SCORE_CPU) | (1u << SCORE_MEMORY)] = "Insufficient cpu, Insufficient memory",
    };
    return reasons[short_of & ((1u << SCORE_NRES) - 1)];
}

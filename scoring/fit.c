#include "scoring/fit.h"

#include <stdio.h>
#include <string.h>

const char *score_resource_name(enum score_resource r)
{
    return r == SCORE_CPU ? "cpu" : "memory";
}

/* used + request <= alloc * threshold / 100, in 128 bits: no input can wrap. */
static bool within(__int128 amount, int64_t alloc, int threshold_percent)
{
    return amount * 100 <= (__int128)alloc * threshold_percent;
}

unsigned score_fit_mask(const int threshold_percent[SCORE_NRES], const struct score_node *node,
                        const int64_t request[SCORE_NRES], enum score_verdict *verdict)
{
    unsigned mask = 0;

    *verdict = SCORE_FITS;
    for (int r = 0; r < SCORE_NRES; r++) {
        if (request[r] <= 0)
            continue;
        __int128 total = (__int128)node->used[r] + request[r];
        if (within(total, node->alloc[r], threshold_percent[r]))
            continue;
        if (!within(request[r], node->alloc[r], threshold_percent[r]))
            *verdict = SCORE_UNRESOLVABLE;
        else if (*verdict == SCORE_FITS)
            *verdict = SCORE_UNFIT;
        mask |= 1u << r;
    }
    return mask;
}

enum score_verdict score_fit(const int threshold_percent[SCORE_NRES], const struct score_node *node,
                             const int64_t request[SCORE_NRES], char reason[SCORE_ERR_LEN])
{
    enum score_verdict verdict;
    unsigned mask = score_fit_mask(threshold_percent, node, request, &verdict);
    size_t off = 0;

    reason[0] = '\0';
    for (int r = 0; r < SCORE_NRES; r++) {
        if (!(mask & (1u << r)))
            continue;
        int n = snprintf(reason + off, SCORE_ERR_LEN - off, "%sInsufficient %s", off ? ", " : "",
                         score_resource_name((enum score_resource)r));
        if (n > 0 && (size_t)n < SCORE_ERR_LEN - off)
            off += (size_t)n;
    }
    return verdict;
}

#include "scoring/placement.h"

#include <math.h>

void score_spread_add(struct score_spread_sums *s, long long requested, long long allocatable)
{
    if (allocatable <= 0)
        return;
    double r = (double)requested / (double)allocatable;
    s->n++;
    s->sum += r;
    s->sum_sq += r * r;
}

double score_spread_mean(const struct score_spread_sums *s)
{
    return s->n > 0 ? s->sum / (double)s->n : 0;
}

double score_spread_cv(const struct score_spread_sums *s)
{
    double mean = score_spread_mean(s);
    if (s->n == 0 || mean <= 0)
        return 0;
    /* E[r^2] - mean^2 may come out a hair below 0 for equal ratios. */
    double var = s->sum_sq / (double)s->n - mean * mean;
    return var > 0 ? sqrt(var) / mean : 0;
}

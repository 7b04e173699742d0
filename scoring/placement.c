#include "scoring/placement.h"

#include <math.h>

void score_spread_add(struct score_spread_sums *s, long long requested, long long allocatable)
{
    if (allocatable <= 0)
        return;
    double r = (double)requested / (double)allocatable;
    double delta = r - s->mean;
    s->n++;
    s->mean += delta / (double)s->n;
    s->m2 += delta * (r - s->mean);
}

double score_spread_mean(const struct score_spread_sums *s)
{
    return s->n > 0 ? s->mean : 0;
}

double score_spread_cv(const struct score_spread_sums *s)
{
    if (s->n == 0 || s->mean <= 0)
        return 0;
    double var = s->m2 / (double)s->n; /* population: every node counts */
    return var > 0 ? sqrt(var) / s->mean : 0;
}

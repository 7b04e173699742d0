#include "config/filter_need.h"

const char *cfg_filter_need(const struct cfg *c, bool cluster)
{
    static const char *const below[SCORE_NRES] = {"cpu threshold below 100 %",
                                                  "memory threshold below 100 %"};
    static const char *const source[SCORE_NRES] = {
        "cpu used from usage, max or an annotation, not requests",
        "memory used from usage, max or an annotation, not requests"};
    static const char *const annotated[SCORE_NRES] = {
        "no cluster: the nodes' cpu used annotation is what the filter judges by",
        "no cluster: the nodes' memory used annotation is what the filter judges by"};

    if (c->mode != CFG_MODE_ENFORCE)
        return NULL; /* shadow and passthrough pass every node */
    for (int r = 0; r < SCORE_NRES; r++) {
        if (c->score.threshold_percent[r] < 100)
            return below[r];
        if (!cluster && c->used_annotation[r][0] != '\0')
            return annotated[r];
        if (cluster && c->used_source[r] != SCORE_USED_REQUESTS)
            return source[r];
    }
    if (cluster && c->stale_policy == SCORE_STALE_FULL)
        return "stale policy full: nodes with stale data fail the filter";
    return NULL;
}

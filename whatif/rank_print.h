/* What `rank` prints: per node the placement model's verdict and the same
 * breakdown as GET /debug, best first, in columns as wide as their cells. */
#ifndef WHATIF_RANK_PRINT_H
#define WHATIF_RANK_PRINT_H

#include <stdbool.h>
#include <stdio.h>

#include "config/config.h"
#include "placement/constraints.h"
#include "scoring/strategy.h"
#include "whatif/inputs.h"

/* One node as ranked. */
struct whatif_rank_row {
    const struct whatif_node *node;
    bool fits;                     /* passed every rule: scored as prioritize would */
    enum score_verdict verdict;    /* SCORE_FITS, or what kube-scheduler makes of the failure */
    const char *rule;              /* the rule that failed ("TaintToleration", "extender",
                                    * "invalid"); "" when it fits */
    char reason[PLACE_REASON_LEN]; /* its text; "" when it fits */
    bool forced_zero;              /* fits, but scored 0: stale used data under policy pass */
    bool threshold;                /* failed our filter on a threshold alone (not stale) */
    const char *note; /* why it fits despite a threshold (thresholdExempt, unlessAllFail), NULL */
    struct score_explain explain; /* terms always; value and score for a node that fits */
};

/* A ranking: the rows sorted (best first), and the pod. */
struct whatif_rank {
    const char *pod_ns, *pod_name;
    struct score_pod_request request;
    const struct whatif_rank_row *rows;
    size_t n;
    long best;        /* index of the best row, -1 when nothing fits */
    bool tie;         /* another node has the best score and value: name order decided */
    const char *from; /* where the nodes came from, for the header */
    const struct whatif_nodes *nodes;
};

/* The pod's request and the scoring rules under @cfg, then one row per
 * node: name, verdict (or the rule that failed), each resource's
 * allocatable, used (and where from), pod request and term, the value, the
 * score and the points kube-scheduler adds, and under it how they were
 * computed or why the node was refused. */
void whatif_rank_print(FILE *out, const struct cfg *cfg, const struct whatif_rank *r);

#endif

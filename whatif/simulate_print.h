/*
 * What `simulate` writes: the summary side by side per strategy (stdout),
 * the placements as CSV (--placements) and a self-contained HTML page
 * (--html: no script, as /debug).
 */
#ifndef WHATIF_SIMULATE_PRINT_H
#define WHATIF_SIMULATE_PRINT_H

#include <stdio.h>

#include "config/config.h"
#include "placement/simulate.h"
#include "whatif/inputs.h"

/* One simulation as the writers see it. */
struct whatif_sim_report {
    const struct cfg *cfg;
    const struct whatif_nodes *nodes; /* the input nodes, in input order */
    const struct whatif_pod *pods;    /* the input pods, in input order */
    size_t n_pods;
    const uint32_t *order; /* placement order: n_pods input indexes */
    const struct place_sim_result *results;
    size_t n_results;                                   /* one per strategy, in the order shown */
    const char *nodes_from, *existing_from, *pods_from; /* for the header */
};

/* The summary: inputs, one column per strategy (pods placed and not, nodes
 * used, cpu and memory requested / allocatable min max mean cv, stranded
 * capacity), then the pods not placed grouped by kube-scheduler's message. */
void whatif_sim_print_summary(FILE *out, const struct whatif_sim_report *r);

/* CSV: strategy,pod,node,value,score; one row per pod and strategy in
 * placement order; node, value and score empty for a pod not placed.
 * Returns 0 or -EIO. */
int whatif_sim_write_csv(FILE *out, const struct whatif_sim_report *r);

/* The HTML page: per strategy a bar per node (name order) of CPU requested
 * before and after, over its allocatable, and the summary table. Returns 0
 * or -EIO. */
int whatif_sim_write_html(FILE *out, const struct whatif_sim_report *r);

#endif

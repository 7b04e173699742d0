/* What one run of the simulation comes to (sim_prepare.h). */
#ifndef PLACEMENT_SIM_SUMMARY_H
#define PLACEMENT_SIM_SUMMARY_H

#include <stdint.h>

#include "placement/sim_fit.h"
#include "placement/sim_prepare.h"

/* Fills out->summary and out->nodes (indexed like the input nodes) from
 * the nodes at the end of a run, by position in name order: their state
 * @node and what the resource rules still admit, @room (the stranded
 * nodes), with out->pods already placed. */
void place_sim_summarise(const struct place_sim *sim, const struct place_sim_node_state *node,
                         const struct sim_fit_room *room, struct place_sim_result *out);

/*
 * Writes the FitError histograms of the pods out->pods did not place into
 * out->reasons: their class's static counts, then @resource_reasons[pod], the resource
 * reasons of their shape's nodes when their turn came. Returns 0 or -ENOMEM.
 */
int place_sim_collect_reasons(const struct place_sim *sim,
                              const uint32_t (*resource_reasons)[SIM_RESOURCE_REASONS],
                              struct place_sim_result *out);

#endif

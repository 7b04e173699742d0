/* Grouping of the pods to place, for the simulation (sim_prepared.h). */
#ifndef SCORING_SIM_GROUP_H
#define SCORING_SIM_GROUP_H

#include <stdint.h>

#include "scoring/sim_prepared.h"

/*
 * Groups @sim's input pods into classes (deeply equal constraints: the same
 * nodes admit them) and shapes (a class and one request: the same value on
 * every node), by hash with full comparison. Fills sim->classes (rep only),
 * sim->shapes (cls, req), sim->pod_shape, and @pod_class[i] with pod i's
 * class. Returns 0 or -ENOMEM (what it allocated stays in @sim, for
 * score_sim_free()).
 */
int score_sim_group_pods(struct score_sim *sim, uint32_t *pod_class);

#endif

/* Grouping of the pods to place, for the simulation (sim_prepare.h). */
#ifndef PLACEMENT_SIM_GROUP_H
#define PLACEMENT_SIM_GROUP_H

#include <stdint.h>

#include "placement/sim_prepare.h"

/*
 * Groups @sim's input pods into classes (deeply equal constraints: the same
 * nodes admit them) and shapes (a class and one request: the same value on
 * every node), by hash with full comparison. Fills sim->classes (rep only),
 * sim->shapes (cls, req), sim->pod_shape, and @pod_class[i] with pod i's
 * class. Returns 0 or -ENOMEM (what it allocated stays in @sim, for
 * place_sim_free()).
 */
int place_sim_group_pods(struct place_sim *sim, uint32_t *pod_class);

#endif

/* The static pass of the simulation (sim_prepare.h). */
#ifndef PLACEMENT_SIM_JUDGE_H
#define PLACEMENT_SIM_JUDGE_H

#include <stddef.h>

#include "placement/sim_prepare.h"

/*
 * Judges the static rules (place_judge_static: node name, unschedulable,
 * taints, selector, affinity) once per class of @sim and node, in name
 * order: fills each class's admitted nodes (sim->eligible) and its reason
 * counts for the others (sim->stat). A matchFields class judges only the
 * nodes it names. Needs sim->by_name and the classes' reps. Adds the bytes
 * the two arrays hold to *@bytes. Returns 0 or -ENOMEM.
 */
int place_sim_judge_classes(struct place_sim *sim, size_t *bytes);

#endif

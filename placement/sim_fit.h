/*
 * The resource rules of the simulation (place_judge_resources: NodeResourcesFit
 * then our filter) in the form one node is checked against many requests:
 * per node, the most each rule still admits, kept up to date as pods are
 * placed, so that judging a request is a few comparisons instead of 128-bit
 * products every time (the whole cost of a pass when each pod has its own
 * request). The reason bits are those of place_judge_resources, exactly.
 */
#ifndef PLACEMENT_SIM_FIT_H
#define PLACEMENT_SIM_FIT_H

#include <stdint.h>

#include "placement/sim_prepare.h"

/* What a node still admits. A request r (> 0) of a resource fits a rule
 * exactly when r <= the room; a room below 0 is stored as -1 and one above
 * INT64_MAX as INT64_MAX, which no request crosses differently. */
struct sim_fit_room {
    /* NodeResourcesFit: r <= alloc - requested (kube-scheduler's requested). */
    int64_t k8s[SCORE_NRES];
    /* Our filter: (used + r) * 100 <= alloc * threshold, i.e.
     * r <= floor((alloc * threshold - 100 * used) / 100), our used view. */
    int64_t ext[SCORE_NRES];
    int64_t full; /* 1: pods >= max_pods (Too many pods) */
};

/* Sets @room from a node's state @ns (what kube-scheduler counts, and our
 * view) and its @max_pods under the filter's @threshold_percent. */
void place_sim_room_set(struct sim_fit_room *room, const struct place_sim_node_state *ns,
                        int64_t max_pods, const int threshold_percent[SCORE_NRES]);

/* 0 when a pod requesting @fit (score_pod_request's fit) passes both rules
 * on the node of @room; else the bits (1 << enum sim_resource_reason) of
 * the reasons place_judge_resources() gives. */
static inline uint32_t sim_fit_reasons(const struct sim_fit_room *room,
                                       const int64_t fit[SCORE_NRES])
{
    uint32_t cpu = fit[SCORE_CPU] > 0 && fit[SCORE_CPU] > room->k8s[SCORE_CPU];
    uint32_t mem = fit[SCORE_MEMORY] > 0 && fit[SCORE_MEMORY] > room->k8s[SCORE_MEMORY];
    uint32_t bits = (uint32_t)room->full << SIM_TOO_MANY_PODS | cpu << SIM_INSUFFICIENT_CPU |
                    mem << SIM_INSUFFICIENT_MEMORY;
    if (bits != 0)
        return bits;
    cpu = fit[SCORE_CPU] > 0 && fit[SCORE_CPU] > room->ext[SCORE_CPU];
    mem = fit[SCORE_MEMORY] > 0 && fit[SCORE_MEMORY] > room->ext[SCORE_MEMORY];
    if (cpu && mem)
        return 1u << SIM_INSUFFICIENT_CPU_MEMORY;
    return cpu << SIM_INSUFFICIENT_CPU | mem << SIM_INSUFFICIENT_MEMORY;
}

#endif

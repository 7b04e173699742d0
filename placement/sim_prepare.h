/*
 * The prepared simulation (struct place_sim), shared by the files of the
 * engine behind placement/simulate.h: sim_prepare.c builds it with
 * sim_group.c (pods into classes and shapes) and sim_judge.c (the static
 * rules per class and node); sim_run.c places the pods with it and
 * sim_summary.c sums up a run. Nothing outside those files reads it.
 */
#ifndef PLACEMENT_SIM_PREPARE_H
#define PLACEMENT_SIM_PREPARE_H

#include <stddef.h>
#include <stdint.h>

#include "placement/constraints.h"
#include "scoring/podreq.h"
#include "placement/simulate.h"

/*
 * A shape's tree holds one 32-bit key per admitted node (its leaf, in name
 * order). A node that fits has key (value + 1) << 24 | (SIM_KEY_LEAF - leaf):
 * the maximum is the highest value, then the lowest leaf, i.e. the first
 * name, and every key is distinct, so the tree can be any shape. A node
 * that does not fit has as key the bits of its resource reasons (below
 * SIM_KEY_FITS, so below every fitting key).
 */
#define SIM_KEY_FITS (1u << 24)
#define SIM_KEY_LEAF (SIM_KEY_FITS - 1)

/* The resource reason texts a shape counts over its admitted nodes. */
enum sim_resource_reason {
    SIM_TOO_MANY_PODS = 0,
    SIM_INSUFFICIENT_CPU,
    SIM_INSUFFICIENT_MEMORY,
    SIM_INSUFFICIENT_CPU_MEMORY,
    SIM_RESOURCE_REASONS,
};

static const enum place_reason sim_resource_reason_of[SIM_RESOURCE_REASONS] = {
    [SIM_TOO_MANY_PODS] = PLACE_REASON_TOO_MANY_PODS,
    [SIM_INSUFFICIENT_CPU] = PLACE_REASON_INSUFFICIENT_CPU,
    [SIM_INSUFFICIENT_MEMORY] = PLACE_REASON_INSUFFICIENT_MEMORY,
    [SIM_INSUFFICIENT_CPU_MEMORY] = PLACE_REASON_INSUFFICIENT_CPU_MEMORY,
};

/* Pods with deeply equal constraints: the nodes they may go to. */
struct sim_class {
    uint32_t rep;              /* a pod of the class */
    uint32_t elig_off, n_elig; /* admitted node positions in sim->eligible, ascending */
    uint32_t stat_off, n_stat; /* static reason counts in sim->stat */
    uint32_t shape_off;        /* its shapes' slots in a run's per-class arrays (sim_run.c) */
};

/* Pods of one class with one request. */
struct sim_shape {
    uint32_t cls;
    uint32_t last; /* placement position of its last pod */
    struct score_pod_request req;
    /* what a pod of it adds to res (place_sim_pod's charge, or req's real
     * and non_zero) */
    int64_t charge_used[SCORE_NRES], charge_non_zero[SCORE_NRES];
};

/* Node position -> (class, leaf) for each class admitting it. */
struct sim_node_link {
    uint32_t cls, leaf;
};

struct place_sim {
    struct place_sim_input in;
    uint32_t *by_name; /* position in name order -> input node index */
    uint32_t *order;   /* placement order -> input pod index */
    uint32_t *pod_shape;
    struct sim_class *classes;
    size_t n_classes;
    struct sim_shape *shapes;
    size_t n_shapes;
    uint32_t *eligible;
    size_t n_eligible;
    struct place_reason_count *stat;
    size_t n_stat;
    uint32_t *link_off; /* n_nodes + 1 */
    struct sim_node_link *links;
    int64_t median[SCORE_NRES];
    size_t bytes;
};

#endif

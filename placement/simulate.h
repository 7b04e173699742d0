/*
 * The simulation behind `cpu-extender simulate`: places pods one by one on a
 * set of nodes as kube-scheduler with this extender would, under each
 * strategy, and summarises what the nodes look like afterwards.
 *
 * Per pod, in kube-scheduler's queue order (spec.priority, higher first, then
 * the order given; PrioritySort), with the state left by the pods before it:
 *
 *   1. the placement model (constraints.h: place_judge_static, then
 *      place_judge_resources with NodeResourcesFit and our filter) decides
 *      which nodes may take it;
 *   2. each of those gets the strategy's 0..100 value (score_node_value:
 *      the pod as scored, request.non_zero_scored, or real for balanced);
 *   3. the highest value wins, ties to the first node in name order: the
 *      choice of score_best_offer() with the candidates offered in name
 *      order (the 0..10 score is a non-decreasing function of the value
 *      among one pod's candidates, with or without normalize, so the
 *      highest (score, value) is the highest value). kube-scheduler itself
 *      picks at random among equal totals;
 *   4. the pod's request is added to the node as bind and the pod watch
 *      would: one more pod, real requests to facts.requested and res.used,
 *      non-zero requests as its node is charged (request.non_zero, which
 *      differs from non_zero_scored for some pod-level pods) to
 *      res.used_non_zero.
 *
 * The score reported is the service's answer for that node:
 * score_finish() over the candidates that passed, which for the winner
 * (the highest value, vmax) is score_finish() of it alone.
 *
 * Deliberate differences from a real cluster: every node is scored
 * (percentageOfNodesToScore 100; kube-scheduler looks at a rotating subset
 * of a large cluster); only the strategy's value ranks the nodes (the other
 * score plugins and the extender weight play no part); no preemption.
 *
 * Cost. Values depend only on a node's (alloc, used) and the pod's request,
 * and a placement changes one node, so pods are grouped into shapes
 * (identical constraints and request). Each shape keeps a max-tree over the
 * nodes its constraints admit, keyed by (fits, value, earliest name); a
 * placement marks the node dirty in the shapes that hold it, and a shape
 * recomputes only its dirty nodes when its next pod comes. A shape's tree
 * is built at its first pod and freed after its last; a shape of one pod
 * gets no tree, only one pass over its nodes, and a placement marks only
 * the trees that exist. Work is O(shapes x admitted nodes) to build plus
 * O(log n) per dirty node per query; input with a distinct request per pod
 * degrades to the plain loop over all nodes for every pod; there each node
 * keeps what the resource rules still admit (sim_fit.h), updated when a
 * pod lands on it, so that a node that cannot take the pod costs a few
 * comparisons, and a node that can is valued only when a bound in doubles
 * (sim_bound.h) says it could beat the best so far. Memory: see
 * place_sim_new() and struct place_sim_result.
 *
 * Files: sim_prepare.c (place_sim_new), sim_group.c and sim_judge.c (its
 * grouping and static pass), sim_run.c (place_sim_run, place_sim_run_all),
 * sim_summary.c (a run's summary and FitError counts); sim_prepare.h is the
 * prepared data they share.
 */
#ifndef PLACEMENT_SIMULATE_H
#define PLACEMENT_SIMULATE_H

#include <stddef.h>
#include <stdint.h>

#include "placement/constraints.h"
#include "scoring/podreq.h"
#include "scoring/resources.h"
#include "scoring/strategy.h"

/* Most nodes: the node's place in name order is kept in 24 bits. */
#define PLACE_SIM_MAX_NODES ((1u << 24) - 1)
/* Most pods to place. */
#define PLACE_SIM_MAX_PODS (1u << 30)

/* A node as the simulation starts from. */
struct place_sim_node {
    /* Name, labels, taints, unschedulable, max_pods; pods and requested
     * count the pods already bound to it (--existing), as kube-scheduler's
     * NodeInfo does. */
    struct place_node_facts facts;
    /* alloc and our used view (used, used_non_zero) as `serve` would score
     * the node: with the requests source the existing pods' sums, with
     * used-annotations the annotation. alloc is also NodeResourcesFit's. */
    struct score_node res;
};

/* A pod to place. */
struct place_sim_pod {
    struct place_pod_constraints constraints;
    struct score_pod_request request; /* score_pod_request() of the pod */
    int32_t priority;                 /* spec.priority; 0 when absent */
    /* What placing it adds to our used view (res), when not its request:
     * with charge_set, res.used += charge_used and res.used_non_zero +=
     * charge_non_zero (`simulate` on usage: the in-flight estimate, as
     * serve counts a pod placed but not yet in the samples).
     * facts.requested always takes the real request. */
    bool charge_set;
    int64_t charge_used[SCORE_NRES], charge_non_zero[SCORE_NRES];
};

/* Everything the simulation reads; borrowed, it must outlive the
 * struct place_sim made from it and not change. */
struct place_sim_input {
    const struct place_sim_node *nodes;
    size_t n_nodes; /* <= PLACE_SIM_MAX_NODES; names should be unique */
    const struct place_sim_pod *pods;
    size_t n_pods; /* <= PLACE_SIM_MAX_PODS */
    /* The scoring configuration as `serve` has it (weights, thresholds,
     * target percent, normalize); strategy is ignored, each run sets it. */
    struct score_params params;
};

/* Where one pod went under one strategy. */
struct place_sim_placement {
    int32_t node;  /* index into the input nodes; -1 when no node took it */
    int32_t value; /* 0..100: the strategy's value of that node for the pod, before
                    * the pod was added; 0 when not placed */
    int32_t score; /* 0..10, as the service would have answered; 0 when not placed */
    /* Not placed: its FitError histogram is reasons[first_reason ..
     * first_reason + n_reasons) of the result (place_fit_error() writes the
     * message); one entry per distinct text, counts over all input nodes. */
    uint32_t first_reason;
    uint32_t n_reasons;
};

/* One resource's requested / allocatable over the nodes with allocatable
 * > 0, requested being kube-scheduler's (facts.requested, existing pods
 * included): what /metrics' cpu_extender_cpu_requested_ratio_* measure. */
struct place_sim_ratio {
    size_t nodes; /* how many nodes the figures cover */
    double min, max, mean;
    double cv; /* population coefficient of variation (score_spread_cv) */
};

struct place_sim_summary {
    size_t placed, not_placed;
    /* Nodes holding at least one pod after the simulation, existing pods
     * included (facts.pods > 0 at the end). */
    size_t nodes_used;
    struct place_sim_ratio ratio[SCORE_NRES];
    /*
     * Stranded capacity: the free resources (allocatable - facts.requested,
     * at least 0) summed over the nodes where the median pod to place would
     * not fit at the end by the resource rules (place_judge_resources:
     * NodeResourcesFit's pod count, cpu, memory, then our filter with its
     * thresholds). The median pod requests the median real cpu and the
     * median real memory of the pods to place, each taken separately (the
     * lower median, element (n - 1) / 2 of the sorted values); taints and
     * selectors play no part. 0 when there are no pods to place.
     */
    int64_t median_request[SCORE_NRES];
    size_t stranded_nodes;
    int64_t stranded[SCORE_NRES]; /* millicores, bytes */
};

/* A node after the simulation, indexed like the input nodes. */
struct place_sim_node_state {
    int64_t pods;
    int64_t requested[SCORE_NRES]; /* kube-scheduler's requested */
    struct score_node res;         /* our view: alloc, used, used_non_zero */
};

/* The outcome of one strategy; release with place_sim_result_destroy(). */
struct place_sim_result {
    enum score_strategy strategy;
    struct place_sim_placement *pods;   /* n_pods entries, indexed like the input pods */
    struct place_reason_count *reasons; /* the histograms of the pods not placed */
    size_t n_reasons;
    struct place_sim_node_state *nodes; /* n_nodes entries */
    struct place_sim_summary summary;
    /* Bytes this run held at its peak besides the result: the node state
     * (112 bytes per node), 56 per shape, 4 per class and 16 per pod, and the shape trees
     * alive at once (13 bytes per admitted node of each shape with pods
     * still to come). The result itself holds 20 bytes per pod, 72 per node
     * and 24 per histogram line. */
    size_t peak_bytes;
};

struct place_sim;

/*
 * Prepares a simulation of @in: orders the pods, sorts the nodes by name,
 * groups the pods into constraint classes and shapes, and judges the static
 * rules once per (class, node) (only the named nodes for a matchFields
 * class). Stores it in *@out. Returns 0, -EINVAL (a count over its limit,
 * or @in NULL) or -ENOMEM. It keeps 8 bytes per pod, 8 per node, 12 per
 * admitted (class, node) pair, 104 per shape, 24 per class and 24 per static
 * reason count (while grouping, 128 to 176 more per pod for a moment); @in is
 * borrowed. Not thread-safe while it runs.
 */
int place_sim_new(const struct place_sim_input *in, struct place_sim **out);

/* Frees @sim (NULL is fine). */
void place_sim_free(struct place_sim *sim);

/* The placement order: n_pods indexes into the input pods, by priority
 * (higher first), then input order. Borrowed from @sim. */
const uint32_t *place_sim_order(const struct place_sim *sim);

/* Bytes @sim holds (the prepared data, not the input). */
size_t place_sim_bytes(const struct place_sim *sim);

/* How many constraint classes and shapes (class + request) the pods form:
 * the figures the engine's cost follows. */
void place_sim_groups(const struct place_sim *sim, size_t *classes, size_t *shapes);

#endif

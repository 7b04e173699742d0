/*
 * placement/simulate.c: placements worked out by hand from the formulas of
 * README "How scores are computed" (spread (alloc - req) * 100 / alloc,
 * pack min(req, alloc) * 100 / alloc, balanced (1 - std) * 100 of real
 * requests, target t + (100 - t) * p / t or t * (100 - p) / (100 - t); the
 * node value sum(w * value) / sum(w) with cpu 3, memory 1; score
 * (value + 5) / 10), and a randomized comparison with the plain loop over
 * every node for every pod.
 */
#include "placement/sim_bound.h"
#include "placement/sim_fit.h"
#include "placement/sim_run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scoring/best.h"
#include "scoring/placement.h"
#include "tests/suites.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define GI   (1024LL * 1024 * 1024)
#define MI   (1024LL * 1024)

static struct score_params params(void)
{
    struct score_params p = {
        .weight = {3, 1},
        .target_percent = 60,
        .threshold_percent = {100, 100},
    };
    return p;
}

static struct place_sim_node mk_node(const char *name, int64_t cpu, int64_t mem)
{
    struct place_sim_node n = {
        .facts = {.name = name, .max_pods = 110},
        .res = {.alloc = {cpu, mem}},
    };
    return n;
}

/* Already requested by pods bound to it: kube-scheduler's view and ours. */
static void existing(struct place_sim_node *n, int64_t pods, int64_t cpu, int64_t mem)
{
    n->facts.pods = pods;
    n->facts.requested[SCORE_CPU] = n->res.used[SCORE_CPU] = n->res.used_non_zero[SCORE_CPU] = cpu;
    n->facts.requested[SCORE_MEMORY] = n->res.used[SCORE_MEMORY] =
        n->res.used_non_zero[SCORE_MEMORY] = mem;
}

static struct place_sim_pod mk_pod(int64_t cpu, int64_t mem)
{
    struct place_sim_pod p = {.request = {.fit = {cpu, mem},
                                          .real = {cpu, mem},
                                          .non_zero = {cpu, mem},
                                          .non_zero_scored = {cpu, mem}}};
    return p;
}

/* Runs @s on the input into *@r. */
static void run(const struct place_sim_node *nodes, size_t nn, const struct place_sim_pod *pods,
                size_t np, struct score_params p, enum score_strategy s, struct place_sim_result *r)
{
    struct place_sim_input in = {
        .nodes = nodes, .n_nodes = nn, .pods = pods, .n_pods = np, .params = p};
    struct place_sim *sim;
    ck_assert_int_eq(place_sim_new(&in, &sim), 0);
    ck_assert_int_eq(place_sim_run(sim, s, r), 0);
    place_sim_free(sim);
}

static void expect(const struct place_sim_result *r, size_t pod, int node, int value, int score)
{
    ck_assert_msg(r->pods[pod].node == node && r->pods[pod].value == value &&
                      r->pods[pod].score == score,
                  "pod %zu: got node %d value %d score %d, want %d %d %d", pod, r->pods[pod].node,
                  r->pods[pod].value, r->pods[pod].score, node, value, score);
}

static const char *message(const struct place_sim_result *r, size_t pod, size_t n_nodes)
{
    static char buf[1024];
    place_fit_error(n_nodes, r->reasons + r->pods[pod].first_reason, r->pods[pod].n_reasons, buf,
                    sizeof(buf));
    return buf;
}

START_TEST(simulate_spread_tie_goes_to_first_name)
{
    /* b-node and a-node (input order), 4000m / 8Gi, empty; three pods of
     * 1000m / 1Gi.
     * pod 0: both: cpu (4000 - 1000) * 100 / 4000 = 75, memory 7 * 100 / 8 =
     *   87 (87.5), value (75 * 3 + 87) / 4 = 312 / 4 = 78: a tie, a-node
     *   (input 1) first by name; score (78 + 5) / 10 = 8.
     * pod 1: a-node now cpu 2000 * 100 / 4000 = 50, memory 6 * 100 / 8 = 75,
     *   (150 + 75) / 4 = 56 (56.25); b-node still 78: b-node.
     * pod 2: 56 and 56: a-node again, score (56 + 5) / 10 = 6. */
    struct place_sim_node nodes[] = {mk_node("b-node", 4000, 8 * GI),
                                     mk_node("a-node", 4000, 8 * GI)};
    struct place_sim_pod pods[] = {mk_pod(1000, GI), mk_pod(1000, GI), mk_pod(1000, GI)};
    struct place_sim_result r;
    run(nodes, 2, pods, 3, params(), SCORE_SPREAD, &r);
    expect(&r, 0, 1, 78, 8);
    expect(&r, 1, 0, 78, 8);
    expect(&r, 2, 1, 56, 6);
    ck_assert_uint_eq(r.summary.placed, 3);
    ck_assert_uint_eq(r.summary.nodes_used, 2);
    /* cpu requested / allocatable: a 2000 / 4000 = 0.5, b 0.25: mean 0.375,
     * population std 0.125, cv 1/3. */
    ck_assert_double_eq_tol(r.summary.ratio[SCORE_CPU].min, 0.25, 1e-12);
    ck_assert_double_eq_tol(r.summary.ratio[SCORE_CPU].max, 0.5, 1e-12);
    ck_assert_double_eq_tol(r.summary.ratio[SCORE_CPU].mean, 0.375, 1e-12);
    ck_assert_double_eq_tol(r.summary.ratio[SCORE_CPU].cv, 1.0 / 3, 1e-12);
    ck_assert_int_eq(r.nodes[1].requested[SCORE_CPU], 2000);
    ck_assert_int_eq(r.nodes[1].pods, 2);
    ck_assert_int_eq(r.nodes[1].res.used_non_zero[SCORE_MEMORY], 2 * GI);
    /* The median pod (1000m, 1Gi) fits both: nothing stranded. */
    ck_assert_uint_eq(r.summary.stranded_nodes, 0);
    place_sim_result_destroy(&r);
}
END_TEST

START_TEST(simulate_pack_fills_a_node_exactly)
{
    /* The same nodes, five pods of 1000m / 1Gi under pack.
     * pod 0: cpu 1000 * 100 / 4000 = 25, memory 100 / 8 = 12, (75 + 12) / 4 =
     *   21 on both: a-node; score 2.
     * pod 1: a-node cpu 50, memory 25: (150 + 25) / 4 = 43; b 21: a; score 4.
     * pod 2: a-node cpu 75, memory 37: (225 + 37) / 4 = 65: a; score 7.
     * pod 3: a-node cpu 100, memory 50: (300 + 50) / 4 = 87: a, now 4000m of
     *   4000m exactly; score 9.
     * pod 4: a-node 4000 + 1000 > 4000 (Insufficient cpu): b-node, 21. */
    struct place_sim_node nodes[] = {mk_node("b-node", 4000, 8 * GI),
                                     mk_node("a-node", 4000, 8 * GI)};
    struct place_sim_pod pods[5];
    for (int i = 0; i < 5; i++)
        pods[i] = mk_pod(1000, GI);
    struct place_sim_result r;
    run(nodes, 2, pods, 5, params(), SCORE_PACK, &r);
    expect(&r, 0, 1, 21, 2);
    expect(&r, 1, 1, 43, 4);
    expect(&r, 2, 1, 65, 7);
    expect(&r, 3, 1, 87, 9);
    expect(&r, 4, 0, 21, 2);
    ck_assert_int_eq(r.nodes[1].requested[SCORE_CPU], 4000);
    /* Stranded: the median pod (1000m, 1Gi) no longer fits a-node; its free
     * cpu is 0, its free memory 8Gi - 4Gi. */
    ck_assert_uint_eq(r.summary.stranded_nodes, 1);
    ck_assert_int_eq(r.summary.stranded[SCORE_CPU], 0);
    ck_assert_int_eq(r.summary.stranded[SCORE_MEMORY], 4 * GI);
    ck_assert_int_eq(r.summary.median_request[SCORE_CPU], 1000);
    place_sim_result_destroy(&r);
}
END_TEST

START_TEST(simulate_balanced_prefers_even_fractions)
{
    /* a 4000m / 8Gi, b 8000m / 8Gi; pods 1000m / 2Gi (real requests).
     * pod 0: a fractions 0.25, 0.25: std 0, value 100, score (100 + 5) / 10 =
     *   10; b 0.125, 0.25: std |0.125 - 0.25| / 2 = 0.0625, value 93 (93.75).
     * pods 1..3: a at 0.5, 0.75, 1.0 on both: still 100 (a fills exactly).
     * pod 4: a is full (NodeResourcesFit): b, 93, score 9. */
    struct place_sim_node nodes[] = {mk_node("a", 4000, 8 * GI), mk_node("b", 8000, 8 * GI)};
    struct place_sim_pod pods[5];
    for (int i = 0; i < 5; i++)
        pods[i] = mk_pod(1000, 2 * GI);
    struct place_sim_result r;
    run(nodes, 2, pods, 5, params(), SCORE_BALANCED, &r);
    for (int i = 0; i < 4; i++)
        expect(&r, (size_t)i, 0, 100, 10);
    expect(&r, 4, 1, 93, 9);
    place_sim_result_destroy(&r);
}
END_TEST

START_TEST(simulate_target_peaks_at_target_percent)
{
    /* a and b 10000m / 100Gi, b with 5000m already requested (one pod);
     * target 60; pods 1000m / 1Gi.
     * pod 0: a cpu p = 10: 60 + 40 * 10 / 60 = 66; memory p = 1: 60 + 40 / 60
     *   = 60; (198 + 60) / 4 = 64. b cpu p = 60: 60 + 40 * 60 / 60 = 100,
     *   memory 60: (300 + 60) / 4 = 90: b, score 9.
     * pod 1: b cpu p = 70: 60 * 30 / 40 = 45, memory p = 2: 60 + 80 / 60 =
     *   61: (135 + 61) / 4 = 49; a 64: a, score 6. */
    struct place_sim_node nodes[] = {mk_node("a", 10000, 100 * GI), mk_node("b", 10000, 100 * GI)};
    existing(&nodes[1], 1, 5000, 0);
    struct place_sim_pod pods[] = {mk_pod(1000, GI), mk_pod(1000, GI)};
    struct place_sim_result r;
    run(nodes, 2, pods, 2, params(), SCORE_TARGET, &r);
    expect(&r, 0, 1, 90, 9);
    expect(&r, 1, 0, 64, 6);
    place_sim_result_destroy(&r);
}
END_TEST

START_TEST(simulate_pod_fitting_nowhere_counts_reasons)
{
    /* Four nodes, each refused for another reason: cordoned, tainted
     * gpu=true:NoSchedule, 110 of 110 pods, 500m for a 1000m pod. One node
     * per text; sorted as strings: upper case first. */
    const struct place_taint gpu[] = {{"gpu", "true", PLACE_EFFECT_NO_SCHEDULE}};
    struct place_sim_node nodes[] = {mk_node("n1", 4000, 8 * GI), mk_node("n2", 4000, 8 * GI),
                                     mk_node("n3", 4000, 8 * GI), mk_node("n4", 500, 8 * GI)};
    nodes[0].facts.unschedulable = true;
    nodes[1].facts.taints = gpu;
    nodes[1].facts.n_taints = 1;
    nodes[2].facts.pods = 110;
    struct place_sim_pod pods[] = {mk_pod(1000, GI)};
    struct place_sim_result r;
    run(nodes, 4, pods, 1, params(), SCORE_SPREAD, &r);
    expect(&r, 0, -1, 0, 0);
    ck_assert_uint_eq(r.summary.not_placed, 1);
    ck_assert_uint_eq(r.pods[0].n_reasons, 4);
    ck_assert_str_eq(message(&r, 0, 4),
                     "0/4 nodes are available: 1 Insufficient cpu, 1 Too many pods, 1 node(s) "
                     "had untolerated taint {gpu: true}, 1 node(s) were unschedulable.");
    /* Nodes used: n3 holds its 110 pods. */
    ck_assert_uint_eq(r.summary.nodes_used, 1);
    place_sim_result_destroy(&r);
}
END_TEST

START_TEST(simulate_init_containers_and_sidecars_count)
{
    /* containers: 500m / 256Mi; init containers in order: a sidecar
     * (restartPolicy Always) 300m / 64Mi, then an init container 2000m /
     * 128Mi. Running: 500 + 300 = 800m, 256 + 64 = 320Mi; while the init
     * container runs: 2000 + 300 = 2300m, 128 + 64 = 192Mi. Request: 2300m,
     * 320Mi. The 2000m node would hold the 800m steady state but not the
     * 2300m start: Insufficient cpu. On the 4000m / 4Gi node, spread: cpu
     * 1700 * 100 / 4000 = 42, memory (4096 - 320) * 100 / 4096 = 92 (92.2),
     * (126 + 92) / 4 = 54, score 5. */
    const struct score_container containers[] = {{.req = {500, 256 * MI}, .has = {true, true}}};
    const struct score_container inits[] = {
        {.req = {300, 64 * MI}, .has = {true, true}, .restartable = true},
        {.req = {2000, 128 * MI}, .has = {true, true}},
    };
    const struct score_pod spec = {
        .containers = containers,
        .n_containers = 1,
        .init_containers = inits,
        .n_init_containers = 2,
    };
    struct place_sim_pod pods[1];
    memset(pods, 0, sizeof(pods));
    ck_assert_int_eq(score_pod_request(&spec, &pods[0].request), 0);
    ck_assert_int_eq(pods[0].request.real[SCORE_CPU], 2300);
    ck_assert_int_eq(pods[0].request.real[SCORE_MEMORY], 320 * MI);
    struct place_sim_node nodes[] = {mk_node("small", 2000, 4 * GI), mk_node("big", 4000, 4 * GI)};
    struct place_sim_result r;
    run(nodes, 2, pods, 1, params(), SCORE_SPREAD, &r);
    expect(&r, 0, 1, 54, 5);
    ck_assert_int_eq(r.nodes[1].requested[SCORE_CPU], 2300);
    ck_assert_int_eq(r.nodes[1].requested[SCORE_MEMORY], 320 * MI);
    place_sim_result_destroy(&r);
}
END_TEST

START_TEST(simulate_pod_level_pod_scored_and_charged_apart)
{
    /* README "The effective pod request": pod-level cpu 1000m, containers
     * {memory 100Mi} and {}. Scored with the per-container defaults (cpu
     * 100m + 100m, replaced by the pod-level 1000m; memory 100Mi + 200Mi =
     * 300Mi), charged to its node as NodeInfo does (the pod names both keys:
     * 1000m, 100Mi). Two such pods on one 4000m / 4Gi node, spread:
     *   pod 0: cpu (4000 - 1000) * 100 / 4000 = 75, memory (4096 - 300) *
     *          100 / 4096 = 92 (92.7), (75 * 3 + 92) / 4 = 79, score 8;
     *   pod 1: the node holds 1000m / 100Mi: cpu (4000 - 2000) * 100 / 4000
     *          = 50, memory (4096 - 100 - 300) * 100 / 4096 = 90 (90.2),
     *          (150 + 90) / 4 = 60, score 6.
     * Charging the scored 300Mi would give pod 1 memory 85, value 58;
     * scoring with the charged 100Mi would give pod 0 memory 97, value 80. */
    const struct score_container containers[] = {
        {.req = {0, 100 * MI}, .has = {false, true}},
        {.req = {0, 0}, .has = {false, false}},
    };
    const struct score_pod spec = {
        .containers = containers,
        .n_containers = 2,
        .pod_level = {.req = {1000, 0}, .has = {true, false}},
    };
    struct place_sim_pod pods[2];
    memset(pods, 0, sizeof(pods));
    ck_assert_int_eq(score_pod_request(&spec, &pods[0].request), 0);
    ck_assert_int_eq(pods[0].request.non_zero_scored[SCORE_MEMORY], 300 * MI);
    ck_assert_int_eq(pods[0].request.non_zero[SCORE_MEMORY], 100 * MI);
    pods[1] = pods[0];
    struct place_sim_node nodes[] = {mk_node("n", 4000, 4 * GI)};
    struct place_sim_result r;
    run(nodes, 1, pods, 2, params(), SCORE_SPREAD, &r);
    expect(&r, 0, 0, 79, 8);
    expect(&r, 1, 0, 60, 6);
    ck_assert_int_eq(r.nodes[0].res.used_non_zero[SCORE_CPU], 2000);
    ck_assert_int_eq(r.nodes[0].res.used_non_zero[SCORE_MEMORY], 200 * MI);
    ck_assert_int_eq(r.nodes[0].requested[SCORE_MEMORY], 200 * MI);
    place_sim_result_destroy(&r);
}
END_TEST

START_TEST(simulate_pod_count_limit)
{
    /* a 8000m / 16Gi allows 2 pods and has 1; b 4000m / 8Gi; pods 100m /
     * 128Mi under spread.
     * pod 0: a cpu 7900 * 100 / 8000 = 98, memory (16384 - 128) * 100 / 16384
     *   = 99: (294 + 99) / 4 = 98; b cpu 3900 * 100 / 4000 = 97, memory
     *   (8192 - 128) * 100 / 8192 = 98: (291 + 98) / 4 = 97: a.
     * pod 1: a has 2 of 2 pods (Too many pods): b, 97. */
    struct place_sim_node nodes[] = {mk_node("a", 8000, 16 * GI), mk_node("b", 4000, 8 * GI)};
    nodes[0].facts.max_pods = 2;
    nodes[0].facts.pods = 1;
    struct place_sim_pod pods[] = {mk_pod(100, 128 * MI), mk_pod(100, 128 * MI)};
    struct place_sim_result r;
    run(nodes, 2, pods, 2, params(), SCORE_SPREAD, &r);
    expect(&r, 0, 0, 98, 10);
    expect(&r, 1, 1, 97, 10);
    ck_assert_int_eq(r.nodes[0].pods, 2);
    place_sim_result_destroy(&r);
}
END_TEST

START_TEST(simulate_priority_order_then_file_order)
{
    /* One node of 2000m; pods in the file: p0 1000m priority 0, p1 1500m
     * priority 100, p2 500m priority 0. Queue: p1, p0, p2. p1 takes 1500m;
     * p0 needs 1000m of the 500m left: not placed; p2 fills the node to
     * 2000m exactly. (In file order p0 and p2 would fit and p1 not.) */
    struct place_sim_node nodes[] = {mk_node("n", 2000, 4 * GI)};
    struct place_sim_pod pods[] = {mk_pod(1000, 0), mk_pod(1500, 0), mk_pod(500, 0)};
    pods[1].priority = 100;
    struct place_sim_input in = {
        .nodes = nodes, .n_nodes = 1, .pods = pods, .n_pods = 3, .params = params()};
    struct place_sim *sim;
    struct place_sim_result r;
    ck_assert_int_eq(place_sim_new(&in, &sim), 0);
    const uint32_t *order = place_sim_order(sim);
    ck_assert_uint_eq(order[0], 1);
    ck_assert_uint_eq(order[1], 0);
    ck_assert_uint_eq(order[2], 2);
    ck_assert_int_eq(place_sim_run(sim, SCORE_SPREAD, &r), 0);
    ck_assert_int_eq(r.pods[1].node, 0);
    ck_assert_int_eq(r.pods[0].node, -1);
    ck_assert_int_eq(r.pods[2].node, 0);
    ck_assert_str_eq(message(&r, 0, 1), "0/1 nodes are available: 1 Insufficient cpu.");
    ck_assert_int_eq(r.nodes[0].requested[SCORE_CPU], 2000);
    place_sim_result_destroy(&r);
    place_sim_free(sim);
}
END_TEST

START_TEST(simulate_taint_keeps_pod_off_better_node)
{
    /* a 8000m tainted dedicated=infra:NoSchedule, b 4000m; memory 8Gi each;
     * pods 1000m / 1Gi, p0 without toleration, p1 with dedicated=infra.
     * p0: only b: cpu 75, memory 87: (225 + 87) / 4 = 78.
     * p1: a cpu 7000 * 100 / 8000 = 87, memory 87: (261 + 87) / 4 = 87; b now
     *   cpu 50, memory 75: 56: a. */
    const struct place_taint infra[] = {{"dedicated", "infra", PLACE_EFFECT_NO_SCHEDULE}};
    const struct place_toleration tol[] = {
        {"dedicated", PLACE_TOLERATION_EQUAL, "infra", PLACE_EFFECT_NO_SCHEDULE}};
    struct place_sim_node nodes[] = {mk_node("a", 8000, 8 * GI), mk_node("b", 4000, 8 * GI)};
    nodes[0].facts.taints = infra;
    nodes[0].facts.n_taints = 1;
    struct place_sim_pod pods[] = {mk_pod(1000, GI), mk_pod(1000, GI)};
    pods[1].constraints.tolerations = tol;
    pods[1].constraints.n_tolerations = 1;
    struct place_sim_result r;
    run(nodes, 2, pods, 2, params(), SCORE_SPREAD, &r);
    expect(&r, 0, 1, 78, 8);
    expect(&r, 1, 0, 87, 9);
    place_sim_result_destroy(&r);
}
END_TEST

START_TEST(simulate_unschedulable_node_takes_nothing)
{
    struct place_sim_node nodes[] = {mk_node("a", 8000, 8 * GI), mk_node("b", 4000, 8 * GI)};
    nodes[0].facts.unschedulable = true;
    struct place_sim_pod pods[] = {mk_pod(1000, GI)};
    struct place_sim_result r;
    run(nodes, 2, pods, 1, params(), SCORE_SPREAD, &r);
    expect(&r, 0, 1, 78, 8); /* as on b above */
    place_sim_result_destroy(&r);
}
END_TEST

START_TEST(simulate_threshold_applies_to_our_used_view)
{
    /* cpu threshold 50: a has no pods (kube-scheduler's requested 0) but its
     * used annotation says 1500m of 4000m: 1500 + 1000 > 2000 fails our
     * filter. b empty: p0 and p1 fit (1000, then 2000 <= 2000); p2 fits
     * nowhere: both refused by our filter, "Insufficient cpu" twice. */
    struct place_sim_node nodes[] = {mk_node("a", 4000, 8 * GI), mk_node("b", 4000, 8 * GI)};
    nodes[0].res.used[SCORE_CPU] = nodes[0].res.used_non_zero[SCORE_CPU] = 1500;
    struct place_sim_pod pods[] = {mk_pod(1000, GI), mk_pod(1000, GI), mk_pod(1000, GI)};
    struct score_params p = params();
    p.threshold_percent[SCORE_CPU] = 50;
    struct place_sim_result r;
    run(nodes, 2, pods, 3, p, SCORE_SPREAD, &r);
    ck_assert_int_eq(r.pods[0].node, 1);
    ck_assert_int_eq(r.pods[1].node, 1);
    ck_assert_int_eq(r.pods[2].node, -1);
    ck_assert_str_eq(message(&r, 2, 2), "0/2 nodes are available: 2 Insufficient cpu.");
    ck_assert_int_eq(r.nodes[0].res.used[SCORE_CPU], 1500);
    ck_assert_int_eq(r.nodes[1].res.used[SCORE_CPU], 2000);
    place_sim_result_destroy(&r);
}
END_TEST

START_TEST(simulate_normalize_gives_winner_ten)
{
    /* spread value 78 (above), normalised against itself: (780 + 39) / 78 =
     * 10. */
    struct place_sim_node nodes[] = {mk_node("a", 4000, 8 * GI)};
    struct place_sim_pod pods[] = {mk_pod(1000, GI)};
    struct score_params p = params();
    p.normalize = true;
    struct place_sim_result r;
    run(nodes, 1, pods, 1, p, SCORE_SPREAD, &r);
    expect(&r, 0, 0, 78, 10);
    place_sim_result_destroy(&r);
}
END_TEST

START_TEST(simulate_match_fields_pod_counts_prefilter)
{
    /* A DaemonSet-like pod pinned to n2 by matchFields; n2 is short of cpu.
     * The two other nodes are the PreFilter's, n2 NodeResourcesFit's. */
    const char *const n2[] = {"n2"};
    const struct place_requirement f = {PLACE_FIELD_NODE_NAME, PLACE_OP_IN, n2, 1};
    const struct place_selector_term term = {NULL, 0, &f, 1};
    struct place_sim_node nodes[] = {mk_node("n1", 4000, 8 * GI), mk_node("n2", 4000, 8 * GI),
                                     mk_node("n3", 4000, 8 * GI)};
    existing(&nodes[1], 3, 3500, GI);
    struct place_sim_pod pods[] = {mk_pod(1000, GI), mk_pod(100, GI)};
    for (int i = 0; i < 2; i++) {
        pods[i].constraints.has_required_affinity = true;
        pods[i].constraints.affinity_terms = &term;
        pods[i].constraints.n_affinity_terms = 1;
    }
    struct place_sim_result r;
    run(nodes, 3, pods, 2, params(), SCORE_SPREAD, &r);
    ck_assert_int_eq(r.pods[0].node, -1);
    ck_assert_str_eq(message(&r, 0, 3), "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) "
                                        "didn't satisfy plugin(s) [NodeAffinity].");
    ck_assert_int_eq(r.pods[1].node, 1); /* 3500 + 100 <= 4000 */
    place_sim_result_destroy(&r);
}
END_TEST

START_TEST(simulate_affinity_conflict_is_one_message)
{
    const char *const a[] = {"n1"}, *const b[] = {"n2"};
    const struct place_requirement f[] = {{PLACE_FIELD_NODE_NAME, PLACE_OP_IN, a, 1},
                                          {PLACE_FIELD_NODE_NAME, PLACE_OP_IN, b, 1}};
    const struct place_selector_term term = {NULL, 0, f, 2};
    struct place_sim_node nodes[] = {mk_node("n1", 4000, 8 * GI), mk_node("n2", 4000, 8 * GI)};
    struct place_sim_pod pods[] = {mk_pod(1000, GI)};
    pods[0].constraints.has_required_affinity = true;
    pods[0].constraints.affinity_terms = &term;
    pods[0].constraints.n_affinity_terms = 1;
    struct place_sim_result r;
    run(nodes, 2, pods, 1, params(), SCORE_SPREAD, &r);
    ck_assert_int_eq(r.pods[0].node, -1);
    ck_assert_str_eq(message(&r, 0, 2), "0/2 nodes are available: pod affinity terms conflict.");
    place_sim_result_destroy(&r);
}
END_TEST

START_TEST(simulate_no_nodes_places_nothing)
{
    struct place_sim_pod pods[] = {mk_pod(1000, GI), mk_pod(0, 0)};
    struct place_sim_result r;
    run(NULL, 0, pods, 2, params(), SCORE_PACK, &r);
    ck_assert_uint_eq(r.summary.not_placed, 2);
    ck_assert_uint_eq(r.pods[0].n_reasons, 0);
    ck_assert_uint_eq(r.summary.ratio[SCORE_CPU].nodes, 0);
    place_sim_result_destroy(&r);
    struct place_sim_node nodes[] = {mk_node("a", 4000, 8 * GI)};
    run(nodes, 1, NULL, 0, params(), SCORE_PACK, &r);
    ck_assert_uint_eq(r.summary.placed, 0);
    ck_assert_uint_eq(r.summary.stranded_nodes, 0);
    place_sim_result_destroy(&r);
}
END_TEST

/* ---- the plain loop, for comparison ------------------------------------- */

struct hist {
    char text[PLACE_REASON_LEN];
    struct place_reason_count e;
};

/* Every node for every pod, with the service's functions: place_judge_static then
 * place_judge_resources,
 * score_node_value over the nodes that passed, score_finish over them,
 * score_best_offer in name order. Checks @got against it. */
static void compare_with_plain_loop(const struct place_sim_input *in, const uint32_t *order,
                                    const struct place_sim_result *got)
{
    size_t nn = in->n_nodes, np = in->n_pods;
    struct score_params p = in->params;
    struct place_node_facts *facts = calloc(nn + 1, sizeof(*facts));
    struct score_node *res = calloc(nn + 1, sizeof(*res));
    size_t *by_name = calloc(nn + 1, sizeof(*by_name));
    struct score_explain *ex = calloc(nn + 1, sizeof(*ex));
    size_t *idx = calloc(nn + 1, sizeof(*idx));
    struct hist *h = calloc(nn * PLACE_REASON_COUNT + 1, sizeof(*h));
    struct place_reason_count *entries = calloc(nn * PLACE_REASON_COUNT + 1, sizeof(*entries));
    ck_assert(facts && res && by_name && ex && idx && h && entries);

    p.strategy = got->strategy;
    for (size_t i = 0; i < nn; i++) {
        facts[i] = in->nodes[i].facts;
        res[i] = in->nodes[i].res;
        by_name[i] = i;
    }
    /* Insertion sort by name, stable. */
    for (size_t i = 1; i < nn; i++)
        for (size_t j = i; j > 0 && strcmp(in->nodes[by_name[j - 1]].facts.name,
                                           in->nodes[by_name[j]].facts.name) > 0;
             j--) {
            size_t t = by_name[j];
            by_name[j] = by_name[j - 1];
            by_name[j - 1] = t;
        }
    for (size_t k = 0; k < np; k++) {
        /* The order itself: priority descending, then input order. */
        if (k > 0) {
            const struct place_sim_pod *a = &in->pods[order[k - 1]], *b = &in->pods[order[k]];
            ck_assert(a->priority > b->priority ||
                      (a->priority == b->priority && order[k - 1] < order[k]));
        }
        const struct place_sim_pod *pod = &in->pods[order[k]];
        const struct place_sim_placement *pl = &got->pods[order[k]];
        size_t m = 0, nh = 0;
        for (size_t q = 0; q < nn; q++) {
            size_t i = by_name[q];
            struct place_judgement j;
            place_judge_static(&pod->constraints, &facts[i], &j);
            if (j.rule == PLACE_RULE_NONE)
                place_judge_resources(&pod->request, &facts[i], &res[i], p.threshold_percent, &j);
            if (j.rule == PLACE_RULE_NONE) {
                score_node_value(&p, &res[i], &pod->request, &ex[m]);
                idx[m++] = i;
                continue;
            }
            for (int r = 0; r < PLACE_REASON_COUNT; r++) {
                if (!(j.reasons & (1u << r)))
                    continue;
                char t[PLACE_REASON_LEN];
                place_reason_text((enum place_reason)r, j.taint, t);
                size_t x = 0;
                while (x < nh && strcmp(h[x].text, t) != 0)
                    x++;
                if (x == nh) {
                    memcpy(h[nh].text, t, sizeof(t));
                    h[nh].e = (struct place_reason_count){(enum place_reason)r, j.taint, 0, NULL};
                    nh++;
                }
                h[x].e.count++;
            }
        }
        if (m == 0) {
            ck_assert_int_eq(pl->node, -1);
            for (size_t x = 0; x < nh; x++)
                entries[x] = h[x].e;
            char want[2048], have[2048];
            place_fit_error(nn, entries, nh, want, sizeof(want));
            place_fit_error(nn, got->reasons + pl->first_reason, pl->n_reasons, have, sizeof(have));
            ck_assert_str_eq(have, want);
            continue;
        }
        score_finish(&p, ex, m);
        struct score_best b;
        score_best_init(&b);
        for (size_t i = 0; i < m; i++)
            score_best_offer(&b, (long)i, &ex[i]);
        size_t w = idx[b.index];
        ck_assert_msg(pl->node == (int32_t)w && pl->value == b.value && pl->score == b.score,
                      "%s pod %u: engine node %d value %d score %d, loop %zu %d %d",
                      score_strategy_name(p.strategy), order[k], pl->node, pl->value, pl->score, w,
                      b.value, b.score);
        facts[w].pods++;
        for (int r = 0; r < SCORE_NRES; r++) {
            facts[w].requested[r] += pod->request.real[r];
            res[w].used[r] += pod->request.real[r];
            res[w].used_non_zero[r] += pod->request.non_zero[r];
        }
    }
    size_t used = 0;
    for (size_t i = 0; i < nn; i++) {
        ck_assert_int_eq(got->nodes[i].pods, facts[i].pods);
        ck_assert_mem_eq(got->nodes[i].requested, facts[i].requested, sizeof(facts[i].requested));
        ck_assert_mem_eq(&got->nodes[i].res, &res[i], sizeof(res[i]));
        used += facts[i].pods > 0;
    }
    ck_assert_uint_eq(got->summary.nodes_used, used);
    /* Stranded: the lower medians of the real requests, judged by the
     * resource rules on the final state. */
    struct score_pod_request median;
    memset(&median, 0, sizeof(median));
    for (int r = 0; r < SCORE_NRES && np > 0; r++) {
        size_t below = 0;
        for (size_t cand = 0; cand < np; cand++) {
            int64_t v = in->pods[cand].request.real[r];
            size_t lt = 0, le = 0;
            for (size_t o = 0; o < np; o++) {
                lt += in->pods[o].request.real[r] < v;
                le += in->pods[o].request.real[r] <= v;
            }
            if (lt <= (np - 1) / 2 && (np - 1) / 2 < le)
                median.fit[r] = median.real[r] = v, below++;
        }
        ck_assert_uint_gt(below, 0);
    }
    ck_assert_mem_eq(got->summary.median_request, median.real, sizeof(median.real));
    size_t stranded_nodes = 0;
    int64_t stranded[SCORE_NRES] = {0, 0};
    for (size_t i = 0; i < nn && np > 0; i++) {
        struct place_judgement j;
        place_judge_resources(&median, &facts[i], &res[i], p.threshold_percent, &j);
        if (j.rule == PLACE_RULE_NONE)
            continue;
        stranded_nodes++;
        for (int r = 0; r < SCORE_NRES; r++)
            if (res[i].alloc[r] > facts[i].requested[r])
                stranded[r] += res[i].alloc[r] - facts[i].requested[r];
    }
    ck_assert_uint_eq(got->summary.stranded_nodes, stranded_nodes);
    ck_assert_int_eq(got->summary.stranded[SCORE_CPU], stranded[SCORE_CPU]);
    ck_assert_int_eq(got->summary.stranded[SCORE_MEMORY], stranded[SCORE_MEMORY]);
    free(entries);
    free(h);
    free(idx);
    free(ex);
    free(by_name);
    free(res);
    free(facts);
}

/* Small pools, so that classes and shapes repeat. */
static uint64_t seed = 0x2545f4914f6cdd1dULL;

static unsigned rnd(unsigned n)
{
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return (unsigned)(seed % n);
}

static const char *const node_names[] = {"n0", "n1", "n10", "n11", "n2", "n3",
                                         "n4", "n5", "n6",  "n7",  "n8", "n9"};
static const struct place_taint taint_pool[] = {
    {"gpu", "true", PLACE_EFFECT_NO_SCHEDULE},
    {"dedicated", "infra", PLACE_EFFECT_NO_EXECUTE},
    {"soft", "1", PLACE_EFFECT_PREFER_NO_SCHEDULE},
    {PLACE_TAINT_NOT_READY, "", PLACE_EFFECT_NO_SCHEDULE},
    {"gpu", "false", PLACE_EFFECT_NO_SCHEDULE},
};
static const char *const zones[] = {"a", "b", "c"};
static const char *const cores[] = {"2", "4", "8", "x"};

static const char *const zone_ab[] = {"a", "b"};
static const char *const three[] = {"3"};
static const char *const names_12[] = {"n1", "n2"};
static const char *const names_9[] = {"n9"};
static const struct place_requirement r_zone = {"zone", PLACE_OP_IN, zone_ab, 2};
static const struct place_requirement r_cores = {"cores", PLACE_OP_GT, three, 1};
static const struct place_requirement r_names12 = {PLACE_FIELD_NODE_NAME, PLACE_OP_IN, names_12, 2};
static const struct place_requirement r_name9 = {PLACE_FIELD_NODE_NAME, PLACE_OP_IN, names_9, 1};
static const struct place_requirement r_conflict[] = {
    {PLACE_FIELD_NODE_NAME, PLACE_OP_IN, names_9, 1},
    {PLACE_FIELD_NODE_NAME, PLACE_OP_IN, names_12, 2}};
static const struct place_selector_term t_zone = {&r_zone, 1, NULL, 0};
static const struct place_selector_term t_cores_or_zone[] = {{&r_cores, 1, NULL, 0},
                                                             {&r_zone, 1, NULL, 0}};
static const struct place_selector_term t_names[] = {{NULL, 0, &r_name9, 1},
                                                     {NULL, 0, &r_names12, 1}};
static const struct place_selector_term t_conflict = {NULL, 0, r_conflict, 2};
static const struct place_label sel_zone_a = {"zone", "a"};
static const struct place_toleration tol_gpu[] = {
    {"gpu", PLACE_TOLERATION_EXISTS, "", PLACE_EFFECT_NO_SCHEDULE}};
static const struct place_toleration tol_all[] = {
    {"", PLACE_TOLERATION_EXISTS, "", PLACE_EFFECT_ALL}};
static const struct place_toleration tol_cordon[] = {
    {PLACE_TAINT_UNSCHEDULABLE, PLACE_TOLERATION_EXISTS, "", PLACE_EFFECT_NO_SCHEDULE},
    {"dedicated", PLACE_TOLERATION_EQUAL, "infra", PLACE_EFFECT_ALL}};

static struct place_pod_constraints random_constraints(void)
{
    struct place_pod_constraints c = {0};
    switch (rnd(12)) {
    case 0:
        c.node_selector = &sel_zone_a;
        c.n_node_selector = 1;
        break;
    case 1:
        c.has_required_affinity = true;
        c.affinity_terms = &t_zone;
        c.n_affinity_terms = 1;
        break;
    case 2:
        c.has_required_affinity = true;
        c.affinity_terms = t_cores_or_zone;
        c.n_affinity_terms = 2;
        break;
    case 3:
        c.tolerations = tol_gpu;
        c.n_tolerations = 1;
        break;
    case 4:
        c.tolerations = tol_all;
        c.n_tolerations = 1;
        break;
    case 5:
        c.node_name = "n3";
        break;
    case 6:
        c.has_required_affinity = true;
        c.affinity_terms = t_names;
        c.n_affinity_terms = 2;
        break;
    case 7:
        if (rnd(4) == 0) {
            c.has_required_affinity = true;
            c.affinity_terms = &t_conflict;
            c.n_affinity_terms = 1;
        }
        break;
    case 8:
        c.tolerations = tol_cordon;
        c.n_tolerations = 2;
        break;
    default:
        break;
    }
    return c;
}

/* Random nodes and pods (at most 12 nodes, unique names unless @big). */
static void random_input(struct place_sim_input *in, struct place_sim_node *nodes, size_t nn,
                         struct place_sim_pod *pods, size_t np, struct place_label *labels,
                         char (*names)[16], bool big, bool unique)
{
    static const int64_t cpus[] = {1000, 2000, 4000, 8000};
    static const int64_t mems[] = {GI, 2 * GI, 4 * GI};
    static const int64_t pod_cpus[] = {0, 100, 500, 1000, 1500};
    static const int64_t pod_mems[] = {0, 128 * MI, 512 * MI, GI};
    static const int64_t max_pods[] = {2, 3, 5, 110};

    for (size_t i = 0; i < nn; i++) {
        struct place_sim_node *n = &nodes[i];
        memset(n, 0, sizeof(*n));
        if (big)
            snprintf(names[i], 16, "node-%03u", rnd(1000));
        else
            snprintf(names[i], 16, "%s", node_names[i]);
        n->facts.name = names[i];
        struct place_label *l = labels + 2 * i;
        size_t nl = 0;
        if (rnd(5) != 0)
            l[nl++] = (struct place_label){"zone", zones[rnd(3)]};
        if (rnd(3) != 0)
            l[nl++] = (struct place_label){"cores", cores[rnd(4)]};
        n->facts.labels = l;
        n->facts.n_labels = nl;
        unsigned t = rnd(8);
        if (t < 4) {
            n->facts.taints = &taint_pool[rnd(4)];
            n->facts.n_taints = 1 + (t == 0);
        }
        n->facts.unschedulable = rnd(10) == 0;
        n->facts.max_pods = max_pods[rnd(4)];
        n->facts.pods = rnd(3);
        n->res.alloc[SCORE_CPU] = cpus[rnd(4)] + (unique ? (int64_t)rnd(1000) : 0);
        n->res.alloc[SCORE_MEMORY] = mems[rnd(3)] + (unique ? (int64_t)rnd(1000) * MI : 0);
        for (int r = 0; r < SCORE_NRES; r++) {
            n->facts.requested[r] = n->res.alloc[r] * rnd(60) / 100;
            /* Our view: the same, or an annotation-like other number. */
            n->res.used[r] = rnd(4) ? n->facts.requested[r] : n->res.alloc[r] * rnd(90) / 100;
            n->res.used_non_zero[r] = n->res.used[r] + (int64_t)rnd(3) * 100;
        }
    }
    for (size_t i = 0; i < np; i++) {
        struct place_sim_pod *p = &pods[i];
        memset(p, 0, sizeof(*p));
        p->constraints = random_constraints();
        p->request.real[SCORE_CPU] = pod_cpus[rnd(5)];
        p->request.real[SCORE_MEMORY] = pod_mems[rnd(4)];
        if (unique) {
            /* A request of its own per pod (a shape of one pod each, the
             * engine's worst case), some still 0. */
            p->request.real[SCORE_CPU] += p->request.real[SCORE_CPU] ? (int64_t)i : 0;
            p->request.real[SCORE_MEMORY] += (int64_t)(i * 4096 + rnd(2) * (i + 1) * MI);
        }
        p->request.non_zero[SCORE_CPU] =
            p->request.real[SCORE_CPU] ? p->request.real[SCORE_CPU] : SCORE_DEFAULT_MILLI_CPU;
        p->request.non_zero[SCORE_MEMORY] =
            p->request.real[SCORE_MEMORY] ? p->request.real[SCORE_MEMORY] : SCORE_DEFAULT_MEMORY;
        memcpy(p->request.non_zero_scored, p->request.non_zero, sizeof(p->request.non_zero));
        memcpy(p->request.fit, p->request.real, sizeof(p->request.real));
        if (rnd(4) == 0) {
            /* Like a pod with pod-level requests (podreq.h): scored with a
             * defaulted container more than it charges its node. */
            p->request.non_zero_scored[SCORE_CPU] += SCORE_DEFAULT_MILLI_CPU;
            p->request.non_zero_scored[SCORE_MEMORY] += SCORE_DEFAULT_MEMORY;
            memcpy(p->request.non_zero, p->request.real, sizeof(p->request.real));
        }
        p->priority = rnd(4) == 0 ? 5 : 0;
    }
    memset(in, 0, sizeof(*in));
    in->nodes = nodes;
    in->n_nodes = nn;
    in->pods = pods;
    in->n_pods = np;
    in->params.weight[SCORE_CPU] = (int)rnd(4);
    in->params.weight[SCORE_MEMORY] = (int)rnd(3);
    static const int thresholds[] = {100, 100, 80, 50};
    in->params.threshold_percent[SCORE_CPU] = thresholds[rnd(4)];
    in->params.threshold_percent[SCORE_MEMORY] = thresholds[rnd(4)];
    static const int targets[] = {40, 60, 90};
    in->params.target_percent = targets[rnd(3)];
    in->params.normalize = rnd(2) == 0;
}

static void cross_check(size_t nn, size_t np, bool big, bool unique)
{
    struct place_sim_node *nodes = calloc(nn + 1, sizeof(*nodes));
    struct place_sim_pod *pods = calloc(np + 1, sizeof(*pods));
    struct place_label *labels = calloc(2 * nn + 1, sizeof(*labels));
    char(*names)[16] = calloc(nn + 1, sizeof(*names));
    struct place_sim_input in;
    struct place_sim *sim;
    const enum score_strategy all[] = {SCORE_SPREAD, SCORE_PACK, SCORE_BALANCED, SCORE_TARGET};
    struct place_sim_result r[4];

    ck_assert(nodes && pods && labels && names);
    random_input(&in, nodes, nn, pods, np, labels, names, big, unique);
    ck_assert_int_eq(place_sim_new(&in, &sim), 0);
    ck_assert_int_eq(place_sim_run_all(sim, all, 4, 2, r), 0);
    for (int s = 0; s < 4; s++) {
        ck_assert_int_eq(r[s].strategy, all[s]);
        compare_with_plain_loop(&in, place_sim_order(sim), &r[s]);
        place_sim_result_destroy(&r[s]);
    }
    place_sim_free(sim);
    free(names);
    free(labels);
    free(pods);
    free(nodes);
}

START_TEST(simulate_equals_plain_loop_on_random_small_inputs)
{
    for (int i = 0; i < 1500; i++)
        cross_check(1 + rnd(12), rnd(41), false, false);
}
END_TEST

START_TEST(simulate_equals_plain_loop_on_random_larger_inputs)
{
    /* Trees of odd sizes, many dirty leaves per query (the rebuild path),
     * duplicate node names. */
    cross_check(300, 3000, true, false);
    cross_check(77, 2000, true, false);
    cross_check(1000, 1500, true, false);
}
END_TEST

START_TEST(simulate_equals_plain_loop_with_a_request_per_pod)
{
    /* Every pod its own shape, nodes of many capacities: the path with no
     * tree, where the resource rules are judged from each node's room. */
    for (int i = 0; i < 300; i++)
        cross_check(1 + rnd(12), rnd(41), false, true);
    cross_check(300, 3000, true, true);
    cross_check(1000, 1500, true, true);
}
END_TEST

/* A number near one of the edges the room arithmetic must get right. */
static int64_t edgy(int64_t around)
{
    static const int64_t far[] = {
        0, 1, -1, INT64_MAX, INT64_MIN, INT64_MAX / 100, INT64_MAX / 100 + 1, INT64_MAX / 50};
    switch (rnd(4)) {
    case 0:
        return far[rnd(N(far))];
    case 1: {
        int64_t x;
        return __builtin_add_overflow(around, (int64_t)rnd(5) - 2, &x) ? around : x;
    }
    default:
        return (int64_t)rnd(20000) - 2000;
    }
}

/* The bound best_once() uses: sim_node_bound() where sim_bound_usable(),
 * else none (SCORE_MAX_VALUE). */
static int value_bound(const struct score_params *p, const struct score_node *node,
                       const struct score_pod_request *req)
{
    return sim_bound_usable(p, req) ? sim_node_bound(p, node, req) : SCORE_MAX_VALUE;
}

START_TEST(simulate_value_bound_is_never_below_the_value)
{
    /* The pass of a pod with its own request skips nodes by this bound: it
     * must hold for every strategy, weight and target, at the edges too. */
    static const int targets[] = {1, 40, 60, 99, 100};
    /* Quantities are never negative here: the codecs refuse them, and
     * score_node_value's arithmetic is not defined for them (the last
     * check below: they get no bound). */
    static const int64_t far[] = {0,
                                  1,
                                  INT64_MAX / 100,
                                  INT64_MAX / 100 + 1,
                                  1LL << 52,
                                  (1LL << 52) + 1,
                                  INT64_MAX / 2,
                                  INT64_MAX};
    for (int i = 0; i < 400000; i++) {
        struct score_params p = {.strategy = (enum score_strategy)rnd(4),
                                 .weight = {(int)rnd(4), (int)rnd(3)},
                                 .target_percent = targets[rnd(N(targets))]};
        struct score_node node = {0};
        struct score_pod_request req = {0};
        for (int k = 0; k < SCORE_NRES; k++) {
            node.alloc[k] = rnd(8) ? 1 + (int64_t)rnd(20000) : far[1 + rnd(N(far) - 1)];
            node.used_non_zero[k] = node.used[k] =
                rnd(4) ? (int64_t)rnd(25000) : far[rnd(N(far))] / (1 + rnd(2));
            req.non_zero_scored[k] = req.real[k] = rnd(4) ? (int64_t)rnd(3000) : far[rnd(N(far))];
        }
        struct score_explain ex;
        score_node_value(&p, &node, &req, &ex);
        int v = ex.value < 0 ? 0 : ex.value > SCORE_MAX_VALUE ? SCORE_MAX_VALUE : ex.value;
        ck_assert_msg(value_bound(&p, &node, &req) >= v,
                      "%s w %d/%d t %d alloc %lld/%lld used %lld/%lld pod %lld/%lld: value %d",
                      score_strategy_name(p.strategy), p.weight[0], p.weight[1], p.target_percent,
                      (long long)node.alloc[0], (long long)node.alloc[1],
                      (long long)node.used_non_zero[0], (long long)node.used_non_zero[1],
                      (long long)req.non_zero_scored[0], (long long)req.non_zero_scored[1], v);
    }
    /* A negative share is cast to int by the value, which wraps: no bound
     * (the reviewer's case: alloc 1, used -558345749, pod 1, target 50). */
    static const int64_t negative[] = {-558345749, -30000000, -1, INT64_MIN};
    for (size_t i = 0; i < N(negative); i++) {
        struct score_params p = {.strategy = SCORE_TARGET, .weight = {1, 1}, .target_percent = 50};
        struct score_node node = {.alloc = {1, 1000}, .used_non_zero = {negative[i], 0}};
        struct score_pod_request req = {.non_zero_scored = {1, 1}};
        ck_assert_int_eq(value_bound(&p, &node, &req), SCORE_MAX_VALUE);
        node.used_non_zero[0] = 0;
        req.non_zero_scored[0] = negative[i];
        ck_assert_int_eq(value_bound(&p, &node, &req), SCORE_MAX_VALUE);
    }
}
END_TEST

START_TEST(simulate_room_judges_as_place_judge_resources)
{
    static const int thresholds[] = {1, 50, 99, 100};
    for (int i = 0; i < 200000; i++) {
        struct place_node_facts f = {0};
        struct score_node res = {0};
        struct score_pod_request req = {0};
        int thr[SCORE_NRES];
        f.max_pods = (int64_t)rnd(4);
        f.pods = (int64_t)rnd(5);
        for (int k = 0; k < SCORE_NRES; k++) {
            res.alloc[k] = edgy(10000);
            f.requested[k] = edgy(res.alloc[k]);
            res.used[k] = rnd(2) ? f.requested[k] : edgy(res.alloc[k]);
            int64_t room;
            if (__builtin_sub_overflow(res.alloc[k], f.requested[k], &room))
                room = 0;
            req.fit[k] = edgy(room);
            thr[k] = thresholds[rnd(4)];
        }
        struct place_judgement j;
        place_judge_resources(&req, &f, &res, thr, &j);
        uint32_t want = 0;
        for (int d = 0; d < SIM_RESOURCE_REASONS; d++)
            if (j.reasons & (1u << sim_resource_reason_of[d]))
                want |= 1u << d;
        struct place_sim_node_state ns = {f.pods, {f.requested[0], f.requested[1]}, res};
        struct sim_fit_room room;
        place_sim_room_set(&room, &ns, f.max_pods, thr);
        ck_assert_msg(sim_fit_reasons(&room, req.fit) == want,
                      "alloc %lld/%lld requested %lld/%lld used %lld/%lld fit %lld/%lld thr %d/%d",
                      (long long)res.alloc[0], (long long)res.alloc[1], (long long)f.requested[0],
                      (long long)f.requested[1], (long long)res.used[0], (long long)res.used[1],
                      (long long)req.fit[0], (long long)req.fit[1], thr[0], thr[1]);
    }
}
END_TEST

START_TEST(simulate_threads_give_the_same_results)
{
    struct place_sim_node nodes[40];
    struct place_sim_pod pods[400];
    struct place_label labels[80];
    char names[40][16];
    struct place_sim_input in;
    struct place_sim *sim;
    const enum score_strategy all[] = {SCORE_SPREAD, SCORE_PACK, SCORE_BALANCED, SCORE_TARGET};
    struct place_sim_result one[4], two[4];

    random_input(&in, nodes, 40, pods, 400, labels, names, true, false);
    ck_assert_int_eq(place_sim_new(&in, &sim), 0);
    ck_assert_int_eq(place_sim_run_all(sim, all, 4, 1, one), 0);
    ck_assert_int_eq(place_sim_run_all(sim, all, 4, 3, two), 0);
    for (int s = 0; s < 4; s++) {
        ck_assert_mem_eq(one[s].pods, two[s].pods, 400 * sizeof(*one[s].pods));
        ck_assert_uint_eq(one[s].n_reasons, two[s].n_reasons);
        ck_assert_mem_eq(&one[s].summary, &two[s].summary, sizeof(one[s].summary));
        place_sim_result_destroy(&one[s]);
        place_sim_result_destroy(&two[s]);
    }
    place_sim_free(sim);
}
END_TEST

START_TEST(simulate_bad_input_is_einval)
{
    struct place_sim *sim;
    struct place_sim_input in = {.n_nodes = 3};
    ck_assert_int_eq(place_sim_new(NULL, &sim), -EINVAL);
    ck_assert_ptr_null(sim);
    ck_assert_int_eq(place_sim_new(&in, &sim), -EINVAL); /* nodes NULL */
    in.n_nodes = PLACE_SIM_MAX_NODES + 1;
    ck_assert_int_eq(place_sim_new(&in, &sim), -EINVAL);
}
END_TEST

Suite *simulate_suite(void)
{
    Suite *s = suite_create("simulate");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, simulate_spread_tie_goes_to_first_name);
    tcase_add_test(tc, simulate_pack_fills_a_node_exactly);
    tcase_add_test(tc, simulate_balanced_prefers_even_fractions);
    tcase_add_test(tc, simulate_target_peaks_at_target_percent);
    tcase_add_test(tc, simulate_pod_fitting_nowhere_counts_reasons);
    tcase_add_test(tc, simulate_init_containers_and_sidecars_count);
    tcase_add_test(tc, simulate_pod_level_pod_scored_and_charged_apart);
    tcase_add_test(tc, simulate_pod_count_limit);
    tcase_add_test(tc, simulate_priority_order_then_file_order);
    tcase_add_test(tc, simulate_taint_keeps_pod_off_better_node);
    tcase_add_test(tc, simulate_unschedulable_node_takes_nothing);
    tcase_add_test(tc, simulate_threshold_applies_to_our_used_view);
    tcase_add_test(tc, simulate_normalize_gives_winner_ten);
    tcase_add_test(tc, simulate_match_fields_pod_counts_prefilter);
    tcase_add_test(tc, simulate_affinity_conflict_is_one_message);
    tcase_add_test(tc, simulate_no_nodes_places_nothing);
    tcase_add_test(tc, simulate_equals_plain_loop_on_random_small_inputs);
    tcase_add_test(tc, simulate_equals_plain_loop_on_random_larger_inputs);
    tcase_add_test(tc, simulate_equals_plain_loop_with_a_request_per_pod);
    tcase_add_test(tc, simulate_room_judges_as_place_judge_resources);
    tcase_add_test(tc, simulate_value_bound_is_never_below_the_value);
    tcase_add_test(tc, simulate_threads_give_the_same_results);
    tcase_add_test(tc, simulate_bad_input_is_einval);
    suite_add_tcase(s, tc);
    return s;
}

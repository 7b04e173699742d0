/*
 * The strategies against kube-scheduler's worked examples (docs/protocol.md
 * §10.6): node-a has 4 CPUs and 8Gi; the pod asks cpu 2000m (non-zero and
 * real), memory 1283457024 non-zero / 1073741824 real.
 */
#include "scoring/strategy.h"

#include <string.h>

#include "tests/suites.h"

#define GI 1073741824LL

static struct score_params params(enum score_strategy s, int w_cpu, int w_mem)
{
    struct score_params p = {.strategy = s,
                             .weight = {w_cpu, w_mem},
                             .target_percent = 60,
                             .threshold_percent = {100, 100}};
    return p;
}

/* NonZeroRequested of node-a: pod A {1, 2Gi} + pod B {} defaulted to {100m, 200Mi}. */
static const struct score_node node_a_nonzero = {
    .alloc = {4000, 8 * GI}, .used = {1100, 2357198848LL}, .used_non_zero = {1100, 2357198848LL}};
/* Requested (real) of node-a: pod A only. */
static const struct score_node node_a_real = {
    .alloc = {4000, 8 * GI}, .used = {1000, 2 * GI}, .used_non_zero = {1000, 2 * GI}};
static const struct score_pod_request pod = {
    .real = {2000, GI}, .non_zero = {2000, 1283457024LL}, .non_zero_scored = {2000, 1283457024LL}};

static int value_of(const struct score_params *p, const struct score_node *n)
{
    struct score_explain ex;
    score_node_value(p, n, &pod, &ex);
    return ex.value;
}

START_TEST(strategy_spread_matches_least_allocated_example)
{
    struct score_params p = params(SCORE_SPREAD, 1, 1);
    struct score_explain ex;
    score_node_value(&p, &node_a_nonzero, &pod, &ex);
    /* cpu (4000-3100)*100/4000 = 22; memory (8589934592-3640655872)*100/8589934592 = 57 */
    ck_assert_int_eq(ex.term[SCORE_CPU].value, 22);
    ck_assert_int_eq(ex.term[SCORE_MEMORY].value, 57);
    ck_assert_int_eq(ex.term[SCORE_CPU].requested, 3100);
    ck_assert_int_eq(ex.term[SCORE_MEMORY].requested, 3640655872LL);
    ck_assert_int_eq(ex.value, 39); /* (22+57)/2 */
}
END_TEST

START_TEST(strategy_pack_matches_most_allocated_example)
{
    struct score_params p = params(SCORE_PACK, 1, 1);
    ck_assert_int_eq(value_of(&p, &node_a_nonzero), 59); /* (77+42)/2 */
}
END_TEST

START_TEST(strategy_balanced_matches_example_with_real_requests)
{
    struct score_params p = params(SCORE_BALANCED, 3, 1); /* weights are ignored */
    struct score_explain ex;
    score_node_value(&p, &node_a_real, &pod, &ex);
    /* cpu 3000/4000 = 0.75, memory 3Gi/8Gi = 0.375, std 0.1875 -> 81.25 -> 81 */
    ck_assert_int_eq(ex.term[SCORE_CPU].pod, 2000);
    ck_assert_int_eq(ex.term[SCORE_MEMORY].pod, GI);
    ck_assert_int_eq(ex.value, 81);
}
END_TEST

START_TEST(strategy_cpu_weight_3_shifts_spread)
{
    struct score_params p = params(SCORE_SPREAD, 3, 1);
    ck_assert_int_eq(value_of(&p, &node_a_nonzero), 30); /* (22*3 + 57)/4 = 123/4 */
}
END_TEST

START_TEST(strategy_target_peaks_at_target)
{
    struct score_params p = params(SCORE_TARGET, 1, 1);
    /* cpu p = 310000/4000 = 77 > 60: 60*(100-77)/(100-60) = 1380/40 = 34
     * memory p = 42 <= 60: 60 + 40*42/60 = 60 + 28 = 88; (34+88)/2 = 61 */
    ck_assert_int_eq(value_of(&p, &node_a_nonzero), 61);
    p.weight[SCORE_CPU] = 3;
    ck_assert_int_eq(value_of(&p, &node_a_nonzero), 47); /* (102+88)/4 */

    struct score_node at_target = {.alloc = {1000, 0}, .used = {400, 0}, .used_non_zero = {400, 0}};
    struct score_pod_request r = {.non_zero_scored = {200, 0}};
    struct score_explain ex;
    score_node_value(&p, &at_target, &r, &ex);
    ck_assert_int_eq(ex.value, 100); /* p = 60: t + (100-t)*60/60 */
    struct score_node over = {.alloc = {1000, 0}, .used = {900, 0}, .used_non_zero = {900, 0}};
    r.non_zero_scored[SCORE_CPU] = 200;
    score_node_value(&p, &over, &r, &ex);
    ck_assert_int_eq(ex.value, 0); /* p = 110 > 100 */
    struct score_node empty = {.alloc = {1000, 0}};
    r.non_zero_scored[SCORE_CPU] = 0;
    score_node_value(&p, &empty, &r, &ex);
    ck_assert_int_eq(ex.value, 60); /* p = 0: t */
}
END_TEST

START_TEST(strategy_zero_allocatable_is_skipped)
{
    struct score_params p = params(SCORE_SPREAD, 3, 1);
    struct score_node n = {.alloc = {0, 8 * GI}, .used = {0, 0}, .used_non_zero = {0, 0}};
    struct score_explain ex;
    score_node_value(&p, &n, &pod, &ex);
    ck_assert(ex.term[SCORE_CPU].skipped);
    /* memory alone: (8589934592-1283457024)*100/8589934592 = 85.06 -> 85 */
    ck_assert_int_eq(ex.value, 85);
    struct score_node none = {.alloc = {0, 0}};
    score_node_value(&p, &none, &pod, &ex);
    ck_assert_int_eq(ex.value, 0);
}
END_TEST

START_TEST(strategy_zero_weight_leaves_resource_out)
{
    struct score_params p = params(SCORE_SPREAD, 1, 0);
    struct score_explain ex;
    score_node_value(&p, &node_a_nonzero, &pod, &ex);
    ck_assert(ex.term[SCORE_MEMORY].skipped);
    ck_assert_int_eq(ex.value, 22);
}
END_TEST

START_TEST(strategy_overcommitted_node_bounds)
{
    struct score_node n = {.alloc = {1000, GI},
                           .used = {INT64_MAX, INT64_MAX},
                           .used_non_zero = {INT64_MAX, INT64_MAX}};
    struct score_params spread = params(SCORE_SPREAD, 3, 1);
    struct score_params pack = params(SCORE_PACK, 3, 1);
    struct score_params balanced = params(SCORE_BALANCED, 3, 1);
    struct score_explain ex;
    score_node_value(&spread, &n, &pod, &ex);
    ck_assert_int_eq(ex.term[SCORE_CPU].requested, INT64_MAX); /* saturated, not wrapped */
    ck_assert_int_eq(ex.value, 0);
    ck_assert_int_eq(value_of(&pack, &n), 100);
    ck_assert_int_eq(value_of(&balanced, &n), 100); /* both fractions capped at 1 */
}
END_TEST

START_TEST(strategy_huge_quantities_divide_exactly)
{
    /* Around K = INT64_MAX / 100, where x * 100 stops fitting in 64 bits:
     * alloc 2(K + 1), a pod of 0; spread's cpu term (alloc - used) * 100 /
     * alloc is (K + 1) * 100 / (2K + 2) = 50 exactly with K + 1 free, and
     * K * 100 / (2K + 2) = 49.99... -> 49 with K free; pack's used share
     * the same numbers the other way round. */
    const int64_t k = INT64_MAX / 100;
    const struct score_pod_request none = {{0, 0}, {0, 0}, {0, 0}, {0, 0}};
    struct score_node n = {.alloc = {2 * (k + 1), 0}};
    struct score_params spread = params(SCORE_SPREAD, 1, 0);
    struct score_params pack = params(SCORE_PACK, 1, 0);
    struct score_explain ex;
    n.used_non_zero[SCORE_CPU] = k + 1; /* k + 1 free */
    score_node_value(&spread, &n, &none, &ex);
    ck_assert_int_eq(ex.value, 50);
    score_node_value(&pack, &n, &none, &ex);
    ck_assert_int_eq(ex.value, 50);
    n.used_non_zero[SCORE_CPU] = k + 2; /* k free, k + 2 used */
    score_node_value(&spread, &n, &none, &ex);
    ck_assert_int_eq(ex.value, 49);
    score_node_value(&pack, &n, &none, &ex);
    ck_assert_int_eq(ex.value, 50); /* (k + 2) * 100 / (2k + 2) = 50.0... */
    n.used_non_zero[SCORE_CPU] = k;
    score_node_value(&pack, &n, &none, &ex);
    ck_assert_int_eq(ex.value, 49);
}
END_TEST

START_TEST(strategy_finish_maps_and_normalizes)
{
    struct score_params p = params(SCORE_SPREAD, 3, 1);
    struct score_explain ex[4] = {{.value = 39}, {.value = 59}, {.value = 0}, {.value = 95}};
    score_finish(&p, ex, 4);
    ck_assert_int_eq(ex[0].score, 4); /* (39+5)/10 */
    ck_assert_int_eq(ex[1].score, 6); /* (59+5)/10 */
    ck_assert_int_eq(ex[2].score, 0);
    ck_assert_int_eq(ex[3].score, 10); /* (95+5)/10 */

    p.normalize = true;
    struct score_explain nx[3] = {{.value = 39}, {.value = 59}, {.value = 0}};
    score_finish(&p, nx, 3);
    ck_assert_int_eq(nx[0].score, 7);  /* (390 + 29)/59 = 7 */
    ck_assert_int_eq(nx[1].score, 10); /* (590 + 29)/59 = 10 */
    ck_assert_int_eq(nx[2].score, 0);

    struct score_explain zero[2] = {{.value = 0}, {.value = 0}};
    score_finish(&p, zero, 2);
    ck_assert_int_eq(zero[0].score, 0);
    ck_assert_int_eq(zero[1].score, 0);
}
END_TEST

START_TEST(strategy_names_round_trip)
{
    enum score_strategy s;
    const char *names[] = {"spread", "pack", "balanced", "target"};
    for (int i = 0; i < 4; i++) {
        ck_assert_int_eq(score_strategy_parse(names[i], &s), 0);
        ck_assert_str_eq(score_strategy_name(s), names[i]);
    }
    ck_assert_int_ne(score_strategy_parse("Spread", &s), 0);
    ck_assert_int_ne(score_strategy_parse("", &s), 0);
}
END_TEST

/* The noderesources plugins' own score tables, ported: pods and nodes as upstream
 * writes them, the requests through score_pod_request (the node's pods as NodeInfo
 * charges them, the pod as the scorers take it), then score_node_value; the 0..100
 * value must be the plugin's score. st.MakeNode().Capacity{"cpu": "4000"} is 4000
 * cores (the tables are ratios); makeNode() in the balanced table takes millicores.
 * Cases with extended resources are ported where the plugin skips them (the pod does
 * not request them), which leaves cpu and memory; validation errors and status-code
 * cases have no score to compare. */
#define K     1000 /* cores to millicores */
#define T_MAX 4

struct tpod {
    struct score_container c[3];
    size_t nc;
};

struct tnode {
    int64_t cpu, mem;
    struct tpod pods[T_MAX];
    size_t n_pods;
};

struct table_case {
    const char *name;
    enum score_strategy strategy;
    int w_cpu, w_mem;
    struct tpod pod;
    struct tnode nodes[2];
    int want[2];
};

/* clang-format off */
#define REQ(cpu, mem) {.req = {cpu, mem}, .has = {true, true}}
#define BARE {.req = {0, 0}, .has = {false, false}}
/* st.MakePod().Req(a).Req(b): one container per Req */
#define POD0 {.nc = 0}
#define POD1(a) {.c = {a}, .nc = 1}
#define POD2(a, b) {.c = {a, b}, .nc = 2}
#define NODE(cpu, mem, ...) {cpu, mem, {__VA_ARGS__}, sizeof((struct tpod[]){__VA_ARGS__}) / sizeof(struct tpod)}
#define EMPTY(cpu, mem) {cpu, mem, {POD0}, 0}
/* balanced_allocation_test.go's cpuOnly and cpuAndMemory specs */
#define CPU_ONLY POD2(REQ(1000, 0), REQ(2000, 0))
#define CPU_AND_MEMORY POD2(REQ(1000, 2000), REQ(2000, 3000))

static const struct table_case table_cases[] = {
    /* least_allocated_test.go TestLeastAllocatedScoringStrategy */
    {"nothing scheduled, nothing requested", SCORE_SPREAD, 1, 1, POD0,
     {EMPTY(4000 * K, 10000), EMPTY(4000 * K, 10000)}, {100, 100}},
    {"nothing scheduled, resources requested, differently sized nodes", SCORE_SPREAD, 1, 1,
     POD2(REQ(1000 * K, 2000), REQ(2000 * K, 3000)),
     {EMPTY(4000 * K, 10000), EMPTY(6000 * K, 10000)}, {37, 50}},
    {"no resources requested, pods scheduled", SCORE_SPREAD, 1, 1, POD0,
     {NODE(4000 * K, 10000, POD0, POD0), NODE(4000 * K, 10000, POD0, POD0)}, {100, 100}},
    {"no resources requested, pods scheduled with resources", SCORE_SPREAD, 1, 1, POD0,
     {NODE(10000 * K, 20000, POD1(REQ(3000 * K, 0)), POD1(REQ(3000 * K, 0))),
      NODE(10000 * K, 20000, POD1(REQ(3000 * K, 0)), POD1(REQ(3000 * K, 5000)))}, {70, 57}},
    {"resources requested, pods scheduled with resources", SCORE_SPREAD, 1, 1,
     POD2(REQ(1000 * K, 2000), REQ(2000 * K, 3000)),
     {NODE(10000 * K, 20000, POD1(REQ(3000 * K, 0))),
      NODE(10000 * K, 20000, POD1(REQ(3000 * K, 5000)))}, {57, 45}},
    {"resources requested, pods scheduled with resources, differently sized nodes", SCORE_SPREAD, 1, 1,
     POD2(REQ(1000 * K, 2000), REQ(2000 * K, 3000)),
     {NODE(10000 * K, 20000, POD1(REQ(3000 * K, 0))),
      NODE(10000 * K, 50000, POD1(REQ(3000 * K, 5000)))}, {57, 60}},
    {"requested resources exceed node capacity", SCORE_SPREAD, 1, 1, POD1(REQ(3000 * K, 0)),
     {NODE(4000 * K, 10000, POD1(REQ(3000 * K, 0))),
      NODE(4000 * K, 10000, POD1(REQ(3000 * K, 5000)))}, {50, 25}},
    {"zero node resources, pods scheduled with resources", SCORE_SPREAD, 1, 1, POD0,
     {NODE(0, 0, POD1(REQ(3000 * K, 0))), NODE(0, 0, POD1(REQ(3000 * K, 5000)))}, {0, 0}},
    {"nothing scheduled, resources requested with different weight on CPU and memory", SCORE_SPREAD,
     1, 2, POD2(REQ(1000 * K, 2000), REQ(2000 * K, 3000)),
     {EMPTY(4000 * K, 10000), EMPTY(6000 * K, 10000)}, {41, 50}},
    {"bypass extended resource if the pod does not request", SCORE_SPREAD, 1, 1,
     POD2(REQ(1000 * K, 2000), REQ(2000 * K, 3000)),
     {EMPTY(6000 * K, 10000), EMPTY(6000 * K, 10000)}, {50, 50}},
    {"if the node doesn't have a resource", SCORE_SPREAD, 1, 1, POD1(REQ(3000 * K, 4000)),
     {EMPTY(6000 * K, 10000), EMPTY(6000 * K, 10000)}, {55, 55}},
    /* most_allocated_test.go TestMostAllocatedScoringStrategy */
    {"nothing scheduled, nothing requested", SCORE_PACK, 1, 1, POD0,
     {EMPTY(4000 * K, 10000), EMPTY(4000 * K, 10000)}, {0, 0}},
    {"nothing scheduled, resources requested, differently sized nodes", SCORE_PACK, 1, 1,
     POD2(REQ(1000 * K, 2000), REQ(2000 * K, 3000)),
     {EMPTY(4000 * K, 10000), EMPTY(6000 * K, 10000)}, {62, 50}},
    {"no resources requested, pods scheduled with resources", SCORE_PACK, 1, 1, POD0,
     {NODE(10000 * K, 20000, POD1(REQ(3000 * K, 0)), POD1(REQ(3000 * K, 0))),
      NODE(10000 * K, 20000, POD1(REQ(3000 * K, 0)), POD1(REQ(3000 * K, 5000)))}, {30, 42}},
    {"resources requested, pods scheduled with resources", SCORE_PACK, 1, 1,
     POD2(REQ(1000 * K, 2000), REQ(2000 * K, 3000)),
     {NODE(10000 * K, 20000, POD1(REQ(3000 * K, 0))),
      NODE(10000 * K, 20000, POD1(REQ(3000 * K, 5000)))}, {42, 55}},
    {"resources requested equal node capacity", SCORE_PACK, 1, 1,
     POD2(REQ(2000 * K, 4000), REQ(3000 * K, 5000)),
     {EMPTY(5000 * K, 10000), EMPTY(10000 * K, 9000)}, {95, 75}},
    {"nothing scheduled, resources requested, differently sized nodes, memory weight 2", SCORE_PACK,
     1, 2, POD2(REQ(1000 * K, 2000), REQ(2000 * K, 3000)),
     {EMPTY(4000 * K, 10000), EMPTY(6000 * K, 10000)}, {58, 50}},
    {"no resources requested, pods scheduled, nonzero request for resource", SCORE_PACK, 1, 1,
     POD1(BARE), {NODE(250, 1000 * 1048576LL, POD1(BARE), POD1(BARE)), EMPTY(250, 1000 * 1048576LL)},
     {80, 30}},
    {"bypass extended resource if the pod does not request", SCORE_PACK, 1, 1,
     POD2(REQ(1000 * K, 2000), REQ(2000 * K, 3000)),
     {EMPTY(6000 * K, 10000), EMPTY(6000 * K, 10000)}, {50, 50}},
    {"if the node doesn't have a resource", SCORE_PACK, 1, 1, POD1(REQ(3000 * K, 4000)),
     {EMPTY(6000 * K, 10000), EMPTY(6000 * K, 10000)}, {45, 45}},
    /* balanced_allocation_test.go TestNodeResourcesBalancedAllocation (weights ignored) */
    {"nothing scheduled, resources requested, differently sized nodes", SCORE_BALANCED, 1, 1,
     CPU_AND_MEMORY, {EMPTY(4000, 10000), EMPTY(6000, 10000)}, {87, 100}},
    {"resources requested, pods scheduled with resources", SCORE_BALANCED, 1, 1, CPU_AND_MEMORY,
     {NODE(10000, 20000, CPU_ONLY), NODE(10000, 20000, CPU_AND_MEMORY)}, {82, 95}},
    {"resources requested, pods scheduled with resources, differently sized nodes", SCORE_BALANCED,
     1, 1, CPU_AND_MEMORY, {NODE(10000, 20000, CPU_ONLY), NODE(10000, 50000, CPU_AND_MEMORY)},
     {82, 80}},
    {"requested resources at node capacity", SCORE_BALANCED, 1, 1, CPU_ONLY,
     {NODE(6000, 10000, CPU_ONLY), NODE(6000, 10000, CPU_AND_MEMORY)}, {50, 75}},
    {"node without the scalar resource should skip the scalar resource", SCORE_BALANCED, 1, 1,
     CPU_AND_MEMORY, {EMPTY(3500, 40000), EMPTY(3500, 40000)}, {63, 63}},
    {"resources requested, pods scheduled with resources if PreScore not called", SCORE_BALANCED, 1,
     1, CPU_AND_MEMORY, {NODE(10000, 20000, CPU_ONLY), NODE(10000, 20000, CPU_AND_MEMORY)},
     {82, 95}},
};
#undef REQ
#undef BARE
#undef POD0
#undef POD1
#undef POD2
#undef NODE
#undef EMPTY
#undef CPU_ONLY
#undef CPU_AND_MEMORY
/* clang-format on */

static struct score_pod_request request_of_tpod(const struct tpod *t)
{
    struct score_pod sp = {.containers = t->c, .n_containers = t->nc};
    struct score_pod_request r;
    ck_assert_int_eq(score_pod_request(&sp, &r), 0);
    return r;
}

START_TEST(strategy_upstream_tables)
{
    const struct table_case *t = &table_cases[_i];
    struct score_params p = params(t->strategy, t->w_cpu, t->w_mem);
    struct score_pod_request req = request_of_tpod(&t->pod);

    for (int i = 0; i < 2; i++) {
        const struct tnode *tn = &t->nodes[i];
        struct score_node node = {.alloc = {tn->cpu, tn->mem}};
        for (size_t k = 0; k < tn->n_pods; k++) {
            struct score_pod_request on = request_of_tpod(&tn->pods[k]);
            for (int r = 0; r < SCORE_NRES; r++) {
                node.used[r] += on.real[r];
                node.used_non_zero[r] += on.non_zero[r];
            }
        }
        struct score_explain ex;
        score_node_value(&p, &node, &req, &ex);
        ck_assert_msg(ex.value == t->want[i], "%s %s node%d: %d, want %d",
                      score_strategy_name(t->strategy), t->name, i + 1, ex.value, t->want[i]);
    }
}
END_TEST

Suite *strategy_suite(void)
{
    Suite *s = suite_create("strategy");
    TCase *tc = tcase_create("strategy");
    tcase_add_test(tc, strategy_spread_matches_least_allocated_example);
    tcase_add_test(tc, strategy_pack_matches_most_allocated_example);
    tcase_add_test(tc, strategy_balanced_matches_example_with_real_requests);
    tcase_add_test(tc, strategy_cpu_weight_3_shifts_spread);
    tcase_add_test(tc, strategy_target_peaks_at_target);
    tcase_add_test(tc, strategy_zero_allocatable_is_skipped);
    tcase_add_test(tc, strategy_zero_weight_leaves_resource_out);
    tcase_add_test(tc, strategy_overcommitted_node_bounds);
    tcase_add_test(tc, strategy_huge_quantities_divide_exactly);
    tcase_add_test(tc, strategy_finish_maps_and_normalizes);
    tcase_add_test(tc, strategy_names_round_trip);
    tcase_add_loop_test(tc, strategy_upstream_tables, 0,
                        (int)(sizeof(table_cases) / sizeof(table_cases[0])));
    suite_add_tcase(s, tc);
    return s;
}

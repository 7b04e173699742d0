/*
 * score_pod_request against component-helpers resource.PodRequests: per resource
 * max(sum(containers) + sum(sidecars), max over init containers of (init + sidecars started
 * before it)), pod-level requests override the keys they set, then overhead is added.
 * non_zero_scored (the pod being placed) charges 100m CPU / 200Mi memory per container
 * (regular, init, sidecar) whose requests lack the key; an explicit 0 stays 0. non_zero (what
 * a node is charged, NodeInfo) is the same without pod-level requests; with them, only a key
 * the pod lacks altogether is defaulted.
 */
#include <errno.h>
#include <stdint.h>

#include "scoring/podreq.h"
#include "tests/suites.h"

#define MI (1024LL * 1024)
#define GI (1024LL * MI)

/* A container (or pod-level / overhead list) with both keys, with one key, with none. */
/* clang-format off */
#define BOTH(cpu, mem)    {.req = {cpu, mem}, .has = {true, true}}
#define CPU(cpu)          {.req = {cpu, 0}, .has = {true, false}}
#define MEM(mem)          {.req = {0, mem}, .has = {false, true}}
#define NONE              {.req = {0, 0}, .has = {false, false}}
#define SIDECAR(cpu, mem) {.req = {cpu, mem}, .has = {true, true}, .restartable = true}
#define SIDECAR_CPU(cpu)  {.req = {cpu, 0}, .has = {true, false}, .restartable = true}
/* clang-format on */

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void check_request(const struct score_pod *pod, int64_t cpu, int64_t mem, int64_t nz_cpu,
                          int64_t nz_mem)
{
    struct score_pod_request r;
    ck_assert_int_eq(score_pod_request(pod, &r), 0);
    ck_assert_int_eq(r.real[SCORE_CPU], cpu);
    ck_assert_int_eq(r.real[SCORE_MEMORY], mem);
    ck_assert_int_eq(r.non_zero[SCORE_CPU], nz_cpu);
    ck_assert_int_eq(r.non_zero[SCORE_MEMORY], nz_mem);
    ck_assert_int_eq(r.non_zero_scored[SCORE_CPU], nz_cpu);
    ck_assert_int_eq(r.non_zero_scored[SCORE_MEMORY], nz_mem);
}

START_TEST(test_no_containers)
{
    /* Nothing to sum and no container to default: all 0. */
    const struct score_pod pod = {0};
    check_request(&pod, 0, 0, 0, 0);
}
END_TEST

START_TEST(test_one_container_without_requests)
{
    const struct score_container c[] = {NONE};
    const struct score_pod pod = {.containers = c, .n_containers = N(c)};
    check_request(&pod, 0, 0, 100, 200 * MI); /* 209715200 */
}
END_TEST

START_TEST(test_explicit_zero_not_defaulted)
{
    /* cpu "0" is set: stays 0; memory absent: defaulted. */
    const struct score_container c[] = {CPU(0)};
    const struct score_pod pod = {.containers = c, .n_containers = N(c)};
    check_request(&pod, 0, 0, 0, 209715200);

    const struct score_container both[] = {BOTH(0, 0)};
    const struct score_pod pod0 = {.containers = both, .n_containers = N(both)};
    check_request(&pod0, 0, 0, 0, 0);
}
END_TEST

START_TEST(test_defaults_per_container)
{
    /* Two containers without requests: 2 * 100m, 2 * 200Mi. */
    const struct score_container c[] = {NONE, NONE};
    const struct score_pod pod = {.containers = c, .n_containers = N(c)};
    check_request(&pod, 0, 0, 200, 419430400);

    /* An init container without requests is defaulted too:
     * real max(50, 0) = 50, max(100Mi, 0); non_zero max(50, 100) = 100, max(100Mi, 200Mi). */
    const struct score_container app[] = {BOTH(50, 100 * MI)};
    const struct score_container init[] = {NONE};
    const struct score_pod pod2 = {.containers = app,
                                   .n_containers = N(app),
                                   .init_containers = init,
                                   .n_init_containers = N(init)};
    check_request(&pod2, 50, 104857600, 100, 209715200);
}
END_TEST

START_TEST(test_protocol_worked_example)
{
    /* docs/protocol.md §10.6: app {500m, 1Gi}, helper {}; init {2, 128Mi}.
     * real:     cpu max(500, 2000) = 2000, memory max(1Gi, 128Mi) = 1073741824
     * non_zero: cpu max(500 + 100, 2000) = 2000,
     *           memory max(1Gi + 200Mi, 128Mi) = 1283457024 */
    const struct score_container c[] = {BOTH(500, 1 * GI), NONE};
    const struct score_container init[] = {BOTH(2000, 128 * MI)};
    const struct score_pod pod = {.containers = c,
                                  .n_containers = N(c),
                                  .init_containers = init,
                                  .n_init_containers = N(init)};
    check_request(&pod, 2000, 1073741824, 2000, 1283457024);
}
END_TEST

START_TEST(test_fixture_cap_complex)
{
    /* Fixture pod "cap-complex": init {1, 128Mi}, {200m, 64Mi};
     * containers {250m, 128Mi}, {100m, 32Mi}.
     * cpu max(250 + 100, max(1000, 200)) = 1000;
     * memory max(128Mi + 32Mi, max(128Mi, 64Mi)) = 160Mi = 167772160.
     * Every key is set, so non_zero == real. */
    const struct score_container c[] = {BOTH(250, 128 * MI), BOTH(100, 32 * MI)};
    const struct score_container init[] = {BOTH(1000, 128 * MI), BOTH(200, 64 * MI)};
    const struct score_pod pod = {.containers = c,
                                  .n_containers = N(c),
                                  .init_containers = init,
                                  .n_init_containers = N(init)};
    check_request(&pod, 1000, 167772160, 1000, 167772160);
}
END_TEST

START_TEST(test_sidecar_kep753)
{
    /* KEP-753: sidecar 100m, then init 1; containers 500m.
     * cpu: sum = 500 + 100 = 600; init candidates: sidecar 100, init 1000 + 100 = 1100;
     *      max(600, 1100) = 1100.
     * memory is absent everywhere: real 0; non_zero containers 200Mi + sidecar 200Mi = 400Mi,
     *      init candidate 200Mi + sidecar 200Mi = 400Mi -> 419430400. */
    const struct score_container c[] = {CPU(500)};
    const struct score_container init[] = {SIDECAR_CPU(100), CPU(1000)};
    const struct score_pod pod = {.containers = c,
                                  .n_containers = N(c),
                                  .init_containers = init,
                                  .n_init_containers = N(init)};
    check_request(&pod, 1100, 0, 1100, 419430400);
}
END_TEST

START_TEST(test_sidecar_after_init)
{
    /* A sidecar started after the init container does not add to its candidate:
     * init 1, then sidecar 100m; containers 500m.
     * candidates 1000, 100; sum 600 -> max(600, 1000) = 1000. */
    const struct score_container c[] = {BOTH(500, 0)};
    const struct score_container init[] = {BOTH(1000, 0), SIDECAR(100, 0)};
    const struct score_pod pod = {.containers = c,
                                  .n_containers = N(c),
                                  .init_containers = init,
                                  .n_init_containers = N(init)};
    check_request(&pod, 1000, 0, 1000, 0);
}
END_TEST

START_TEST(test_several_sidecars_in_order)
{
    /* Init order: A sidecar {100m, 64Mi}, X init {500m, 1Gi}, B sidecar {200m, 64Mi},
     * Y init {2, 128Mi}, C sidecar {50m, 64Mi}; containers {1, 256Mi}.
     * cpu:    sum = 1000 + 100 + 200 + 50 = 1350;
     *         candidates A 100, X 500+100 = 600, B 300, Y 2000+300 = 2300, C 350
     *         -> max(1350, 2300) = 2300
     * memory: sum = 256 + 64*3 = 448Mi;
     *         candidates A 64, X 1024+64 = 1088, B 128, Y 128+128 = 256, C 192 (Mi)
     *         -> max(448Mi, 1088Mi) = 1140850688 */
    const struct score_container c[] = {BOTH(1000, 256 * MI)};
    const struct score_container init[] = {
        SIDECAR(100, 64 * MI), BOTH(500, 1 * GI),    SIDECAR(200, 64 * MI),
        BOTH(2000, 128 * MI),  SIDECAR(50, 64 * MI),
    };
    const struct score_pod pod = {.containers = c,
                                  .n_containers = N(c),
                                  .init_containers = init,
                                  .n_init_containers = N(init)};
    check_request(&pod, 2300, 1140850688, 2300, 1140850688);
}
END_TEST

START_TEST(test_sidecars_dominate)
{
    /* Sidecars run with the app, so their sum can beat every init candidate:
     * sidecars 300m, 300m; init 400m; containers 200m.
     * sum = 200 + 600 = 800; candidates 300, 600, 400 + 600 = 1000 -> 1000.
     * Without the last init: max(800, 600) = 800. */
    const struct score_container c[] = {BOTH(200, 0)};
    const struct score_container init[] = {SIDECAR(300, 0), SIDECAR(300, 0), BOTH(400, 0)};
    struct score_pod pod = {.containers = c,
                            .n_containers = N(c),
                            .init_containers = init,
                            .n_init_containers = N(init)};
    check_request(&pod, 1000, 0, 1000, 0);
    pod.n_init_containers = 2;
    check_request(&pod, 800, 0, 800, 0);
}
END_TEST

START_TEST(test_overhead_after_max)
{
    /* §10.6 pod + overhead {250m, 64Mi}: added once, after the max.
     * real cpu 2000 + 250 = 2250, memory 1Gi + 64Mi = 1140850688;
     * non_zero cpu 2250, memory 1283457024 + 67108864 = 1350565888. */
    const struct score_container c[] = {BOTH(500, 1 * GI), NONE};
    const struct score_container init[] = {BOTH(2000, 128 * MI)};
    struct score_pod pod = {.containers = c,
                            .n_containers = N(c),
                            .init_containers = init,
                            .n_init_containers = N(init),
                            .overhead = BOTH(250, 64 * MI)};
    check_request(&pod, 2250, 1140850688, 2250, 1350565888);

    /* Overhead with only cpu set adds nothing to memory (and is never defaulted). */
    pod.overhead = (struct score_container)CPU(250);
    check_request(&pod, 2250, 1073741824, 2250, 1283457024);
}
END_TEST

START_TEST(test_pod_level_overrides_set_keys)
{
    /* Pod-level cpu 3 overrides the containers' cpu 1; memory still from containers. */
    const struct score_container c[] = {BOTH(1000, 256 * MI)};
    struct score_pod pod = {.containers = c, .n_containers = N(c), .pod_level = CPU(3000)};
    check_request(&pod, 3000, 268435456, 3000, 268435456);

    /* Same with container memory absent: real 0, non_zero defaulted per container. */
    const struct score_container c2[] = {CPU(1000), CPU(500)};
    struct score_pod pod2 = {.containers = c2, .n_containers = N(c2), .pod_level = CPU(3000)};
    check_request(&pod2, 3000, 0, 3000, 2 * 209715200LL);

    /* Pod-level memory only: cpu from containers and init containers. */
    const struct score_container init[] = {BOTH(2000, 2 * GI)};
    struct score_pod pod3 = {.containers = c,
                             .n_containers = N(c),
                             .init_containers = init,
                             .n_init_containers = N(init),
                             .pod_level = MEM(4 * GI)};
    check_request(&pod3, 2000, 4294967296, 2000, 4294967296);

    /* Overhead is added after the override: 3000 + 100, 4Gi + 1Gi. */
    pod3.pod_level = (struct score_container)BOTH(3000, 4 * GI);
    pod3.overhead = (struct score_container)BOTH(100, 1 * GI);
    check_request(&pod3, 3100, 5368709120, 3100, 5368709120);
}
END_TEST

/* Checks the three views: real, what a node is charged (NodeInfo) and what the
 * pod being placed is scored with (calculatePodResourceRequest). */
static void check_views(const struct score_pod *pod, int64_t cpu, int64_t mem, int64_t node_cpu,
                        int64_t node_mem, int64_t scored_cpu, int64_t scored_mem)
{
    struct score_pod_request r;
    ck_assert_int_eq(score_pod_request(pod, &r), 0);
    ck_assert_int_eq(r.real[SCORE_CPU], cpu);
    ck_assert_int_eq(r.real[SCORE_MEMORY], mem);
    ck_assert_int_eq(r.non_zero[SCORE_CPU], node_cpu);
    ck_assert_int_eq(r.non_zero[SCORE_MEMORY], node_mem);
    ck_assert_int_eq(r.non_zero_scored[SCORE_CPU], scored_cpu);
    ck_assert_int_eq(r.non_zero_scored[SCORE_MEMORY], scored_mem);
}

/* NodeInfo (pkg/scheduler/framework/types.go, PodInfo.CalculateResource): with
 * pod-level requests, getNonMissingContainerRequests(requests, true) lists a
 * default only for a key that PodRequests' result lacks, i.e. that no
 * container, init container, pod-level request or overhead names; PodRequests
 * then applies it per container. The scorer (resource_allocation.go,
 * calculatePodResourceRequest) always passes both defaults. */
START_TEST(test_node_view_pod_level_cpu_memory_missing_everywhere)
{
    /* Pod-level cpu 1; two containers without requests. Memory is missing from
     * the pod as a whole: both views default it per container, 2 * 200Mi. */
    const struct score_container c[] = {NONE, NONE};
    const struct score_pod pod = {.containers = c, .n_containers = N(c), .pod_level = CPU(1000)};
    check_views(&pod, 1000, 0, 1000, 2 * 200 * MI, 1000, 2 * 200 * MI);
}
END_TEST

START_TEST(test_node_view_pod_level_cpu_memory_in_one_container)
{
    /* Pod-level cpu 1; containers {memory 100Mi}, {}. The pod names memory, so
     * the node is charged the real 100Mi; the scorer still defaults the second
     * container: 100Mi + 200Mi = 300Mi. */
    const struct score_container c[] = {MEM(100 * MI), NONE};
    const struct score_pod pod = {.containers = c, .n_containers = N(c), .pod_level = CPU(1000)};
    check_views(&pod, 1000, 100 * MI, 1000, 100 * MI, 1000, 300 * MI);
}
END_TEST

START_TEST(test_node_view_pod_level_memory_cpu_in_one_container)
{
    /* Pod-level memory 1Gi; containers {cpu 500m}, {}: node cpu 500 (real),
     * scored 500 + 100 = 600; memory 1Gi from the pod level in all views. */
    const struct score_container c[] = {CPU(500), NONE};
    const struct score_pod pod = {.containers = c, .n_containers = N(c), .pod_level = MEM(GI)};
    check_views(&pod, 500, GI, 500, GI, 600, GI);
}
END_TEST

START_TEST(test_node_view_pod_level_with_init_and_sidecar)
{
    /* Pod-level cpu 2; init: sidecar {memory 128Mi}, init {cpu 1};
     * containers {}, {}. cpu is 2000 in every view (pod level).
     * real memory: sum 0 + 0 + 128Mi; candidates 128Mi, 0 + 128Mi -> 128Mi.
     * node: the sidecar names memory, so the real 128Mi.
     * scored: containers 200Mi + 200Mi + sidecar 128Mi = 528Mi; candidates
     *   sidecar 128Mi, init 200Mi + 128Mi = 328Mi -> 528Mi = 553648128. */
    const struct score_container c[] = {NONE, NONE};
    const struct score_container init[] = {
        {.req = {0, 128 * MI}, .has = {false, true}, .restartable = true},
        CPU(1000),
    };
    const struct score_pod pod = {.containers = c,
                                  .n_containers = N(c),
                                  .init_containers = init,
                                  .n_init_containers = N(init),
                                  .pod_level = CPU(2000)};
    check_views(&pod, 2000, 128 * MI, 2000, 128 * MI, 2000, 553648128);
}
END_TEST

START_TEST(test_node_view_pod_level_init_and_sidecar_without_memory)
{
    /* Pod-level cpu 2; init: sidecar {cpu 100m}, init {cpu 1}; containers {},
     * {}. No part names memory: both views default every container.
     * memory: sum 200 + 200 + sidecar 200 = 600Mi; candidates sidecar 200Mi,
     * init 200 + 200 = 400Mi -> 600Mi = 629145600. */
    const struct score_container c[] = {NONE, NONE};
    const struct score_container init[] = {SIDECAR_CPU(100), CPU(1000)};
    const struct score_pod pod = {.containers = c,
                                  .n_containers = N(c),
                                  .init_containers = init,
                                  .n_init_containers = N(init),
                                  .pod_level = CPU(2000)};
    check_views(&pod, 2000, 0, 2000, 600 * MI, 2000, 600 * MI);
}
END_TEST

START_TEST(test_node_view_overhead_and_zero_name_the_key)
{
    /* PodRequests adds the overhead before NodeInfo looks at the keys: pod-level
     * cpu 1, a container without requests, overhead memory 64Mi -> node memory
     * 64Mi; scored 200Mi + 64Mi = 264Mi. */
    const struct score_container c[] = {NONE};
    struct score_pod pod = {
        .containers = c, .n_containers = N(c), .pod_level = CPU(1000), .overhead = MEM(64 * MI)};
    check_views(&pod, 1000, 64 * MI, 1000, 64 * MI, 1000, 264 * MI);

    /* An explicit "0" names the key too: {memory 0}, {} -> node 0, scored 200Mi. */
    const struct score_container z[] = {MEM(0), NONE};
    const struct score_pod podz = {.containers = z, .n_containers = N(z), .pod_level = CPU(1000)};
    check_views(&podz, 1000, 0, 1000, 0, 1000, 200 * MI);
}
END_TEST

START_TEST(test_node_view_pod_level_hugepages_only)
{
    /* spec.resources.requests with hugepages-2Mi alone is pod-level requests
     * (IsPodLevelRequestsSet): containers {cpu 500m}, {} -> node cpu 500 (the pod
     * names cpu), memory 2 * 200Mi (it does not); scored 600 and 400Mi. */
    const struct score_container c[] = {CPU(500), NONE};
    const struct score_pod pod = {.containers = c, .n_containers = N(c), .pod_level_set = true};
    check_views(&pod, 500, 0, 500, 400 * MI, 600, 400 * MI);
}
END_TEST

START_TEST(test_node_view_without_pod_level_defaults_per_container)
{
    /* Without pod-level requests NodeInfo passes both defaults, as the scorer
     * does: {cpu 500m}, {} -> 600m and 2 * 200Mi in both views. */
    const struct score_container c[] = {CPU(500), NONE};
    const struct score_pod pod = {.containers = c, .n_containers = N(c)};
    check_views(&pod, 500, 0, 600, 400 * MI, 600, 400 * MI);
}
END_TEST

START_TEST(test_boundary_no_overflow)
{
    /* 2 * (2^62 - 1) = 2^63 - 2 still fits. */
    const int64_t half = INT64_MAX / 2;
    const struct score_container c[] = {BOTH(half, half), BOTH(half, half)};
    const struct score_pod pod = {.containers = c, .n_containers = N(c)};
    check_request(&pod, INT64_MAX - 1, INT64_MAX - 1, INT64_MAX - 1, INT64_MAX - 1);
}
END_TEST

START_TEST(test_overflow)
{
    struct score_pod_request r;

    /* 2 * (INT64_MAX / 2 + 1) = 2^63. */
    const int64_t big = INT64_MAX / 2 + 1;
    const struct score_container c[] = {BOTH(big, 1), BOTH(big, 1)};
    const struct score_pod pod = {.containers = c, .n_containers = N(c)};
    ck_assert_int_eq(score_pod_request(&pod, &r), -ERANGE);

    /* Memory overflowing alone is enough. */
    const struct score_container m[] = {BOTH(1, INT64_MAX), BOTH(1, 1)};
    const struct score_pod podm = {.containers = m, .n_containers = N(m)};
    ck_assert_int_eq(score_pod_request(&podm, &r), -ERANGE);

    /* Sidecar INT64_MAX before an init container of 1: the init candidate overflows. */
    const struct score_container one[] = {BOTH(0, 0)};
    const struct score_container init[] = {SIDECAR(INT64_MAX, 0), BOTH(1, 0)};
    const struct score_pod pods = {.containers = one,
                                   .n_containers = N(one),
                                   .init_containers = init,
                                   .n_init_containers = N(init)};
    ck_assert_int_eq(score_pod_request(&pods, &r), -ERANGE);

    /* Overhead on top of INT64_MAX. */
    const struct score_container max[] = {BOTH(INT64_MAX, 0)};
    const struct score_pod podo = {.containers = max, .n_containers = N(max), .overhead = CPU(1)};
    ck_assert_int_eq(score_pod_request(&podo, &r), -ERANGE);

    /* Only the non_zero sum overflows: INT64_MAX - 50 + default 100. */
    const struct score_container nz[] = {BOTH(INT64_MAX - 50, 0), MEM(0)};
    const struct score_pod podnz = {.containers = nz, .n_containers = N(nz)};
    ck_assert_int_eq(score_pod_request(&podnz, &r), -ERANGE);
}
END_TEST

/* Upstream's tables, ported: the cases expressible with cpu and memory in spec
 * (no status resources, no DRA, no hugepages or storage beyond noting that they
 * leave cpu and memory alone). Pods are given as containers, init containers
 * (S marks a sidecar), pod-level requests and overhead; cpu in millicores.
 * ExcludeOverhead cases are ported with the overhead left out, which is what
 * the option means. Expected values are upstream's. */
#define UP_MAX 5
struct ported_case {
    const char *name;
    struct score_container c[UP_MAX];
    size_t nc;
    struct score_container init[UP_MAX];
    size_t ni;
    struct score_container pod_level;
    struct score_container overhead;
    int64_t cpu, mem;
};

/* clang-format off */
#define S(cpu, mem) SIDECAR(cpu, mem)
#define SC(cpu) SIDECAR_CPU(cpu)
static const struct ported_case pod_requests_cases[] = {
    /* component-helpers resource/helpers_test.go TestPodRequestsAndLimits (getPod: one
     * container and one init container with the same requests) */
    {"just-limit-no-overhead", {NONE}, 1, {NONE}, 1, NONE, NONE, 0, 0},
    {"just-overhead", {NONE}, 1, {NONE}, 1, NONE, BOTH(5000, 5), 5000, 5},
    {"req-and-overhead", {BOTH(1000, 10)}, 1, {BOTH(1000, 10)}, 1, NONE, BOTH(5000, 5), 6000, 15},
    {"all-req-lim-and-overhead", {BOTH(1000, 10)}, 1, {BOTH(1000, 10)}, 1, NONE, BOTH(5000, 5), 6000, 15},
    {"req-some-lim-and-overhead", {BOTH(1000, 10)}, 1, {BOTH(1000, 10)}, 1, NONE, BOTH(5000, 5), 6000, 15},
    /* TestPodRequestsAndLimitsWithoutOverhead (ExcludeOverhead) */
    {"two container no overhead", {BOTH(1000, 5), BOTH(4000, 12)}, 2, {NONE}, 0, NONE, NONE, 5000, 17},
    {"two container with overhead (excluded)", {BOTH(1000, 5), BOTH(4000, 12)}, 2, {NONE}, 0, NONE, NONE, 5000, 17},
    {"two container, massive init", {BOTH(1000, 5), BOTH(4000, 12)}, 2,
     {BOTH(1000, 5), BOTH(40000, 120)}, 2, NONE, NONE, 40000, 120},
    /* TestPodResourceRequests, without UseStatusResources */
    {"nil options, larger init container", {CPU(1000)}, 1, {CPU(4000)}, 1, NONE, NONE, 4000, 0},
    {"nil options, larger containers", {CPU(2000), CPU(3000)}, 2, {CPU(2000)}, 1, NONE, NONE, 5000, 0},
    {"pod overhead excluded", {CPU(2000), CPU(3000)}, 2, {CPU(2000)}, 1, NONE, NONE, 5000, 0},
    {"pod overhead included", {CPU(2000), CPU(3000)}, 2, {CPU(2000)}, 1, NONE, BOTH(1000, GI), 6000, GI},
    {"resized, infeasible, but don't use status", {CPU(4000)}, 1, {NONE}, 0, NONE, NONE, 4000, 0},
    {"resized, restartable init container, infeasible, but don't use status", {NONE}, 0, {SC(4000)}, 1,
     NONE, NONE, 4000, 0},
    {"restartable init container", {CPU(1000)}, 1, {SC(1000)}, 1, NONE, NONE, 2000, 0},
    {"multiple restartable init containers", {CPU(1000)}, 1,
     {CPU(5000), SC(1000), SC(2000), SC(3000)}, 4, NONE, NONE, 7000, 0},
    {"multiple restartable and regular init containers", {CPU(1000)}, 1,
     {CPU(5000), SC(1000), SC(2000), CPU(5000), SC(3000)}, 5, NONE, NONE, 8000, 0},
    {"restartable-init, init and regular", {CPU(100000)}, 1, {SC(10000), CPU(200000)}, 2, NONE, NONE,
     210000, 0},
    /* TestPodLevelResourceRequests, pod-level resources not skipped */
    {"nil", {NONE}, 0, {NONE}, 0, NONE, NONE, 0, 0},
    {"pod level memory resource", {NONE}, 0, {NONE}, 0, MEM(2 * MI), NONE, 0, 2 * MI},
    {"pod level memory and container level cpu", {CPU(2)}, 1, {NONE}, 0, MEM(2 * MI), NONE, 2, 2 * MI},
    {"pod level unsupported resources set at pod-level", {MEM(3 * MI)}, 1, {NONE}, 0, NONE, NONE, 0, 3 * MI},
    {"only container level resources set", {BOTH(2, 3 * MI)}, 1, {NONE}, 0, NONE, NONE, 2, 3 * MI},
    {"both container-level and pod-level resources set", {BOTH(2, 3 * MI)}, 1, {NONE}, 0,
     BOTH(8, 6 * MI), NONE, 8, 6 * MI},
    {"container-level resources and init container set", {BOTH(2, 3 * MI)}, 1, {BOTH(4, 5 * MI)}, 1,
     NONE, NONE, 4, 5 * MI},
    {"container-level resources and sidecar container set", {BOTH(2, 3 * MI)}, 1, {S(4, 5 * MI)}, 1,
     NONE, NONE, 6, 8 * MI},
    {"container-level resources, init and sidecar container set", {BOTH(2, 3 * MI)}, 1,
     {S(4, 5 * MI), BOTH(8, 6 * MI)}, 2, NONE, NONE, 12, 11 * MI},
    {"pod-level resources, container-level resources, init and sidecar container set",
     {BOTH(2, 3 * MI)}, 1, {S(4, 5 * MI), BOTH(8, 6 * MI)}, 2, BOTH(18, 15 * MI), NONE, 18, 15 * MI},
    {"pod-level resources, hugepage request/limit single page size", {NONE}, 0, {NONE}, 0,
     MEM(10 * MI), NONE, 0, 10 * MI},
    {"pod-level resources, hugepage request/limit multiple page sizes", {NONE}, 0, {NONE}, 0,
     CPU(1000), NONE, 1000, 0},
    {"pod-level resources, container-level resources, hugepage single page size", {NONE}, 1, {NONE}, 0,
     CPU(1000), NONE, 1000, 0},
    {"pod-level resources, container-level resources, hugepage multiple page sizes", {CPU(1000)}, 1,
     {NONE}, 0, CPU(1000), NONE, 1000, 0},
    {"pod-level resources, container-level resources, hugepage sizes between levels", {MEM(4 * MI)}, 1,
     {NONE}, 0, CPU(1000), NONE, 1000, 4 * MI},
    /* TestAggregateContainerRequestsAndLimits, requests, without status */
    {"one container with limits", {NONE}, 1, {NONE}, 0, NONE, NONE, 0, 0},
    {"two containers with limits", {NONE, NONE}, 2, {NONE}, 0, NONE, NONE, 0, 0},
    {"one container with requests", {CPU(9000)}, 1, {NONE}, 0, NONE, NONE, 9000, 0},
    {"two containers with requests", {CPU(9000), CPU(9000)}, 2, {NONE}, 0, NONE, NONE, 18000, 0},
    {"regular and init containers with requests", {CPU(9000)}, 1, {CPU(9000)}, 1, NONE, NONE, 9000, 0},
    {"regular, init and sidecar containers with requests", {CPU(9000)}, 1, {SC(8000), CPU(6000)}, 2,
     NONE, NONE, 17000, 0},
    {"regular and init containers with limits", {NONE}, 1, {NONE}, 1, NONE, NONE, 0, 0},
    {"regular, init and sidecar containers with limits", {NONE}, 1,
     {{.restartable = true}, NONE}, 2, NONE, NONE, 0, 0},
};

/* pkg/scheduler/framework/plugins/noderesources/resource_allocation_test.go
 * TestResourceAllocationScorerCalculateRequests: calculatePodResourceRequest, the
 * scorer's view of the pod being placed (non_zero_scored). */
static const struct ported_case scorer_request_cases[] = {
    {"overhead only", {NONE}, 0, {NONE}, 0, NONE, BOTH(1000, MI), 1000, MI},
    {"1x requestless container", {NONE}, 1, {NONE}, 0, NONE, NONE, 100, 200 * MI},
    {"2x requestless container", {NONE, NONE}, 2, {NONE}, 0, NONE, NONE, 200, 400 * MI},
    {"request container + requestless container", {BOTH(1000, MI), NONE}, 2, {NONE}, 0, NONE, NONE,
     1100, MI + 200 * MI},
    {"container + requestless container + overhead", {BOTH(1000, MI), NONE}, 2, {NONE}, 0, NONE,
     BOTH(1000, MI), 2100, 2 * MI + 200 * MI},
    {"init container + container + requestless container + overhead", {BOTH(1000, MI), NONE}, 2,
     {CPU(3000)}, 1, NONE, BOTH(1000, MI), 4000, 2 * MI + 200 * MI},
    {"requestless init container + small init container + small container", {BOTH(3, 3)}, 1,
     {NONE, BOTH(1, 1)}, 2, NONE, NONE, 100, 200 * MI},
    {"requestless init container + small init container + small container + requestless container",
     {BOTH(3, 3), NONE}, 2, {NONE, BOTH(1, 1)}, 2, NONE, NONE, 103, 3 + 200 * MI},
};
#undef S
#undef SC
/* clang-format on */

static void ported_pod(const struct ported_case *t, struct score_pod *pod)
{
    *pod = (struct score_pod){.containers = t->c,
                              .n_containers = t->nc,
                              .init_containers = t->init,
                              .n_init_containers = t->ni,
                              .pod_level = t->pod_level,
                              .overhead = t->overhead};
}

START_TEST(test_upstream_pod_requests)
{
    const struct ported_case *t = &pod_requests_cases[_i];
    struct score_pod pod;
    struct score_pod_request r;
    ported_pod(t, &pod);
    ck_assert_int_eq(score_pod_request(&pod, &r), 0);
    ck_assert_msg(r.real[SCORE_CPU] == t->cpu && r.real[SCORE_MEMORY] == t->mem,
                  "%s: cpu %lld memory %lld, want %lld %lld", t->name, (long long)r.real[SCORE_CPU],
                  (long long)r.real[SCORE_MEMORY], (long long)t->cpu, (long long)t->mem);
}
END_TEST

START_TEST(test_upstream_scorer_requests)
{
    const struct ported_case *t = &scorer_request_cases[_i];
    struct score_pod pod;
    struct score_pod_request r;
    ported_pod(t, &pod);
    ck_assert_int_eq(score_pod_request(&pod, &r), 0);
    ck_assert_msg(r.non_zero_scored[SCORE_CPU] == t->cpu &&
                      r.non_zero_scored[SCORE_MEMORY] == t->mem,
                  "%s: cpu %lld memory %lld, want %lld %lld", t->name,
                  (long long)r.non_zero_scored[SCORE_CPU],
                  (long long)r.non_zero_scored[SCORE_MEMORY], (long long)t->cpu, (long long)t->mem);
}
END_TEST

/* In-place resize (component-helpers AggregateContainerRequests, v1.37):
 * a running pod charges max(spec, actuated, allocated) of the container
 * sums; Infeasible drops the spec; the pod-level status maps stand for the
 * containers' when both are there. fit (the pod being placed) is the spec. */
START_TEST(test_resize_status)
{
    struct score_container c[] = {BOTH(1000, GI)};
    struct score_pod pod = {.containers = c, .n_containers = N(c)};
    struct score_pod_request r;

    /* Allocated 2 cores (resize up accepted), actuated still 1: real 2000. */
    c[0].allocated = (struct score_list){.req = {2000, GI}, .has = {true, true}, .set = true};
    ck_assert_int_eq(score_pod_request(&pod, &r), 0);
    ck_assert_int_eq(r.fit[SCORE_CPU], 1000);
    ck_assert_int_eq(r.real[SCORE_CPU], 2000);
    ck_assert_int_eq(r.non_zero[SCORE_CPU], 2000);

    /* Spec lowered to 500m, status still 2 cores: the larger is charged. */
    c[0].req[SCORE_CPU] = 500;
    ck_assert_int_eq(score_pod_request(&pod, &r), 0);
    ck_assert_int_eq(r.real[SCORE_CPU], 2000);

    /* Infeasible, spec 4 cores: the spec no longer counts. */
    c[0].req[SCORE_CPU] = 4000;
    pod.resize_infeasible = true;
    ck_assert_int_eq(score_pod_request(&pod, &r), 0);
    ck_assert_int_eq(r.fit[SCORE_CPU], 4000);
    ck_assert_int_eq(r.real[SCORE_CPU], 2000);

    /* Actuated lists no memory: allocated's memory (1Gi) still counts. */
    c[0].actuated = (struct score_list){.req = {3000, 0}, .has = {true, false}, .set = true};
    ck_assert_int_eq(score_pod_request(&pod, &r), 0);
    ck_assert_int_eq(r.real[SCORE_CPU], 3000);
    ck_assert_int_eq(r.real[SCORE_MEMORY], GI);

    /* Both pod-level status maps: they replace the containers' statuses. */
    pod.status_allocated = (struct score_list){.req = {100, 0}, .has = {true, false}, .set = true};
    pod.status_actuated = (struct score_list){.req = {200, 0}, .has = {true, false}, .set = true};
    ck_assert_int_eq(score_pod_request(&pod, &r), 0);
    ck_assert_int_eq(r.real[SCORE_CPU], 200);
    ck_assert_int_eq(r.real[SCORE_MEMORY], 0); /* Infeasible: no spec, no status memory */
}
END_TEST

START_TEST(test_resize_pod_level_status)
{
    /* Pod-level cpu 1 in the spec, status.resources.requests cpu 3: the
     * override is the larger, 3; without status.resources the spec's 1. */
    const struct score_container c[] = {CPU(500)};
    struct score_pod pod = {.containers = c, .n_containers = N(c), .pod_level = CPU(1000)};
    struct score_pod_request r;
    pod.status_actuated = (struct score_list){.req = {3000, 0}, .has = {true, false}, .set = true};
    ck_assert_int_eq(score_pod_request(&pod, &r), 0);
    ck_assert_int_eq(r.real[SCORE_CPU], 1000);
    pod.status_resources = true;
    ck_assert_int_eq(score_pod_request(&pod, &r), 0);
    ck_assert_int_eq(r.fit[SCORE_CPU], 1000);
    ck_assert_int_eq(r.real[SCORE_CPU], 3000);
    ck_assert_int_eq(r.non_zero[SCORE_CPU], 3000);
}
END_TEST

/* ---- the in-flight estimate (score_pod_estimate) ---- */

static const struct score_in_flight_rules est_requests = {SCORE_IN_FLIGHT_REQUESTS, {850, 700}};
static const struct score_in_flight_rules est_limits = {SCORE_IN_FLIGHT_LIMITS, {850, 700}};
static const struct score_in_flight_rules est_factor = {SCORE_IN_FLIGHT_FACTOR, {850, 700}};

static void check_estimate(const struct score_pod *pod, const struct score_in_flight_rules *rules,
                           int64_t cpu, int64_t mem)
{
    int64_t out[SCORE_NRES];
    ck_assert_int_eq(score_pod_estimate(pod, rules, out), 0);
    ck_assert_int_eq(out[SCORE_CPU], cpu);
    ck_assert_int_eq(out[SCORE_MEMORY], mem);
}

/* One container with a CPU limit and no memory limit, one without limits
 * and no memory request (the scoring default, 200Mi). */
START_TEST(test_estimate_each_mode)
{
    const struct score_container c[] = {
        {.req = {1000, GI}, .has = {true, true}, .lim = {2000, 0}, .has_lim = {true, false}},
        CPU(1000),
    };
    const struct score_pod pod = {.containers = c, .n_containers = N(c)};
    /* requests: non_zero, what damping always charged */
    check_estimate(&pod, &est_requests, 2000, GI + 200 * MI);
    /* limits: 2000m + 1000m; memory has no limit anywhere: the requests */
    check_estimate(&pod, &est_limits, 3000, GI + 200 * MI);
    /* factor: 2000m + 850m; memory (1Gi + 200Mi) x 0.7, each rounded up */
    check_estimate(&pod, &est_factor, 2850, (GI * 7 + 9) / 10 + (200 * MI * 7 + 9) / 10);
}
END_TEST

/* Factor rounds up to the whole millicore: 1m x 0.85 is 1m, 3m is 3m
 * (2.55 up), never 0 for a request that is not 0. */
START_TEST(test_estimate_factor_rounds_up)
{
    const struct score_container one[] = {BOTH(1, 1)}, three[] = {BOTH(3, 10)};
    const struct score_pod p1 = {.containers = one, .n_containers = 1};
    const struct score_pod p3 = {.containers = three, .n_containers = 1};
    check_estimate(&p1, &est_factor, 1, 1);
    check_estimate(&p3, &est_factor, 3, 7);
    /* an explicit 0 stays 0 */
    const struct score_container zero[] = {BOTH(0, 0)};
    const struct score_pod p0 = {.containers = zero, .n_containers = 1};
    check_estimate(&p0, &est_factor, 0, 0);
}
END_TEST

/* The request's rules hold for the estimate: an init container larger than
 * the app containers counts (with the sidecars before it), the overhead is
 * added unscaled, the pod-level limit overrides. */
START_TEST(test_estimate_init_containers_sidecars_overhead)
{
    const struct score_container init[] = {
        {.req = {500, GI},
         .has = {true, true},
         .lim = {700, 0},
         .has_lim = {true, false},
         .restartable = true},
        {.req = {3000, GI}, .has = {true, true}, .lim = {4000, 0}, .has_lim = {true, false}},
    };
    const struct score_container c[] = {BOTH(1000, GI)};
    struct score_pod pod = {.containers = c,
                            .n_containers = N(c),
                            .init_containers = init,
                            .n_init_containers = N(init),
                            .overhead = BOTH(100, 10 * MI)};
    /* limits: max(1000 + 700, 4000 + 700) + 100 = 4800 */
    check_estimate(&pod, &est_limits, 4800, 2 * GI + 10 * MI);
    /* factor: max(850 + 700, 4000 + 700) + 100 (overhead unscaled) */
    check_estimate(&pod, &est_factor, 4800,
                   (2 * GI * 7 + 9) / 10 + 10 * MI); /* memory: max(0.7+0.7, 0.7+0.7)Gi */
    /* a pod-level limit replaces the containers' sum for its key */
    pod.pod_level = (struct score_container){
        .req = {2000, 0}, .has = {true, false}, .lim = {6000, 0}, .has_lim = {true, false}};
    check_estimate(&pod, &est_limits, 6100, 2 * GI + 10 * MI);
    /* a pod-level request without a pod-level limit: the containers'
     * limits (4700m) still bound the pod, above the request's 2000m */
    pod.pod_level.has_lim[SCORE_CPU] = false;
    check_estimate(&pod, &est_limits, 4800, 2 * GI + 10 * MI);
}
END_TEST

/* Limits near INT64_MAX sum past it where the requests do not: the
 * estimate saturates (errs towards more load) and the pod is kept. */
START_TEST(test_estimate_saturates)
{
    const struct score_container c[] = {
        {.req = {1000, GI},
         .has = {true, true},
         .lim = {0, INT64_MAX / 2 + 1},
         .has_lim = {false, true}},
        {.req = {1000, GI},
         .has = {true, true},
         .lim = {0, INT64_MAX / 2 + 1},
         .has_lim = {false, true}},
    };
    const struct score_pod pod = {.containers = c, .n_containers = N(c)};
    check_estimate(&pod, &est_limits, 2000, INT64_MAX);
}
END_TEST

Suite *podreq_suite(void)
{
    Suite *s = suite_create("podreq");
    TCase *tc = tcase_create("podreq");
    tcase_add_test(tc, test_no_containers);
    tcase_add_test(tc, test_one_container_without_requests);
    tcase_add_test(tc, test_explicit_zero_not_defaulted);
    tcase_add_test(tc, test_defaults_per_container);
    tcase_add_test(tc, test_protocol_worked_example);
    tcase_add_test(tc, test_fixture_cap_complex);
    tcase_add_test(tc, test_sidecar_kep753);
    tcase_add_test(tc, test_sidecar_after_init);
    tcase_add_test(tc, test_several_sidecars_in_order);
    tcase_add_test(tc, test_sidecars_dominate);
    tcase_add_test(tc, test_overhead_after_max);
    tcase_add_test(tc, test_pod_level_overrides_set_keys);
    tcase_add_test(tc, test_node_view_pod_level_cpu_memory_missing_everywhere);
    tcase_add_test(tc, test_node_view_pod_level_cpu_memory_in_one_container);
    tcase_add_test(tc, test_node_view_pod_level_memory_cpu_in_one_container);
    tcase_add_test(tc, test_node_view_pod_level_with_init_and_sidecar);
    tcase_add_test(tc, test_node_view_pod_level_init_and_sidecar_without_memory);
    tcase_add_test(tc, test_node_view_overhead_and_zero_name_the_key);
    tcase_add_test(tc, test_node_view_pod_level_hugepages_only);
    tcase_add_test(tc, test_node_view_without_pod_level_defaults_per_container);
    tcase_add_test(tc, test_boundary_no_overflow);
    tcase_add_test(tc, test_overflow);
    tcase_add_test(tc, test_resize_status);
    tcase_add_test(tc, test_resize_pod_level_status);
    tcase_add_test(tc, test_estimate_each_mode);
    tcase_add_test(tc, test_estimate_factor_rounds_up);
    tcase_add_test(tc, test_estimate_init_containers_sidecars_overhead);
    tcase_add_test(tc, test_estimate_saturates);
    tcase_add_loop_test(tc, test_upstream_pod_requests, 0, (int)N(pod_requests_cases));
    tcase_add_loop_test(tc, test_upstream_scorer_requests, 0, (int)N(scorer_request_cases));
    suite_add_tcase(s, tc);
    return s;
}

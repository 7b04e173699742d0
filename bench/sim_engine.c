/*
 * bench-sim: times the simulation engine (placement/simulate.h) alone, on a
 * generated cluster, without any decoding.
 *
 *   bench-sim [NODES [PODS [WORKLOADS [THREADS [ORDER]]]]]
 *             defaults 5000 50000 150 2 interleaved; ORDER "grouped" keeps
 *             each workload's pods together, "unique" gives every pod its
 *             own request (no two pods share a shape: the worst case)
 *
 * Nodes come from six pools like a real cluster's: general and large
 * amd64, arm64, memory-optimised, GPU nodes tainted nvidia.com/gpu=true:
 * NoSchedule, control-plane nodes tainted NoSchedule; 1 % are cordoned and
 * 1 % NotReady (not-ready taints). Each has 9 labels and 20-60 % of its
 * allocatable already requested. Pods come from WORKLOADS workloads with
 * Zipf-like replica counts, each one shape: a request, some a nodeSelector
 * (arch, pool), required affinity (zone In, instance type NotIn), GPU
 * tolerations, a priority. The engine runs all four strategies on THREADS
 * threads; the program prints the time of the preparation and of the runs,
 * the engine's memory and the maximum resident size, and a summary per
 * strategy. Deterministic (fixed seed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench/rng.h"
#include "placement/sim_run.h"

#define GI (1024LL * 1024 * 1024)
#define MI (1024LL * 1024)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct pool {
    const char *name, *arch, *type;
    int64_t cpu, mem;
    int percent;
};

static const struct pool pools[] = {
    {"general", "amd64", "m6i.4xlarge", 16000, 64 * GI, 55},
    {"large", "amd64", "m6i.8xlarge", 32000, 128 * GI, 15},
    {"arm", "arm64", "m7g.4xlarge", 16000, 64 * GI, 12},
    {"memory", "amd64", "r6i.2xlarge", 8000, 64 * GI, 10},
    {"gpu", "amd64", "p3.2xlarge", 8000, 61 * GI, 5},
    {"control-plane", "amd64", "m6i.xlarge", 4000, 16 * GI, 3},
};

static const char *const zones[] = {"zone-a", "zone-b", "zone-c"};

static struct place_taint gpu_taint = {"nvidia.com/gpu", "true", PLACE_EFFECT_NO_SCHEDULE};
static struct place_taint cp_taint = {"node-role.kubernetes.io/control-plane", "",
                                      PLACE_EFFECT_NO_SCHEDULE};
static struct place_taint not_ready[2] = {
    {PLACE_TAINT_NOT_READY, "", PLACE_EFFECT_NO_SCHEDULE},
    {PLACE_TAINT_NOT_READY, "", PLACE_EFFECT_NO_EXECUTE},
};
static struct place_taint cordoned = {PLACE_TAINT_UNSCHEDULABLE, "", PLACE_EFFECT_NO_SCHEDULE};

/* Default tolerations every pod read back from the API has. */
static const struct place_toleration default_tol[2] = {
    {PLACE_TAINT_NOT_READY, PLACE_TOLERATION_EXISTS, "", PLACE_EFFECT_NO_EXECUTE},
    {PLACE_TAINT_UNREACHABLE, PLACE_TOLERATION_EXISTS, "", PLACE_EFFECT_NO_EXECUTE},
};
static const struct place_toleration gpu_tol[3] = {
    {PLACE_TAINT_NOT_READY, PLACE_TOLERATION_EXISTS, "", PLACE_EFFECT_NO_EXECUTE},
    {PLACE_TAINT_UNREACHABLE, PLACE_TOLERATION_EXISTS, "", PLACE_EFFECT_NO_EXECUTE},
    {"nvidia.com/gpu", PLACE_TOLERATION_EQUAL, "true", PLACE_EFFECT_NO_SCHEDULE},
};

static const char *const two_zones[] = {"zone-a", "zone-b"};
static const char *const big_types[] = {"m6i.8xlarge"};
static const struct place_requirement zone_in = {"topology.kubernetes.io/zone", PLACE_OP_IN,
                                                 two_zones, 2};
static const struct place_requirement not_big[2] = {
    {"topology.kubernetes.io/zone", PLACE_OP_IN, two_zones, 2},
    {"node.kubernetes.io/instance-type", PLACE_OP_NOT_IN, big_types, 1},
};
static const struct place_selector_term zone_term = {&zone_in, 1, NULL, 0};
static const struct place_selector_term not_big_term = {not_big, 2, NULL, 0};
static const struct place_label sel_amd64 = {"kubernetes.io/arch", "amd64"};
static const struct place_label sel_arm64 = {"kubernetes.io/arch", "arm64"};
static const struct place_label sel_gpu = {"pool", "gpu"};
static const struct place_label sel_memory = {"pool", "memory"};

static int64_t pick_cpu(void)
{
    static const int64_t cpus[] = {50, 100, 250, 500, 500, 1000, 1000, 1500, 2000, 4000};
    return cpus[pick(10)];
}

static int64_t pick_mem(void)
{
    static const int64_t mems[] = {64 * MI, 128 * MI, 256 * MI, 512 * MI, 1 * GI,
                                   1 * GI,  2 * GI,   4 * GI,   8 * GI};
    return mems[pick(9)];
}

/* Node @i of the cluster: a pool by its share, kubelet-like labels, the
 * pool's taint, 1 % cordoned and 1 % NotReady, 20-60 % requested already. */
static void gen_nodes(size_t n_nodes, struct place_sim_node *nodes, struct place_label *labels,
                      char *names)
{
    for (size_t i = 0; i < n_nodes; i++) {
        unsigned roll = pick(100), acc = 0;
        size_t p = 0;
        while (p + 1 < sizeof(pools) / sizeof(pools[0]) && roll >= acc + (unsigned)pools[p].percent)
            acc += (unsigned)pools[p++].percent;
        const struct pool *pl = &pools[p];
        char *name = names + 32 * i;
        snprintf(name, 32, "ip-10-%u-%u-%u.ec2", (unsigned)(i / 250 % 1000), (unsigned)(i % 250),
                 pick(1000));
        struct place_label *l = labels + 9 * i;
        l[0] = (struct place_label){"kubernetes.io/hostname", name};
        l[1] = (struct place_label){"kubernetes.io/arch", pl->arch};
        l[2] = (struct place_label){"kubernetes.io/os", "linux"};
        l[3] = (struct place_label){"topology.kubernetes.io/zone", zones[pick(3)]};
        l[4] = (struct place_label){"topology.kubernetes.io/region", "eu-west-1"};
        l[5] = (struct place_label){"node.kubernetes.io/instance-type", pl->type};
        l[6] = (struct place_label){"pool", pl->name};
        l[7] =
            (struct place_label){"eks.amazonaws.com/capacityType", pick(4) ? "ON_DEMAND" : "SPOT"};
        l[8] = (struct place_label){"beta.kubernetes.io/arch", pl->arch};
        struct place_sim_node *n = &nodes[i];
        n->facts.name = name;
        n->facts.labels = l;
        n->facts.n_labels = 9;
        n->facts.max_pods = 110;
        if (strcmp(pl->name, "gpu") == 0) {
            n->facts.taints = &gpu_taint;
            n->facts.n_taints = 1;
        } else if (strcmp(pl->name, "control-plane") == 0) {
            n->facts.taints = &cp_taint;
            n->facts.n_taints = 1;
        }
        unsigned state = pick(100);
        if (state == 0) {
            n->facts.unschedulable = true;
            n->facts.taints = &cordoned;
            n->facts.n_taints = 1;
        } else if (state == 1) {
            n->facts.taints = not_ready;
            n->facts.n_taints = 2;
        }
        n->res.alloc[SCORE_CPU] = pl->cpu - 100 * (int64_t)pick(3);
        n->res.alloc[SCORE_MEMORY] = pl->mem - (int64_t)pick(4) * 512 * MI;
        int used_pct = 20 + (int)pick(41);
        n->facts.pods = 5 + pick(30);
        for (int r = 0; r < SCORE_NRES; r++) {
            n->facts.requested[r] = n->res.alloc[r] * used_pct / 100;
            n->res.used[r] = n->facts.requested[r];
            n->res.used_non_zero[r] = n->facts.requested[r] + n->facts.pods * 10;
        }
    }
}

/* Zipf-like replica counts that sum to @n_pods. */
static void gen_replicas(size_t n_work, size_t n_pods, size_t *replicas)
{
    /* Workload w gets a share ~ 1 / (w + 1). */
    double hsum = 0;
    for (size_t w = 0; w < n_work; w++)
        hsum += 1.0 / (double)(w + 1);
    size_t total = 0;
    for (size_t w = 0; w < n_work; w++) {
        replicas[w] = (size_t)((double)n_pods / hsum / (double)(w + 1));
        total += replicas[w];
    }
    for (size_t w = 0; total < n_pods; w = (w + 1) % n_work, total++)
        replicas[w]++;
}

/* One workload's pod: its request (some BestEffort), priority and constraints. */
static void gen_workload(struct place_sim_pod *p)
{
    int64_t cpu = pick_cpu(), mem = pick_mem();
    p->request.real[SCORE_CPU] = pick(10) ? cpu : 0; /* some BestEffort-ish */
    p->request.real[SCORE_MEMORY] = p->request.real[SCORE_CPU] ? mem : 0;
    p->request.non_zero[SCORE_CPU] = p->request.real[SCORE_CPU] ? cpu : SCORE_DEFAULT_MILLI_CPU;
    p->request.non_zero[SCORE_MEMORY] = p->request.real[SCORE_MEMORY] ? mem : SCORE_DEFAULT_MEMORY;
    /* No pod-level requests, no resize status: scored as charged, checked as charged. */
    memcpy(p->request.non_zero_scored, p->request.non_zero, sizeof(p->request.non_zero));
    memcpy(p->request.fit, p->request.real, sizeof(p->request.real));
    p->constraints.tolerations = default_tol;
    p->constraints.n_tolerations = 2;
    p->priority = pick(5) == 0 ? 1000 : 0;
    switch (pick(10)) {
    case 0:
        p->constraints.node_selector = &sel_amd64;
        p->constraints.n_node_selector = 1;
        break;
    case 1:
        p->constraints.node_selector = &sel_arm64;
        p->constraints.n_node_selector = 1;
        break;
    case 2:
        p->constraints.has_required_affinity = true;
        p->constraints.affinity_terms = &zone_term;
        p->constraints.n_affinity_terms = 1;
        break;
    case 3:
        p->constraints.has_required_affinity = true;
        p->constraints.affinity_terms = &not_big_term;
        p->constraints.n_affinity_terms = 1;
        break;
    case 4:
        if (pick(2) == 0) {
            p->constraints.node_selector = &sel_gpu;
            p->constraints.n_node_selector = 1;
            p->constraints.tolerations = gpu_tol;
            p->constraints.n_tolerations = 3;
        } else {
            p->constraints.node_selector = &sel_memory;
            p->constraints.n_node_selector = 1;
        }
        break;
    default:
        break;
    }
}

/* The pods in queue order: replicas of each workload, shuffled unless
 * @grouped; with @unique every pod's request differs (no shape repeats). */
static void gen_pods(const struct place_sim_pod *work, size_t n_work, const size_t *replicas,
                     uint32_t *slot, struct place_sim_pod *pods, size_t n_pods, int grouped,
                     int unique)
{
    size_t k = 0;
    for (size_t w = 0; w < n_work; w++)
        for (size_t r = 0; r < replicas[w] && k < n_pods; r++)
            slot[k++] = (uint32_t)w;
    if (!grouped)
        for (size_t i = n_pods; i > 1; i--) {
            size_t j = pick((unsigned)i);
            uint32_t t = slot[i - 1];
            slot[i - 1] = slot[j];
            slot[j] = t;
        }
    for (size_t i = 0; i < n_pods; i++) {
        pods[i] = work[slot[i]];
        if (unique) {
            /* Memory differs by 4 KiB from pod to pod: no shape repeats. */
            pods[i].request.real[SCORE_CPU] = 1 + (int64_t)(i * 7919 % 3989);
            pods[i].request.real[SCORE_MEMORY] = 64 * MI + (int64_t)i * 4096;
            memcpy(pods[i].request.fit, pods[i].request.real, sizeof(pods[i].request.real));
            memcpy(pods[i].request.non_zero, pods[i].request.real, sizeof(pods[i].request.real));
            memcpy(pods[i].request.non_zero_scored, pods[i].request.real,
                   sizeof(pods[i].request.real));
        }
    }
}

static void report(struct place_sim *sim, struct place_sim_result res[4], size_t n_nodes,
                   size_t n_pods, size_t n_work, unsigned threads, const char *mode,
                   double seconds[3])
{
    double t0 = seconds[0], t1 = seconds[1], t2 = seconds[2];
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);

    printf("nodes %zu pods %zu workloads %zu threads %u %s\n", n_nodes, n_pods, n_work, threads,
           mode);
    size_t n_classes, n_shapes;
    place_sim_groups(sim, &n_classes, &n_shapes);
    printf("constraint classes %zu, shapes %zu\n", n_classes, n_shapes);
    printf("prepare %.3f s  run (4 strategies) %.3f s  total %.3f s\n", t1 - t0, t2 - t1, t2 - t0);
    size_t peak = 0;
    for (int i = 0; i < 4; i++)
        peak += res[i].peak_bytes;
    printf(
        "engine memory: prepared %.1f MiB, runs' peaks summed %.1f MiB; max RSS %.1f MiB "
        "(input structs %.1f MiB)\n",
        (double)place_sim_bytes(sim) / MI, (double)peak / MI, (double)ru.ru_maxrss / 1024,
        (double)(n_nodes * (sizeof(struct place_sim_node) + 9 * sizeof(struct place_label) + 32) +
                 n_pods * sizeof(struct place_sim_pod)) /
            MI);
    for (int i = 0; i < 4; i++) {
        const struct place_sim_summary *s = &res[i].summary;
        printf("%-8s placed %zu not %zu nodes used %zu cpu ratio min %.3f max %.3f mean %.3f "
               "cv %.4f stranded cpu %lldm on %zu nodes\n",
               score_strategy_name(res[i].strategy), s->placed, s->not_placed, s->nodes_used,
               s->ratio[SCORE_CPU].min, s->ratio[SCORE_CPU].max, s->ratio[SCORE_CPU].mean,
               s->ratio[SCORE_CPU].cv, (long long)s->stranded[SCORE_CPU], s->stranded_nodes);
        place_sim_result_destroy(&res[i]);
    }
}

int main(int argc, char **argv)
{
    size_t n_nodes = argc > 1 ? strtoul(argv[1], NULL, 10) : 5000;
    size_t n_pods = argc > 2 ? strtoul(argv[2], NULL, 10) : 50000;
    size_t n_work = argc > 3 ? strtoul(argv[3], NULL, 10) : 150;
    unsigned threads = argc > 4 ? (unsigned)strtoul(argv[4], NULL, 10) : 2;
    const char *mode = argc > 5 ? argv[5] : "interleaved";
    int grouped = strcmp(mode, "grouped") == 0, unique = strcmp(mode, "unique") == 0;
    if (n_work == 0)
        n_work = 1;

    struct place_sim_node *nodes = calloc(n_nodes, sizeof(*nodes));
    struct place_label *labels = calloc(n_nodes * 9, sizeof(*labels));
    char *names = calloc(n_nodes, 32);
    struct place_sim_pod *pods = calloc(n_pods, sizeof(*pods));
    struct place_sim_pod *work = calloc(n_work, sizeof(*work));
    size_t *replicas = calloc(n_work, sizeof(*replicas));
    uint32_t *slot = calloc(n_pods, sizeof(*slot));
    if (nodes == NULL || labels == NULL || names == NULL || pods == NULL || work == NULL ||
        replicas == NULL || slot == NULL)
        return 1;

    gen_nodes(n_nodes, nodes, labels, names);
    gen_replicas(n_work, n_pods, replicas);
    for (size_t w = 0; w < n_work; w++)
        gen_workload(&work[w]);
    gen_pods(work, n_work, replicas, slot, pods, n_pods, grouped, unique);

    struct place_sim_input in = {
        .nodes = nodes,
        .n_nodes = n_nodes,
        .pods = pods,
        .n_pods = n_pods,
        .params = {.weight = {3, 1}, .target_percent = 60, .threshold_percent = {100, 100}},
    };
    struct place_sim *sim;
    double t0 = now();
    if (place_sim_new(&in, &sim) != 0)
        return 1;
    double t1 = now();
    const enum score_strategy all[4] = {SCORE_SPREAD, SCORE_PACK, SCORE_BALANCED, SCORE_TARGET};
    struct place_sim_result res[4];
    if (place_sim_run_all(sim, all, 4, threads, res) != 0)
        return 1;
    double t2 = now();
    report(sim, res, n_nodes, n_pods, n_work, threads, mode, (double[3]){t0, t1, t2});
    place_sim_free(sim);
    free(slot);
    free(replicas);
    free(work);
    free(pods);
    free(names);
    free(labels);
    free(nodes);
    return 0;
}

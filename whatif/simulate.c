#include "whatif/simulate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "base/arena.h"
#include "base/clock.h"
#include "placement/sim_run.h"
#include "server/cluster/usage.h"
#include "whatif/inputs.h"
#include "whatif/simulate_print.h"

/* Both cores of the machine the targets were set on; a run per strategy. */
#define SIM_THREADS 2

struct sim_args {
    const char *nodes, *pods, *existing, *placements, *html;
    enum score_strategy strategies[4];
    size_t n_strategies;
    bool timing;
};

static int usage(void)
{
    fprintf(stderr,
            "usage: cpu-extender simulate --pods FILE [--nodes FILE [--existing FILE]] "
            "[--strategy spread|pack|balanced|target|all] [--placements FILE.csv] "
            "[--html FILE.html] [--timing] [options]\n"
            "  without --nodes the nodes and their pods come from the cluster (--kubeconfig, "
            "KUBECONFIG, ~/.kube/config, in-cluster); FILE may be - (standard input) for one "
            "of them\n");
    return 2;
}

static int parse_strategy(const char *s, struct sim_args *sa)
{
    if (strcmp(s, "all") == 0) {
        for (int i = 0; i < 4; i++)
            sa->strategies[i] = (enum score_strategy)i;
        sa->n_strategies = 4;
        return 0;
    }
    sa->n_strategies = 1;
    return score_strategy_parse(s, &sa->strategies[0]);
}

static int write_file(const char *path, int (*fn)(FILE *, const struct whatif_sim_report *),
                      const struct whatif_sim_report *r)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return whatif_fail(-EIO, "simulate", "%s: %s", path, strerror(errno));
    int rc = fn(f, r);
    if (fclose(f) != 0 || rc != 0)
        return whatif_fail(-EIO, "simulate", "%s: cannot write it", path);
    return 0;
}

static double max_rss_mib(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? (double)ru.ru_maxrss / 1024 : 0;
}

/* What one simulation holds, from the files read to the results. */
struct sim_work {
    struct whatif_nodes nodes;
    struct whatif_pod *pods;
    size_t n_pods;
    struct place_sim_node *sn; /* the engine's input, borrowed by sim */
    struct place_sim_pod *sp;
    struct place_sim *sim;
    struct place_sim_result results[4];
    bool have_results;
    struct timespec t0;
    double t_nodes, t_pods, t_run; /* seconds since t0 */
};

static void work_destroy(struct sim_work *w, size_t n_results)
{
    for (size_t i = 0; w->have_results && i < n_results; i++)
        place_sim_result_destroy(&w->results[i]);
    place_sim_free(w->sim);
    free(w->sn);
    free(w->sp);
    free(w->pods);
    whatif_nodes_destroy(&w->nodes);
}

/* Reads the nodes (and the pods bound to them) from the files or @cl, then
 * the pods to place from their file. *@runtime: the failure is the
 * cluster's, not the input's. */
static int read_inputs(const struct cfg *cfg, const struct sim_args *sa, struct cluster *cl,
                       struct arena *a, struct sim_work *w, bool *runtime, char *err)
{
    int rc;
    if (cl != NULL)
        rc = whatif_nodes_from_cluster(cfg, cl, NULL, NULL, &w->nodes, err);
    else
        rc = whatif_nodes_from_files(cfg, sa->nodes, sa->existing, NULL, true, &w->nodes, err);
    if (rc != 0) {
        *runtime = cl != NULL;
        return rc;
    }
    w->t_nodes = clock_since(&w->t0);
    /* usage only: max was refused */
    if ((rc = whatif_pods_from_file(a, sa->pods, cluster_usage_needed(cfg) ? cfg : NULL, &w->pods,
                                    &w->n_pods, err)) != 0)
        return rc;
    w->t_pods = clock_since(&w->t0);
    return 0;
}

/* The cluster's nodes are taken as the service takes them; a node it could
 * not score, a simulation cannot place on (-EINVAL). A node without a pod
 * count admits nothing: said, not refused. */
static int check_nodes(const struct whatif_nodes *nodes, char *err)
{
    for (size_t i = 0; i < nodes->n; i++) {
        const struct whatif_node *n = &nodes->nodes[i];
        if (n->invalid != NULL || n->worst == SCORE_USED_STALE_FULL ||
            n->worst == SCORE_USED_STALE_PASS)
            return err_fail(err, -EINVAL, "cluster: node %s: %s", n->sim.facts.name,
                            n->invalid != NULL ? n->invalid : "its used data is stale");
        if (!n->has_max_pods)
            fprintf(stderr,
                    "cpu-extender simulate: warning: node %s has no status.allocatable.pods: "
                    "kube-scheduler admits no pod there\n",
                    n->sim.facts.name);
    }
    return 0;
}

/* kube-scheduler never sees a pod with spec.nodeName (the kubelet of that
 * node takes it); the simulation holds it to that node by the NodeName rule,
 * which is the nearest it can do, and says so: such pods usually run
 * already and were meant for --existing. */
static void warn_pods_bound(const struct whatif_pod *pods, size_t n_pods)
{
    size_t bound = 0;
    for (size_t i = 0; i < n_pods; i++) {
        const char *name = pods[i].sim.constraints.node_name;
        bound += name != NULL && name[0] != '\0';
    }
    if (bound > 0)
        fprintf(stderr,
                "cpu-extender simulate: warning: %zu of the pods to place %s spec.nodeName set: "
                "each can go only to that node (NodeName), and pods that run already belong in "
                "--existing\n",
                bound, bound == 1 ? "has" : "have");
}

/* The engine over what was read, under each strategy asked for. */
static int run_strategies(const struct cfg *cfg, const struct sim_args *sa, struct sim_work *w,
                          char *err)
{
    int rc;
    w->sn = calloc(w->nodes.n + 1, sizeof(*w->sn));
    w->sp = calloc(w->n_pods + 1, sizeof(*w->sp));
    if (w->sn == NULL || w->sp == NULL)
        return err_fail(err, -ENOMEM, "out of memory");
    for (size_t i = 0; i < w->nodes.n; i++)
        w->sn[i] = w->nodes.nodes[i].sim;
    for (size_t i = 0; i < w->n_pods; i++)
        w->sp[i] = w->pods[i].sim;
    const struct place_sim_input in = {
        .nodes = w->sn,
        .n_nodes = w->nodes.n,
        .pods = w->sp,
        .n_pods = w->n_pods,
        .params = cfg->score,
    };
    if ((rc = place_sim_new(&in, &w->sim)) != 0)
        return err_fail(err, rc, "%s",
                        rc == -ENOMEM ? "out of memory" : "more nodes or pods than it can take");
    rc = place_sim_run_all(w->sim, sa->strategies, sa->n_strategies, SIM_THREADS, w->results);
    if (rc != 0)
        return err_fail(err, rc, "%s", rc == -ENOMEM ? "out of memory" : "cannot start a thread");
    w->have_results = true;
    w->t_run = clock_since(&w->t0);
    return 0;
}

/* Writes the files asked for and prints the summary; returns the exit
 * status: 0 every pod placed, 3 some not, 2 a file that cannot be written. */
static int report(const struct cfg *cfg, const struct sim_args *sa, const struct cluster *cl,
                  const struct sim_work *w)
{
    const struct whatif_sim_report r = {
        .cfg = cfg,
        .nodes = &w->nodes,
        .pods = w->pods,
        .n_pods = w->n_pods,
        .order = place_sim_order(w->sim),
        .results = w->results,
        .n_results = sa->n_strategies,
        .nodes_from = cl != NULL ? "the cluster" : whatif_file_name(sa->nodes),
        .existing_from = cl != NULL             ? "the cluster"
                         : sa->existing != NULL ? whatif_file_name(sa->existing)
                                                : NULL,
        .pods_from = whatif_file_name(sa->pods),
    };
    if ((sa->placements != NULL && write_file(sa->placements, whatif_sim_write_csv, &r) != 0) ||
        (sa->html != NULL && write_file(sa->html, whatif_sim_write_html, &r) != 0))
        return 2; /* said already */
    whatif_sim_print_summary(stdout, &r);
    fflush(stdout);
    int status = 0;
    for (size_t i = 0; i < sa->n_strategies; i++)
        if (w->results[i].summary.not_placed > 0)
            status = 3;
    if (sa->timing) {
        size_t classes, shapes;
        place_sim_groups(w->sim, &classes, &shapes);
        fprintf(stderr,
                "simulate: nodes read in %.3f s, pods in %.3f s, %zu strategies run in %.3f s "
                "(%zu constraint classes, %zu shapes); total %.3f s; max RSS %.1f MiB\n",
                w->t_nodes, w->t_pods - w->t_nodes, sa->n_strategies, w->t_run - w->t_pods, classes,
                shapes, clock_since(&w->t0), max_rss_mib());
    }
    return status;
}

/* Runs the simulation; returns the exit status (1: the cluster or memory
 * failed, 2: the input is wrong). */
static int simulate(const struct cfg *cfg, const void *args, struct cluster *cl)
{
    const struct sim_args *sa = args;
    struct sim_work w = {.t0 = clock_mono()};
    struct arena *a = arena_acquire();
    char err[ERR_LEN];
    bool runtime = false;
    int status, rc;

    if (a == NULL)
        return whatif_fail(1, "simulate", "out of memory");
    if ((rc = read_inputs(cfg, sa, cl, a, &w, &runtime, err)) == 0) {
        warn_pods_bound(w.pods, w.n_pods);
        if ((rc = check_nodes(&w.nodes, err)) != 0)
            runtime = true;
    }
    if (rc == 0)
        rc = run_strategies(cfg, sa, &w, err);
    if (rc == 0)
        status = report(cfg, sa, cl, &w);
    else
        status = whatif_fail(runtime || rc == -ENOMEM ? 1 : 2, "simulate", "%s", err);
    work_destroy(&w, sa->n_strategies);
    arena_release(a);
    return status;
}

/* Takes simulate's own flags into @sa and leaves the others (the service's
 * options) in @rest[0..*@n). Returns 0, or the exit status of a bad flag. */
static int parse_args(int argc, char **argv, struct sim_args *sa, char **rest, int *n)
{
    parse_strategy("all", sa);
    const struct {
        const char *flag;
        const char **value;
    } files[] = {
        {"--nodes", &sa->nodes},           {"--pods", &sa->pods}, {"--existing", &sa->existing},
        {"--placements", &sa->placements}, {"--html", &sa->html},
    };
    for (int i = 0; i < argc; i++) {
        const char *v = NULL;
        int found = 0;
        for (size_t f = 0; f < sizeof(files) / sizeof(files[0]) && found == 0; f++)
            if ((found = whatif_flag("simulate", argc, argv, &i, files[f].flag, NULL, &v)) == 1)
                *files[f].value = v;
        /* The simulation's own flag: one strategy or all of them. */
        if (found == 0 &&
            (found = whatif_flag("simulate", argc, argv, &i, "--strategy", NULL, &v)) == 1 &&
            parse_strategy(v, sa) != 0)
            return whatif_fail(2, "simulate",
                               "--strategy %s: want spread, pack, balanced, target or all", v);
        if (found == 2)
            return 2;
        if (found == 1)
            continue;
        if (strcmp(argv[i], "--timing") == 0)
            sa->timing = true;
        else if (*n < 64)
            rest[(*n)++] = argv[i];
        else
            return usage();
    }
    return 0;
}

int whatif_simulate_main(int argc, char **argv)
{
    struct sim_args sa = {0};
    char *rest[64];
    int n = 0;

    int rc = parse_args(argc, argv, &sa, rest, &n);
    if (rc != 0)
        return rc;
    if (sa.pods == NULL)
        return usage();
    /* On files there is no usage; on a cluster a pod placed adds its
     * in-flight estimate to usage, as serve counts it, but nothing can
     * say how max would move. */
    static const struct whatif_tool tool = {
        .name = "simulate",
        .stdin_flags = "--nodes, --pods and --existing",
        .files_usage = "node files carry no usage (metrics.k8s.io): simulate against the cluster "
                       "(without --nodes) for usage",
        .max = "a simulation cannot project the larger of requests and usage; use usage "
               "(against a cluster), requests or annotation",
        .hint = "--nodes FILE (and --existing FILE)",
        .run = simulate,
    };
    return whatif_start(&tool, sa.pods, sa.nodes, sa.existing, &sa, n, rest);
}

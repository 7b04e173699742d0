#include "whatif/rank.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/file.h"
#include "whatif/inputs.h"
#include "whatif/rank_print.h"
#include "server/codec/json.h"
#include "whatif/manifest.h"
#include "server/codec/pod.h"
#include "whatif/pod_constraints.h"
#include "whatif/pod_items.h"
#include "server/verbs/evaluate.h"

enum rank_output {
    OUT_YAML = 0, /* the pinned manifest (or the controller's patch) as YAML */
    OUT_JSON,
    OUT_TABLE, /* the table on standard output, nothing else */
    OUT_NAME,  /* node/NAME */
};

struct rank_args {
    const char *pod, *nodes, *existing;
    enum rank_output output;
    /* -o given: stdout has the output and stderr nothing but warnings and
     * errors (no table), for $(...) */
    bool output_given;
};

/* The pod to rank, whole: its text (the manifest is made from it), what
 * the model reads, and its controller. */
struct ranked_pod {
    char *text;
    size_t len;
    struct codec_pod pod;
    struct score_pod_request request; /* score_pod_request() of pod */
    struct place_pod_constraints constraints;
    struct whatif_pod_owner owner;
};

/* Reads and checks the pod: an object that is a Pod, not a list of them
 * and not another kind (a NodeList given as --pod is the usual mistake). */
static int read_pod(struct arena *a, const char *path, struct ranked_pod *p, char *err)
{
    cJSON *json;
    int rc = file_read(path, WHATIF_INPUT_MAX, FILE_ANY, &p->text, &p->len, err);
    if (rc != 0)
        return rc == -EFBIG ? -EINVAL : rc;
    if ((rc = codec_json_parse(a, p->text, p->len, "a Pod", &json, err)) == 0 &&
        (rc = whatif_pod_one_check(json, err)) == 0 &&
        (rc = codec_pod_decode(a, json, &p->pod, err)) == 0 &&
        score_pod_request(&p->pod.spec, &p->request) != 0)
        rc = err_fail(err, -EINVAL, "Pod: total request does not fit in int64");
    if (rc == 0 && (rc = whatif_pod_constraints_decode(a, json, &p->constraints, err)) == 0) {
        /* The question is where a new copy of the pod would go: the node a
         * running pod is bound to does not bind the copy (the manifest
         * drops spec.nodeName too). */
        p->constraints.node_name = "";
        whatif_pod_controller(json, &p->owner);
        return 0;
    }
    err_prefix(err, "%s: ", whatif_file_name(path));
    return rc;
}

/* Judges one node by the placement model, in kube-scheduler's order: its
 * own filters, then our extender's (which it calls with the nodes that
 * passed them). A node with unusable data fails our filter as in serve. */
static void judge(const struct cfg *cfg, const struct ranked_pod *p, const struct whatif_node *n,
                  bool exempt, struct whatif_rank_row *row)
{
    struct place_judgement j;
    memset(row, 0, sizeof(*row));
    row->node = n;
    score_node_value(&cfg->score, &n->sim.res, &p->request, &row->explain);
    place_judge_static(&p->constraints, &n->sim.facts, &j);
    if (j.rule == PLACE_RULE_NONE && n->invalid != NULL) {
        row->verdict = SCORE_UNRESOLVABLE;
        row->rule = "invalid";
        snprintf(row->reason, sizeof(row->reason), "%s", n->invalid);
        return;
    }
    if (j.rule == PLACE_RULE_NONE && n->worst == SCORE_USED_STALE_FULL) {
        row->verdict = SCORE_UNFIT;
        row->rule = place_rule_name(PLACE_RULE_EXTENDER);
        /* the reason our filter gives: the first resource stale-full */
        int r = n->outcome[SCORE_CPU] == SCORE_USED_STALE_FULL ? SCORE_CPU : SCORE_MEMORY;
        snprintf(row->reason, sizeof(row->reason), "Stale %s data (%s)", score_resource_name(r),
                 score_used_source_name(n->source[r]));
        return;
    }
    if (j.rule == PLACE_RULE_NONE)
        place_judge_resources(&p->request, &n->sim.facts, &n->sim.res, cfg->score.threshold_percent,
                              &j);
    /* thresholdExempt, as serve's judge: the pod passes our thresholds
     * (kube-scheduler's own filters still apply) */
    if (j.rule == PLACE_RULE_EXTENDER && exempt) {
        j.rule = PLACE_RULE_NONE;
        row->note = "passed a threshold it fails: a DaemonSet's pod (thresholdExempt daemonsets)";
    }
    if (j.rule != PLACE_RULE_NONE) {
        row->threshold = j.rule == PLACE_RULE_EXTENDER;
        row->verdict = j.verdict;
        row->rule = place_rule_name(j.rule);
        place_judgement_text(&j, row->reason);
        return;
    }
    row->fits = true;
    row->verdict = SCORE_FITS;
    row->rule = "";
    row->forced_zero = n->worst == SCORE_USED_STALE_PASS;
    if (row->forced_zero)
        row->explain.value = 0;
}

/* Rows [i] that kube-scheduler's own filters passed: what it sends us. */
struct candidates {
    const struct whatif_rank_row *rows;
    const size_t *index;
};

static bool row_threshold_only(const void *ctx, size_t i)
{
    const struct candidates *c = ctx;
    return c->rows[c->index[i]].threshold;
}

/* thresholdPolicy unlessAllFail, decided as serve decides it
 * (verb_let_all_through) over the nodes kube-scheduler would send us: when
 * every one failed on a threshold alone, all of them fit. */
static int let_through(const struct cfg *cfg, struct whatif_rank_row *rows, size_t n)
{
    size_t *index = calloc(n + 1, sizeof(*index)), k = 0;
    if (index == NULL)
        return -ENOMEM;
    /* Our filter's refusals are candidates too: a threshold's, a stale
     * node's and an invalid node's (kube-scheduler's filters passed it,
     * and in serve it blocks the let-through as any other failure). */
    for (size_t i = 0; i < n; i++)
        if (rows[i].fits || strcmp(rows[i].rule, place_rule_name(PLACE_RULE_EXTENDER)) == 0 ||
            strcmp(rows[i].rule, "invalid") == 0)
            index[k++] = i;
    const struct candidates c = {rows, index};
    if (verb_let_all_through(cfg, k, row_threshold_only, &c)) {
        for (size_t i = 0; i < k; i++) {
            struct whatif_rank_row *row = &rows[index[i]];
            row->fits = true;
            row->verdict = SCORE_FITS;
            row->rule = "";
            row->reason[0] = '\0';
            row->note = "let through: every candidate failed a threshold (thresholdPolicy "
                        "unlessAllFail)";
        }
    }
    free(index);
    return 0;
}

/* Best first: what fits by score, then value, then name; then the rest by
 * name. */
static int by_rank(const void *x, const void *y)
{
    const struct whatif_rank_row *a = x, *b = y;
    if (a->fits != b->fits)
        return a->fits ? -1 : 1;
    if (a->fits && a->explain.score != b->explain.score)
        return a->explain.score > b->explain.score ? -1 : 1;
    if (a->fits && a->explain.value != b->explain.value)
        return a->explain.value > b->explain.value ? -1 : 1;
    return strcmp(a->node->sim.facts.name, b->node->sim.facts.name);
}

/* Scores the nodes that fit as prioritize would see them: only those are
 * sent to it, so normalize's best value is theirs alone. */
static int score_fitting(const struct cfg *cfg, struct whatif_rank_row *rows, size_t n)
{
    struct score_explain *ex = calloc(n + 1, sizeof(*ex));
    size_t k = 0;
    if (ex == NULL)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++)
        if (rows[i].fits)
            ex[k++] = rows[i].explain;
    score_finish(&cfg->score, ex, k);
    /* A forced-zero row was normalized with the others (value 0), as serve
     * does, so it takes its place in ex too. */
    k = 0;
    for (size_t i = 0; i < n; i++) {
        int score = rows[i].fits ? ex[k++].score : 0;
        rows[i].explain.score = rows[i].forced_zero ? 0 : score;
    }
    free(ex);
    return 0;
}

/* kube-scheduler's message for a pod no node takes, from the rows. */
static void fit_error(const struct whatif_rank_row *rows, size_t n, char *buf, size_t len)
{
    struct place_reason_count *e = calloc(n + 1, sizeof(*e));
    size_t k = 0;
    if (e == NULL) {
        snprintf(buf, len, "0/%zu nodes are available", n);
        return;
    }
    /* One line per distinct text: the rows' texts, counted. */
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < k && strcmp(e[j].text, rows[i].reason) != 0)
            j++;
        if (j == k)
            e[k++] = (struct place_reason_count){.text = rows[i].reason};
        e[j].count++;
    }
    /* The PreFilter's conflict stands alone, as kube-scheduler prints it. */
    char conflict[PLACE_REASON_LEN];
    place_reason_text(PLACE_REASON_AFFINITY_CONFLICT, NULL, conflict);
    for (size_t j = 0; j < k; j++)
        if (strcmp(e[j].text, conflict) == 0)
            e[j] = (struct place_reason_count){.reason = PLACE_REASON_AFFINITY_CONFLICT,
                                               .count = e[j].count};
    place_fit_error(n, e, k, buf, len);
    free(e);
}

/* The manifest, or for a pod a controller owns the patch for its template,
 * on @out in the chosen format; on stderr the warning for the patch and,
 * unless @quiet, how to apply the manifest. */
static int print_result(const struct rank_args *ra, const struct ranked_pod *p,
                        const struct whatif_node *best, bool quiet, FILE *out)
{
    const struct whatif_pin pin = {.node = best->sim.facts.name, .hostname = best->hostname};
    bool patch = p->owner.kind[0] != '\0';

    if (ra->output == OUT_NAME) {
        fprintf(out, "node/%s\n", best->sim.facts.name);
        return 0;
    }
    if (patch) {
        fprintf(stderr,
                "warning: pod %s/%s is controlled by %s %s: deleting it makes the controller "
                "create a new pod from its template, which this pin would not reach. Pin the "
                "template instead%s: apply the patch below to it (kubectl patch KIND NAME "
                "--patch-file FILE), knowing that it puts every replica on %s.\n",
                p->pod.ns, p->pod.name, p->owner.kind, p->owner.name,
                strcmp(p->owner.kind, "ReplicaSet") == 0
                    ? " (for a ReplicaSet, the Deployment that owns it)"
                    : "",
                best->sim.facts.name);
    } else if (!quiet) {
        const char *how = "kubectl apply -f -";
        char which[64] = " if it exists";
        if (p->pod.name[0] == '\0')
            how = "kubectl create -f - (it has only a generateName)";
        /* A pod with a UID exists; it runs only in phase Running (a
         * Pending one may be waiting for a node or for its images). */
        if (p->pod.uid[0] != '\0' && strcmp(p->pod.phase, "Running") == 0)
            snprintf(which, sizeof(which), " that is running");
        else if (p->pod.uid[0] != '\0' && p->pod.phase[0] != '\0')
            snprintf(which, sizeof(which), " (it exists, phase %.32s)", p->pod.phase);
        else if (p->pod.uid[0] != '\0')
            snprintf(which, sizeof(which), " (it exists)");
        fprintf(stderr,
                "A pod's node selection cannot be changed: delete the pod%s, then apply the "
                "manifest below (%s).\n",
                which, how);
    }
    fflush(stderr);
    return whatif_print_pin(p->text, p->len, &pin, patch, ra->output == OUT_JSON, out);
}

/* Sorts @rows best first, prints them (the table on stdout for -o table,
 * else on stderr) and the verdict, and for the best node the pod pinned
 * there as -o asks. Returns the exit status: 0, or 1 when no node fits. */
static int report(const struct cfg *cfg, const struct rank_args *ra, const struct cluster *cl,
                  const struct ranked_pod *p, const struct whatif_nodes *nodes,
                  struct whatif_rank_row *rows)
{
    FILE *table = ra->output == OUT_TABLE ? stdout : stderr;
    bool quiet = ra->output_given && ra->output != OUT_TABLE;
    qsort(rows, nodes->n, sizeof(*rows), by_rank);
    struct whatif_rank r = {
        .pod_ns = p->pod.ns,
        .pod_name = p->pod.name,
        .request = p->request,
        .rows = rows,
        .n = nodes->n,
        .best = nodes->n > 0 && rows[0].fits ? 0 : -1,
        .from = cl != NULL ? "the cluster" : whatif_file_name(ra->nodes),
        .nodes = nodes,
    };
    r.tie = r.best == 0 && nodes->n > 1 && rows[1].fits &&
            rows[1].explain.score == rows[0].explain.score &&
            rows[1].explain.value == rows[0].explain.value;
    if (!quiet)
        whatif_rank_print(table, cfg, &r);
    char used[512];
    /* Said on stderr whenever a resource's used did not come from the
     * source asked (stale usage fell back, or a node was unknown), also
     * when the table went elsewhere or nowhere. */
    if (whatif_used_summary(cfg, nodes, used, sizeof(used)) && (quiet || table != stderr))
        fprintf(stderr, "cpu-extender rank: used %s\n", used);
    if (r.best < 0) {
        char msg[4096];
        fit_error(rows, nodes->n, msg, sizeof(msg));
        /* an error: said on stderr with -o too */
        fprintf(quiet ? stderr : table, "%sno node fits this pod: %s\n", quiet ? "" : "\n", msg);
        return 1;
    }
    const struct whatif_node *best = rows[0].node;
    if (!quiet)
        fprintf(table, "\nbest node: %s (score %d, value %d)%s\n", best->sim.facts.name,
                rows[0].explain.score, rows[0].explain.value,
                r.tie ? "; tied with the next, chosen by name order (kube-scheduler picks at "
                        "random among equal totals)"
                      : "");
    if (ra->output != OUT_TABLE && print_result(ra, p, best, quiet, stdout) != 0)
        return whatif_fail(1, "rank", "cannot write the result");
    return 0;
}

/* Ranks and prints; returns the exit status. */
static int rank(const struct cfg *cfg, const void *args, struct cluster *cl)
{
    const struct rank_args *ra = args;
    struct arena *a = arena_acquire();
    struct ranked_pod p = {0};
    struct whatif_nodes nodes = {0};
    struct whatif_rank_row *rows = NULL;
    char err[ERR_LEN];
    int status = 2, rc;
    bool runtime = false;

    if (a == NULL)
        return whatif_fail(1, "rank", "out of memory");
    if ((rc = read_pod(a, ra->pod, &p, err)) != 0)
        goto out_fail;
    if (cl != NULL)
        rc = whatif_nodes_from_cluster(cfg, cl, p.pod.uid, p.pod.node_name, &nodes, err);
    else
        rc = whatif_nodes_from_files(cfg, ra->nodes, ra->existing, p.pod.uid, false, &nodes, err);
    if (rc != 0) {
        runtime = cl != NULL; /* the cluster failed, not the caller */
        goto out_fail;
    }
    rows = calloc(nodes.n + 1, sizeof(*rows));
    if (rows == NULL) {
        rc = err_fail(err, -ENOMEM, "out of memory");
        goto out_fail;
    }
    bool exempt = verb_threshold_exempt(cfg, p.pod.daemonset);
    for (size_t i = 0; i < nodes.n; i++)
        judge(cfg, &p, &nodes.nodes[i], exempt, &rows[i]);
    if ((rc = let_through(cfg, rows, nodes.n)) != 0 ||
        (rc = score_fitting(cfg, rows, nodes.n)) != 0) {
        err_set(err, "out of memory");
        goto out_fail;
    }
    status = report(cfg, ra, cl, &p, &nodes, rows);
    goto out_free;

out_fail:
    status = whatif_fail(runtime || rc == -ENOMEM ? 1 : 2, "rank", "%s", err);
out_free:
    free(rows);
    whatif_nodes_destroy(&nodes);
    free(p.text);
    arena_release(a);
    return status;
}

static int usage(void)
{
    fprintf(stderr, "usage: cpu-extender rank --pod FILE [--nodes FILE [--existing FILE] | "
                    "--kubeconfig FILE] [-o yaml|json|table|name] [options]\n"
                    "  FILE may be - (standard input) for one of them\n");
    return 2;
}

int whatif_rank_main(int argc, char **argv)
{
    struct rank_args ra = {0};
    char *rest[64];
    int n = 0;

    const struct {
        const char *flag;
        const char **value;
    } files[] = {{"--nodes", &ra.nodes}, {"--pod", &ra.pod}, {"--existing", &ra.existing}};
    for (int i = 0; i < argc; i++) {
        const char *o = NULL;
        int found = 0;
        for (size_t f = 0; f < sizeof(files) / sizeof(files[0]) && found == 0; f++)
            if ((found = whatif_flag("rank", argc, argv, &i, files[f].flag, NULL, &o)) == 1)
                *files[f].value = o;
        if (found == 0 &&
            (found = whatif_flag("rank", argc, argv, &i, "--output", "-o", &o)) == 1) {
            static const char *const outputs[] = {"yaml", "json", "table", "name"}; /* OUT_* */
            ra.output = OUT_YAML;
            ra.output_given = true;
            while (ra.output <= OUT_NAME && strcmp(o, outputs[ra.output]) != 0)
                ra.output++;
            if (ra.output > OUT_NAME)
                return whatif_fail(2, "rank", "-o %s: want yaml, json, table or name", o);
        }
        if (found == 2)
            return 2;
        if (found == 0 && n < 64)
            rest[n++] = argv[i];
        else if (found == 0)
            return usage();
    }
    if (ra.pod == NULL)
        return usage();
    static const struct whatif_tool tool = {
        .name = "rank",
        .stdin_flags = "--pod, --nodes and --existing",
        .files_usage = "node files carry no usage (metrics.k8s.io): rank against the cluster "
                       "(without --nodes) for it",
        .hint = "--nodes FILE",
        .run = rank,
    };
    return whatif_start(&tool, ra.pod, ra.nodes, ra.existing, &ra, n, rest);
}

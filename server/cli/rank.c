#include "server/cli/rank.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/file.h"
#include "base/log.h"
#include "kube/client.h"
#include "kube/discover.h"
#include "server/cli/args.h"
#include "server/cli/rank_print.h"
#include "server/codec/args.h"
#include "server/codec/nodelist.h"
#include "server/codec/json.h"
#include "server/codec/manifest.h"
#include "server/codec/pod.h"
#include "server/verbs/decide.h"
#include "server/verbs/record.h"

extern char **environ;

/* One input file, whole, and its JSON object in @a. */
struct input {
    char *text;
    size_t len;
    cJSON *json;
};

static int read_input(struct arena *a, const struct cfg *cfg, const char *path, struct input *in,
                      char *err)
{
    int rc = file_read(path, (size_t)cfg->max_body_bytes, &in->text, &in->len, err);
    if (rc != 0)
        return rc;
    rc = codec_json_parse(a, in->text, in->len, "a Kubernetes object", &in->json, err);
    if (rc != 0)
        err_prefix(err, "%s: ", path);
    return rc;
}

/* Every node the cluster state knows, as a NodeNames request would name them. */
static int nodes_of_cluster(struct arena *a, struct cluster *cl, struct codec_args *args, char *err)
{
    char **names;
    size_t n;

    int rc = cluster_wait(cl, 30, err);
    if (rc != 0) {
        err_prefix(err, "cluster: ");
        return rc;
    }
    if (kube_state_node_names(cluster_state(cl), &names, &n) != 0)
        goto out_nomem;
    args->node_names_mode = true;
    args->nodes = arena_calloc(a, n + 1, sizeof(*args->nodes));
    for (size_t i = 0; i < n; i++) {
        char *copy = args->nodes != NULL ? arena_strndup(a, names[i], strlen(names[i])) : NULL;
        if (copy != NULL)
            args->nodes[args->n_nodes++].name = copy;
        free(names[i]);
    }
    free(names);
    if (args->n_nodes == n)
        return 0;
out_nomem:
    err_set(err, "out of memory");
    return -ENOMEM;
}

/* The pod of @pod_path and the nodes of @nodes_path (its bytes kept in
 * @nodes: the decoded nodes point into them) or of @cl, in @a. */
static int read_args(struct arena *a, const struct cfg *cfg, struct cluster *cl,
                     const char *nodes_path, const char *pod_path, const struct input *pod,
                     struct input *nodes, struct codec_args *args, char *err)
{
    int rc;

    if (cl == NULL && (rc = file_read(nodes_path, (size_t)cfg->max_body_bytes, &nodes->text,
                                      &nodes->len, err)) != 0)
        return rc;
    if ((rc = codec_pod_decode(a, pod->json, &args->pod, err)) != 0) {
        err_prefix(err, "%s: ", pod_path);
        return rc;
    }
    if (cl != NULL)
        return nodes_of_cluster(a, cl, args, err);
    /* kubectl prints a List (items) for `get nodes` and a bare Node for
     * `get node NAME`: both are taken. */
    struct codec_pod keep = args->pod;
    rc = codec_nodelist_decode(a, nodes->text, nodes->len, cfg, nodes_path, args, err);
    args->pod = keep;
    return rc;
}

/* Ranks the nodes of @nodes_path, or, when @cl is given, every node of that
 * cluster with its pods and usage as the server would see them (waits for
 * the first lists). Returns 0, -ENOENT when no node fits (the table is
 * still printed), or -errno with a message in @err. */
static int rank(const struct cfg *cfg, struct cluster *cl, const char *nodes_path,
                const char *pod_path, FILE *table, FILE *manifest, char *err)
{
    struct arena *a = arena_acquire();
    struct input pod = {0}, nodes = {0};
    struct verb_outcome d = {.answer = OPS_ANSWER_SCORED, .best = -1};
    int rc = -ENOMEM;

    if (a == NULL) {
        err_set(err, "out of memory");
        return rc;
    }
    if ((rc = read_input(a, cfg, pod_path, &pod, err)) != 0 ||
        (rc = read_args(a, cfg, cl, nodes_path, pod_path, &pod, &nodes, &d.args, err)) != 0)
        goto out_release;
    rc = -ENOMEM;
    err_set(err, "out of memory");
    d.eval = arena_alloc(a, (d.args.n_nodes + 1) * sizeof(*d.eval));
    if (d.eval == NULL || verb_evaluate(a, cfg, cl, &d.args, NULL, d.eval) != 0)
        goto out_release;
    for (size_t i = 0; i < d.args.n_nodes; i++)
        d.passed += d.eval[i].verdict == SCORE_FITS;
    d.best = verb_best_node(d.eval, d.args.n_nodes);
    /* The same record a verb keeps for /debug, printed as text. */
    const struct verb_ctx ctx = {.cfg = cfg, .arena = a, .cl = cl};
    struct ops_record *rec = verb_record(&ctx, OPS_VERB_FILTER, &d, 0);
    if (rec == NULL)
        goto out_release;
    cli_rank_print(table, cfg, rec);
    ops_record_release(rec);
    if (d.best < 0) {
        fprintf(table, "\nno node fits this pod\n");
        err_set(err, "no node fits");
        rc = -ENOENT;
        goto out_release;
    }
    const char *best = d.args.nodes[d.best].name;
    fprintf(table, "\nbest node: %s (score %d)\n", best, d.eval[d.best].explain.score);
    fprintf(table,
            "A pod's nodeSelector cannot be changed: delete the existing pod, then apply the "
            "manifest below (kubectl apply -f -).\n");
    fflush(table);
    rc = codec_pinned_manifest(pod.text, pod.len, best, manifest);

out_release:
    free(pod.text);
    free(nodes.text);
    arena_release(a);
    return rc;
}

/* The cluster of --kubeconfig, or KUBECONFIG, or ~/.kube/config, or
 * in-cluster: the order of serve, as kubectl finds it. */
static int rank_cluster(const struct cfg *c, struct cluster **cl)
{
    char err[ERR_LEN];
    struct kube_target t;

    int rc = kube_discover(c->kubeconfig, environ, KUBE_INCLUSTER_DIR, &t, err);
    if (rc == -ENOENT)
        err_set(err, "no cluster: give --nodes FILE, or --kubeconfig FILE (or KUBECONFIG, or "
                     "~/.kube/config, or run in a cluster)");
    if (rc == 0) {
        rc = cluster_start(c, &t, cl, err);
        kube_target_destroy(&t);
    }
    if (rc != 0)
        fprintf(stderr, "cpu-extender rank: %s\n", err);
    return rc;
}

int cli_rank_main(int argc, char **argv)
{
    const char *nodes = NULL, *pod = NULL;
    char *rest[64], err[ERR_LEN];
    struct cluster *cl = NULL;
    struct cfg c;
    int n = 0;

    for (int i = 0; i < argc && n < 64; i++) {
        if (strcmp(argv[i], "--nodes") == 0 && i + 1 < argc)
            nodes = argv[++i];
        else if (strcmp(argv[i], "--pod") == 0 && i + 1 < argc)
            pod = argv[++i];
        else
            rest[n++] = argv[i];
    }
    if (pod == NULL) {
        fprintf(stderr, "usage: cpu-extender rank --pod pod.json [--nodes nodes.json | "
                        "--kubeconfig FILE] [options]\n");
        return 2;
    }
    if (nodes != NULL && strcmp(pod, "-") == 0 && strcmp(nodes, "-") == 0) {
        fprintf(stderr, "cpu-extender rank: --pod and --nodes cannot both be - (standard input "
                        "holds one file)\n");
        return 2;
    }
    if (cli_load_config(&c, n, rest) != 0)
        return 2;
    log_set_level(c.log_level > LOG_WARN ? c.log_level : LOG_WARN);
    codec_json_install_hooks();
    if (nodes == NULL) {
        if (kube_global_init() != 0) {
            fprintf(stderr, "cpu-extender rank: libcurl initialisation failed\n");
            return 1;
        }
        if (rank_cluster(&c, &cl) != 0) {
            kube_global_cleanup();
            return 2;
        }
    }
    int rc = rank(&c, cl, nodes, pod, stderr, stdout, err);
    cluster_stop(cl);
    if (nodes == NULL)
        kube_global_cleanup();
    arena_pool_drain();
    if (rc != 0 && rc != -ENOENT)
        fprintf(stderr, "cpu-extender rank: %s\n", err);
    return rc == 0 ? 0 : 1;
}

#include "server/rank.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "server/arena.h"
#include "server/codec.h"
#include "server/decide.h"
#include "server/explain.h"
#include "server/verbs.h"

/* Reads @path whole into arena memory, NUL-terminated. */
static char *slurp(struct arena *a, const char *path, long long max, size_t *len,
                   char err[CFG_ERR_LEN])
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;

    if (f == NULL) {
        snprintf(err, CFG_ERR_LEN, "%s: %s", path, strerror(errno));
        return NULL;
    }
    if (fseek(f, 0, SEEK_END) != 0) {
        snprintf(err, CFG_ERR_LEN, "%s: not a regular file", path);
        goto out_close;
    }
    long size = ftell(f);
    if (size < 0 || size > max) {
        snprintf(err, CFG_ERR_LEN, "%s: larger than %lld bytes", path, max);
        goto out_close;
    }
    rewind(f);
    buf = arena_alloc(a, (size_t)size + 1);
    if (buf == NULL || fread(buf, 1, (size_t)size, f) != (size_t)size) {
        snprintf(err, CFG_ERR_LEN, "%s: cannot read", path);
        buf = NULL;
        goto out_close;
    }
    buf[size] = '\0';
    *len = (size_t)size;

out_close:
    fclose(f);
    return buf;
}

static cJSON *parse_file(struct arena *a, const struct cfg *cfg, const char *path,
                         char err[CFG_ERR_LEN])
{
    size_t len;
    const char *end = NULL;
    char *text = slurp(a, path, cfg->max_body_bytes, &len, err);
    if (text == NULL)
        return NULL;
    cJSON *json = cJSON_ParseWithLengthOpts(text, len + 1, &end, 1);
    if (json == NULL)
        snprintf(err, CFG_ERR_LEN, "%s: not valid JSON (near byte %zu)", path,
                 end != NULL && end >= text ? (size_t)(end - text) : (size_t)0);
    return json;
}

/* kubectl prints a List (items) for `get nodes` and a bare Node for
 * `get node NAME`: accept both. */
static int decode_nodes(cJSON *json, const struct cfg *cfg, struct codec_args *args,
                        char err[CFG_ERR_LEN])
{
    cJSON *items = srv_json_member(json, "items"), *item;
    char why[CODEC_ERR_LEN];
    size_t n = items != NULL ? (size_t)cJSON_GetArraySize(items) : 1, i = 0;

    if (items != NULL && !cJSON_IsArray(items)) {
        snprintf(err, CFG_ERR_LEN, "nodes: items is not an array");
        return -EINVAL;
    }
    args->nodes = cJSON_malloc(n * sizeof(*args->nodes) + 1);
    if (args->nodes == NULL) {
        snprintf(err, CFG_ERR_LEN, "out of memory");
        return -ENOMEM;
    }
    if (items == NULL) {
        if (srv_decode_node(json, cfg, &args->nodes[0], why) != 0) {
            snprintf(err, CFG_ERR_LEN, "nodes: %s", why);
            return -EINVAL;
        }
        args->n_nodes = 1;
        return 0;
    }
    cJSON_ArrayForEach(item, items)
    {
        if (srv_decode_node(item, cfg, &args->nodes[i], why) != 0) {
            snprintf(err, CFG_ERR_LEN, "nodes: items[%zu]: %s", i, why);
            return -EINVAL;
        }
        i++;
    }
    args->n_nodes = n;
    return 0;
}

/* One resource's inputs and term: "4000m 3000m(annotation) 1000m -> 0". */
static void print_term(FILE *out, const struct srv_decision *rec, const struct srv_decision_node *n,
                       int r)
{
    const struct score_term *t = &n->explain.term[r];
    char alloc[32], used[32], pod[32], cell[160], term[32];
    if (n->unknown) {
        fprintf(out, "  %-40s", "-");
        return;
    }
    srv_amount(alloc, sizeof(alloc), r, t->alloc);
    srv_amount(used, sizeof(used), r, t->used);
    srv_amount(pod, sizeof(pod), r, t->pod);
    if (t->skipped)
        snprintf(term, sizeof(term), "-");
    else if (rec->params.strategy == SCORE_BALANCED)
        snprintf(term, sizeof(term), "%.4f", t->fraction);
    else
        snprintf(term, sizeof(term), "%d", t->value);
    snprintf(cell, sizeof(cell), "%s %s(%s) %s -> %s", alloc, used, srv_used_from(n, r), pod, term);
    fprintf(out, "  %-40s", cell);
}

/* The same breakdown as GET /debug: per node its verdict, each resource's
 * allocatable, used (and where from), pod request and term, the value, the
 * score, the points kube-scheduler adds, and how they were computed. */
static void print_table(FILE *out, const struct srv_decision *rec)
{
    char how[256];
    fprintf(out, "%-24s  %-16s  %-40s  %-40s  %5s  %5s  %6s\n", "NODE", "VERDICT",
            "CPU: ALLOC USED(FROM) POD -> TERM", "MEMORY: ALLOC USED(FROM) POD -> TERM", "VALUE",
            "SCORE", "POINTS");
    for (size_t i = 0; i < rec->n_nodes; i++) {
        const struct srv_decision_node *n = &rec->nodes[i];
        fprintf(out, "%-24s  %-16s", n->name, n->verdict == SCORE_FITS ? "fits" : n->reason);
        print_term(out, rec, n, SCORE_CPU);
        print_term(out, rec, n, SCORE_MEMORY);
        fprintf(out, "  %5d  %5d  %+6lld\n", n->explain.value, n->explain.score,
                SRV_INFLUENCE(n->explain.score, rec->scheduler_weight));
        srv_explain_text(rec, n, how, sizeof(how));
        fprintf(out, "%-24s  %s\n", "", how);
    }
}

/* Removes every member @key of @obj, duplicates included. */
static void delete_all(cJSON *obj, const char *key)
{
    cJSON *gone = cJSON_DetachItemFromObjectCaseSensitive(obj, key);
    while (gone != NULL) {
        cJSON_Delete(gone);
        gone = cJSON_DetachItemFromObjectCaseSensitive(obj, key);
    }
}

/* The pod as a new object: what the API server set is removed, and a
 * nodeSelector pins it to @node. */
static int write_manifest(cJSON *pod, const char *node, FILE *out)
{
    static const char *const server_set[] = {
        "uid",
        "resourceVersion",
        "managedFields",
        "generation",
        "creationTimestamp",
        "selfLink",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
    };
    /* The members the decoder read: the last of duplicates, as Go does. */
    cJSON *meta = srv_json_member(pod, "metadata");
    cJSON *spec = srv_json_member(pod, "spec");

    for (size_t i = 0; i < sizeof(server_set) / sizeof(server_set[0]); i++)
        delete_all(meta, server_set[i]);
    delete_all(pod, "status");
    if (!cJSON_IsObject(spec)) {
        spec = cJSON_AddObjectToObject(pod, "spec");
        if (spec == NULL)
            return -ENOMEM;
    }
    delete_all(spec, "nodeName");
    cJSON *sel = srv_json_member(spec, "nodeSelector");
    if (!cJSON_IsObject(sel)) {
        delete_all(spec, "nodeSelector");
        sel = cJSON_AddObjectToObject(spec, "nodeSelector");
    }
    delete_all(sel, "kubernetes.io/hostname");
    if (sel == NULL || cJSON_AddStringToObject(sel, "kubernetes.io/hostname", node) == NULL)
        return -ENOMEM;
    if (srv_json_member(pod, "apiVersion") == NULL)
        cJSON_AddStringToObject(pod, "apiVersion", "v1");
    if (srv_json_member(pod, "kind") == NULL)
        cJSON_AddStringToObject(pod, "kind", "Pod");
    char *text = cJSON_Print(pod);
    if (text == NULL)
        return -ENOMEM;
    fprintf(out, "%s\n", text);
    return 0;
}

/* Every node the cluster state knows, as a NodeNames request would name them. */
static int nodes_of_cluster(struct srv_cluster *cl, struct codec_args *args, char err[CFG_ERR_LEN])
{
    char kerr[KUBE_ERR_LEN];
    char **names;
    size_t n;

    if (srv_cluster_wait(cl, 30, kerr) != 0) {
        snprintf(err, CFG_ERR_LEN, "cluster: %.480s", kerr);
        return -ETIMEDOUT;
    }
    if (kube_state_node_names(srv_cluster_state(cl), &names, &n) != 0)
        goto out_nomem;
    args->node_names_mode = true;
    args->nodes = cJSON_malloc(n * sizeof(*args->nodes) + 1);
    for (size_t i = 0; i < n; i++) {
        char *copy = args->nodes != NULL ? cJSON_malloc(strlen(names[i]) + 1) : NULL;
        if (copy != NULL) {
            strcpy(copy, names[i]);
            memset(&args->nodes[i], 0, sizeof(args->nodes[i]));
            args->nodes[i].name = copy;
            args->n_nodes++;
        }
        free(names[i]);
    }
    free(names);
    if (args->n_nodes == n)
        return 0;
out_nomem:
    snprintf(err, CFG_ERR_LEN, "out of memory");
    return -ENOMEM;
}

int srv_rank(const struct cfg *cfg, struct srv_cluster *cl, const char *nodes_path,
             const char *pod_path, FILE *table, FILE *manifest, char err[CFG_ERR_LEN])
{
    struct arena *a = arena_acquire();
    struct codec_args args;
    struct node_eval *eval;
    char why[CODEC_ERR_LEN];
    int rc = -EINVAL;

    if (a == NULL) {
        snprintf(err, CFG_ERR_LEN, "out of memory");
        return -ENOMEM;
    }
    memset(&args, 0, sizeof(args));
    cJSON *nodes = cl == NULL ? parse_file(a, cfg, nodes_path, err) : NULL;
    cJSON *pod = nodes != NULL || cl != NULL ? parse_file(a, cfg, pod_path, err) : NULL;
    if (pod == NULL)
        goto out_release;
    if (srv_decode_pod(pod, &args.pod, why) != 0) {
        snprintf(err, CFG_ERR_LEN, "%s: %s", pod_path, why);
        goto out_release;
    }
    rc = cl != NULL ? nodes_of_cluster(cl, &args, err) : decode_nodes(nodes, cfg, &args, err);
    if (rc != 0)
        goto out_release;
    eval = cJSON_malloc(args.n_nodes * sizeof(*eval) + 1);
    if (eval == NULL) {
        rc = -ENOMEM;
        snprintf(err, CFG_ERR_LEN, "out of memory");
        goto out_release;
    }
    if (srv_evaluate(cfg, cl, &args, NULL, eval) != 0) {
        rc = -ENOMEM;
        snprintf(err, CFG_ERR_LEN, "out of memory");
        goto out_release;
    }

    /* The same record a verb keeps for /debug, printed as text. */
    const struct srv_verb_ctx ctx = {.cfg = cfg, .cl = cl};
    struct srv_decided d = {.args = args, .eval = eval, .answer = SRV_ANSWER_SCORED};
    long best = srv_best_node(&args, eval, true);
    for (size_t i = 0; i < args.n_nodes; i++)
        d.passed += eval[i].verdict == SCORE_FITS;
    struct srv_decision *rec = srv_decision_record(&ctx, SRV_VERB_FILTER, &d, best, 0);
    if (rec == NULL) {
        rc = -ENOMEM;
        snprintf(err, CFG_ERR_LEN, "out of memory");
        goto out_release;
    }
    char cpu[32], mem[32], cpu_nz[32], mem_nz[32];
    srv_amount(cpu, sizeof(cpu), SCORE_CPU, args.pod.request.real[SCORE_CPU]);
    srv_amount(mem, sizeof(mem), SCORE_MEMORY, args.pod.request.real[SCORE_MEMORY]);
    srv_amount(cpu_nz, sizeof(cpu_nz), SCORE_CPU, args.pod.request.non_zero[SCORE_CPU]);
    srv_amount(mem_nz, sizeof(mem_nz), SCORE_MEMORY, args.pod.request.non_zero[SCORE_MEMORY]);
    fprintf(table, "pod %s/%s requests cpu %s, memory %s (scored as %s, %s)\n", args.pod.ns,
            args.pod.name, cpu, mem, cpu_nz, mem_nz);
    fprintf(table,
            "strategy %s, weights cpu %d memory %d%s; scheduler weight %d: a node gets score x "
            "%d points, at most %lld against %d for the default plugins\n\n",
            score_strategy_name(cfg->score.strategy), cfg->score.weight[SCORE_CPU],
            cfg->score.weight[SCORE_MEMORY], cfg->score.normalize ? ", normalized" : "",
            cfg->scheduler_weight, cfg->scheduler_weight * 10,
            SRV_INFLUENCE(SCORE_MAX_SCORE, cfg->scheduler_weight), SRV_DEFAULT_PLUGINS_MAX);
    print_table(table, rec);
    srv_decision_release(rec);
    if (best < 0) {
        fprintf(table, "\nno node fits this pod\n");
        rc = -ENOENT;
        snprintf(err, CFG_ERR_LEN, "no node fits");
        goto out_release;
    }
    fprintf(table, "\nbest node: %s (score %d)\n", args.nodes[best].name, eval[best].explain.score);
    fprintf(table,
            "A pod's nodeSelector cannot be changed: delete the existing pod, then apply the "
            "manifest below (kubectl apply -f -).\n");
    fflush(table);
    rc = write_manifest(pod, args.nodes[best].name, manifest);
    if (rc != 0)
        snprintf(err, CFG_ERR_LEN, "out of memory");

out_release:
    arena_release(a);
    return rc;
}

#include "whatif/inputs.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/arena.h"
#include "base/clock.h"
#include "base/file.h"
#include "base/hash.h"
#include "base/log.h"
#include "config/load.h"
#include "kube/client.h"
#include "kube/discover.h"
#include "kube/state.h"
#include "server/codec/binding.h"
#include "whatif/node_facts.h"
#include "server/codec/nodelist.h"
#include "server/codec/pod.h"
#include "whatif/pod_constraints.h"
#include "whatif/pod_items.h"
#include "server/verbs/evaluate.h"
#include "server/cluster/usage.h"

#define HOSTNAME_LABEL "kubernetes.io/hostname"

extern char **environ;

int whatif_fail(int status, const char *tool, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    flockfile(stderr); /* one line, whatever the cluster's threads log */
    fprintf(stderr, "cpu-extender %s: ", tool);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    funlockfile(stderr);
    va_end(ap);
    return status;
}

const char *whatif_file_name(const char *path)
{
    return strcmp(path, "-") == 0 ? "standard input" : path;
}

/* ---- nodes --------------------------------------------------------------- */

/* Indexes the nodes by name into ns->names; a name given twice is refused,
 * the first of them in name order named (@what: the file). */
static int index_names(struct whatif_nodes *ns, const char *what, char *err)
{
    size_t nb = table_buckets(ns->n);
    struct table_entry **buckets = arena_calloc(ns->a, nb, sizeof(*buckets));
    const char *twice = NULL;
    if (buckets == NULL)
        return err_fail(err, -ENOMEM, "out of memory");
    ns->names = table_fixed(buckets, nb);
    for (size_t i = 0; i < ns->n; i++) {
        struct whatif_node *n = &ns->nodes[i];
        uint64_t h = hash_fnv1a_str(n->sim.facts.name);
        if (table_find_hashed(&ns->names, n->sim.facts.name, h) == NULL) {
            n->by_name.key = n->sim.facts.name;
            table_link(&ns->names, &n->by_name, h);
        } else if (twice == NULL || strcmp(n->sim.facts.name, twice) < 0) {
            twice = n->sim.facts.name;
        }
    }
    return twice == NULL ? 0
                         : err_fail(err, -EINVAL, "%s: node %.253s is given twice", what, twice);
}

/* The nodes of a NodeList text (file or API answer) into @out, named
 * @what in messages. Strings are copied into out->a, so @text may go. */
static int decode_nodes(const struct cfg *cfg, const char *text, size_t len, const char *what,
                        bool strict, struct whatif_nodes *out, char *err)
{
    struct cfg big = *cfg;
    struct codec_args args;
    const char *kind;

    big.max_nodes = (int)PLACE_SIM_MAX_NODES; /* a file is no request: the engine's limit */
    int rc = codec_nodelist_decode(out->a, text, len, &big, what, &args, err);
    if (rc == 0)
        rc = whatif_nodelist_kind(out->a, &args, &kind, err);
    if (rc != 0)
        return rc;
    if (kind[0] != '\0' && strcmp(kind, "NodeList") != 0 && strcmp(kind, "List") != 0)
        return err_fail(err, -EINVAL,
                        "%s: a %.100s, not nodes (want a NodeList, a List of nodes or a Node)",
                        what, kind);
    /* No "items" and no list member: the text was one Node object. */
    const char *first = text;
    while (first < text + len &&
           (*first == ' ' || *first == '\n' || *first == '\r' || *first == '\t'))
        first++;
    bool bare = args.n_list_members == 0 && args.n_nodes == 1 && args.nodes[0].json.p == first;
    out->nodes = arena_calloc(out->a, args.n_nodes + 1, sizeof(*out->nodes));
    if (out->nodes == NULL)
        return err_fail(err, -ENOMEM, "out of memory");
    for (size_t i = 0; i < args.n_nodes; i++) {
        const struct codec_node *cn = &args.nodes[i];
        struct whatif_node *n = &out->nodes[i];
        struct whatif_node_facts f;
        char at[320];
        if (bare)
            snprintf(at, sizeof(at), "%s", what);
        else
            snprintf(at, sizeof(at), "%s: items[%zu] (%.253s)", what, i, cn->name);
        rc = whatif_node_facts_decode(out->a, cn->json, &f, err);
        if (rc == 0 && f.kind[0] != '\0' && strcmp(f.kind, "Node") != 0) {
            rc = err_fail(err, -EINVAL, "a %.100s, not a Node", f.kind);
        } else if (rc == 0 && f.has_containers) {
            rc = err_fail(err, -EINVAL, "a Pod (it has spec.containers), not a Node");
        }
        if (rc == 0 && strict && cn->invalid != NULL)
            rc = err_fail(err, -EINVAL, "%s", cn->invalid);
        if (rc != 0) {
            err_prefix(err, "%s: ", at);
            return rc;
        }
        n->sim.facts = (struct place_node_facts){
            .name = cn->name,
            .labels = f.labels,
            .n_labels = f.n_labels,
            .taints = f.taints,
            .n_taints = f.n_taints,
            .unschedulable = f.unschedulable,
            /* kube-scheduler reads a missing pods key as room for none */
            .max_pods = cn->pods > 0 ? cn->pods : 0,
        };
        n->has_max_pods = cn->pods >= 0;
        n->sim.res = cn->res;
        n->invalid = cn->invalid;
        n->hostname = whatif_node_facts_label(&f, HOSTNAME_LABEL);
    }
    out->n = args.n_nodes;
    return 0;
}

/* Node @n as the cluster state resolves it from @view (its pods' sums,
 * its usage window), as serve does (verb_state_from_view()), with
 * allocatable and the used annotation from the node's own object. */
static void resolve_view(const struct cfg *cfg, struct whatif_node *n,
                         const struct kube_node_view *view)
{
    struct verb_state st;
    const struct codec_node obj = {
        .name = n->sim.facts.name, .res = n->sim.res, .invalid = n->invalid};
    verb_state_from_view(cfg, view, &obj, &st);
    n->sim.res = st.node;
    n->sim.facts.pods = (int64_t)view->n_pods;
    memcpy(n->sim.facts.requested, view->req_real, sizeof(view->req_real));
    n->from_state = true;
    n->worst = st.worst;
    for (int r = 0; r < SCORE_NRES; r++) {
        n->source[r] = st.used[r].source;
        n->outcome[r] = st.used[r].outcome;
    }
    /* The window serve scores by (its aggregate is in st already). */
    n->usage_samples = view->usage_samples;
    memcpy(n->usage_aggregate, view->usage, sizeof(n->usage_aggregate));
    memcpy(n->usage_newest, view->usage_newest, sizeof(n->usage_newest));
}

/* Reads @path and finds its pods. */
static int read_pod_items(const char *path, char **text, struct whatif_item **items, size_t *n,
                          uint32_t *docs, char *err)
{
    size_t len;
    int rc = file_read(path, WHATIF_INPUT_MAX, FILE_ANY, text, &len, err);
    if (rc != 0)
        return rc == -EFBIG ? -EINVAL : rc;
    rc = whatif_pod_items(*text, len, items, n, err);
    if (rc != 0) {
        err_prefix(err, "%s: ", whatif_file_name(path));
        free(*text);
        *text = NULL;
        return rc;
    }
    *docs = *n > 0 ? (*items)[*n - 1].doc + 1 : 1;
    return 0;
}

static bool is_terminal(const char *phase)
{
    return strcmp(phase, "Succeeded") == 0 || strcmp(phase, "Failed") == 0;
}

/* Charges every bound pod of @path to its node of @out (decoded already). */
static int charge_existing(const struct cfg *cfg, const char *path, const char *exclude_uid,
                           struct whatif_nodes *out, char *err)
{
    struct whatif_item *items = NULL;
    char *text = NULL;
    size_t n = 0;
    uint32_t docs;
    struct kube_node_view *views = NULL;
    int rc = read_pod_items(path, &text, &items, &n, &docs, err);
    if (rc != 0)
        return rc;
    if ((rc = index_names(out, whatif_file_name(path), err)) != 0)
        goto out_free;
    views = calloc(out->n + 1, sizeof(*views));
    if (views == NULL) {
        rc = err_fail(err, -ENOMEM, "out of memory");
        goto out_free;
    }
    for (size_t i = 0; i < n; i++) {
        struct arena *tmp = arena_acquire();
        const cJSON *tree;
        struct codec_pod pod;
        struct score_pod_request req;
        if (tmp == NULL) {
            rc = err_fail(err, -ENOMEM, "out of memory");
            goto out_free;
        }
        rc = whatif_pod_item_decode(tmp, &items[i], docs, &tree, &pod, &req, err);
        if (rc != 0) {
            arena_release(tmp);
            err_prefix(err, "%s: ", whatif_file_name(path));
            goto out_free;
        }
        const struct table_entry *e =
            pod.node_name[0] != '\0' ? table_find(&out->names, pod.node_name) : NULL;
        /* Not charged: not bound, finished, or bound to a node not in the list. */
        if (exclude_uid != NULL && exclude_uid[0] != '\0' && strcmp(pod.uid, exclude_uid) == 0) {
            out->excluded++;
        } else if (e != NULL && !is_terminal(pod.phase)) {
            struct kube_node_view *v = &views[(const struct whatif_node *)e - out->nodes];
            v->n_pods++;
            for (int r = 0; r < SCORE_NRES; r++) {
                v->req_real[r] = score_add_sat(v->req_real[r], req.real[r]);
                v->req_non_zero[r] = score_add_sat(v->req_non_zero[r], req.non_zero[r]);
            }
            out->charged++;
        }
        arena_release(tmp);
    }
    for (size_t i = 0; i < out->n; i++) {
        views[i].pods_synced = true; /* every pod of the file is in */
        resolve_view(cfg, &out->nodes[i], &views[i]);
    }
    out->with_existing = true;
    rc = 0;

out_free:
    free(views);
    free(items);
    free(text);
    return rc;
}

int whatif_nodes_from_files(const struct cfg *cfg, const char *nodes_path,
                            const char *existing_path, const char *exclude_uid, bool strict,
                            struct whatif_nodes *out, char *err)
{
    char *text = NULL;
    size_t len;

    memset(out, 0, sizeof(*out));
    if ((out->a = arena_acquire()) == NULL)
        return err_fail(err, -ENOMEM, "out of memory");
    int rc = file_read(nodes_path, WHATIF_INPUT_MAX, FILE_ANY, &text, &len, err);
    if (rc == -EFBIG)
        rc = -EINVAL;
    if (rc == 0)
        rc = decode_nodes(cfg, text, len, whatif_file_name(nodes_path), strict, out, err);
    free(text); /* every string was copied into the arena */
    if (rc == 0 && existing_path != NULL)
        rc = charge_existing(cfg, existing_path, exclude_uid, out, err);
    if (rc == 0 && existing_path == NULL) /* a simulation tells nodes by name */
        rc = index_names(out, whatif_file_name(nodes_path), err);
    if (rc != 0)
        whatif_nodes_destroy(out);
    return rc;
}

/* With a used source on usage, waits until every node of @out has a
 * usage sample (metrics.k8s.io or Prometheus) in the state, a poll fails, or a poll interval and
 * 5 s have passed: a one-shot tool started a moment ago would otherwise
 * score every node stale. Says on stderr when some have none. */
static void await_usage(const struct cfg *cfg, struct cluster *cl, const struct whatif_nodes *out)
{
    struct cluster_counts k0, k;
    size_t with = 0, usable = 0;
    if (!cluster_usage_needed(cfg))
        return;
    cluster_counts(cl, &k0);
    for (int i = 0; i < (cfg_usage_interval(cfg) + 5) * 20; i++) {
        double now = clock_wall();
        with = usable = 0;
        for (size_t j = 0; j < out->n; j++) {
            struct kube_node_view v;
            if (kube_state_view(cluster_state(cl), out->nodes[j].sim.facts.name, now,
                                cfg->in_flight_seconds, &v) == 0 &&
                v.usage_samples > 0) {
                with++;
                usable += v.has_usage;
            }
        }
        cluster_counts(cl, &k);
        if (with == out->n || k.usage_errors > k0.usage_errors)
            break;
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    if (with < out->n)
        fprintf(stderr,
                "cpu-extender: %zu of %zu nodes have no %s sample yet: their usage "
                "is stale (stalePolicy %s)\n",
                out->n - with, out->n, cfg->usage_prometheus ? "Prometheus" : "metrics.k8s.io",
                score_stale_policy_name(cfg->stale_policy));
    else if (usable < out->n)
        /* A one-shot tool does not wait usageMinSamples intervals. */
        fprintf(stderr,
                "cpu-extender: %zu of %zu nodes have fewer than usageMinSamples (%d) samples: "
                "their usage is stale (stalePolicy %s)\n",
                out->n - usable, out->n, cfg->usage_min_samples,
                score_stale_policy_name(cfg->stale_policy));
}

int whatif_nodes_from_cluster(const struct cfg *cfg, struct cluster *cl, const char *exclude_uid,
                              const char *exclude_node, struct whatif_nodes *out, char *err)
{
    struct kube_response resp = {0};

    memset(out, 0, sizeof(*out));
    int rc = cluster_wait(cl, 30, err);
    if (rc != 0) {
        err_prefix(err, "cluster: ");
        return rc;
    }
    if ((out->a = arena_acquire()) == NULL)
        return err_fail(err, -ENOMEM, "out of memory");
    /* The state keeps no labels or taints: the Node objects once more. */
    rc = kube_get(cluster_client(cl), "/api/v1/nodes", 60, &resp, err);
    if (rc == 0 && resp.status != 200) {
        codec_status_message(resp.status, resp.body, resp.len, err);
        rc = -EIO;
    }
    if (rc != 0) {
        err_prefix(err, "cluster: GET /api/v1/nodes: ");
        goto out_free;
    }
    if ((rc = decode_nodes(cfg, resp.body, resp.len, "cluster nodes", false, out, err)) != 0)
        goto out_free;
    await_usage(cfg, cl, out);
    double now = clock_wall();
    for (size_t i = 0; i < out->n; i++) {
        struct whatif_node *n = &out->nodes[i];
        struct kube_node_view view;
        if (kube_state_view(cluster_state(cl), n->sim.facts.name, now, cfg->in_flight_seconds,
                            &view) != 0) {
            /* Listed after the state's last event: as a node without pods. */
            memset(&view, 0, sizeof(view));
            view.pods_synced = true;
        }
        int64_t real[SCORE_NRES], non_zero[SCORE_NRES];
        if (exclude_uid != NULL && exclude_uid[0] != '\0' && exclude_node != NULL &&
            strcmp(exclude_node, n->sim.facts.name) == 0 &&
            kube_state_pod_request(cluster_state(cl), exclude_uid, exclude_node, real, non_zero) ==
                0) {
            for (int r = 0; r < SCORE_NRES; r++) {
                view.req_real[r] = view.req_real[r] > real[r] ? view.req_real[r] - real[r] : 0;
                view.req_non_zero[r] =
                    view.req_non_zero[r] > non_zero[r] ? view.req_non_zero[r] - non_zero[r] : 0;
            }
            view.n_pods = view.n_pods > 0 ? view.n_pods - 1 : 0;
            out->excluded++;
        }
        resolve_view(cfg, n, &view);
        out->charged += view.n_pods;
    }
    out->with_existing = true;

out_free:
    free(resp.body);
    if (rc != 0)
        whatif_nodes_destroy(out);
    return rc;
}

void whatif_nodes_destroy(struct whatif_nodes *n)
{
    arena_release(n->a);
    memset(n, 0, sizeof(*n));
}

static int check_files(const char *tool, const char *first, const char *nodes, const char *existing,
                       const char *stdin_flags)
{
    if (existing != NULL && nodes == NULL)
        return whatif_fail(2, tool,
                           "--existing needs --nodes (with a cluster, its pods are read from it)");
    if ((strcmp(first, "-") == 0) + (nodes && strcmp(nodes, "-") == 0) +
            (existing && strcmp(existing, "-") == 0) >
        1)
        return whatif_fail(2, tool, "only one of %s can read standard input (-)", stdin_flags);
    return 0;
}

int whatif_flag(const char *tool, int argc, char **argv, int *i, const char *name,
                const char *short_name, const char **value)
{
    const char *a = argv[*i];
    size_t len = strlen(name), short_len = short_name != NULL ? strlen(short_name) : 0;

    if (strncmp(a, name, len) == 0 && a[len] == '=') {
        *value = a + len + 1;
        return 1;
    }
    /* -oname: a short flag and its value in one argument */
    if (short_name != NULL && strncmp(a, short_name, short_len) == 0 && a[short_len] != '\0') {
        *value = a + short_len + (a[short_len] == '=');
        return 1;
    }
    if (strcmp(a, name) != 0 && (short_name == NULL || strcmp(a, short_name) != 0))
        return 0;
    if (*i + 1 >= argc)
        return whatif_fail(2, tool, "flag %s needs a value", a);
    *value = argv[++*i];
    return 1;
}

static int check_used_source(const char *tool, const struct cfg *c, const char *why)
{
    for (int r = 0; r < SCORE_NRES; r++)
        if (c->used_source[r] == SCORE_USED_USAGE || c->used_source[r] == SCORE_USED_MAX)
            return whatif_fail(2, tool, "--%s-used-source %s: %s; use requests or annotation",
                               score_resource_name(r), score_used_source_name(c->used_source[r]),
                               why);
    return 0;
}

static int cluster_open(const struct cfg *c, const char *tool, const char *hint,
                        struct cluster **cl)
{
    char err[ERR_LEN];
    struct kube_target t;

    if (kube_global_init() != 0)
        return whatif_fail(1, tool, "libcurl initialisation failed");
    int rc = kube_discover(c->kubeconfig, environ, KUBE_INCLUSTER_DIR, &t, err);
    if (rc == -ENOENT)
        err_set(err,
                "no cluster: give %s, or --kubeconfig FILE (or KUBECONFIG, or ~/.kube/config, "
                "or run in a cluster)",
                hint);
    if (rc == 0) {
        rc = cluster_start(c, &t, cl, err);
        kube_target_destroy(&t);
    }
    if (rc != 0) {
        kube_global_cleanup();
        return whatif_fail(2, tool, "%s", err);
    }
    return 0;
}

int whatif_start(const struct whatif_tool *t, const char *first, const char *nodes,
                 const char *existing, const void *args, int n, char **rest)
{
    struct cluster *cl = NULL;
    struct cfg c;
    int rc = check_files(t->name, first, nodes, existing, t->stdin_flags);
    if (rc != 0)
        return rc;
    if (cfg_load_config(&c, n, rest) != 0)
        return 2;
    if (nodes != NULL && (rc = check_used_source(t->name, &c, t->files_usage)) != 0)
        return rc;
    for (int r = 0; r < SCORE_NRES && t->max != NULL; r++)
        if (c.used_source[r] == SCORE_USED_MAX)
            return whatif_fail(2, t->name, "--%s-used-source max: %s",
                               score_resource_name((enum score_resource)r), t->max);
    log_set_level(c.log_level > LOG_WARN ? c.log_level : LOG_WARN);
    if (nodes == NULL && (rc = cluster_open(&c, t->name, t->hint, &cl)) != 0)
        return rc;
    int status = t->run(&c, args, cl);
    if (cl != NULL) {
        cluster_stop(cl);
        kube_global_cleanup();
    }
    arena_pool_drain();
    return status;
}

/* ---- pods to place ------------------------------------------------------- */

static const char *copy(struct arena *a, const char *s)
{
    return arena_strndup(a, s, strlen(s));
}

/* Pod @p (decoded as @pod) charges the resources @c takes from usage its
 * in-flight estimate, the others its request. Returns 0 or -EINVAL. */
static int charge_estimate(const struct cfg *c, const struct codec_pod *pod,
                           struct place_sim_pod *p, char *err)
{
    struct score_in_flight_rules rules;
    int64_t est[SCORE_NRES];
    cfg_in_flight_rules(c, &rules);
    if (score_pod_estimate(&pod->spec, &rules, est) != 0)
        return err_fail(err, -EINVAL, "Pod: total request does not fit in int64");
    p->charge_set = true;
    for (int r = 0; r < SCORE_NRES; r++) {
        bool usage = c->used_source[r] == SCORE_USED_USAGE;
        p->charge_used[r] = usage ? est[r] : p->request.real[r];
        p->charge_non_zero[r] = usage ? est[r] : p->request.non_zero[r];
    }
    return 0;
}

int whatif_pods_from_file(struct arena *a, const char *path, const struct cfg *usage,
                          struct whatif_pod **out, size_t *n_out, char *err)
{
    struct whatif_item *items = NULL;
    struct whatif_pod *pods = NULL;
    char *text = NULL;
    size_t n = 0;
    uint32_t docs;

    *out = NULL;
    *n_out = 0;
    int rc = read_pod_items(path, &text, &items, &n, &docs, err);
    if (rc != 0)
        return rc;
    pods = calloc(n + 1, sizeof(*pods));
    if (pods == NULL) {
        rc = err_fail(err, -ENOMEM, "out of memory");
        goto out_free;
    }
    for (size_t i = 0; i < n; i++) {
        struct arena *tmp = arena_acquire();
        const cJSON *tree;
        struct codec_pod pod;
        char name[64];
        if (tmp == NULL) {
            rc = err_fail(err, -ENOMEM, "out of memory");
            goto out_free;
        }
        rc = whatif_pod_item_decode(tmp, &items[i], docs, &tree, &pod, &pods[i].sim.request, err);
        if (rc == 0 && usage != NULL)
            rc = charge_estimate(usage, &pod, &pods[i].sim, err);
        if (rc == 0) {
            rc = whatif_pod_constraints_decode(a, tree, &pods[i].sim.constraints, err);
            if (rc != 0) {
                whatif_item_name(&items[i], docs, name, sizeof(name));
                err_prefix(err, "%s (%.253s/%.253s): ", name, pod.ns[0] ? pod.ns : "default",
                           pod.name);
            }
        }
        if (rc == 0 && pod.name[0] == '\0') {
            whatif_item_name(&items[i], docs, name, sizeof(name));
            rc = err_fail(err, -EINVAL,
                          "%s: Pod.metadata.name: missing (simulate names every pod it places)",
                          name);
        }
        if (rc == 0) {
            pods[i].sim.priority = (int32_t)pod.priority;
            pods[i].ns = copy(a, pod.ns[0] != '\0' ? pod.ns : "default");
            pods[i].name = copy(a, pod.name);
            if (pods[i].ns == NULL || pods[i].name == NULL)
                rc = err_fail(err, -ENOMEM, "out of memory");
        }
        arena_release(tmp);
        if (rc != 0) {
            err_prefix(err, "%s: ", whatif_file_name(path));
            goto out_free;
        }
    }
    *out = pods;
    *n_out = n;
    pods = NULL;

out_free:
    free(pods);
    free(items);
    free(text);
    return rc;
}

bool whatif_used_summary(const struct cfg *c, const struct whatif_nodes *nodes, char *out,
                         size_t len)
{
    size_t at = 0;
    bool differs = false;
    out[0] = '\0';
    for (int r = 0; r < SCORE_NRES && at < len; r++) {
        /* per source actually used, how many nodes; and how many of them
         * because the one asked was stale */
        size_t count[SCORE_USED_ANNOTATION + 1] = {0}, stale = 0;
        for (size_t i = 0; i < nodes->n; i++) {
            const struct whatif_node *n = &nodes->nodes[i];
            enum score_used_source s = n->from_state ? n->source[r] : SCORE_USED_ANNOTATION;
            count[s]++;
            /* without pods (no --existing) the annotation is all there is:
             * not a source that failed */
            if (n->from_state && (n->outcome[r] != SCORE_USED_FRESH || s != c->used_source[r]))
                stale++;
        }
        at += (size_t)snprintf(out + at, len - at, "%s%s:", r > 0 ? "; " : "",
                               score_resource_name((enum score_resource)r));
        const char *sep = " ";
        for (int s = 0; s <= SCORE_USED_ANNOTATION && at < len; s++) {
            if (count[s] == 0)
                continue;
            at += (size_t)snprintf(out + at, len - at, "%s%s on %zu node%s", sep,
                                   score_used_source_name((enum score_used_source)s), count[s],
                                   count[s] == 1 ? "" : "s");
            sep = ", ";
        }
        if (stale > 0 && at < len)
            at += (size_t)snprintf(out + at, len - at,
                                   " (%s asked; %zu without it: stalePolicy %s applied)",
                                   score_used_source_name(c->used_source[r]), stale,
                                   score_stale_policy_name(c->stale_policy));
        differs = differs || stale > 0;
    }
    return differs;
}

/* Judging and scoring the candidate nodes of one request (verbs.h). */
#include "server/verbs.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

enum score_used_outcome srv_used_from_state(const struct cfg *cfg,
                                            const struct kube_node_view *view,
                                            const int64_t annotation[SCORE_NRES],
                                            struct score_node *node,
                                            struct score_used used[SCORE_NRES])
{
    const struct score_used_limits lim = {
        .requests_max_age = cfg->requests_max_age_seconds,
        .usage_max_age = cfg->usage_max_age_seconds,
        .policy = cfg->stale_policy,
    };
    enum score_used_outcome worst = SCORE_USED_FRESH;

    for (int r = 0; r < SCORE_NRES; r++) {
        const struct score_used_inputs in = {
            .has_requests = view->pods_synced,
            .req_real = view->req_real[r],
            .req_non_zero = view->req_non_zero[r],
            .req_age = view->requests_age,
            .has_usage = view->has_usage,
            .usage = view->usage[r],
            .usage_age = view->usage_age,
            .in_flight = view->in_flight[r],
            .annotation = annotation[r],
        };
        score_used_resolve(cfg->used_source[r], &in, &lim, &used[r]);
        node->used[r] = used[r].used_real;
        node->used_non_zero[r] = used[r].used_non_zero;
        if (used[r].outcome == SCORE_USED_STALE_FULL)
            worst = SCORE_USED_STALE_FULL;
        else if (used[r].outcome == SCORE_USED_STALE_PASS && worst != SCORE_USED_STALE_FULL)
            worst = SCORE_USED_STALE_PASS;
        else if (worst == SCORE_USED_FRESH)
            worst = used[r].outcome;
    }
    return worst;
}

/* The node as the request describes it: allocatable and used annotation. */
static void judge_from_request(const struct cfg *cfg, const struct codec_args *args,
                               const struct codec_node *n, struct node_eval *e)
{
    if (n->invalid != NULL) {
        e->verdict = SCORE_UNRESOLVABLE;
        e->reason = n->invalid;
        return;
    }
    e->verdict =
        score_fit(cfg->score.threshold_percent, &n->res, args->pod.request.real, e->reason_buf);
    if (e->verdict != SCORE_FITS)
        e->reason = e->reason_buf;
    score_node_value(&cfg->score, &n->res, &args->pod.request, &e->explain);
}

/* The node as the cluster state knows it; allocatable and annotations come
 * from the request's Node object when there is one (it is the scheduler's
 * own snapshot), the pods and usage always from the state. */
static void judge_from_state(const struct cfg *cfg, struct srv_cluster *cl, double now,
                             const struct codec_args *args, const struct codec_node *n,
                             struct node_eval *e)
{
    struct kube_node_view view;
    struct score_node node;
    const int64_t *annotation;
    const char *invalid;

    if (kube_state_view(srv_cluster_state(cl), n->name, now, cfg->in_flight_seconds, &view) != 0) {
        e->unknown = true; /* passes with score 0, as without a cluster */
        e->forced_zero = true;
        srv_cluster_count_unknown(cl, n->name);
        return;
    }
    memset(&node, 0, sizeof(node));
    if (args->node_names_mode) {
        memcpy(node.alloc, view.alloc, sizeof(node.alloc));
        annotation = view.annotation;
        invalid = view.invalid[0] != '\0' ? view.invalid : NULL;
    } else {
        memcpy(node.alloc, n->res.alloc, sizeof(node.alloc));
        annotation = n->res.used;
        invalid = n->invalid;
    }
    e->from_state = true;
    if (invalid != NULL) {
        e->verdict = SCORE_UNRESOLVABLE;
        snprintf(e->reason_buf, sizeof(e->reason_buf), "%s", invalid);
        e->reason = e->reason_buf;
        e->forced_zero = true;
        return;
    }
    enum score_used_outcome worst = srv_used_from_state(cfg, &view, annotation, &node, e->used);
    score_node_value(&cfg->score, &node, &args->pod.request, &e->explain);
    if (worst == SCORE_USED_STALE_FULL || worst == SCORE_USED_STALE_PASS) {
        e->forced_zero = true;
        if (worst == SCORE_USED_STALE_FULL) {
            int r = e->used[SCORE_CPU].outcome == SCORE_USED_STALE_FULL ? SCORE_CPU : SCORE_MEMORY;
            e->verdict = SCORE_UNFIT;
            snprintf(e->reason_buf, sizeof(e->reason_buf), "Stale %s data (%s)",
                     score_resource_name((enum score_resource)r),
                     score_used_source_name(cfg->used_source[r]));
            e->reason = e->reason_buf;
        }
        return;
    }
    e->verdict =
        score_fit(cfg->score.threshold_percent, &node, args->pod.request.real, e->reason_buf);
    if (e->verdict != SCORE_FITS)
        e->reason = e->reason_buf;
}

/* The metric label of a verdict. score_fit's reasons are fixed texts
 * ("Insufficient cpu", "Insufficient memory", both joined by ", "). */
static enum srv_reason reason_code(const struct codec_node *n, const struct node_eval *e)
{
    if (e->unknown)
        return SRV_REASON_UNKNOWN_NODE;
    if (n->invalid != NULL || (e->from_state && e->verdict == SCORE_UNRESOLVABLE && e->forced_zero))
        return SRV_REASON_INVALID_NODE;
    if (e->forced_zero && e->from_state)
        return SRV_REASON_STALE;
    if (e->verdict == SCORE_FITS)
        return SRV_REASON_FITS;
    bool cpu = strstr(e->reason, "Insufficient cpu") != NULL;
    bool mem = strstr(e->reason, "Insufficient memory") != NULL;
    return cpu && mem ? SRV_REASON_INSUFFICIENT_BOTH
           : cpu      ? SRV_REASON_INSUFFICIENT_CPU
                      : SRV_REASON_INSUFFICIENT_MEMORY;
}

long srv_best_node(const struct codec_args *args, const struct node_eval *eval, bool fitting_only)
{
    long best = -1;
    for (size_t i = 0; i < args->n_nodes; i++) {
        if (fitting_only && eval[i].verdict != SCORE_FITS)
            continue;
        if (best < 0 || eval[i].explain.score > eval[best].explain.score ||
            (eval[i].explain.score == eval[best].explain.score &&
             eval[i].explain.value > eval[best].explain.value))
            best = (long)i;
    }
    return best;
}

/* Nodes scored between two looks at the clock: a few microseconds. */
#define DEADLINE_STRIDE 256

int srv_evaluate(const struct cfg *cfg, struct srv_cluster *cl, const struct codec_args *args,
                 const struct srv_deadline *deadline, struct node_eval *eval)
{
    double now = cl != NULL ? srv_cluster_now() : 0;

    for (size_t i = 0; i < args->n_nodes; i++) {
        if (deadline != NULL && i % DEADLINE_STRIDE == DEADLINE_STRIDE - 1 &&
            srv_deadline_passed(deadline))
            return -ETIMEDOUT;
        const struct codec_node *n = &args->nodes[i];
        struct node_eval *e = &eval[i];
        memset(e, 0, sizeof(*e));
        e->reason = "";
        e->explain.strategy = cfg->score.strategy;
        if (cl != NULL)
            judge_from_state(cfg, cl, now, args, n, e);
        else if (!args->node_names_mode)
            judge_from_request(cfg, args, n, e);
        else
            e->forced_zero = true; /* nothing to judge by: pass, score 0 */
        if (e->forced_zero)
            e->explain.value = 0;
        e->code = reason_code(n, e);
    }
    /* The scores of every node, failing ones included, so that a prioritize
     * call (which only sees nodes that passed) and rank agree. */
    struct score_explain *ex = cJSON_malloc(args->n_nodes * sizeof(*ex) + 1);
    if (ex == NULL)
        return -ENOMEM;
    for (size_t i = 0; i < args->n_nodes; i++)
        ex[i] = eval[i].explain;
    score_finish(&cfg->score, ex, args->n_nodes);
    for (size_t i = 0; i < args->n_nodes; i++) {
        bool zero = eval[i].forced_zero || (cl == NULL && args->nodes[i].invalid != NULL);
        eval[i].explain.score = zero ? 0 : ex[i].score;
    }
    return 0;
}

#include "server/verbs/evaluate.h"

#include <errno.h>
#include <string.h>

#include "base/arena.h"
#include "base/clock.h"
#include "scoring/best.h"

void verb_state_from_view(const struct cfg *cfg, const struct kube_node_view *v,
                          const struct codec_node *req, struct verb_state *out)
{
    const struct score_used_limits lim = {
        .requests_max_age = cfg->requests_max_age_seconds,
        .usage_max_age = cfg->usage_max_age_seconds,
        .policy = cfg->stale_policy,
    };
    /* @v is read in place: a copy of the view per node cost more than the rest. */
    memset(&out->node, 0, sizeof(out->node));
    const int64_t *annotation = req != NULL ? req->res.used : v->annotation;
    memcpy(out->node.alloc, req != NULL ? req->res.alloc : v->alloc, sizeof(out->node.alloc));
    out->invalid = req != NULL ? req->invalid : v->invalid;
    out->worst = SCORE_USED_FRESH;
    for (int r = 0; r < SCORE_NRES; r++) {
        const struct score_used_inputs in = {
            .has_requests = v->pods_synced,
            .req_real = v->req_real[r],
            .req_non_zero = v->req_non_zero[r],
            .req_age = v->requests_age,
            .has_usage = v->has_usage,
            .usage = v->usage[r],
            .usage_age = v->usage_age,
            .in_flight = v->in_flight[r],
            .annotation = annotation[r],
        };
        struct score_used *u = &out->used[r];
        score_used_resolve(cfg->used_source[r], &in, &lim, u);
        out->node.used[r] = u->used_real;
        out->node.used_non_zero[r] = u->used_non_zero;
        if (u->outcome == SCORE_USED_STALE_FULL)
            out->worst = SCORE_USED_STALE_FULL;
        else if (u->outcome == SCORE_USED_STALE_PASS && out->worst != SCORE_USED_STALE_FULL)
            out->worst = SCORE_USED_STALE_PASS;
        else if (out->worst == SCORE_USED_FRESH)
            out->worst = u->outcome;
    }
}

int verb_state_node(const struct cfg *cfg, struct cluster *cl, double now, const char *name,
                    const struct codec_node *req, struct verb_state *out)
{
    struct kube_node_view view;

    if (kube_state_view(cluster_state(cl), name, now, cfg->in_flight_seconds, &view) != 0) {
        cluster_count_unknown(cl, name);
        return -ENOENT;
    }
    verb_state_from_view(cfg, &view, req, out);
    return 0;
}

/* The reason of a node rejected for stale data: which resource, which source. */
static const char *const stale_reasons[SCORE_NRES][4] = {
    [SCORE_CPU] = {"Stale cpu data (requests)", "Stale cpu data (usage)", "Stale cpu data (max)",
                   "Stale cpu data (annotation)"},
    [SCORE_MEMORY] = {"Stale memory data (requests)", "Stale memory data (usage)",
                      "Stale memory data (max)", "Stale memory data (annotation)"},
};

/* The verdict of score_fit, into the answer @ans and @e's reason code; an
 * @exempt pod (a DaemonSet's, under thresholdExempt) passes whatever the
 * thresholds say. */
static void judge(const struct cfg *cfg, const struct score_node *node,
                  const struct score_pod_request *req, bool exempt, struct codec_node_answer *ans,
                  struct verb_node *e)
{
    struct score_fit f = score_fit(cfg->score.threshold_percent, node, req->fit);
    if (f.verdict != SCORE_FITS && exempt) {
        *ans = (struct codec_node_answer){.verdict = SCORE_FITS, .reason = ""};
        e->code = OPS_REASON_THRESHOLD_EXEMPT;
        return;
    }
    ans->verdict = f.verdict;
    ans->reason = score_fit_reason(f.short_of);
    e->code = f.verdict == SCORE_FITS                                ? OPS_REASON_FITS
              : f.short_of == (1u << SCORE_CPU | 1u << SCORE_MEMORY) ? OPS_REASON_INSUFFICIENT_BOTH
              : f.short_of == 1u << SCORE_CPU                        ? OPS_REASON_INSUFFICIENT_CPU
                                              : OPS_REASON_INSUFFICIENT_MEMORY;
}

/* The node as the cluster state knows it (@view, NULL when it does not);
 * allocatable and annotations come from the request's Node object when
 * there is one. */
static void judge_from_state(const struct cfg *cfg, struct cluster *cl,
                             const struct kube_node_view *view, const struct codec_args *args,
                             const struct score_pod_request *req, bool exempt,
                             const struct codec_node *n, struct codec_node_answer *ans,
                             struct score_explain *ex, struct verb_node *e)
{
    struct verb_state st;

    if (view == NULL) {
        cluster_count_unknown(cl, n->name);
        e->unknown = true; /* passes with score 0, as without a cluster */
        e->forced_zero = true;
        e->code = OPS_REASON_UNKNOWN_NODE;
        return;
    }
    verb_state_from_view(cfg, view, args->node_names_mode ? NULL : n, &st);
    e->from_state = true;
    e->usage_samples = view->usage_samples;
    memcpy(e->usage_aggregate, view->usage, sizeof(e->usage_aggregate));
    memcpy(e->usage_newest, view->usage_newest, sizeof(e->usage_newest));
    if (st.invalid != NULL) {
        *ans = (struct codec_node_answer){.verdict = SCORE_UNRESOLVABLE, .reason = st.invalid};
        e->code = OPS_REASON_INVALID_NODE;
        e->forced_zero = true;
        return;
    }
    memcpy(e->used, st.used, sizeof(e->used));
    score_node_value(&cfg->score, &st.node, req, ex);
    if (st.worst == SCORE_USED_STALE_FULL || st.worst == SCORE_USED_STALE_PASS) {
        e->forced_zero = true;
        e->code = OPS_REASON_STALE;
        if (st.worst == SCORE_USED_STALE_FULL) {
            enum score_resource r =
                st.used[SCORE_CPU].outcome == SCORE_USED_STALE_FULL ? SCORE_CPU : SCORE_MEMORY;
            ans->verdict = SCORE_UNFIT;
            ans->reason = stale_reasons[r][cfg->used_source[r]];
        }
        return;
    }
    judge(cfg, &st.node, req, exempt, ans, e);
}

bool verb_threshold_exempt(const struct cfg *cfg, bool daemonset)
{
    return cfg->exempt_daemonsets && daemonset;
}

bool verb_let_all_through(const struct cfg *cfg, size_t n,
                          bool (*threshold_only)(const void *ctx, size_t i), const void *ctx)
{
    if (!cfg->unless_all_fail || n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!threshold_only(ctx, i))
            return false;
    return true;
}

/* Node @i of the verb_eval @ctx failed on a threshold alone. */
static bool eval_threshold_only(const void *ctx, size_t i)
{
    const struct verb_eval *eval = ctx;
    enum ops_reason c = eval->node[i].code;
    return eval->answer[i].verdict != SCORE_FITS &&
           (c == OPS_REASON_INSUFFICIENT_CPU || c == OPS_REASON_INSUFFICIENT_MEMORY ||
            c == OPS_REASON_INSUFFICIENT_BOTH);
}

/* thresholdPolicy unlessAllFail: when every candidate failed on a threshold
 * alone (not stale, not unusable, not unknown), all pass, scored as they
 * were. Returns how many were let through. */
static size_t let_through(const struct cfg *cfg, size_t n, struct verb_eval *eval)
{
    if (!verb_let_all_through(cfg, n, eval_threshold_only, eval))
        return 0;
    for (size_t i = 0; i < n; i++) {
        eval->answer[i].verdict = SCORE_FITS;
        eval->answer[i].reason = "";
        eval->node[i].code = OPS_REASON_THRESHOLD_LET_THROUGH;
    }
    return n;
}

long verb_best_node(const struct verb_eval *eval, size_t n)
{
    const struct codec_node_answer *ans = eval->answer;
    const struct score_explain *ex = eval->explain;
    struct score_best b;
    score_best_init(&b);
    for (size_t i = 0; i < n; i++)
        if (ans[i].verdict == SCORE_FITS)
            score_best_offer(&b, (long)i, &ex[i]);
    return b.index;
}

/* Nodes scored between two looks at the clock: a few microseconds. */
#define DEADLINE_STRIDE 256

/* The state's views of the nodes [@i, @i + @n) of @args, one lock for
 * them all, the thread remembering where each name was
 * (kube_state_view_list). */
static void views_of(struct cluster *cl, const struct cfg *cfg, double now,
                     const struct codec_args *args, size_t i, size_t n,
                     struct kube_node_view *views, bool *found)
{
    const char *names[KUBE_VIEW_BATCH];
    for (size_t k = 0; k < n; k++)
        names[k] = args->nodes[i + k].name;
    kube_state_view_list(cluster_state(cl), names, n, i, args->n_nodes, now, cfg->in_flight_seconds,
                         views, found);
}

int verb_evaluate(struct arena *a, const struct cfg *cfg, struct cluster *cl,
                  const struct codec_args *args, const struct score_pod_request *req,
                  const struct verb_deadline *deadline, struct verb_eval *eval)
{
    double now = cl != NULL ? clock_wall() : 0;
    bool exempt = verb_threshold_exempt(cfg, args->pod.daemonset);
    struct kube_node_view views[KUBE_VIEW_BATCH];
    bool found[KUBE_VIEW_BATCH];

    eval->answer = arena_alloc(a, (args->n_nodes + 1) * sizeof(*eval->answer));
    eval->explain = arena_alloc(a, (args->n_nodes + 1) * sizeof(*eval->explain));
    eval->node = arena_alloc(a, (args->n_nodes + 1) * sizeof(*eval->node));
    if (eval->answer == NULL || eval->explain == NULL || eval->node == NULL)
        return -ENOMEM;
    for (size_t i = 0; i < args->n_nodes; i++) {
        if (deadline != NULL && i % DEADLINE_STRIDE == DEADLINE_STRIDE - 1 &&
            verb_deadline_passed(deadline))
            return -ETIMEDOUT;
        const struct codec_node *n = &args->nodes[i];
        struct codec_node_answer *ans = &eval->answer[i];
        struct score_explain *ex = &eval->explain[i];
        struct verb_node *e = &eval->node[i];
        size_t k = i % KUBE_VIEW_BATCH;
        if (cl != NULL && k == 0)
            views_of(cl, cfg, now, args, i,
                     args->n_nodes - i < KUBE_VIEW_BATCH ? args->n_nodes - i : KUBE_VIEW_BATCH,
                     views, found);
        memset(e, 0, sizeof(*e));
        memset(ex, 0, sizeof(*ex));
        *ans = (struct codec_node_answer){.verdict = SCORE_FITS, .reason = ""};
        ex->strategy = cfg->score.strategy;
        /* The node as the cluster state knows it; else, in a NodeList, as the
         * request describes it: allocatable and used annotation. */
        if (cl != NULL) {
            judge_from_state(cfg, cl, found[k] ? &views[k] : NULL, args, req, exempt, n, ans, ex,
                             e);
        } else if (args->node_names_mode) {
            e->forced_zero = true; /* nothing to judge by: pass, score 0 */
        } else if (n->invalid != NULL) {
            *ans = (struct codec_node_answer){.verdict = SCORE_UNRESOLVABLE, .reason = n->invalid};
            e->code = OPS_REASON_INVALID_NODE;
        } else {
            judge(cfg, &n->res, req, exempt, ans, e);
            score_node_value(&cfg->score, &n->res, req, ex);
        }
        if (e->forced_zero)
            ex->value = 0;
    }
    eval->let_through = let_through(cfg, args->n_nodes, eval);
    score_finish(&cfg->score, eval->explain, args->n_nodes);
    for (size_t i = 0; i < args->n_nodes; i++) {
        if (eval->node[i].forced_zero || eval->node[i].code == OPS_REASON_INVALID_NODE)
            eval->explain[i].score = 0;
        eval->answer[i].score = eval->explain[i].score;
    }
    return 0;
}

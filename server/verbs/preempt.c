#include "server/verbs/preempt.h"

#include <errno.h>
#include <stdatomic.h>

#include "base/arena.h"
#include "base/clock.h"
#include "base/log.h"
#include "server/codec/answer.h"
#include "server/codec/preempt_args.h"
#include "server/verbs/deadline.h"
#include "server/verbs/evaluate.h"
#include "server/verbs/reply.h"
#include "server/verbs/selector.h"

static atomic_flag no_state_logged = ATOMIC_FLAG_INIT;

static int64_t sub_floor(int64_t a, int64_t b)
{
    return a > b ? a - b : 0;
}

/* The effective requests of the pod into @pod and of the victims sent as
 * full pods into *@victims (entry i for node i's, NULL where they came as
 * UIDs), in @a. Returns 0, -EINVAL with the reason in @err, or -ENOMEM. */
static int requests_of(struct arena *a, const struct codec_preempt_args *args,
                       struct score_pod_request *pod, struct score_pod_request ***victims,
                       char *err)
{
    if (score_pod_request(&args->pod.spec, pod) != 0)
        return err_fail(err, -EINVAL, "Pod: total request does not fit in int64");
    *victims = arena_calloc(a, args->n_nodes + 1, sizeof(**victims));
    if (*victims == NULL)
        return err_fail(err, -ENOMEM, "out of memory");
    for (size_t i = 0; i < args->n_nodes; i++) {
        const struct codec_victims *v = &args->nodes[i];
        if (v->pods == NULL)
            continue;
        struct score_pod_request *r = arena_calloc(a, v->n + 1, sizeof(*r));
        if (r == NULL)
            return err_fail(err, -ENOMEM, "out of memory");
        for (size_t k = 0; k < v->n; k++)
            if (score_pod_request(&v->pods[k], &r[k]) != 0)
                return err_fail(err, -EINVAL,
                                "victim %zu on node %s: Pod: total request does not fit in int64",
                                k, v->node);
        (*victims)[i] = r;
    }
    return 0;
}

/* Would a pod that requests @pod fit on @v->node once its victims (who
 * request @victims, NULL when they came as UIDs) are gone? */
static bool keeps_node(const struct cfg *cfg, struct cluster *cl, double now,
                       const struct score_pod_request *pod, const struct codec_victims *v,
                       const struct score_pod_request *victims)
{
    struct verb_state st;

    if (cl == NULL || verb_state_node(cfg, cl, now, v->node, NULL, &st) != 0)
        return true; /* nothing to judge by: the in-tree plugins' choice stands */
    if (st.invalid != NULL || st.worst == SCORE_USED_STALE_FULL)
        return false;
    if (st.worst == SCORE_USED_STALE_PASS)
        return true;
    for (size_t i = 0; i < v->n; i++) {
        struct score_pod_request req = {0};
        if (victims != NULL)
            req = victims[i];
        else if (kube_state_pod_request(cluster_state(cl), v->uids[i], v->node, req.real,
                                        req.non_zero) != 0)
            continue; /* not charged to this node in our view: nothing to take off */
        for (int r = 0; r < SCORE_NRES; r++) {
            st.node.used[r] = sub_floor(st.node.used[r], req.real[r]);
            st.node.used_non_zero[r] = sub_floor(st.node.used_non_zero[r], req.non_zero[r]);
        }
    }
    return score_fit(cfg->score.threshold_percent, &st.node, pod->fit).verdict == SCORE_FITS;
}

void verb_preempt(const struct verb_ctx *ctx, const char *body, size_t len, struct verb_reply *out)
{
    const struct cfg *cfg = ctx->cfg;
    char err[ERR_LEN];
    struct codec_preempt_args args;
    struct buf o;
    size_t would_keep = 0;
    struct score_pod_request request, **victims = NULL;

    verb_reply_init(out);
    int rc = codec_preempt_decode(ctx->arena, body, len, cfg, &args, err);
    if (rc == 0)
        rc = requests_of(ctx->arena, &args, &request, &victims, err);
    if (rc != 0) {
        verb_reply_error(out, ctx->arena, rc == -ENOMEM ? 500 : 400, err);
        return;
    }
    enum ops_answer answer = verb_answer_kind(cfg, &args.pod);
    bool judge = answer == OPS_ANSWER_SCORED || answer == OPS_ANSWER_SHADOW;
    if (ctx->cl == NULL && !atomic_flag_test_and_set(&no_state_logged))
        LOG(LOG_WARN, "preempt without cluster state: every candidate is kept",
            LOG_STR("hint", "give the service a cluster (--kubeconfig or in-cluster)"));
    bool *keep = arena_calloc(ctx->arena, args.n_nodes + 1, sizeof(*keep));
    if (keep == NULL) {
        verb_reply_error(out, ctx->arena, 500, "out of memory");
        return;
    }
    /* The deadline as filter and prioritize keep it (deadline.h): the
     * request may have arrived late, or its body taken long to read and
     * decode; if judging would end past it, or does, every candidate stays
     * (the in-tree plugins' choice, as without a cluster). */
    struct verb_deadline dl;
    verb_deadline_init(&dl, cfg, &ctx->start);
    if (judge && (verb_deadline_passed(&dl) || verb_deadline_would_miss(&dl, args.n_nodes))) {
        answer = OPS_ANSWER_NEUTRAL_DEADLINE;
        judge = false;
    }
    double now = ctx->cl != NULL ? clock_wall() : 0;
    for (size_t i = 0; i < args.n_nodes; i++) {
        const struct codec_victims *v = &args.nodes[i];
        if (v->n == 0)
            continue; /* never listed */
        if (judge && i % 256 == 255 && verb_deadline_passed(&dl)) {
            answer = OPS_ANSWER_NEUTRAL_DEADLINE;
            judge = false;
            would_keep = 0;
            for (size_t k = 0; k < i; k++)
                would_keep += keep[k] = args.nodes[k].n != 0;
        }
        bool stays = !judge || keeps_node(cfg, ctx->cl, now, &request, v, victims[i]);
        would_keep += stays;
        keep[i] = stays || answer == OPS_ANSWER_SHADOW;
    }
    size_t kept = codec_answer_preempt(&o, ctx->arena, &args, keep);
    verb_reply_take(out, &o, 200);
    out->facts.nodes = args.n_nodes;
    out->facts.answer = answer;
    out->facts.passed = would_keep;
    out->facts.pod_ns = args.pod.ns;
    out->facts.pod_name = args.pod.name;
    out->facts.decided = true;
    out->facts.spread = -1;
    LOG(LOG_DEBUG, "preempt", LOG_NSNAME("pod", args.pod.ns, args.pod.name),
        LOG_UINT("candidates", args.n_nodes), LOG_UINT("kept", would_keep),
        LOG_UINT("answered", kept));
}

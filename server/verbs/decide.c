#include "server/verbs/decide.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "base/arena.h"
#include "base/clock.h"
#include "base/log.h"
#include "server/codec/args.h"
#include "server/ops/shadow.h"
#include "server/verbs/deadline.h"
#include "server/verbs/record.h"
#include "server/verbs/selector.h"

/* Said once per process: in NodeNames mode without a cluster there is
 * nothing to score. */
static atomic_flag names_mode_logged = ATOMIC_FLAG_INIT;

static bool is_stale(const struct verb_node *e)
{
    if (!e->from_state)
        return false;
    for (int r = 0; r < SCORE_NRES; r++)
        if (e->used[r].outcome != SCORE_USED_FRESH)
            return true;
    return false;
}

/* What the decision counts in /metrics (the transport reports it with the
 * request): for scored nodes verdicts by reason, stale nodes and the score
 * spread. Nothing to count where nothing reports (no metrics: rank, the
 * benchmark). */
static void count(const struct verb_ctx *ctx, enum ops_verb verb, const struct verb_outcome *d,
                  struct ops_request_facts *f)
{
    size_t passed[OPS_REASON_COUNT] = {0}, failed[OPS_REASON_COUNT] = {0}, stale = 0;
    int lo = SCORE_MAX_SCORE, hi = 0;

    if (ctx->metrics == NULL)
        return;
    for (size_t i = 0; d->eval.node != NULL && i < d->args.n_nodes; i++) {
        const struct verb_node *e = &d->eval.node[i];
        const struct codec_node_answer *ans = &d->eval.answer[i];
        if (ans->verdict == SCORE_FITS)
            passed[e->code]++;
        else
            failed[e->code]++;
        stale += is_stale(e);
        lo = ans->score < lo ? ans->score : lo;
        hi = ans->score > hi ? ans->score : hi;
    }
    f->decided = true;
    memcpy(f->passed_by, passed, sizeof(passed));
    memcpy(f->failed_by, failed, sizeof(failed));
    f->stale = stale;
    f->spread =
        verb == OPS_VERB_PRIORITIZE && d->eval.node != NULL && d->args.n_nodes > 0 ? hi - lo : -1;
}

/* Chooses the answer and scores when it needs to; returns 0 or -ENOMEM. */
static int choose(const struct verb_ctx *ctx, struct verb_outcome *d)
{
    const struct cfg *cfg = ctx->cfg;
    struct verb_deadline dl;

    d->answer = verb_answer_kind(cfg, &d->args.pod);
    if (d->answer != OPS_ANSWER_SCORED && d->answer != OPS_ANSWER_SHADOW)
        return 0;
    verb_deadline_init(&dl, cfg, &ctx->start);
    if (verb_deadline_would_miss(&dl, d->args.n_nodes)) {
        d->answer = OPS_ANSWER_NEUTRAL_DEADLINE;
        return 0;
    }
    struct timespec t0 = clock_mono();
    int rc = verb_evaluate(ctx->arena, cfg, ctx->cl, &d->args, &d->request, &dl, &d->eval);
    if (rc == -ETIMEDOUT) {
        /* incomplete: nothing of it is answered or kept */
        memset(&d->eval, 0, sizeof(d->eval));
        d->answer = OPS_ANSWER_NEUTRAL_DEADLINE;
        return 0;
    }
    if (rc != 0)
        return rc;
    verb_deadline_learn(d->args.n_nodes, clock_since(&t0));
    return 0;
}

int verb_decide(const struct verb_ctx *ctx, enum ops_verb verb, const char *body, size_t len,
                struct verb_outcome *d, struct ops_request_facts *facts, char *err)
{
    memset(d, 0, sizeof(*d));
    d->best = -1;
    int rc = codec_args_decode(ctx->arena, body, len, ctx->cfg, &d->args, err);
    if (rc != 0)
        return rc;
    if (score_pod_request(&d->args.pod.spec, &d->request) != 0)
        return err_fail(err, -EINVAL, "Pod: total request does not fit in int64");
    facts->pod_ns = d->args.pod.ns;
    facts->pod_name = d->args.pod.name;
    if (d->args.node_names_mode && ctx->cl == NULL && !atomic_flag_test_and_set(&names_mode_logged))
        LOG(LOG_WARN, "NodeNames request: no cluster state, passing every node with score 0",
            LOG_STR("hint", "set nodeCacheCapable: false so that requests carry the Node objects"));
    if (choose(ctx, d) != 0)
        return err_fail(err, -ENOMEM, "out of memory");
    d->neutral = d->answer != OPS_ANSWER_SCORED;
    d->passed = d->args.n_nodes;
    if (d->eval.node != NULL) {
        d->passed = 0;
        for (size_t i = 0; i < d->args.n_nodes; i++)
            d->passed += d->eval.answer[i].verdict == SCORE_FITS;
        /* The node the extender would have the pod on: the best that fits
         * (prioritize scores the nodes its own filter rejects too). */
        d->best = verb_best_node(&d->eval, d->args.n_nodes);
    }
    /* Said by the filter, whose verdicts kube-scheduler acts on. */
    if (verb == OPS_VERB_FILTER && d->eval.let_through > 0 && d->answer == OPS_ANSWER_SCORED)
        LOG(LOG_WARN,
            "every candidate is over a threshold: all pass (thresholdPolicy unlessAllFail)",
            LOG_NSNAME("pod", d->args.pod.ns, d->args.pod.name),
            LOG_UINT("nodes", d->eval.let_through));
    count(ctx, verb, d, facts);
    facts->answer = d->answer;
    facts->passed = d->passed;
    facts->nodes = d->args.n_nodes;
    if (d->best >= 0) {
        facts->best = d->args.nodes[d->best].name;
        facts->best_score = d->eval.answer[d->best].score;
    }
    if (ctx->decisions != NULL) {
        bool timed = ctx->start.tv_sec != 0 || ctx->start.tv_nsec != 0;
        struct ops_record *rec = verb_record(ctx, verb, d, timed ? clock_since(&ctx->start) : 0);
        /* Compared at once if the pod's binding was seen before (a late answer). */
        if (rec != NULL)
            facts->decision = ops_shadow_add(ctx->decisions, ctx->metrics, rec);
    }
    return 0;
}

/* What filter and prioritize share before they write an answer (verbs.h):
 * decoding, the choice between a scored and a neutral answer, counting
 * and recording the decision. */
#include "server/decide.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "server/jsonout.h"
#include "server/log.h"

/* Said once per process: in NodeNames mode without a cluster there is
 * nothing to score. */
static atomic_flag names_mode_logged = ATOMIC_FLAG_INIT;

static bool is_stale(const struct node_eval *e)
{
    if (!e->from_state)
        return false;
    for (int r = 0; r < SCORE_NRES; r++)
        if (e->used[r].outcome != SCORE_USED_FRESH)
            return true;
    return false;
}

/* Counts the decision: its kind, and for scored nodes verdicts by reason,
 * stale nodes and the score spread. */
static void count(const struct srv_verb_ctx *ctx, enum srv_verb verb, const struct srv_decided *d)
{
    size_t passed[SRV_REASON_COUNT] = {0}, failed[SRV_REASON_COUNT] = {0}, stale = 0;
    int lo = SCORE_MAX_SCORE, hi = 0, spread = -1;

    if (ctx->metrics == NULL)
        return;
    for (size_t i = 0; d->eval != NULL && i < d->args.n_nodes; i++) {
        const struct node_eval *e = &d->eval[i];
        if (e->verdict == SCORE_FITS)
            passed[e->code]++;
        else
            failed[e->code]++;
        stale += is_stale(e);
        lo = e->explain.score < lo ? e->explain.score : lo;
        hi = e->explain.score > hi ? e->explain.score : hi;
    }
    if (verb == SRV_VERB_PRIORITIZE && d->eval != NULL && d->args.n_nodes > 0)
        spread = hi - lo;
    srv_metrics_decision(ctx->metrics, verb, d->answer, passed, failed, stale, spread);
}

struct srv_decision *srv_decision_record(const struct srv_verb_ctx *ctx, enum srv_verb verb,
                                         const struct srv_decided *d, long best, double seconds)
{
    const struct codec_args *a = &d->args;
    size_t n = d->eval != NULL ? a->n_nodes : 0;
    size_t strings = strlen(a->pod.ns) + strlen(a->pod.name) + 2;
    for (size_t i = 0; i < n; i++)
        strings += strlen(a->nodes[i].name) + strlen(d->eval[i].reason) + 2;

    struct srv_decision *rec = srv_decision_new(n, strings);
    if (rec == NULL)
        return NULL;
    clock_gettime(CLOCK_REALTIME, &rec->time);
    rec->seconds = seconds;
    rec->verb = verb;
    rec->answer = d->answer;
    rec->pod_ns = srv_decision_strdup(rec, a->pod.ns);
    rec->pod_name = srv_decision_strdup(rec, a->pod.name);
    rec->request = a->pod.request;
    rec->params = ctx->cfg->score;
    rec->scheduler_weight = ctx->cfg->scheduler_weight;
    rec->node_names_mode = a->node_names_mode;
    rec->with_cluster = ctx->cl != NULL;
    rec->candidates = a->n_nodes;
    rec->n_passed = d->passed;
    rec->best = best;
    for (size_t i = 0; i < n; i++) {
        const struct node_eval *e = &d->eval[i];
        struct srv_decision_node *dn = &rec->nodes[i];
        dn->name = srv_decision_strdup(rec, a->nodes[i].name);
        dn->reason = srv_decision_strdup(rec, e->reason);
        dn->verdict = e->verdict;
        dn->code = e->code;
        dn->unknown = e->unknown;
        dn->from_state = e->from_state;
        dn->forced_zero = e->forced_zero;
        dn->explain = e->explain;
        for (int r = 0; r < SCORE_NRES; r++) {
            dn->source[r] = e->used[r].source;
            dn->outcome[r] = e->used[r].outcome;
        }
    }
    return rec;
}

/* Chooses the answer and scores when it needs to; returns 0 or -ENOMEM. */
static int choose(const struct srv_verb_ctx *ctx, struct srv_decided *d)
{
    const struct cfg *cfg = ctx->cfg;
    struct srv_deadline dl;

    if (cfg->mode == CFG_MODE_PASSTHROUGH) {
        d->answer = SRV_ANSWER_PASSTHROUGH_MODE;
        return 0;
    }
    if (!srv_pod_selected(cfg, &d->args.pod)) {
        d->answer = SRV_ANSWER_PASSTHROUGH_SELECTOR;
        return 0;
    }
    srv_deadline_init(&dl, cfg, &ctx->start);
    if (srv_deadline_would_miss(&dl, d->args.n_nodes)) {
        d->answer = SRV_ANSWER_NEUTRAL_DEADLINE;
        return 0;
    }
    d->eval = cJSON_malloc(d->args.n_nodes * sizeof(*d->eval) + 1);
    if (d->eval == NULL)
        return -ENOMEM;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = srv_evaluate(cfg, ctx->cl, &d->args, &dl, d->eval);
    if (rc == -ETIMEDOUT) {
        d->eval = NULL; /* incomplete: nothing of it is answered or kept */
        d->answer = SRV_ANSWER_NEUTRAL_DEADLINE;
        return 0;
    }
    if (rc != 0)
        return rc;
    srv_deadline_learn(d->args.n_nodes, srv_seconds_since(&t0));
    d->answer = cfg->mode == CFG_MODE_SHADOW ? SRV_ANSWER_SHADOW : SRV_ANSWER_SCORED;
    return 0;
}

int srv_decide(const struct srv_verb_ctx *ctx, enum srv_verb verb, const char *body, size_t len,
               struct srv_decided *d, struct verb_reply *out)
{
    char err[CODEC_ERR_LEN];
    long best = -1;

    memset(d, 0, sizeof(*d));
    memset(out, 0, sizeof(*out));
    out->best_score = -1;
    int rc = srv_decode_args(body, len, ctx->cfg, &d->args, err);
    if (rc != 0) {
        srv_verb_error(rc == -ENOMEM ? 500 : 400, err, out);
        return rc;
    }
    snprintf(out->pod, sizeof(out->pod), "%s/%s", d->args.pod.ns, d->args.pod.name);
    srv_utf8_trim(out->pod);
    if (d->args.node_names_mode && ctx->cl == NULL && !atomic_flag_test_and_set(&names_mode_logged))
        log_msg(CFG_LOG_WARN,
                "NodeNames request: no cluster state, passing every node with score 0",
                "hint=\"set nodeCacheCapable: false so that requests carry the Node objects\"");
    if (choose(ctx, d) != 0) {
        srv_verb_error(500, "out of memory", out);
        return -ENOMEM;
    }
    d->neutral = d->answer != SRV_ANSWER_SCORED;
    d->passed = d->args.n_nodes;
    if (d->eval != NULL) {
        d->passed = 0;
        for (size_t i = 0; i < d->args.n_nodes; i++)
            d->passed += d->eval[i].verdict == SCORE_FITS;
        /* The node the extender would have the pod on: the best that fits
         * (prioritize scores the nodes its own filter rejects too). */
        best = srv_best_node(&d->args, d->eval, true);
    }
    count(ctx, verb, d);
    out->answer = d->answer;
    out->passed = d->passed;
    if (best >= 0) {
        snprintf(out->best, sizeof(out->best), "%s", d->args.nodes[best].name);
        srv_utf8_trim(out->best);
        out->best_score = d->eval[best].explain.score;
    }
    if (ctx->decisions != NULL) {
        bool timed = ctx->start.tv_sec != 0 || ctx->start.tv_nsec != 0;
        struct srv_decision *rec =
            srv_decision_record(ctx, verb, d, best, timed ? srv_seconds_since(&ctx->start) : 0);
        if (rec != NULL)
            out->decision = srv_decisions_add(ctx->decisions, rec);
    }
    return 0;
}

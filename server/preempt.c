/* POST <prefix>/preempt (verbs.h). */
#include "server/verbs.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "server/jsonout.h"
#include "server/log.h"

static atomic_flag no_state_logged = ATOMIC_FLAG_INIT;

static int64_t sub_floor(int64_t a, int64_t b)
{
    return a > b ? a - b : 0;
}

/* Would the pod fit on @v->node once its victims are gone? */
static bool keeps_node(const struct cfg *cfg, struct srv_cluster *cl, double now,
                       const struct codec_preempt_args *args, const struct codec_victims *v)
{
    struct kube_node_view view;
    struct score_node node;
    struct score_used used[SCORE_NRES];
    char reason[SCORE_ERR_LEN];

    if (cl == NULL)
        return true; /* nothing to judge by: the in-tree plugins' choice stands */
    struct kube_state *st = srv_cluster_state(cl);
    if (kube_state_view(st, v->node, now, cfg->in_flight_seconds, &view) != 0) {
        srv_cluster_count_unknown(cl, v->node);
        return true;
    }
    if (view.invalid[0] != '\0')
        return false;
    memset(&node, 0, sizeof(node));
    memcpy(node.alloc, view.alloc, sizeof(node.alloc));
    enum score_used_outcome worst = srv_used_from_state(cfg, &view, view.annotation, &node, used);
    if (worst == SCORE_USED_STALE_FULL)
        return false;
    if (worst == SCORE_USED_STALE_PASS)
        return true;
    for (size_t i = 0; i < v->n; i++) {
        struct score_pod_request req = {0};
        if (v->has_request)
            req = v->request[i];
        else if (kube_state_pod_request(st, v->uids[i], v->node, req.real, req.non_zero) != 0)
            continue; /* not charged to this node in our view: nothing to take off */
        for (int r = 0; r < SCORE_NRES; r++) {
            node.used[r] = sub_floor(node.used[r], req.real[r]);
            node.used_non_zero[r] = sub_floor(node.used_non_zero[r], req.non_zero[r]);
        }
    }
    return score_fit(cfg->score.threshold_percent, &node, args->pod.request.real, reason) ==
           SCORE_FITS;
}

/* Outside mode enforce and the selector the extender has no say: every
 * candidate is kept, as the in-tree plugins chose it. */
static enum srv_answer preempt_answer(const struct cfg *cfg, const struct codec_pod *pod)
{
    if (cfg->mode == CFG_MODE_PASSTHROUGH)
        return SRV_ANSWER_PASSTHROUGH_MODE;
    if (!srv_pod_selected(cfg, pod))
        return SRV_ANSWER_PASSTHROUGH_SELECTOR;
    return cfg->mode == CFG_MODE_SHADOW ? SRV_ANSWER_SHADOW : SRV_ANSWER_SCORED;
}

void srv_preempt(const struct srv_verb_ctx *ctx, const char *body, size_t len,
                 struct verb_reply *out)
{
    const struct cfg *cfg = ctx->cfg;
    struct srv_cluster *cl = ctx->cl;
    char err[CODEC_ERR_LEN];
    struct codec_preempt_args args;
    struct jsonout o;
    size_t kept = 0, would_keep = 0;

    int rc = srv_decode_preempt(body, len, cfg, &args, err);
    if (rc != 0) {
        srv_verb_error(rc == -ENOMEM ? 500 : 400, err, out);
        return;
    }
    enum srv_answer answer = preempt_answer(cfg, &args.pod);
    bool judge = answer == SRV_ANSWER_SCORED || answer == SRV_ANSWER_SHADOW;
    if (cl == NULL && !atomic_flag_test_and_set(&no_state_logged))
        log_msg(CFG_LOG_WARN, "preempt without cluster state: every candidate is kept",
                "hint=\"give the service a cluster (--kubeconfig or in-cluster)\"");
    double now = cl != NULL ? srv_cluster_now() : 0;
    size_t hint = 64;
    for (size_t i = 0; i < args.n_nodes; i++)
        hint += 64 + strlen(args.nodes[i].node) + 48 * args.nodes[i].n;
    srv_out_init(&o, hint);
    srv_out_str(&o, "{\"NodeNameToMetaVictims\":{");
    for (size_t i = 0; i < args.n_nodes; i++) {
        const struct codec_victims *v = &args.nodes[i];
        /* kube-scheduler rejects a node listed without victims. */
        if (v->n == 0)
            continue;
        bool keep = !judge || keeps_node(cfg, cl, now, &args, v);
        would_keep += keep;
        if (!keep && answer != SRV_ANSWER_SHADOW)
            continue;
        srv_out_str(&o, kept++ ? "," : "");
        srv_out_quoted(&o, v->node);
        srv_out_str(&o, ":{\"Pods\":[");
        for (size_t k = 0; k < v->n; k++) {
            srv_out_str(&o, k ? ",{\"UID\":" : "{\"UID\":");
            srv_out_quoted(&o, v->uids[k]);
            srv_out_str(&o, "}");
        }
        srv_out_str(&o, "],\"NumPDBViolations\":");
        srv_out_int(&o, v->num_pdb_violations);
        srv_out_str(&o, "}");
    }
    srv_out_str(&o, "}}");
    out->body = srv_out_take(&o, &out->len);
    out->status = out->body != NULL ? 200 : 500;
    out->nodes = args.n_nodes;
    out->answer = answer;
    out->passed = would_keep;
    snprintf(out->pod, sizeof(out->pod), "%s/%s", args.pod.ns, args.pod.name);
    srv_utf8_trim(out->pod);
    if (ctx->metrics != NULL)
        srv_metrics_decision(ctx->metrics, SRV_VERB_PREEMPT, answer, NULL, NULL, 0, -1);
    char ns[128], name[256];
    log_msg(CFG_LOG_DEBUG, "preempt", "pod=\"%s/%s\" candidates=%zu kept=%zu answered=%zu",
            log_clean(ns, sizeof(ns), args.pod.ns), log_clean(name, sizeof(name), args.pod.name),
            args.n_nodes, would_keep, kept);
}

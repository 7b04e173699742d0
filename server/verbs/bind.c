#include "server/verbs/bind.h"

#include <errno.h>

#include "base/log.h"
#include "server/cluster/bind.h"
#include "server/codec/answer.h"
#include "server/codec/bind_args.h"
#include "server/verbs/deadline.h"
#include "server/verbs/reply.h"

void verb_bind(const struct verb_ctx *ctx, const char *body, size_t len, struct verb_reply *out)
{
    char err[ERR_LEN];
    struct codec_bind_args args;
    struct buf o;

    verb_reply_init(out);
    int rc = codec_bind_decode(ctx->arena, body, len, &args, err);
    if (rc != 0) {
        verb_reply_error(out, ctx->arena, rc == -ENOMEM ? 500 : 400, err);
        return;
    }
    out->facts.pod_ns = args.pod_namespace;
    out->facts.pod_name = args.pod_name;
    out->facts.best = args.node;
    if (ctx->cl == NULL) {
        /* Failing is the honest answer: a 200 without a Binding would leave
         * the pod Pending while the scheduler believes it bound. */
        verb_reply_error(out, ctx->arena, 200,
                         "cpu-extender has no cluster connection: remove bindVerb or give it "
                         "--kubeconfig / run it in the cluster");
        return;
    }
    /* The bind must be done by the request's deadline (80 % of
     * kube-scheduler's httpTimeout, deadline.h), after which kube-scheduler
     * no longer reads the answer; 0 (cluster_bind's own bound) without one. */
    struct verb_deadline d;
    verb_deadline_init(&d, ctx->cfg, &ctx->start);
    if (cluster_bind(ctx->cl, args.pod_namespace, args.pod_name, args.pod_uid, args.node,
                     d.on ? d.at : 0, err) != 0) {
        verb_reply_error(out, ctx->arena, 200, err);
        LOG(LOG_WARN, "bind failed", LOG_NSNAME("pod", args.pod_namespace, args.pod_name),
            LOG_STR("node", args.node), LOG_STR("error", err));
        return;
    }
    LOG(LOG_INFO, "bound", LOG_NSNAME("pod", args.pod_namespace, args.pod_name),
        LOG_STR("node", args.node));
    buf_init_arena(&o, ctx->arena, 16);
    codec_answer_error(&o, "");
    verb_reply_take(out, &o, 200);
}

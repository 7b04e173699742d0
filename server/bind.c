/* POST <prefix>/bind (verbs.h). */
#include "server/verbs.h"

#include <stdio.h>

#include "server/jsonout.h"
#include "server/log.h"

void srv_bind(const struct srv_verb_ctx *ctx, const char *body, size_t len, struct verb_reply *out)
{
    struct srv_cluster *cl = ctx->cl;
    char err[CODEC_ERR_LEN];
    char why[KUBE_ERR_LEN];
    struct codec_bind_args args;

    if (srv_decode_bind(body, len, &args, err) != 0) {
        srv_verb_error(400, err, out);
        return;
    }
    /* Binding is an action, not a judgement: modes and the selector do not
     * apply (a scheduler configured with bindVerb relies on it). */
    snprintf(out->pod, sizeof(out->pod), "%s/%s", args.pod_namespace, args.pod_name);
    snprintf(out->best, sizeof(out->best), "%s", args.node);
    srv_utf8_trim(out->pod);
    srv_utf8_trim(out->best);
    char ns[128], name[256], node[256]; /* for the log: names from the request */
    log_clean(ns, sizeof(ns), args.pod_namespace);
    log_clean(name, sizeof(name), args.pod_name);
    log_clean(node, sizeof(node), args.node);
    if (cl == NULL) {
        /* Failing is the honest answer: a 200 without a Binding would leave
         * the pod Pending while the scheduler believes it bound. */
        srv_verb_error(200,
                       "cpu-extender has no cluster connection: remove bindVerb or give it "
                       "--kubeconfig / run it in the cluster",
                       out);
        return;
    }
    if (srv_cluster_bind(cl, args.pod_namespace, args.pod_name, args.pod_uid, args.node, why) !=
        0) {
        srv_verb_error(200, why, out);
        log_unquote(why);
        log_msg(CFG_LOG_WARN, "bind failed", "pod=\"%s/%s\" node=\"%s\" error=\"%s\"", ns, name,
                node, why);
        return;
    }
    log_msg(CFG_LOG_INFO, "bound", "pod=\"%s/%s\" node=\"%s\"", ns, name, node);
    srv_verb_error(200, "", out);
}

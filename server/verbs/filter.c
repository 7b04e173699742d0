#include "server/verbs/filter.h"

#include <errno.h>

#include "server/codec/answer.h"
#include "server/verbs/answers.h"
#include "server/verbs/decide.h"
#include "server/verbs/reply.h"

void verb_filter(const struct verb_ctx *ctx, const char *body, size_t len, struct verb_reply *out)
{
    struct verb_outcome d;
    char err[ERR_LEN];
    struct buf o;

    verb_reply_init(out);
    int rc = verb_decide(ctx, OPS_VERB_FILTER, body, len, &d, &out->facts, err);
    if (rc != 0) {
        verb_reply_error(out, rc == -ENOMEM ? 500 : 400, err);
        return;
    }
    const struct codec_args *args = &d.args;
    const struct codec_node_answer *ans = NULL;
    if (!d.neutral && (ans = verb_node_answers(ctx->arena, d.eval, args->n_nodes)) == NULL) {
        verb_reply_error(out, 500, "out of memory");
        return;
    }
    /* The passing Node objects dominate the answer: they go back unchanged. */
    buf_init(&o, args->node_names_mode ? 64 + 32 * args->n_nodes : len + 1024);
    codec_answer_filter(&o, args, ans);
    verb_reply_take(out, &o, 200);
}

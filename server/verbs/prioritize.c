#include "server/verbs/prioritize.h"

#include <errno.h>

#include "server/codec/answer.h"
#include "server/verbs/decide.h"
#include "server/verbs/reply.h"

void verb_prioritize(const struct verb_ctx *ctx, const char *body, size_t len,
                     struct verb_reply *out)
{
    struct verb_outcome d;
    char err[ERR_LEN];
    struct buf o;

    verb_reply_init(out);
    int rc = verb_decide(ctx, OPS_VERB_PRIORITIZE, body, len, &d, &out->facts, err);
    if (rc != 0) {
        verb_reply_error(out, ctx->arena, rc == -ENOMEM ? 500 : 400, err);
        return;
    }
    /* A neutral answer passes every node with score 0: no answers to read. */
    const struct codec_node_answer *ans = d.neutral ? NULL : d.eval.answer;
    codec_answer_prioritize(&o, ctx->arena, &d.args, ans);
    verb_reply_take(out, &o, 200);
}

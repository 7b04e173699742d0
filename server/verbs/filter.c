#include "server/verbs/filter.h"

#include <errno.h>

#include "server/codec/answer.h"
#include "server/verbs/decide.h"
#include "server/verbs/reply.h"

void verb_filter(const struct verb_ctx *ctx, const char *body, size_t len, struct verb_reply *out)
{
    struct verb_outcome d;
    char err[ERR_LEN];

    verb_reply_init(out);
    int rc = verb_decide(ctx, OPS_VERB_FILTER, body, len, &d, &out->facts, err);
    if (rc != 0) {
        verb_reply_error(out, ctx->arena, rc == -ENOMEM ? 500 : 400, err);
        return;
    }
    const struct codec_args *args = &d.args;
    /* A neutral answer passes every node with score 0: no answers to read. */
    const struct codec_node_answer *ans = d.neutral ? NULL : d.eval.answer;
    size_t n = 0;
    const struct buf_piece *pieces = codec_answer_filter(ctx->arena, args, ans, &n);
    verb_reply_pieces(out, pieces, n, 200);
}

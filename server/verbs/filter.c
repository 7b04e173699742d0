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

    verb_reply_init(out);
    int rc = verb_decide(ctx, OPS_VERB_FILTER, body, len, &d, &out->facts, err);
    if (rc != 0) {
        verb_reply_error(out, ctx->arena, rc == -ENOMEM ? 500 : 400, err);
        return;
    }
    const struct codec_args *args = &d.args;
    const struct codec_node_answer *ans = NULL;
    if (!d.neutral && (ans = verb_node_answers(ctx->arena, d.eval, args->n_nodes)) == NULL) {
        verb_reply_error(out, ctx->arena, 500, "out of memory");
        return;
    }
    size_t n = 0;
    const struct buf_piece *pieces = codec_answer_filter(ctx->arena, args, ans, &n);
    verb_reply_pieces(out, pieces, n, 200);
}

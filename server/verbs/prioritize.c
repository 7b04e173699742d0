#include "server/verbs/prioritize.h"

#include <errno.h>
#include <string.h>

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
    /* {"Host":"<name>","Score":10} per node, and the room a string's
     * escaping reserves (buf_json_strn: 6 bytes a byte), so that the buffer
     * does not grow: growing in the arena leaves the old room behind. */
    size_t hint = 64, longest = 0;
    for (size_t i = 0; i < d.args.n_nodes; i++) {
        size_t n = strlen(d.args.nodes[i].name);
        hint += 32 + n;
        longest = n > longest ? n : longest;
    }
    buf_init_arena(&o, ctx->arena, hint + 6 * longest);
    codec_answer_prioritize(&o, &d.args, ans);
    verb_reply_take(out, &o, 200);
}

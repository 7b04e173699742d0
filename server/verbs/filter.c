#include "server/verbs/filter.h"

#include <errno.h>
#include <string.h>

#include "base/arena.h"
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
        verb_reply_error(out, ctx->arena, rc == -ENOMEM ? 500 : 400, err);
        return;
    }
    const struct codec_args *args = &d.args;
    const struct codec_node_answer *ans = NULL;
    if (!d.neutral && (ans = verb_node_answers(ctx->arena, d.eval, args->n_nodes)) == NULL) {
        verb_reply_error(out, ctx->arena, 500, "out of memory");
        return;
    }
    /* Names and reasons as written (the failed nodes', and in NodeNames
     * mode the passing ones'), about 48 bytes each besides the name, and the
     * room a string's escaping reserves (6 bytes a byte): sized so that the
     * buffer does not grow, which in the arena leaves the old room behind. */
    size_t hint = 128 + args->n_list_members * 8, longest = 0;
    for (size_t i = 0; i < args->n_list_members; i++)
        hint += args->list_members[i].key.len + args->list_members[i].value.len;
    for (size_t i = 0; i < args->n_nodes; i++) {
        size_t n = strlen(args->nodes[i].name);
        hint += 48 + n;
        longest = n > longest ? n : longest;
    }
    buf_init_arena(&o, ctx->arena, hint + 6 * longest);
    if (args->node_names_mode) {
        size_t head;
        codec_answer_filter(&o, args, ans, NULL, &head);
        verb_reply_take(out, &o, 200);
        return;
    }
    /* The passing Node objects dominate a NodeList answer: they go back
     * unchanged, sent from the request body itself (one piece per run of
     * passing items) instead of a copy as large as the body. */
    struct buf_piece *spans = arena_calloc(ctx->arena, 2 * args->n_nodes + 2, sizeof(*spans));
    if (spans == NULL) {
        verb_reply_error(out, ctx->arena, 500, "out of memory");
        return;
    }
    size_t head, n = codec_answer_filter(&o, args, ans, spans + 1, &head);
    verb_reply_take_spans(out, &o, head, spans, n, 200);
}

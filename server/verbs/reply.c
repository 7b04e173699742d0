#include "server/verbs/reply.h"

#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "server/codec/answer.h"

/* What is left to say when there is no memory to say anything else. */
static const char oom_text[] = "{\"Error\":\"out of memory\"}";
static const struct buf_piece oom_piece = {oom_text, sizeof(oom_text) - 1};

void verb_reply_init(struct verb_reply *out)
{
    memset(out, 0, sizeof(*out));
    out->facts.best_score = -1;
}

void verb_reply_pieces(struct verb_reply *out, const struct buf_piece *pieces, size_t n,
                       unsigned status)
{
    if (pieces == NULL) {
        out->status = 500;
        out->pieces = &oom_piece;
        out->n_pieces = 1;
        out->len = oom_piece.len;
        snprintf(out->error, sizeof(out->error), "out of memory");
        return;
    }
    out->len = 0;
    for (size_t i = 0; i < n; i++)
        out->len += pieces[i].len;
    out->status = status;
    out->pieces = pieces;
    out->n_pieces = n;
}

void verb_reply_take(struct verb_reply *out, struct buf *o, unsigned status)
{
    size_t len;
    struct buf_piece *one = o->failed ? NULL : arena_alloc(o->arena, sizeof(*one));
    char *text = one != NULL ? buf_take(o, &len) : NULL;
    if (text != NULL)
        *one = (struct buf_piece){text, len};
    verb_reply_pieces(out, text != NULL ? one : NULL, 1, status);
}

void verb_reply_error(struct verb_reply *out, struct arena *a, unsigned status, const char *msg)
{
    struct buf o;
    codec_error_text(msg, out->error);
    buf_init_arena(&o, a, strlen(out->error) + 16);
    codec_answer_error(&o, out->error);
    verb_reply_take(out, &o, status);
    out->facts.nodes = 0;
}

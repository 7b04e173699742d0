#include "server/verbs/reply.h"

#include <stdio.h>
#include <stdlib.h>
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

static void out_of_memory(struct verb_reply *out)
{
    out->status = 500;
    out->pieces = &oom_piece;
    out->n_pieces = 1;
    out->len = oom_piece.len;
    snprintf(out->error, sizeof(out->error), "out of memory");
}

void verb_reply_take(struct verb_reply *out, struct buf *o, unsigned status)
{
    size_t len;
    struct buf_piece *one = o->failed ? NULL : arena_alloc(o->arena, sizeof(*one));
    char *text = one != NULL ? buf_take(o, &len) : NULL;
    if (text == NULL) {
        out_of_memory(out);
        return;
    }
    *one = (struct buf_piece){text, len};
    out->status = status;
    out->pieces = one;
    out->n_pieces = 1;
    out->len = len;
}

void verb_reply_take_spans(struct verb_reply *out, struct buf *o, size_t head,
                           struct buf_piece *spans, size_t n_spans, unsigned status)
{
    size_t len;
    char *text = buf_take(o, &len);
    if (text == NULL) {
        out_of_memory(out);
        return;
    }
    spans[0] = (struct buf_piece){text, head};
    spans[n_spans + 1] = (struct buf_piece){text + head, len - head};
    out->len = len;
    for (size_t i = 1; i <= n_spans; i++)
        out->len += spans[i].len;
    out->status = status;
    out->pieces = spans;
    out->n_pieces = n_spans + 2;
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

char *verb_reply_join(const struct verb_reply *r, size_t *len)
{
    char *s = malloc(r->len + 1);
    size_t at = 0;
    if (s == NULL)
        return NULL;
    for (size_t i = 0; i < r->n_pieces; i++) {
        memcpy(s + at, r->pieces[i].p, r->pieces[i].len);
        at += r->pieces[i].len;
    }
    s[at] = '\0';
    if (len != NULL)
        *len = at;
    return s;
}

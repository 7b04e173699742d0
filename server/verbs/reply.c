#include "server/verbs/reply.h"

#include <string.h>

#include "server/codec/answer.h"

void verb_reply_init(struct verb_reply *out)
{
    memset(out, 0, sizeof(*out));
    out->facts.best_score = -1;
}

void verb_reply_take(struct verb_reply *out, struct buf *o, unsigned status)
{
    out->body = buf_take(o, &out->len);
    out->status = out->body != NULL ? status : 500;
}

void verb_reply_error(struct verb_reply *out, unsigned status, const char *msg)
{
    struct buf o;
    codec_error_text(msg, out->error);
    buf_init(&o, strlen(out->error) + 16);
    codec_answer_error(&o, out->error);
    verb_reply_take(out, &o, status);
    out->facts.nodes = 0;
}

/* Filling a verb's reply: an answer that was written, or an error. */
#ifndef SERVER_VERBS_REPLY_H
#define SERVER_VERBS_REPLY_H

#include <stddef.h>

#include "base/buf.h"
#include "server/verbs/context.h"

struct arena;

/* Empties @out: no answer yet, no pod, no best node. */
void verb_reply_init(struct verb_reply *out);

/* Hands the answer written into @o (a buffer in the request's arena,
 * buf_init_arena()) to @out with @status, as one piece; an allocation
 * failure while writing becomes a 500 "out of memory" with a static body. */
void verb_reply_take(struct verb_reply *out, struct buf *o, unsigned status);

/* Hands the answer @pieces (@n of them, in the request's arena) to @out
 * with @status; NULL pieces (out of memory while writing them) become a
 * 500 "out of memory" with a static body. */
void verb_reply_pieces(struct verb_reply *out, const struct buf_piece *pieces, size_t n,
                       unsigned status);

/* Fills @out with @status and {"Error": @msg} written in @a (msg kept in
 * out->error as kube-scheduler will show it); 500 "out of memory" with a
 * static body when @a has no room. */
void verb_reply_error(struct verb_reply *out, struct arena *a, unsigned status, const char *msg);

#endif

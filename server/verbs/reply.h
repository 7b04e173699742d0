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

/* The same for an answer of pieces: the first @head bytes of @o, the
 * @n_spans pieces at @spans + 1 (room for one piece before and one after
 * them, in the request's arena), then the rest of @o. */
void verb_reply_take_spans(struct verb_reply *out, struct buf *o, size_t head,
                           struct buf_piece *spans, size_t n_spans, unsigned status);

/* Fills @out with @status and {"Error": @msg} written in @a (msg kept in
 * out->error as kube-scheduler will show it); 500 "out of memory" with a
 * static body when @a has no room. */
void verb_reply_error(struct verb_reply *out, struct arena *a, unsigned status, const char *msg);

/* The answer of @r joined into one malloc'd NUL-terminated string (its
 * length in *@len when not NULL), for tests and tools; NULL when out of
 * memory. The server sends the pieces as they are. */
char *verb_reply_join(const struct verb_reply *r, size_t *len);

#endif

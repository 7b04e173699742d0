/* Filling a verb's reply: an answer that was written, or an error. */
#ifndef SERVER_VERBS_REPLY_H
#define SERVER_VERBS_REPLY_H

#include "base/buf.h"
#include "server/verbs/context.h"

/* Empties @out: no answer yet, no pod, no best node. */
void verb_reply_init(struct verb_reply *out);

/* Hands the answer written into @o to @out with @status; an allocation
 * failure while writing becomes a 500 with a static body. */
void verb_reply_take(struct verb_reply *out, struct buf *o, unsigned status);

/* Fills @out with @status and {"Error": @msg} (msg kept in out->error as
 * kube-scheduler will show it). */
void verb_reply_error(struct verb_reply *out, unsigned status, const char *msg);

#endif

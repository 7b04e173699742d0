/*
 * The answers of the four verbs, written directly into a buffer (no tree):
 * ExtenderFilterResult, HostPriorityList, ExtenderPreemptionResult (meta
 * form) and ExtenderBindingResult, and the {"Error": ...} of a failure.
 * Each ends with "\n", as Go's json.Encoder ends what it writes: after a
 * curl at a shell the prompt starts a line of its own, and kube-scheduler's
 * decoder skips the white space.
 */
#ifndef SERVER_CODEC_ANSWER_H
#define SERVER_CODEC_ANSWER_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "server/codec/types.h"

struct arena;

/* Copies @msg into @out (ERR_LEN) as an Error text kube-scheduler can
 * show: it passes Error to fmt.Errorf as a format, so no '%' may reach it
 * ('#' instead). */
void codec_error_text(const char *msg, char *out);

/* {"Error":@text} (a text from codec_error_text; "" when a bind succeeded). */
void codec_answer_error(struct buf *o, const char *text);

/*
 * ExtenderFilterResult for @args as the pieces to send, in @a: with a
 * NodeList its members and the passing Node objects byte for byte as the
 * decoder found them in the body (kube-scheduler uses the returned objects
 * from then on), with NodeNames the passing names; FailedNodes and
 * FailedAndUnresolvableNodes with their reasons. @ans holds one answer per
 * node; NULL passes every node.
 *
 * The passing Node objects dominate a NodeList answer, so they are not
 * copied: the first piece is the text before them, the last the text after
 * them, and the pieces between are runs of passing items as spans of the
 * request body (items one comma apart in the body share a span; a span
 * after a failed item starts at the comma after it; "," pieces between
 * items that are not one comma apart): the same bytes as a copy. A
 * NodeNames answer is one piece. Returns the pieces (their count in *@n),
 * NULL when @a has no room.
 */
const struct buf_piece *codec_answer_filter(struct arena *a, const struct codec_args *args,
                                            const struct codec_node_answer *ans, size_t *n);

/* HostPriorityList: every node of @args with its score from @ans (NULL: 0),
 * written into @o, which it starts in @a sized for the answer. */
void codec_answer_prioritize(struct buf *o, struct arena *a, const struct codec_args *args,
                             const struct codec_node_answer *ans);

/* ExtenderPreemptionResult in the meta form: the nodes of @args with
 * @keep[i] set and at least one victim (kube-scheduler rejects a node
 * listed without victims), victims in their order, as UIDs. Returns how
 * many nodes were written. @o is started in @a, sized for the answer. */
size_t codec_answer_preempt(struct buf *o, struct arena *a, const struct codec_preempt_args *args,
                            const bool *keep);

#endif

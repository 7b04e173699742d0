/*
 * POST <prefix>/preempt: ExtenderPreemptionArgs in either form, answered in
 * the meta form. A node stays a candidate when the pod passes our filter
 * once its victims are gone (without a cluster, or for a node the state
 * does not know, every node with victims stays); victims keep their order;
 * a node without victims is never listed. Outside mode enforce and the
 * selector every candidate stays (shadow judges them all the same), and so
 * when judging would end past the request's deadline, or does (checked
 * every 256 nodes, as filter and prioritize do; counted as
 * neutral_deadline).
 */
#ifndef SERVER_VERBS_PREEMPT_H
#define SERVER_VERBS_PREEMPT_H

#include <stddef.h>

#include "server/verbs/context.h"

/* Decides on @body (@len bytes followed by a NUL) and fills @out. */
void verb_preempt(const struct verb_ctx *ctx, const char *body, size_t len, struct verb_reply *out);

#endif

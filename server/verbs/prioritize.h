/*
 * POST <prefix>/prioritize: ExtenderArgs in, HostPriorityList out: every
 * node with its 0..10 score, or 0 for all when the answer is neutral (the
 * same rules as verb_filter()).
 */
#ifndef SERVER_VERBS_PRIORITIZE_H
#define SERVER_VERBS_PRIORITIZE_H

#include <stddef.h>

#include "server/verbs/context.h"

/* Decides on @body (@len bytes followed by a NUL) and fills @out. */
void verb_prioritize(const struct verb_ctx *ctx, const char *body, size_t len,
                     struct verb_reply *out);

#endif

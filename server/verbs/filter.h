/*
 * POST <prefix>/filter: ExtenderArgs in, ExtenderFilterResult out.
 *
 * The answer is what scoring says in mode enforce. It is neutral (every
 * node passes) in mode shadow (scored and recorded all the same), in mode
 * passthrough and for a pod outside the selector (not scored), and when
 * the request would otherwise be answered after its deadline.
 * ctx->metrics counts each kind; ctx->decisions keeps the record.
 */
#ifndef SERVER_VERBS_FILTER_H
#define SERVER_VERBS_FILTER_H

#include <stddef.h>

#include "server/verbs/context.h"

/* Decides on @body (@len bytes followed by a NUL, untouched until the
 * reply is sent: the answer copies Node objects from it) and fills @out.
 * A malformed request gets 400 with {"Error": ...}. */
void verb_filter(const struct verb_ctx *ctx, const char *body, size_t len, struct verb_reply *out);

#endif

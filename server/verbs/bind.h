/*
 * POST <prefix>/bind: creates the Binding through the API server. Answers
 * {"Error":""} on success (a pod already bound to that node included),
 * {"Error":"..."} with 200 on failure (kube-scheduler reads the Error),
 * 400 for a malformed request. Modes and the selector do not apply: a
 * binding is an action, not a judgement.
 */
#ifndef SERVER_VERBS_BIND_H
#define SERVER_VERBS_BIND_H

#include <stddef.h>

#include "server/verbs/context.h"

/* Decides on @body (@len bytes followed by a NUL) and fills @out. */
void verb_bind(const struct verb_ctx *ctx, const char *body, size_t len, struct verb_reply *out);

#endif

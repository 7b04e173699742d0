/* A decisions-ring record of a decision: everything behind its answer. */
#ifndef SERVER_VERBS_RECORD_H
#define SERVER_VERBS_RECORD_H

#include "server/ops/ring.h"
#include "server/verbs/decide.h"

/*
 * A record of @d (every node's inputs, terms, value, score and verdict
 * when it was scored) made under @ctx for @verb, @seconds from the
 * headers. One reference for the caller; NULL when memory ran out.
 */
struct ops_record *verb_record(const struct verb_ctx *ctx, enum ops_verb verb,
                               const struct verb_outcome *d, double seconds);

#endif

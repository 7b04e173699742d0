/*
 * The access log: one JSON line per verb request (msg "request"), at info
 * for 200 answers and warn for the others, so that --log-level warn keeps
 * only the requests that went wrong.
 *
 *   verb, pod ("namespace/name"), nodesIn, nodesPassed, bestNode, bestScore,
 *   answer, decision, status, durationSeconds, bodyBytes, and error when the
 *   answer carries one (any non-200, and a bind that failed: a 200); bind
 *   writes node instead of the node fields
 */
#ifndef SERVER_ACCESS_LOG_H
#define SERVER_ACCESS_LOG_H

#include <stddef.h>

#include "server/verbs.h"

/* Logs the request answered with @r after @seconds, its body @body_bytes. */
void srv_access_log(enum srv_verb verb, const struct verb_reply *r, double seconds,
                    size_t body_bytes);

#endif

/*
 * GET /debug/decisions: the decisions ring as JSON, newest first. Takes
 * ?pod=NAMESPACE/NAME or ?pod=NAME, ?id=N and ?limit=N (server/http
 * parses them with ops_debug_parse_count()), and ?disagreed=1 (only the
 * decisions whose pod kube-scheduler bound elsewhere).
 */
#ifndef SERVER_OPS_DEBUG_JSON_H
#define SERVER_OPS_DEBUG_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "server/ops/ring.h"

/* Parses a query count: 1 .. 2^63 in decimal. Returns 0 or -EINVAL. */
int ops_debug_parse_count(const char *text, uint64_t *out);

/* The most an answer holds: the decisions that fit, newest first (the
 * first one whatever its size). The whole ring renders to about twice its
 * decisionsMaxBytes, and each reader of a slow connection would keep that
 * until it has read it. */
#define OPS_DEBUG_JSON_MAX (2u << 20)

/*
 * What @q asked that the ring did not hold, as plain text for the answer
 * to say (each page escapes it in its own format): "decision 99 has not
 * been made: the newest is 12", "decision 3 is no longer kept", "no
 * decision kept for pod NAME", "no decision recorded yet: ...". @q->id
 * asks for one decision, whatever @q->pod says. A long pod name is cut
 * (on a character's boundary) to fit @cap bytes. Thread-safe.
 */
#define OPS_NOT_FOUND_LEN 384 /* bytes of that text, its NUL included */

void ops_debug_not_found(struct ops_ring *d, const struct ops_query *q, char *out, size_t cap);

/*
 * {"decisions":[...]} newest first: each with its pod, request, strategy,
 * the binding it was compared with (null until seen) and, per node,
 * inputs, terms, value, score, verdict and influence; when none matches,
 * "notFound" says what was asked (ops_debug_not_found()). When the
 * decisions matching @q do not fit in OPS_DEBUG_JSON_MAX bytes, the newest
 * that do are listed and "omitted" says how many were left out ("why" says
 * how to see them). Writes a malloc'd buffer into *@out / *@len. Returns 0
 * or -ENOMEM.
 */
int ops_debug_json(struct ops_ring *d, const struct ops_query *q, char **out, size_t *len);

#endif

/*
 * GET /debug/decisions (JSON) and GET /debug (an HTML page with an inline
 * SVG bar chart, no JavaScript): the decisions ring, readable by a person.
 * Both take ?pod=NAMESPACE/NAME or ?pod=NAME, ?id=N and ?limit=N.
 */
#ifndef SERVER_DEBUG_H
#define SERVER_DEBUG_H

#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "server/decisions.h"
#include "server/jsonout.h"

/* Parses a query count: 1 .. 2^63 in decimal. Returns 0 or -EINVAL. */
int srv_debug_parse_count(const char *text, uint64_t *out);

/*
 * {"decisions":[...]} newest first: each with its pod, request, strategy
 * and, per node, inputs, terms, value, score, verdict and influence.
 * Writes a malloc'd buffer into *@out / *@len. Returns 0 or -ENOMEM.
 */
int srv_debug_decisions_json(struct srv_decisions *d, const struct srv_decision_query *q,
                             char **out, size_t *len);

/* Writes one decision as a JSON object. */
void srv_debug_decision_json(struct jsonout *o, const struct srv_decision *rec);

/*
 * The HTML page: the recent decisions matching @q (?id selects the one
 * charted; the newest otherwise) and the configuration @cfg in use.
 * Returns 0 or -ENOMEM.
 */
int srv_debug_page(struct srv_decisions *d, const struct srv_decision_query *q,
                   const struct cfg *cfg, char **out, size_t *len);

#endif

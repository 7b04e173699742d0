/*
 * GET /debug: the decisions ring as one HTML page, readable by a person:
 * an inline SVG bar chart per decision, the terms table, the last
 * disagreements with kube-scheduler (both nodes' terms), recent decisions.
 * No script at all (server/http sends a Content-Security-Policy that runs
 * none). Takes the same query as /debug/decisions.
 */
#ifndef SERVER_OPS_DEBUG_PAGE_H
#define SERVER_OPS_DEBUG_PAGE_H

#include <stddef.h>

#include "config/config.h"
#include "server/ops/ring.h"

/*
 * The HTML page: the recent decisions matching @q (?id selects the one
 * charted; the newest otherwise) and the configuration @cfg in use.
 * Returns 0 or -ENOMEM.
 */
int ops_debug_page(struct ops_ring *d, const struct ops_query *q, const struct cfg *cfg, char **out,
                   size_t *len);

/*
 * The page for a query it cannot answer (?id=abc): @message, escaped, and
 * a way back. The HTML page answers in HTML, even when the query is bad.
 * Returns 0 or -ENOMEM.
 */
int ops_debug_page_error(const char *message, char **out, size_t *len);

#endif

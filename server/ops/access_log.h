/*
 * A finished verb request reported, once, by the transport: /metrics
 * (the request, and what the verb decided) and the access log, one JSON
 * line per verb request (msg "request"), at info
 * for 200 answers and warn for the others, so that --log-level warn keeps
 * only the requests that went wrong.
 *
 *   verb, pod ("namespace/name"), nodesIn, nodesPassed, bestNode, bestScore,
 *   answer, decision, status, durationSeconds, bodyBytes, and error when the
 *   answer carries one (any non-200, and a bind that failed: a 200); bind
 *   writes node instead of the node fields
 *
 * and one line per request refused before a verb saw it (msg "request
 * refused", always at warn).
 */
#ifndef SERVER_OPS_ACCESS_LOG_H
#define SERVER_OPS_ACCESS_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "server/ops/labels.h"

/* What a verb found out about its request, for the log and the metrics.
 * Strings point into the request's memory: log before it is released. */
struct ops_request_facts {
    const char *pod_ns, *pod_name; /* NULL when the pod was not decoded */
    size_t nodes;                  /* candidates decided on; 0 for errors and bind */
    size_t passed;                 /* nodes the filter passes (as computed when scored) */
    const char *best;              /* the best node (bind: the node), NULL for none */
    int best_score;                /* its score, -1 for none */
    uint64_t decision;             /* id in the decisions ring, 0 when not kept */
    enum ops_answer answer;
    /* What filter, prioritize or preempt decided, for /metrics; unset
     * (decided false) for bind and for requests that failed before. */
    bool decided;
    size_t passed_by[OPS_REASON_COUNT], failed_by[OPS_REASON_COUNT]; /* scored nodes per reason */
    size_t stale; /* scored nodes whose used data was stale */
    int spread;   /* prioritize: highest minus lowest score, -1 for none */
};

struct ops_metrics;

/* Reports the request of @verb answered with @status: counted in @m (with
 * what it decided, when f->decided) and logged. */
void ops_report(struct ops_metrics *m, enum ops_verb verb, unsigned status,
                const struct ops_request_facts *f, const char *error, double seconds,
                size_t body_bytes);

/*
 * Logs, at warn and with msg "request refused", a request refused at its
 * head with @status and the Error text @error, or (@status 0: no answer)
 * a request cut or a connection not accepted, saying why in @error (a
 * static text): reason (ops_refusal_name), status, error, client (the
 * address of @client, when not NULL), durationSeconds (@seconds: from the
 * request's start, or from its last phase for a cut, to the refusal).
 */
void ops_access_log_refused(enum ops_refusal reason, unsigned status, const char *error,
                            const struct sockaddr *client, double seconds);

#endif

/*
 * The extender verbs: ExtenderArgs in, ExtenderFilterResult or
 * HostPriorityList out. No HTTP here: server/http.c routes to these.
 */
#ifndef SERVER_VERBS_H
#define SERVER_VERBS_H

#include <stddef.h>

#include "config/config.h"
#include "scoring/fit.h"
#include "scoring/strategy.h"
#include "scoring/used.h"
#include "server/cluster.h"
#include "server/codec.h"
#include "server/decisions.h"
#include "server/metrics.h"

/* What a verb works with besides its body. Only cfg is required. */
struct srv_verb_ctx {
    const struct cfg *cfg;
    struct srv_cluster *cl;          /* NULL: request-only */
    struct srv_metrics *metrics;     /* NULL: decisions are not counted */
    struct srv_decisions *decisions; /* NULL: decisions are not recorded */
    struct timespec start; /* CLOCK_MONOTONIC, when the headers arrived; zero: no deadline */
};

/* The deadline of a request: 80 % of the scheduler's httpTimeout after its
 * headers arrived, leaving the rest for the answer's way back. */
struct srv_deadline {
    bool on;
    struct timespec at; /* CLOCK_MONOTONIC */
};

/* An answer: HTTP status and a malloc'd JSON body that the caller frees
 * (NULL, with status 500, when memory ran out). */
struct verb_reply {
    unsigned status;
    char *body;
    size_t len;
    size_t nodes; /* candidates decided on (for metrics); 0 for errors and bind */
    /* For the access log (filter, prioritize, preempt; copies: the request's
     * memory is gone when the line is written). */
    enum srv_answer answer;
    char pod[320];             /* "namespace/name", "" when not decoded */
    size_t passed;             /* nodes the filter passes (as computed when scored) */
    char best[256];            /* highest-scoring node, "" for none */
    int best_score;            /* its score, -1 for none */
    uint64_t decision;         /* id in the decisions ring, 0 when not kept */
    char error[CODEC_ERR_LEN]; /* the answer's Error text, "" for none */
};

/* What scoring said about one node. */
struct node_eval {
    enum score_verdict verdict;
    enum srv_reason code; /* the verdict's reason as a metric label */
    const char *reason;   /* failure reason, "" when the node fits */
    char reason_buf[SCORE_ERR_LEN];
    struct score_explain explain;
    bool unknown;     /* the cluster state has no such node: passed with score 0 */
    bool from_state;  /* used[] came from the cluster state */
    bool forced_zero; /* stale data under policy full or pass: score 0 */
    struct score_used used[SCORE_NRES];
};

/*
 * Judges and scores every node of @args into @eval (args->n_nodes entries).
 * With @deadline (may be NULL) it gives up once that has passed and
 * returns -ETIMEDOUT (@eval is then incomplete); otherwise 0.
 * With a cluster (@cl not NULL) what is used on each node comes from its
 * state under cfg's used source and stale policy; a node it does not know
 * passes with score 0. Without one, a Node object's used annotation is the
 * only data, and in NodeNames mode every node passes with score 0.
 * Must run with an arena attached to the thread.
 */
int srv_evaluate(const struct cfg *cfg, struct srv_cluster *cl, const struct codec_args *args,
                 const struct srv_deadline *deadline, struct node_eval *eval);

/* The node with the highest score, then value, the first on a tie; among
 * the fitting ones only with @fitting_only. -1 when there is none. */
long srv_best_node(const struct codec_args *args, const struct node_eval *eval, bool fitting_only);

/* Seconds from @t (CLOCK_MONOTONIC) to now. */
double srv_seconds_since(const struct timespec *t);

/* Sets @d from @start and cfg->scheduler_timeout_ms (off when either is 0). */
void srv_deadline_init(struct srv_deadline *d, const struct cfg *cfg, const struct timespec *start);

/* Has @d passed? Never when it is off. */
bool srv_deadline_passed(const struct srv_deadline *d);

/* Would scoring @n_nodes nodes, at the cost per node recently measured,
 * end after @d? Never when it is off. Each "yes" lowers the estimate by an
 * eighth (it is only measured by requests that are scored), so a passing
 * spike does not switch scoring off for good. Thread-safe. */
bool srv_deadline_would_miss(const struct srv_deadline *d, size_t n_nodes);

/* Feeds the measured cost of scoring @n_nodes nodes in @seconds into the
 * estimate srv_deadline_would_miss() uses. Thread-safe. */
void srv_deadline_learn(size_t n_nodes, double seconds);

/* Is @pod inside cfg's selector (namespaces, labels, priority range)? */
bool srv_pod_selected(const struct cfg *cfg, const struct codec_pod *pod);

/*
 * Resolves what is used on a node known to the state, per cfg, into
 * node->used / used_non_zero and @used. Returns the worst outcome over the
 * resources (stale-full before stale-pass before the others).
 */
enum score_used_outcome srv_used_from_state(const struct cfg *cfg,
                                            const struct kube_node_view *view,
                                            const int64_t annotation[SCORE_NRES],
                                            struct score_node *node,
                                            struct score_used used[SCORE_NRES]);

/*
 * POST <prefix>/filter and <prefix>/prioritize: decode @body (@len bytes,
 * NUL-terminated), answer in the request's mode. A malformed request gets
 * 400 with {"Error": ...}. Must run with an arena attached to the thread;
 * the body must stay untouched until the reply is sent (filter answers copy
 * Node objects from it).
 *
 * The answer is what scoring says in mode enforce. It is neutral (every
 * node passes, every score 0) in mode shadow (scored and recorded all the
 * same), in mode passthrough and for a pod outside the selector (not
 * scored), and when the request would otherwise be answered after its
 * deadline. ctx->metrics counts each kind; ctx->decisions keeps the record.
 */
void srv_filter(const struct srv_verb_ctx *ctx, const char *body, size_t len,
                struct verb_reply *out);
void srv_prioritize(const struct srv_verb_ctx *ctx, const char *body, size_t len,
                    struct verb_reply *out);

/*
 * POST <prefix>/preempt: ExtenderPreemptionArgs in either form, answered in
 * the meta form. A node stays a candidate when the pod passes our filter
 * once its victims are gone (without a cluster, or for a node the state
 * does not know, every node with victims stays); victims keep their order;
 * a node without victims is never listed. Same rules as srv_filter.
 */
void srv_preempt(const struct srv_verb_ctx *ctx, const char *body, size_t len,
                 struct verb_reply *out);

/*
 * POST <prefix>/bind: creates the Binding through the API server. Answers
 * {"Error":""} on success (a pod already bound to that node included),
 * {"Error":"..."} on failure, 400 for a malformed request.
 */
void srv_bind(const struct srv_verb_ctx *ctx, const char *body, size_t len, struct verb_reply *out);

/* Fills @out with @status and {"Error": @msg}. */
void srv_verb_error(unsigned status, const char *msg, struct verb_reply *out);

#endif

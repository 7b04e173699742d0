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

/* An answer: HTTP status and a malloc'd JSON body that the caller frees
 * (NULL, with status 500, when memory ran out). */
struct verb_reply {
    unsigned status;
    char *body;
    size_t len;
    size_t nodes; /* candidates decided on (for metrics); 0 for errors and bind */
};

/* What scoring said about one node. */
struct node_eval {
    enum score_verdict verdict;
    const char *reason; /* failure reason, "" when the node fits */
    char reason_buf[SCORE_ERR_LEN];
    struct score_explain explain;
    bool unknown;     /* the cluster state has no such node: passed with score 0 */
    bool from_state;  /* used[] came from the cluster state */
    bool forced_zero; /* stale data under policy full or pass: score 0 */
    struct score_used used[SCORE_NRES];
};

/*
 * Judges and scores every node of @args into @eval (args->n_nodes entries).
 * With a cluster (@cl not NULL) what is used on each node comes from its
 * state under cfg's used source and stale policy; a node it does not know
 * passes with score 0. Without one, a Node object's used annotation is the
 * only data, and in NodeNames mode every node passes with score 0.
 * Must run with an arena attached to the thread.
 */
void srv_evaluate(const struct cfg *cfg, struct srv_cluster *cl, const struct codec_args *args,
                  struct node_eval *eval);

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
 */
void srv_filter(const struct cfg *cfg, struct srv_cluster *cl, const char *body, size_t len,
                struct verb_reply *out);
void srv_prioritize(const struct cfg *cfg, struct srv_cluster *cl, const char *body, size_t len,
                    struct verb_reply *out);

/*
 * POST <prefix>/preempt: ExtenderPreemptionArgs in either form, answered in
 * the meta form. A node stays a candidate when the pod passes our filter
 * once its victims are gone (without a cluster, or for a node the state
 * does not know, every node with victims stays); victims keep their order;
 * a node without victims is never listed. Same rules as srv_filter.
 */
void srv_preempt(const struct cfg *cfg, struct srv_cluster *cl, const char *body, size_t len,
                 struct verb_reply *out);

/*
 * POST <prefix>/bind: creates the Binding through the API server. Answers
 * {"Error":""} on success (a pod already bound to that node included),
 * {"Error":"..."} on failure, 400 for a malformed request.
 */
void srv_bind(const struct cfg *cfg, struct srv_cluster *cl, const char *body, size_t len,
              struct verb_reply *out);

/* Fills @out with @status and {"Error": @msg}. */
void srv_verb_error(unsigned status, const char *msg, struct verb_reply *out);

#endif

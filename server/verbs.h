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
#include "server/codec.h"

/* An answer: HTTP status and a malloc'd JSON body that the caller frees
 * (NULL, with status 500, when memory ran out). */
struct verb_reply {
    unsigned status;
    char *body;
    size_t len;
};

/* What scoring said about one node. */
struct node_eval {
    enum score_verdict verdict;
    const char *reason; /* failure reason, "" when the node fits */
    char reason_buf[SCORE_ERR_LEN];
    struct score_explain explain;
};

/*
 * Judges and scores every node of @args into @eval (args->n_nodes entries).
 * In NodeNames mode, with no cluster state yet, every node fits with value 0.
 */
void srv_evaluate(const struct cfg *cfg, const struct codec_args *args, struct node_eval *eval);

/*
 * POST <prefix>/filter and <prefix>/prioritize: decode @body (@len bytes,
 * NUL-terminated), answer in the request's mode. A malformed request gets
 * 400 with {"Error": ...}. Must run with an arena attached to the thread;
 * the body must stay untouched until the reply is sent (filter answers copy
 * Node objects from it).
 */
void srv_filter(const struct cfg *cfg, const char *body, size_t len, struct verb_reply *out);
void srv_prioritize(const struct cfg *cfg, const char *body, size_t len, struct verb_reply *out);

/* Fills @out with @status and {"Error": @msg}. */
void srv_verb_error(unsigned status, const char *msg, struct verb_reply *out);

#endif

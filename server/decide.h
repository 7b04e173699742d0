/*
 * The part of filter and prioritize before an answer is written: decode,
 * choose between a scored and a neutral answer (mode, selector, deadline),
 * score, count in the metrics and record in the decisions ring.
 */
#ifndef SERVER_DECIDE_H
#define SERVER_DECIDE_H

#include "server/verbs.h"

struct srv_decided {
    struct codec_args args;
    struct node_eval *eval; /* NULL when nothing was scored */
    enum srv_answer answer;
    bool neutral;  /* answer every node passed, every score 0 */
    size_t passed; /* nodes that fit as computed; all of them when not scored */
};

/*
 * Decodes @body and decides as described at srv_filter(). On failure the
 * error answer is already in @out and the result is -EINVAL, -E2BIG or
 * -ENOMEM; on success @out holds the access-log fields (not the body).
 * Must run with an arena attached to the thread.
 */
int srv_decide(const struct srv_verb_ctx *ctx, enum srv_verb verb, const char *body, size_t len,
               struct srv_decided *d, struct verb_reply *out);

/*
 * A decisions-ring record of @d (every node's inputs, terms, value, score
 * and verdict when it was scored), @best the index of the best node or -1,
 * @seconds from the headers. One reference for the caller; NULL when
 * memory ran out.
 */
struct srv_decision *srv_decision_record(const struct srv_verb_ctx *ctx, enum srv_verb verb,
                                         const struct srv_decided *d, long best, double seconds);

#endif

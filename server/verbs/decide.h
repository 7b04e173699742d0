/*
 * What filter and prioritize share before they write an answer: decoding,
 * the choice between a scored and a neutral answer (mode, selector,
 * deadline), scoring, counting in the metrics and recording in the
 * decisions ring. The verb then writes the answer (or the error).
 */
#ifndef SERVER_VERBS_DECIDE_H
#define SERVER_VERBS_DECIDE_H

#include <stdbool.h>
#include <stddef.h>

#include "server/codec/types.h"
#include "server/verbs/context.h"
#include "server/verbs/evaluate.h"

struct verb_outcome {
    struct codec_args args;
    struct score_pod_request request; /* the pod's effective request */
    struct verb_eval eval;            /* its arrays NULL when nothing was scored */
    enum ops_answer answer;
    bool neutral;  /* answer every node passed, every score 0 */
    size_t passed; /* nodes that fit as computed; all of them when not scored */
    long best;     /* the best node that fits, -1 for none or not scored */
};

/*
 * Decodes @body (@len bytes and a NUL) in ctx->arena and decides as
 * described at verb_filter(), filling @d and the access-log @facts.
 * Returns 0, or -EINVAL / -E2BIG (the client's fault: 400) or -ENOMEM
 * (500) with the reason in @err (ERR_LEN).
 */
int verb_decide(const struct verb_ctx *ctx, enum ops_verb verb, const char *body, size_t len,
                struct verb_outcome *d, struct ops_request_facts *facts, char *err);

#endif

/*
 * What every verb works with: the request's context going in and the reply
 * coming out. The verbs decide (decode with server/codec, judge and score
 * with scoring/, count and record with server/ops) and hand back a reply;
 * they know no HTTP (server/http calls them) and no JSON beyond the codec's
 * plain structs.
 */
#ifndef SERVER_VERBS_CONTEXT_H
#define SERVER_VERBS_CONTEXT_H

#include <stddef.h>
#include <time.h>

#include "base/buf.h"
#include "base/err.h"
#include "config/config.h"
#include "server/cluster/cluster.h"
#include "server/ops/access_log.h"
#include "server/ops/metrics.h"
#include "server/ops/ring.h"

struct arena;

/* What a verb works with besides its body. cfg and arena are required. */
struct verb_ctx {
    const struct cfg *cfg;
    struct arena *arena;         /* the request's memory: decoding and scoring take from it */
    struct cluster *cl;          /* NULL: request-only */
    struct ops_metrics *metrics; /* NULL: decisions are not counted */
    struct ops_ring *decisions;  /* NULL: decisions are not recorded */
    struct timespec start;       /* CLOCK_MONOTONIC, when the headers arrived; zero: no deadline */
};

/* An answer: HTTP status and the JSON body as pieces to send one after
 * the other, and what the access log and the metrics say of the request.
 * The pieces and what they point to are the request's memory (its arena,
 * its body) or static: valid until the arena is released, which the
 * server does once the answer is sent. Most answers are one piece; the
 * filter's NodeList answer sends the passing Node objects from the body
 * itself (no copy: its memory stays about the body's). */
struct verb_reply {
    unsigned status;
    const struct buf_piece *pieces;
    size_t n_pieces;
    size_t len; /* of all pieces */
    struct ops_request_facts facts;
    char error[ERR_LEN]; /* the answer's Error text, "" for none */
};

#endif

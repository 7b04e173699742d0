/*
 * A Prometheus instant-query answer (GET /api/v1/query) decoded: the
 * status, an instant vector's series, each one's value for the label that
 * names its node. The value is read as a Kubernetes quantity, so cores
 * become millicores and bytes bytes by the same rounding (up) as every
 * other quantity: no floating point between the text and the sample.
 */
#ifndef SERVER_CODEC_PROM_VECTOR_H
#define SERVER_CODEC_PROM_VECTOR_H

#include <stddef.h>
#include <stdint.h>

#include "scoring/quantity.h"

/* One series of the vector; @node borrowed for the callback. */
struct codec_prom_sample {
    const char *node; /* the value of the node label */
    int64_t value;    /* in the unit asked for, rounded up, >= 0 */
    double timestamp; /* wall-clock seconds of the evaluation */
};

/*
 * Calls @fn for every series of the instant vector @body (@len bytes) that
 * has a string @label and a finite, non-negative value: a series without
 * the label, with NaN, an infinity, a negative value or a value that is
 * not a [time, "number"] pair is skipped and counted in *@skipped.
 * Returns the number of calls, or -EINVAL with @err (ERR_LEN) when @body
 * is not JSON, not {"status":"success"}, or not a "vector" (a scalar, a
 * matrix or a string answer means the query is not an instant vector of
 * series); an answer with status "error" gives Prometheus's errorType and
 * error in @err. The tree is malloc'd and freed here.
 */
int codec_prom_vector(const char *body, size_t len, const char *label, enum score_unit unit,
                      void (*fn)(void *ctx, const struct codec_prom_sample *s), void *ctx,
                      size_t *skipped, char *err);

/*
 * The most an answer for @nodes nodes may weigh: one series per node (its
 * labels, a value) of at most CODEC_PROM_SERIES_MAX, room for an eighth
 * more nodes than known plus CODEC_PROM_SPARE, and the framing. A query
 * that matches far more series than there are nodes costs an error, not
 * the process's memory.
 */
#define CODEC_PROM_SERIES_MAX (2u << 10)
#define CODEC_PROM_SPARE      64
size_t codec_prom_vector_bound(size_t nodes);

#endif

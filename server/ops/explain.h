/*
 * A recorded decision in words, shared by the /debug page and `rank`: how
 * amounts are written, where "used" came from, and one line per node
 * saying how its value and score were computed.
 */
#ifndef SERVER_OPS_EXPLAIN_H
#define SERVER_OPS_EXPLAIN_H

#include <stddef.h>
#include <stdint.h>

#include "server/ops/ring.h"

/* "fits", "unfit" or "unresolvable". */
const char *ops_verdict_name(enum score_verdict v);

/* Where the used amount of resource @r of @n came from: a used source
 * (requests, usage, ...), "annotation" without a cluster, "unknown node". */
const char *ops_used_from(const struct ops_record_node *n, int r);

/* The usage window behind node @n's resource @r in @rec, when the record
 * kept one and @r was scored on usage (or fell back from it): "usage p90
 * over 300 s, 12 samples" into @buf (@len bytes). Returns false (and
 * writes nothing) otherwise. */
bool ops_usage_window(const struct ops_record *rec, const struct ops_record_node *n, int r,
                      char *buf, size_t len);

/* An amount of resource @r as people write it: 1500m, 8Gi, 1.50Gi, 300. */
void ops_amount(char *buf, size_t n, int r, int64_t v);

/* How @n's value and score came about, in one line of plain text, e.g.
 * "value 21 = (3x0 + 1x87) / 4; score 2 = (21 + 5) / 10". */
void ops_explain_text(const struct ops_record *rec, const struct ops_record_node *n, char *buf,
                      size_t len);

#endif

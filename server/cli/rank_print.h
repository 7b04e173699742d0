/* What `rank` prints: the same breakdown as GET /debug, as a table. */
#ifndef SERVER_CLI_RANK_PRINT_H
#define SERVER_CLI_RANK_PRINT_H

#include <stdio.h>

#include "config/config.h"
#include "server/ops/ring.h"

/* The pod's request and the scoring rules of @rec under @cfg, then per node
 * its verdict, each resource's allocatable, used (and where from), pod
 * request and term, the value, the score, the points kube-scheduler adds,
 * and how they were computed. */
void cli_rank_print(FILE *out, const struct cfg *cfg, const struct ops_record *rec);

#endif

/*
 * `cpu-extender rank --nodes nodes.json --pod pod.json`: the scoring of one
 * pod against `kubectl get nodes -o json`, for a person. The table (one line
 * per node with its terms, value, score and verdict) and the best node go to
 * @table; a manifest for a new pod pinned to the best node goes to
 * @manifest, ready for `kubectl apply -f -`.
 */
#ifndef SERVER_RANK_H
#define SERVER_RANK_H

#include <stdio.h>

#include "config/config.h"

/*
 * Returns 0, -ENOENT when no node fits (the table is still printed), or
 * -errno with a message in @err. Needs arena_install_hooks() to have run.
 */
int srv_rank(const struct cfg *cfg, const char *nodes_path, const char *pod_path, FILE *table,
             FILE *manifest, char err[CFG_ERR_LEN]);

#endif

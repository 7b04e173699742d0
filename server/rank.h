/*
 * `cpu-extender rank --nodes nodes.json --pod pod.json`: the scoring of one
 * pod against `kubectl get nodes -o json`, for a person; or, with
 * --kubeconfig (or KUBECONFIG, or ~/.kube/config) instead of --nodes,
 * against a live cluster's nodes, pods and usage. The table (one line
 * per node with its terms, value, score and verdict) and the best node go to
 * @table; a manifest for a new pod pinned to the best node goes to
 * @manifest, ready for `kubectl apply -f -`.
 */
#ifndef SERVER_RANK_H
#define SERVER_RANK_H

#include <stdio.h>

#include "config/config.h"
#include "server/cluster.h"

/*
 * Ranks the nodes of @nodes_path, or, when @cl is given (and @nodes_path is
 * NULL), every node of that cluster with its pods and usage as the server
 * would see them (`rank --kubeconfig`; waits for the first lists).
 * Returns 0, -ENOENT when no node fits (the table is still printed), or
 * -errno with a message in @err. Needs arena_install_hooks() to have run.
 */
int srv_rank(const struct cfg *cfg, struct srv_cluster *cl, const char *nodes_path,
             const char *pod_path, FILE *table, FILE *manifest, char err[CFG_ERR_LEN]);

#endif

/*
 * `cpu-extender rank --nodes nodes.json --pod pod.json`: the scoring of one
 * pod against `kubectl get nodes -o json`, for a person; or, with
 * --kubeconfig (or KUBECONFIG, ~/.kube/config, or in-cluster) instead of --nodes,
 * against a live cluster's nodes, pods and usage. The table (one line
 * per node with its terms, value, score and verdict) and the best node go to
 * @table; a manifest for a new pod pinned to the best node goes to
 * @manifest, ready for `kubectl apply -f -`.
 */
#ifndef SERVER_CLI_RANK_H
#define SERVER_CLI_RANK_H

#include <stdio.h>

#include "config/config.h"
#include "server/cluster/cluster.h"

/* `cpu-extender rank --pod FILE [--nodes FILE] [options]`: exit status 0
 * when a node fits, 1 when none does or ranking failed, 2 for bad usage. */
int cli_rank_main(int argc, char **argv);

#endif

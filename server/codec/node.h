/*
 * v1.Node decoding, shared by requests (NodeLists), the node informer and
 * `rank`: the name, allocatable cpu and memory, and the configured
 * used-annotations. Bad capacity data does not fail the decoding: it makes
 * the node unusable with a fixed, node-independent reason (kube-scheduler
 * aggregates reasons across nodes).
 */
#ifndef SERVER_CODEC_NODE_H
#define SERVER_CODEC_NODE_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "config/config.h"
#include "server/codec/types.h"

struct arena;

/*
 * Decodes one v1.Node object into *@out (strings point into @node).
 * A missing or non-string metadata.name is the only error (-EINVAL with
 * @err, ERR_LEN); unusable capacity data sets out->invalid instead.
 */
int codec_node_decode(const cJSON *node, const struct cfg *cfg, struct codec_node *out, char *err);

/* Room for @n nodes in out->nodes (not zeroed), within cfg->max_nodes.
 * Returns 0, -E2BIG with @err (ERR_LEN) or -ENOMEM. */
int codec_nodes_alloc(struct arena *a, size_t n, const struct cfg *cfg, struct codec_args *out,
                      char *err);

/*
 * Decodes the Node objects of @list, a NodeList (its "items") or, with
 * @single_ok, one bare Node (as `kubectl get node NAME -o json` prints it),
 * into out->nodes / out->n_nodes, in @a. Returns as codec_args_decode,
 * naming the field under @what ("Nodes" for requests).
 */
int codec_nodes_decode(struct arena *a, const cJSON *list, bool single_ok, const char *what,
                       const struct cfg *cfg, struct codec_args *out, char *err);

#endif

/*
 * v1.Node decoding from a cJSON tree, for the node informer (watch events
 * are small: a tree is cheap there): the name, allocatable cpu, memory and
 * pods, and the configured used-annotations. Requests and `rank` read
 * NodeLists with the scanner (nodelist.h), by the same rules; the fuzz
 * target tests/fuzz/fuzz_nodes.c holds the two to the same answers. Bad
 * capacity data does not fail the decoding: it makes the node unusable
 * with a fixed, node-independent reason (kube-scheduler aggregates reasons
 * across nodes).
 */
#ifndef SERVER_CODEC_NODE_H
#define SERVER_CODEC_NODE_H

#include <cjson/cJSON.h>

#include "config/config.h"
#include "server/codec/types.h"

/*
 * Decodes one v1.Node object into *@out (strings point into @node).
 * A missing or non-string metadata.name is the only error (-EINVAL with
 * @err, ERR_LEN); unusable capacity data sets out->invalid instead.
 */
int codec_node_decode(const cJSON *node, const struct cfg *cfg, struct codec_node *out, char *err);

#endif

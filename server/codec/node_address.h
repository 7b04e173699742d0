/*
 * A Node object's InternalIP (status.addresses), read from the informer's
 * tree: what a Prometheus series's instance label holds for the node's
 * exporters, so the Prometheus usage provider can find the node.
 */
#ifndef SERVER_CODEC_NODE_ADDRESS_H
#define SERVER_CODEC_NODE_ADDRESS_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* Copies the first InternalIP of the Node @obj into @out (@n bytes).
 * Returns 0, or -ENOENT (and "" in @out) when the node has none, or one
 * that does not fit or is not an IP's text. */
int codec_node_internal_ip(const cJSON *obj, char *out, size_t n);

#endif

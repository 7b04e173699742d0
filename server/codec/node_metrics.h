/*
 * metrics.k8s.io NodeMetricsList decoding: per node its usage sample (cpu,
 * memory), when it was taken (RFC 3339) and over what window (a Go
 * duration).
 */
#ifndef SERVER_CODEC_NODE_METRICS_H
#define SERVER_CODEC_NODE_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "scoring/resources.h"

/* One node's sample; strings borrowed for the callback. */
struct codec_node_sample {
    const char *node;
    int64_t usage[SCORE_NRES];
    double timestamp; /* wall-clock seconds */
    double window;    /* seconds, 0 when absent */
};

/*
 * Calls @fn for every well-formed item of the NodeMetricsList @body (@len
 * bytes); an item that cannot be read is skipped and counted in *@skipped.
 * Returns the number of calls, or -EINVAL with @err (ERR_LEN) when @body is
 * not a list with an items array. The tree is malloc'd and freed here.
 */
int codec_node_metrics(const char *body, size_t len,
                       void (*fn)(void *ctx, const struct codec_node_sample *s), void *ctx,
                       size_t *skipped, char *err);

/*
 * The most a NodeMetricsList for @nodes nodes may weigh: one item per node
 * (name, the node's labels as metrics-server copies them, two quantities)
 * of at most CODEC_NODE_METRICS_ITEM_MAX, room for an eighth more nodes
 * than known plus CODEC_NODE_METRICS_SPARE (nodes the informer has not
 * seen yet), and the list's framing. The poller takes no more: the tree of
 * an answer costs several times its text.
 */
#define CODEC_NODE_METRICS_ITEM_MAX (4u << 10)
#define CODEC_NODE_METRICS_SPARE    64
size_t codec_node_metrics_bound(size_t nodes);

#endif

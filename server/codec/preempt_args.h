/* ExtenderPreemptionArgs, the request of preempt, into plain structs. */
#ifndef SERVER_CODEC_PREEMPT_ARGS_H
#define SERVER_CODEC_PREEMPT_ARGS_H

#include <stddef.h>

#include "config/config.h"
#include "server/codec/types.h"

struct arena;

/*
 * Parses ExtenderPreemptionArgs (both forms; when both maps are set the
 * meta form wins, as kube-scheduler only ever sends one) into @a. A node
 * named twice (a Go map keeps the last value) is found in O(1) per key.
 * Returns 0, or -EINVAL / -E2BIG (more than cfg->max_nodes nodes) /
 * -ENOMEM with @err (ERR_LEN).
 */
int codec_preempt_decode(struct arena *a, const char *body, size_t len, const struct cfg *cfg,
                         struct codec_preempt_args *out, char *err);

#endif

/*
 * ExtenderArgs, the request of filter and prioritize, into plain structs.
 *
 * Go decoding rules are mirrored where they matter: the top-level keys
 * (Pod, Nodes, NodeNames) match case-insensitively, a duplicate key's last
 * occurrence wins, `null` is the same as absent, and quantity strings are
 * trimmed of surrounding space.
 */
#ifndef SERVER_CODEC_ARGS_H
#define SERVER_CODEC_ARGS_H

#include <stddef.h>

#include "config/config.h"
#include "server/codec/types.h"

struct arena;

/*
 * Parses the ExtenderArgs in @body (@len bytes followed by a NUL) into
 * *@out, in @a. Node problems do not fail the call: they set
 * codec_node.invalid. Returns 0, or -EINVAL (malformed request: answer
 * 400) / -E2BIG (more than cfg->max_nodes nodes) / -ENOMEM with a message
 * in @err (ERR_LEN).
 */
int codec_args_decode(struct arena *a, const char *body, size_t len, const struct cfg *cfg,
                      struct codec_args *out, char *err);

#endif

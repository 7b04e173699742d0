/* ExtenderBindingArgs, the request of bind, into plain structs. */
#ifndef SERVER_CODEC_BIND_ARGS_H
#define SERVER_CODEC_BIND_ARGS_H

#include <stddef.h>

#include "server/codec/types.h"

struct arena;

/*
 * Parses ExtenderBindingArgs into @a. Names must be non-empty (PodUID may
 * be absent), at most 253 bytes and free of '/', '?', '#', '%', ' ' and
 * '\\' (they become a URL path). Returns 0, -EINVAL or -ENOMEM with @err
 * (ERR_LEN).
 */
int codec_bind_decode(struct arena *a, const char *body, size_t len, struct codec_bind_args *out,
                      char *err);

#endif

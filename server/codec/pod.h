/*
 * v1.Pod decoding, shared by requests (the pod being scheduled, preemption
 * victims), the pod informer and `rank`: what the pod asks for (its
 * callers compute the effective request: score_pod_request()), the fields
 * the selector and the cluster state read, by the same rules everywhere.
 */
#ifndef SERVER_CODEC_POD_H
#define SERVER_CODEC_POD_H

#include <cjson/cJSON.h>

#include "server/codec/types.h"

struct arena;

/*
 * Decodes one v1.Pod object into @out, its arrays in @a. Returns 0,
 * -EINVAL with a message naming the field in @err (ERR_LEN: wrong JSON
 * type, invalid, negative or overflowing quantity; "Pod: missing" for a
 * NULL @pod, a request without one), or -ENOMEM.
 */
int codec_pod_decode(struct arena *a, const cJSON *pod, struct codec_pod *out, char *err);

/* The value of label @key (@klen bytes) of @pod: the last of a duplicate
 * key, as a Go map keeps it; NULL when the pod has no such label. */
const char *codec_pod_label(const struct codec_pod *pod, const char *key, size_t klen);

#endif

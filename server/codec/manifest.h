/* The pod manifest `rank` prints: the pod as a new object pinned to a node. */
#ifndef SERVER_CODEC_MANIFEST_H
#define SERVER_CODEC_MANIFEST_H

#include <stddef.h>
#include <stdio.h>

/*
 * Writes the pod object @pod_json (@len bytes) to @out as a new object:
 * what the API server set (uid, resourceVersion, managedFields, status,
 * spec.nodeName, ...) removed and a nodeSelector kubernetes.io/hostname:
 * @node added. Returns 0, -EINVAL (not a JSON object) or -ENOMEM.
 */
int codec_pinned_manifest(const char *pod_json, size_t len, const char *node, FILE *out);

#endif

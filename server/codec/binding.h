/*
 * The API objects of a bind: the v1.Binding we POST, the Status the API
 * server answers a refusal with, and the pod's spec.nodeName we read after
 * a conflict.
 */
#ifndef SERVER_CODEC_BINDING_H
#define SERVER_CODEC_BINDING_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"

/* {"apiVersion":"v1","kind":"Binding","metadata":{name, namespace[, uid]},
 * "target":{"apiVersion":"v1","kind":"Node","name":@node}}; @uid "" omits it. */
void codec_binding_body(struct buf *o, const char *ns, const char *name, const char *uid,
                        const char *node);

/* "API server answered STATUS: MESSAGE" from a Status body (@len bytes;
 * just the status when it has no message) into @out (ERR_LEN). */
void codec_status_message(long status, const char *body, size_t len, char *out);

/* Is the pod object @body (@len bytes) bound to @node (spec.nodeName)? */
bool codec_pod_is_bound_to(const char *body, size_t len, const char *node);

#endif

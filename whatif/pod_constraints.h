/*
 * What the placement model reads of a pod beyond its request (pod.h):
 * spec.nodeName, spec.nodeSelector, the required node affinity
 * (spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution)
 * and spec.tolerations; and for `rank`'s advice, the controller that owns
 * the pod. From a cJSON tree, by Go's rules (fields case-folded, the last of
 * duplicate keys, map keys exact, null absent).
 *
 * Strings are copied into the arena given, so the tree may be released
 * before the constraints are used (`simulate` parses pod by pod).
 */
#ifndef WHATIF_POD_CONSTRAINTS_H
#define WHATIF_POD_CONSTRAINTS_H

#include <cjson/cJSON.h>

#include "placement/constraints.h"

struct arena;

/*
 * Decodes the constraints of the v1.Pod @pod into *@out, every string and
 * array in @a. Returns 0, -EINVAL with the field in @err (ERR_LEN; a wrong
 * JSON type, an operator or effect the API server would refuse), or
 * -ENOMEM.
 */
int whatif_pod_constraints_decode(struct arena *a, const cJSON *pod,
                                  struct place_pod_constraints *out, char *err);

/* The pod's controller: the ownerReferences entry with controller: true. */
struct whatif_pod_owner {
    const char *kind; /* "" when the pod has no controller */
    const char *name;
};

/* Reads the controller of @pod into *@out (borrowed from the tree). A
 * malformed ownerReferences reads as none: it only changes advice. */
void whatif_pod_controller(const cJSON *pod, struct whatif_pod_owner *out);

#endif

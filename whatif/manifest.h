/*
 * What `rank` hands back: the pod as a new object pinned to the node it
 * chose, or, for a pod a controller owns (deleting it would only make the
 * controller create an unpinned one), the node affinity to put in the
 * controller's pod template; and the writers that print them as YAML (what
 * kubectl users paste) or JSON.
 */
#ifndef WHATIF_MANIFEST_H
#define WHATIF_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

/* The node to pin to. */
struct whatif_pin {
    const char *node;     /* metadata.name */
    const char *hostname; /* its kubernetes.io/hostname label value; NULL when it has none */
};

/*
 * The pod object @pod_json (@len bytes) as a new pod, in *@out (a malloc'd
 * tree: cJSON_Delete it): what the API server set (uid, resourceVersion,
 * generation, creationTimestamp, deletion fields, selfLink, managedFields,
 * ownerReferences, status, spec.nodeName) removed, generateName dropped
 * when the pod has a name, and pinned: nodeSelector
 * kubernetes.io/hostname: <the node's own label value>, or, for a node
 * without that label, a required node affinity matchFields metadata.name
 * In [node] added to every term the pod has (terms are ORed) or as one
 * term. Returns 0, -EINVAL (not a JSON object) or -ENOMEM.
 */
int whatif_pinned_pod(const char *pod_json, size_t len, const struct whatif_pin *pin, cJSON **out);

/*
 * The strategic-merge patch that pins a controller's pods, in *@out:
 * {"spec":{"template":{"spec":{"affinity":{"nodeAffinity":{"required...":
 * {"nodeSelectorTerms":[...]}}}}}}}, the pod's own required terms each with
 * the pin added (the list is replaced, not merged, by a patch), or one term
 * of it; the pin is matchExpressions kubernetes.io/hostname In [label value],
 * or matchFields metadata.name In [node]. Returns as whatif_pinned_pod().
 */
int whatif_pin_patch(const char *pod_json, size_t len, const struct whatif_pin *pin, cJSON **out);

/*
 * Writes the object @v as block-style YAML through libyaml's emitter (two
 * spaces per level, list items at their key's indentation, as kubectl
 * prints), strings double-quoted whenever a plain scalar could read as
 * anything else (a number, a bool, null, an indicator). Returns 0, -ENOMEM,
 * or -EIO when writing failed or a string is not UTF-8.
 */
int whatif_write_yaml(const cJSON *v, FILE *out);

/* Writes @v as JSON indented by two spaces, and a newline. Returns 0 or
 * -EIO. */
int whatif_write_json(const cJSON *v, FILE *out);

/* What `rank` prints: whatif_pinned_pod(), or with @patch whatif_pin_patch(),
 * of @pod_json written to @out as YAML, or as JSON with @as_json. Returns
 * as whatif_pinned_pod(), or -EIO when writing failed. */
int whatif_print_pin(const char *pod_json, size_t len, const struct whatif_pin *pin, bool patch,
                     bool as_json, FILE *out);

#endif

/*
 * Files of pods, as `simulate --pods` and `--existing` take them: a PodList
 * (`kubectl get pods -o json` prints a List), one Pod (`kubectl get pod NAME
 * -o json`), or several of these one after another (a loop of `kubectl get
 * pod -o json >> file`). The scanner validates the whole file and finds
 * each pod's bytes, without a tree; the caller parses one pod at a time,
 * so that a file of 50 000 pods never becomes one tree.
 */
#ifndef WHATIF_POD_ITEMS_H
#define WHATIF_POD_ITEMS_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "server/codec/scan.h"
#include "server/codec/types.h"

struct arena;

/* One pod of a file: its bytes and where it stands. */
struct whatif_item {
    struct codec_span json;
    uint32_t doc;  /* which top-level value of the file, from 0 */
    int32_t index; /* its place in that value's items; -1 for a bare Pod */
};

/*
 * Finds the pods of @body (@len bytes) into a malloc'd array *@items of
 * *@n (the caller frees it; NULL when there are none). A top-level value
 * must be an object: of kind PodList or List (its items; a List's items are
 * checked to be Pods when decoded, whatif_pod_kind_check()), of kind Pod, or
 * without a kind (a List when it has items, else a Pod). Returns 0, or
 * -EINVAL with the reason in @err (ERR_LEN: malformed JSON at its byte, "a
 * NodeList, not pods", "object 2: want an object"), or -ENOMEM. Nothing is
 * returned from a file that fails.
 */
int whatif_pod_items(const char *body, size_t len, struct whatif_item **items, size_t *n,
                     char *err);

/* Names @it for messages: "items[3]" in a file of one list, "object 2" for
 * a bare Pod among several, "object 2 items[3]"; @docs is how many
 * top-level values the file holds (the last item's doc + 1). */
void whatif_item_name(const struct whatif_item *it, uint32_t docs, char *buf, size_t len);

/* Checks that the pod object @pod has kind Pod or none. Returns 0 or
 * -EINVAL with "a Node, not a Pod" in @err. */
int whatif_pod_kind_check(const cJSON *pod, char *err);

/* Checks that the object @pod is one Pod (`rank --pod`): not a List or a
 * PodList (kind, or items without a kind), not another kind; without a
 * kind, an object with spec.containers (not an ExtenderArgs, not {}). Returns 0 or
 * -EINVAL with "a List, not a Pod: give one pod (...)" in @err. */
int whatif_pod_one_check(const cJSON *pod, char *err);

/*
 * Parses the pod @it (of a file of @docs top-level values) into @tmp,
 * checks its kind and decodes it (codec_pod_decode()) into *@pod, its
 * effective request (score_pod_request()) into *@req, the tree in *@tree. Returns 0, or -EINVAL /
 * -ENOMEM with @err naming the item and, when it has them, its namespace and name: "items[3]
 * (shop/web-0): ...".
 */
int whatif_pod_item_decode(struct arena *tmp, const struct whatif_item *it, uint32_t docs,
                           const cJSON **tree, struct codec_pod *pod, struct score_pod_request *req,
                           char *err);

#endif

/*
 * What the placement model reads of a Node object beyond what scoring
 * reads (nodelist.h): its kind, metadata.labels, spec.taints and
 * spec.unschedulable. Read by the scanner from the object's bytes (the
 * span the NodeList decoder kept), so a NodeList is decoded without a
 * tree; for `rank` and `simulate`, not for requests (kube-scheduler judges
 * those rules itself before it asks the extender).
 *
 * Go's rules for a typed Node: struct fields match case-folded, map keys
 * (labels) exactly; a repeated map merges into the one before, its last
 * entry per key winning; a repeated array or scalar replaces; null clears
 * a map or an array and leaves a scalar alone. Unlike the lenient request
 * decoder, a value of the wrong type here is an error naming the field:
 * these are files a person gave, and a guess would place pods wrongly.
 */
#ifndef WHATIF_NODE_FACTS_H
#define WHATIF_NODE_FACTS_H

#include <stdbool.h>
#include <stddef.h>

#include "placement/constraints.h"
#include "server/codec/scan.h"
#include "server/codec/types.h"

struct arena;

struct whatif_node_facts {
    const char *kind; /* "kind", "" when absent */
    /* metadata.labels, one entry per key (the last given), in first-seen
     * order; strings in the arena. */
    struct place_label *labels;
    size_t n_labels;
    struct place_taint *taints; /* spec.taints in order */
    size_t n_taints;
    bool unschedulable; /* spec.unschedulable */
    /* spec.containers is there: a Pod without its kind, given as a Node */
    bool has_containers;
};

/*
 * Reads the Node object @node (its bytes, already validated JSON) into
 * *@out, strings and arrays in @a. Returns 0, -EINVAL with the field in
 * @err (ERR_LEN: "spec.taints[1].effect: want NoSchedule, PreferNoSchedule
 * or NoExecute, not \"Sometimes\""), or -ENOMEM.
 */
int whatif_node_facts_decode(struct arena *a, struct codec_span node, struct whatif_node_facts *out,
                             char *err);

/*
 * The "kind" of the NodeList that codec_nodelist_decode() read into @args
 * (from its members other than items; the last one given) into *@kind, a
 * copy in @a, "" when the list has none (then it may be a bare Node: its
 * own kind is in its facts). Returns 0, -EINVAL ("kind: want a string") or
 * -ENOMEM, with @err.
 */
int whatif_nodelist_kind(struct arena *a, const struct codec_args *args, const char **kind,
                         char *err);

/* The value of label @key of @f, or NULL. */
const char *whatif_node_facts_label(const struct whatif_node_facts *f, const char *key);

#endif

/*
 * NodeLists and NodeNames read by the scanner (scan.h), at memory speed:
 * of a Node object only what scoring reads is taken (metadata.name, the
 * configured used-annotations, status.allocatable cpu, memory and pods)
 * and the object's byte span (the filter answer copies passing nodes
 * verbatim); everything else (images, managedFields, conditions, the other
 * annotations) is validated and passed over without an allocation. Per node
 * one fixed record and its name.
 *
 * The one Node decoder: requests, `rank` and the node informer
 * (codec_node_decode()) read Nodes by the same rules: the last of
 * duplicate keys wins (a repeated struct or map merges, as Go decodes into
 * the typed Node), null is absent, bad capacity data makes the node
 * unusable with a fixed, node-independent reason (kube-scheduler
 * aggregates reasons across nodes), a node without a name fails.
 *
 * A fault that is the request's (a node without a name, more than
 * max-nodes, items not an array) is kept in the fault and the walk goes on,
 * so that a malformed body further on is reported first, as a parser that
 * reads the whole body before decoding would.
 */
#ifndef SERVER_CODEC_NODELIST_H
#define SERVER_CODEC_NODELIST_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "config/config.h"
#include "server/codec/scan.h"
#include "server/codec/types.h"

struct arena;

/* The first fault of a decoding that is not the body's grammar. */
struct codec_fault {
    int rc; /* 0, -EINVAL, -E2BIG or -ENOMEM */
    char err[ERR_LEN];
};

/*
 * What a NodeList read so far holds, kept across a repeated "Nodes": Go
 * decodes the second object into the first, so its members add to the
 * first's and its "items" replace the earlier ones, but for one case
 * refused as "given twice": two non-empty lists, which Go would merge node
 * by node. Zero it before the first "Nodes"; a null "Nodes" zeroes it again
 * (codec_list_scan_reset()).
 */
struct codec_list_scan {
    size_t node_cap, member_cap;     /* room in out->nodes and out->list_members */
    size_t items_len;                /* elements in the current "items" */
    struct codec_fault items_fault;  /* the current "items"' */
    struct codec_fault twice, other; /* kept from the first "Nodes" on */
};

/* A null NodeList: no nodes, no members, no faults; the arrays' room kept. */
void codec_list_scan_reset(struct codec_list_scan *ls, struct codec_args *out);

/*
 * Reads the NodeList object at the scan point (or, with @single_ok, a bare
 * Node object: what `kubectl get node NAME -o json` prints) into
 * out->nodes, out->n_nodes and out->list_members, in @a, naming the field
 * @what in messages ("Nodes" for requests), merging into what @ls holds.
 * Returns 0 or -EINVAL (the scanner's fault, in @s); the request's faults
 * go to @f.
 */
int codec_nodelist_scan(struct arena *a, struct codec_scan *s, const struct cfg *cfg,
                        bool single_ok, const char *what, struct codec_args *out,
                        struct codec_list_scan *ls, struct codec_fault *f);

/* Reads the NodeNames array at the scan point into out->nodes (names
 * only). As codec_nodelist_scan. */
int codec_names_scan(struct arena *a, struct codec_scan *s, const struct cfg *cfg,
                     struct codec_args *out, struct codec_fault *f);

/* The whole of @body (@len bytes) as a NodeList or one Node (`rank
 * --nodes`, `simulate`): 0, or -EINVAL / -E2BIG / -ENOMEM with @err. */
int codec_nodelist_decode(struct arena *a, const char *body, size_t len, const struct cfg *cfg,
                          const char *what, struct codec_args *out, char *err);

/* The whole of @body (@len bytes) as one v1.Node object (a watch event's),
 * its name in @a: 0, or -EINVAL (malformed, or no metadata.name) / -ENOMEM
 * with @err (ERR_LEN). Unusable capacity data sets out->invalid instead. */
int codec_node_decode(struct arena *a, const char *body, size_t len, const struct cfg *cfg,
                      struct codec_node *out, char *err);

#endif

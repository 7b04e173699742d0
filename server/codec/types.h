/*
 * What the codec decodes requests into and what the verbs work on: plain
 * structs, no JSON. Strings and arrays point into the request's arena (or
 * its body) and are valid until the arena is released.
 */
#ifndef SERVER_CODEC_TYPES_H
#define SERVER_CODEC_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scoring/fit.h"
#include "scoring/podreq.h"
#include "scoring/resources.h"
#include "server/codec/scan.h"

/* One pod label. */
struct codec_label {
    const char *key, *value;
};

struct codec_pod {
    const char *ns;        /* metadata.namespace, "" when absent */
    const char *name;      /* metadata.name, "" when absent */
    const char *uid;       /* metadata.uid, "" when absent */
    const char *node_name; /* spec.nodeName, "" when unassigned */
    const char *phase;     /* status.phase, "" when absent */
    /* metadata.labels in document order, duplicate keys included (a Go map
     * keeps the last: codec_pod_label() reads them so). A value that is not
     * a string is NULL. */
    const struct codec_label *labels;
    size_t n_labels;
    long long priority; /* spec.priority, 0 when absent (as kube-scheduler reads it) */
    bool daemonset;     /* metadata.ownerReferences names a DaemonSet (thresholdExempt) */
    /* What its containers and the pod ask for, as sent: whoever needs the
     * effective request computes it (score_pod_request()), decoding does
     * not score. */
    struct score_pod spec;
};

/* One candidate node. */
struct codec_node {
    const char *name;
    struct score_node res;
    int64_t pods;           /* status.allocatable.pods, -1 when absent or unusable */
    const char *invalid;    /* why the node's data is unusable (a fixed text), or NULL */
    struct codec_span json; /* the Node object as received (NodeList requests) */
};

/* A member of an object as received: the key with its quotes, the value. */
struct codec_member {
    struct codec_span key, value;
};

/* ExtenderArgs: the request of filter and prioritize. */
struct codec_args {
    struct codec_pod pod;
    bool node_names_mode; /* NodeNames was sent (nodeCacheCapable: true) */
    struct codec_node *nodes;
    size_t n_nodes;
    /* With a NodeList: its members other than "items", in order, for the
     * filter answer, which sends them back as they came. */
    struct codec_member *list_members;
    size_t n_list_members;
};

/* One candidate node of a preemption and the victims kube-scheduler chose
 * there, highest priority first. pods: what the victims sent as full pods
 * (NodeNameToVictims) ask for, NULL when they came as UIDs. */
struct codec_victims {
    const char *node;
    const char **uids;
    struct score_pod *pods;
    size_t n;
    long long num_pdb_violations;
};

/* ExtenderPreemptionArgs. meta_form: the victims came as UIDs
 * (NodeNameToMetaVictims, nodeCacheCapable: true). */
struct codec_preempt_args {
    struct codec_pod pod;
    bool meta_form;
    struct codec_victims *nodes; /* in the order of the request */
    size_t n_nodes;
};

/* ExtenderBindingArgs. */
struct codec_bind_args {
    const char *pod_name;
    const char *pod_namespace;
    const char *pod_uid; /* "" when absent */
    const char *node;
};

/* What the filter and prioritize answers say of one node. */
struct codec_node_answer {
    enum score_verdict verdict;
    const char *reason; /* "" when the node fits */
    int score;          /* 0..10 */
};

#endif

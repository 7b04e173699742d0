/*
 * The placement model: may this pod go to this node at all, and if not, which
 * kube-scheduler rule says no and with what text. One place for `rank`,
 * `simulate` and the service's explanations.
 *
 * kube-scheduler (v1.31, the shipped Deployment's version) runs its filters
 * per node in the configured order and stops at the first that fails
 * (framework runtime RunFilterPlugins; order from
 * pkg/scheduler/apis/config/v1/default_plugins.go). The rules modelled, in
 * that order:
 *
 *   PreFilter  NodeAffinity: required matchFields metadata.name In terms
 *              narrow the nodes looked at; the others are never filtered
 *   Filter     NodeUnschedulable, NodeName, TaintToleration, NodeAffinity,
 *              NodeResourcesFit (pod count, cpu, memory)
 *   extender   our filter (score_fit with the configured thresholds), which
 *              kube-scheduler calls only with the nodes that passed all the
 *              plugins (schedule_one.go findNodesThatPassExtenders)
 *
 * Not modelled (they need objects these structs do not carry): NodePorts,
 * volumes, PodTopologySpread, InterPodAffinity, extended resources,
 * ephemeral storage, the scheduler's own addedAffinity. A NotReady or
 * unreachable node is not special here: the node lifecycle controller taints
 * it (node.kubernetes.io/not-ready, node.kubernetes.io/unreachable, with
 * NoSchedule while the condition lasts and NoExecute), and the taints are
 * what the filter sees, as in kube-scheduler, which has no condition filter.
 *
 * Strings are borrowed, NUL-terminated and compared byte for byte, as Go
 * compares them. Everything here is pure, allocates nothing and is
 * thread-safe.
 */
#ifndef PLACEMENT_CONSTRAINTS_H
#define PLACEMENT_CONSTRAINTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scoring/fit.h"
#include "scoring/podreq.h"
#include "scoring/resources.h"

/* Well-known taint keys (k8s.io/api/core/v1 well_known_taints.go). */
#define PLACE_TAINT_UNSCHEDULABLE "node.kubernetes.io/unschedulable"
#define PLACE_TAINT_NOT_READY     "node.kubernetes.io/not-ready"
#define PLACE_TAINT_UNREACHABLE   "node.kubernetes.io/unreachable"

/* The field matchFields may name; the only one a node has (nodeaffinity.go
 * extractNodeFields). */
#define PLACE_FIELD_NODE_NAME "metadata.name"

/* Longest reason text written, with the NUL: a taint text carries a label
 * key (up to 317 bytes) and value (63). */
#define PLACE_REASON_LEN 512

/* A label of a node, or one nodeSelector entry of a pod. */
struct place_label {
    const char *key;
    const char *value;
};

enum place_taint_effect {
    PLACE_EFFECT_ALL = 0, /* tolerations only: an empty effect matches every effect */
    PLACE_EFFECT_NO_SCHEDULE,
    PLACE_EFFECT_PREFER_NO_SCHEDULE,
    PLACE_EFFECT_NO_EXECUTE,
};

/* One entry of the node's spec.taints (timeAdded plays no part). */
struct place_taint {
    const char *key;
    const char *value;              /* "" when absent */
    enum place_taint_effect effect; /* never PLACE_EFFECT_ALL */
};

enum place_toleration_op {
    PLACE_TOLERATION_EQUAL = 0, /* also the empty operator */
    PLACE_TOLERATION_EXISTS,
};

/*
 * One entry of the pod's spec.tolerations. tolerationSeconds is left out on
 * purpose: it only bounds how long a NoExecute taint lets the pod stay
 * (the taint manager's eviction), the filter ignores it (Toleration.
 * ToleratesTaint, k8s.io/api/core/v1/toleration.go). The defaults that the
 * DefaultTolerationSeconds admission plugin adds to every pod (not-ready and
 * unreachable, NoExecute, 300 s) are not added here: a pod read back from the
 * API already has them, a manifest does not, and they tolerate only the
 * NoExecute taints, never the NoSchedule not-ready taint.
 */
struct place_toleration {
    const char *key; /* "" matches every key (with Exists) */
    enum place_toleration_op op;
    const char *value;              /* "" when absent; ignored by Exists */
    enum place_taint_effect effect; /* PLACE_EFFECT_ALL when empty */
};

enum place_selector_op {
    PLACE_OP_IN = 0,
    PLACE_OP_NOT_IN,
    PLACE_OP_EXISTS,
    PLACE_OP_DOES_NOT_EXIST,
    PLACE_OP_GT,
    PLACE_OP_LT,
};

/*
 * One NodeSelectorRequirement. The checks labels.NewRequirement makes when it
 * parses one are made here too, and a requirement that fails them makes its
 * whole term match nothing, as a parse error does in kube-scheduler (the
 * error itself is ignored by the NodeAffinity filter): In and NotIn need at
 * least one value, Exists and DoesNotExist none, Gt and Lt exactly one that
 * strconv.ParseInt(v, 10, 64) accepts; a matchFields requirement must be In
 * or NotIn with exactly one value. Label key and value syntax is not checked
 * again (the API server validated it).
 */
struct place_requirement {
    const char *key;
    enum place_selector_op op;
    const char *const *values;
    size_t n_values;
};

/* One nodeSelectorTerm: its matchExpressions and matchFields, ANDed. A term
 * with neither matches no node. */
struct place_selector_term {
    const struct place_requirement *match_expressions;
    size_t n_match_expressions;
    const struct place_requirement *match_fields;
    size_t n_match_fields;
};

/* What the placement model needs of a pod. */
struct place_pod_constraints {
    const char *node_name; /* spec.nodeName; NULL or "" when unset */
    const struct place_label *node_selector;
    size_t n_node_selector;
    /* spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution:
     * has_required_affinity says it is present (then its terms are ORed, and
     * an empty list of terms matches no node). */
    bool has_required_affinity;
    const struct place_selector_term *affinity_terms;
    size_t n_affinity_terms;
    const struct place_toleration *tolerations;
    size_t n_tolerations;
};

/* What the placement model needs of a node, besides its struct score_node. */
struct place_node_facts {
    const char *name;
    const struct place_label *labels;
    size_t n_labels;
    const struct place_taint *taints;
    size_t n_taints;
    bool unschedulable; /* spec.unschedulable (cordoned) */
    int64_t max_pods;   /* status.allocatable.pods; a missing key is 0, as in kube-scheduler */
    int64_t pods;       /* pods bound to the node that are not terminal (Succeeded/Failed) */
    /* kube-scheduler's NodeInfo.Requested: the sum of the real effective
     * requests (score_pod_request().real) of those pods. NodeResourcesFit
     * checks against this, whatever used source our own filter has. */
    int64_t requested[SCORE_NRES];
};

/* The rule that rejected a node: the kube-scheduler plugin (or our extender)
 * that failed first. Usable as a metric label via place_rule_name(). */
enum place_rule {
    PLACE_RULE_NONE = 0,      /* passed everything */
    PLACE_RULE_PREFILTER,     /* NodeAffinity PreFilter */
    PLACE_RULE_UNSCHEDULABLE, /* NodeUnschedulable */
    PLACE_RULE_NODE_NAME,     /* NodeName */
    PLACE_RULE_TAINT,         /* TaintToleration */
    PLACE_RULE_NODE_AFFINITY, /* NodeAffinity Filter: nodeSelector and required affinity */
    PLACE_RULE_RESOURCES,     /* NodeResourcesFit: pod count, cpu, memory */
    PLACE_RULE_EXTENDER,      /* our filter: cpu, memory with thresholds */
    PLACE_RULE_COUNT,         /* keep last */
};

/*
 * One reason text of a rejection, as kube-scheduler words it (current
 * upstream; 1.20 wording in place_reason_text()). A node's rejection has one
 * reason, except NodeResourcesFit which lists each short resource. Texts, not
 * rules, are what the FitError message counts: NodeResourcesFit's and our
 * filter's "Insufficient cpu" are one key.
 */
enum place_reason {
    PLACE_REASON_AFFINITY_CONFLICT = 0, /* the pod's matchFields terms name no node at all */
    PLACE_REASON_PREFILTER_AFFINITY,    /* the node is outside the matchFields names */
    PLACE_REASON_UNSCHEDULABLE,
    PLACE_REASON_NODE_NAME,
    PLACE_REASON_TAINT, /* the text names the taint: see struct place_judgement */
    PLACE_REASON_NODE_AFFINITY,
    PLACE_REASON_TOO_MANY_PODS,
    PLACE_REASON_INSUFFICIENT_CPU,
    PLACE_REASON_INSUFFICIENT_MEMORY,
    PLACE_REASON_INSUFFICIENT_CPU_MEMORY, /* our filter short of both: one text naming both */
    PLACE_REASON_COUNT,                   /* keep last */
};

/* The outcome for one (pod, node) pair. */
struct place_judgement {
    enum place_rule rule;
    unsigned reasons;           /* bit (1u << enum place_reason) per reason; 0 when it passed */
    enum score_verdict verdict; /* SCORE_FITS, SCORE_UNFIT (preemption could help) or
                                 * SCORE_UNRESOLVABLE (UnschedulableAndUnresolvable) */
    const struct place_taint *taint; /* PLACE_RULE_TAINT: the first untolerated taint, in
                                      * the node's order (borrowed from the node); else NULL */
};

/* Parses "NoSchedule", "PreferNoSchedule", "NoExecute", and for a toleration
 * (@toleration true) also "" (all effects). Returns 0 or -EINVAL. */
int place_taint_effect_parse(const char *s, bool toleration, enum place_taint_effect *out);

/* Parses a toleration operator: "" or "Equal", "Exists". Returns 0 or -EINVAL
 * (kube-scheduler would let an unknown operator tolerate nothing; the API
 * server never lets one through). */
int place_toleration_op_parse(const char *s, enum place_toleration_op *out);

/* Parses In, NotIn, Exists, DoesNotExist, Gt, Lt. Returns 0 or -EINVAL. */
int place_selector_op_parse(const char *s, enum place_selector_op *out);

/* Returns the plugin name: "NodeAffinity" (PreFilter and Filter),
 * "NodeUnschedulable", "NodeName", "TaintToleration", "NodeResourcesFit",
 * "extender"; "" for PLACE_RULE_NONE. */
const char *place_rule_name(enum place_rule r);

/*
 * Writes the kube-scheduler text of reason @r into @buf (PLACE_REASON_LEN
 * bytes); @taint names the taint for PLACE_REASON_TAINT and is ignored
 * otherwise. Returns @buf.
 */
char *place_reason_text(enum place_reason r, const struct place_taint *taint,
                        char buf[PLACE_REASON_LEN]);

/* Writes every reason of @j joined with ", " in kube-scheduler's order
 * ("Too many pods, Insufficient cpu"), "" when it passed. Returns @buf. */
char *place_judgement_text(const struct place_judgement *j, char buf[PLACE_REASON_LEN]);

/* What NodeAffinity's PreFilter makes of the pod. */
enum place_prefilter {
    PLACE_PREFILTER_ALL_NODES = 0, /* no narrowing */
    PLACE_PREFILTER_NAMES,         /* only the nodes place_prefilter_admits() */
    PLACE_PREFILTER_CONFLICT,      /* no node at all: the pod fails before any filter */
};

/*
 * The pod's PreFilter outcome: when every required affinity term has a
 * matchFields metadata.name In requirement, the nodes considered are the
 * union over terms of the intersection of those requirements' values
 * (nodeaffinity node_affinity.go PreFilter); an empty union is a conflict.
 */
enum place_prefilter place_pod_prefilter(const struct place_pod_constraints *pod);

/* For PLACE_PREFILTER_NAMES: true when @name is in the pod's node set. */
bool place_prefilter_admits(const struct place_pod_constraints *pod, const char *name);

/*
 * Judges the rules that depend only on the pod's and the node's objects (the
 * PreFilter, NodeUnschedulable, NodeName, TaintToleration, NodeAffinity), in
 * kube-scheduler's order, into *@out. They are UnschedulableAndUnresolvable.
 */
void place_judge_static(const struct place_pod_constraints *pod,
                        const struct place_node_facts *node, struct place_judgement *out);

/*
 * Judges the resource rules into *@out: NodeResourcesFit on @node's pod
 * count and requested against @res->alloc (a pod more than max_pods is
 * "Too many pods"; cpu and memory through score_fit() at 100 %), then,
 * only if that passed, our filter: score_fit() with
 * @threshold_percent on @res (our used view). @req is the pod's request
 * (its real part is checked, as both filters do).
 */
void place_judge_resources(const struct score_pod_request *req, const struct place_node_facts *node,
                           const struct score_node *res, const int threshold_percent[SCORE_NRES],
                           struct place_judgement *out);

/* One line of the FitError histogram: how many nodes gave one reason text. */
struct place_reason_count {
    enum place_reason reason;
    const struct place_taint *taint; /* PLACE_REASON_TAINT: names the text; else NULL */
    size_t count;
    /* When not NULL, the line's text instead of @reason's: a reason of our
     * own filter outside the model's (a node with unusable data, stale used
     * data), which kube-scheduler counts by its text like any other. */
    const char *text;
};

/*
 * Writes the message kube-scheduler's FitError gives for a pod no node took
 * (framework/types.go FitError.Error), into @buf of @len bytes (truncated,
 * always terminated): "0/N nodes are available: " then the "<count> <text>"
 * of each entry sorted as strings (as sort.Strings does: "10 x" sorts before
 * "2 y"), joined with ", ", and "."; when the entries hold the PreFilter
 * failure PLACE_REASON_AFFINITY_CONFLICT, only its text. Entries with the
 * same text (two PLACE_REASON_TAINT entries naming equal taints) must have
 * been merged by the caller. The preemption part kube-scheduler appends is
 * not written. Returns the length the full message has (snprintf style).
 */
size_t place_fit_error(size_t n_nodes, const struct place_reason_count *entries, size_t n,
                       char *buf, size_t len);

#endif

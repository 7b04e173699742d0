#include "placement/constraints.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* The sources followed, in the kubernetes/kubernetes tree (current upstream;
 * the 1.20.2 tree where it differs is named at the text):
 *   pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go
 *   pkg/scheduler/framework/plugins/nodename/node_name.go
 *   pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go
 *   pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go (PreFilter, Filter)
 *   pkg/scheduler/framework/plugins/noderesources/fit.go (fitsRequest)
 *   pkg/scheduler/schedule_one.go (findNodesThatFitPod, findNodesThatPassExtenders)
 *   pkg/scheduler/framework/types.go (FitError.Error)
 *   staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go
 *   staging/src/k8s.io/component-helpers/scheduling/corev1/helpers.go
 *     (FindMatchingUntoleratedTaint; pkg/apis/core/v1/helper in 1.20)
 *   staging/src/k8s.io/api/core/v1/toleration.go (ToleratesTaint)
 *   staging/src/k8s.io/apimachinery/pkg/labels/selector.go (NewRequirement, Matches)
 *   staging/src/k8s.io/apimachinery/pkg/fields/selector.go (OneTerm(Not)EqualSelector) */

int place_taint_effect_parse(const char *s, bool toleration, enum place_taint_effect *out)
{
    if (strcmp(s, "NoSchedule") == 0)
        *out = PLACE_EFFECT_NO_SCHEDULE;
    else if (strcmp(s, "PreferNoSchedule") == 0)
        *out = PLACE_EFFECT_PREFER_NO_SCHEDULE;
    else if (strcmp(s, "NoExecute") == 0)
        *out = PLACE_EFFECT_NO_EXECUTE;
    else if (toleration && s[0] == '\0')
        *out = PLACE_EFFECT_ALL;
    else
        return -EINVAL;
    return 0;
}

int place_toleration_op_parse(const char *s, enum place_toleration_op *out)
{
    if (s[0] == '\0' || strcmp(s, "Equal") == 0)
        *out = PLACE_TOLERATION_EQUAL;
    else if (strcmp(s, "Exists") == 0)
        *out = PLACE_TOLERATION_EXISTS;
    else
        return -EINVAL;
    return 0;
}

static const char *const op_names[] = {
    [PLACE_OP_IN] = "In",         [PLACE_OP_NOT_IN] = "NotIn",
    [PLACE_OP_EXISTS] = "Exists", [PLACE_OP_DOES_NOT_EXIST] = "DoesNotExist",
    [PLACE_OP_GT] = "Gt",         [PLACE_OP_LT] = "Lt",
};

int place_selector_op_parse(const char *s, enum place_selector_op *out)
{
    for (size_t i = 0; i < sizeof(op_names) / sizeof(op_names[0]); i++) {
        if (strcmp(s, op_names[i]) == 0) {
            *out = (enum place_selector_op)i;
            return 0;
        }
    }
    return -EINVAL;
}

static const char *const rule_names[] = {
    [PLACE_RULE_NONE] = "",
    [PLACE_RULE_PREFILTER] = "NodeAffinity",
    [PLACE_RULE_UNSCHEDULABLE] = "NodeUnschedulable",
    [PLACE_RULE_NODE_NAME] = "NodeName",
    [PLACE_RULE_TAINT] = "TaintToleration",
    [PLACE_RULE_NODE_AFFINITY] = "NodeAffinity",
    [PLACE_RULE_RESOURCES] = "NodeResourcesFit",
    [PLACE_RULE_EXTENDER] = "extender",
};

const char *place_rule_name(enum place_rule r)
{
    return r < PLACE_RULE_COUNT ? rule_names[r] : "";
}

/* The fixed texts. Where kube-scheduler 1.20 worded one differently, its
 * text follows in the comment. */
static const char *const reason_texts[] = {
    /* node_affinity.go errReasonConflict; 1.20 had no PreFilter narrowing:
     * every node failed the Filter with "node(s) didn't match Pod's node
     * affinity". */
    [PLACE_REASON_AFFINITY_CONFLICT] = "pod affinity terms conflict",
    /* schedule_one.go findNodesThatFitPod: the status of the nodes a
     * PreFilterResult left out, naming the plugins that narrowed. */
    [PLACE_REASON_PREFILTER_AFFINITY] = "node(s) didn't satisfy plugin(s) [NodeAffinity]",
    /* node_unschedulable.go ErrReasonUnschedulable (same in 1.20). */
    [PLACE_REASON_UNSCHEDULABLE] = "node(s) were unschedulable",
    /* node_name.go ErrReason; 1.20: "node(s) didn't match the requested hostname". */
    [PLACE_REASON_NODE_NAME] = "node(s) didn't match the requested node name",
    [PLACE_REASON_TAINT] = NULL, /* formatted: see place_reason_text() */
    /* node_affinity.go ErrReasonPod; 1.20: "node(s) didn't match Pod's node affinity". */
    [PLACE_REASON_NODE_AFFINITY] = "node(s) didn't match Pod's node affinity/selector",
    /* noderesources/fit.go fitsRequest (same in 1.20). */
    [PLACE_REASON_TOO_MANY_PODS] = "Too many pods",
    [PLACE_REASON_INSUFFICIENT_CPU] = "Insufficient cpu",
    [PLACE_REASON_INSUFFICIENT_MEMORY] = "Insufficient memory",
    /* Our filter's one reason when both are short (score_fit); the extender's
     * message becomes a single reason (findNodesThatPassExtenders). */
    [PLACE_REASON_INSUFFICIENT_CPU_MEMORY] = "Insufficient cpu, Insufficient memory",
};

char *place_reason_text(enum place_reason r, const struct place_taint *taint,
                        char buf[PLACE_REASON_LEN])
{
    if (r == PLACE_REASON_TAINT) {
        /* taint_toleration.go Filter; 1.20:
         * "node(s) had taint {%s: %s}, that the pod didn't tolerate". */
        snprintf(buf, PLACE_REASON_LEN, "node(s) had untolerated taint {%s: %s}",
                 taint != NULL ? taint->key : "", taint != NULL ? taint->value : "");
    } else {
        snprintf(buf, PLACE_REASON_LEN, "%s", r < PLACE_REASON_COUNT ? reason_texts[r] : "");
    }
    return buf;
}

char *place_judgement_text(const struct place_judgement *j, char buf[PLACE_REASON_LEN])
{
    char one[PLACE_REASON_LEN];
    size_t off = 0;

    buf[0] = '\0';
    for (int r = 0; r < PLACE_REASON_COUNT; r++) {
        if (!(j->reasons & (1u << r)))
            continue;
        int n = snprintf(buf + off, PLACE_REASON_LEN - off, "%s%s", off ? ", " : "",
                         place_reason_text((enum place_reason)r, j->taint, one));
        if (n < 0 || (size_t)n >= PLACE_REASON_LEN - off)
            break;
        off += (size_t)n;
    }
    return buf;
}

/* strconv.ParseInt(s, 10, 64): an optional sign, then one or more decimal
 * digits, nothing else (no spaces, no underscores with an explicit base),
 * within int64. */
static bool parse_int64(const char *s, int64_t *out)
{
    bool neg = false;
    uint64_t v = 0;

    if (*s == '+' || *s == '-')
        neg = *s++ == '-';
    if (*s == '\0')
        return false;
    const uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; *s != '\0'; s++) {
        if (*s < '0' || *s > '9')
            return false;
        unsigned d = (unsigned)(*s - '0');
        if (v > (limit - d) / 10)
            return false;
        v = v * 10 + d;
    }
    if (!neg)
        *out = (int64_t)v;
    else
        *out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
    return true;
}

static const char *label_value(const struct place_node_facts *node, const char *key)
{
    for (size_t i = 0; i < node->n_labels; i++)
        if (strcmp(node->labels[i].key, key) == 0)
            return node->labels[i].value;
    return NULL;
}

static bool has_value(const struct place_requirement *r, const char *v)
{
    for (size_t i = 0; i < r->n_values; i++)
        if (strcmp(r->values[i], v) == 0)
            return true;
    return false;
}

/* What labels.NewRequirement accepts (nodeSelectorRequirementsAsSelector). */
static bool expression_valid(const struct place_requirement *r)
{
    int64_t unused;
    switch (r->op) {
    case PLACE_OP_IN:
    case PLACE_OP_NOT_IN:
        return r->n_values > 0;
    case PLACE_OP_EXISTS:
    case PLACE_OP_DOES_NOT_EXIST:
        return r->n_values == 0;
    case PLACE_OP_GT:
    case PLACE_OP_LT:
        return r->n_values == 1 && parse_int64(r->values[0], &unused);
    }
    return false;
}

/* labels.Requirement.Matches. */
static bool expression_matches(const struct place_requirement *r,
                               const struct place_node_facts *node)
{
    const char *v = label_value(node, r->key);
    int64_t have, want;

    switch (r->op) {
    case PLACE_OP_IN:
        return v != NULL && has_value(r, v);
    case PLACE_OP_NOT_IN:
        return v == NULL || !has_value(r, v);
    case PLACE_OP_EXISTS:
        return v != NULL;
    case PLACE_OP_DOES_NOT_EXIST:
        return v == NULL;
    case PLACE_OP_GT:
    case PLACE_OP_LT:
        /* A label that is not an integer matches neither. */
        if (v == NULL || !parse_int64(v, &have) || !parse_int64(r->values[0], &want))
            return false;
        return r->op == PLACE_OP_GT ? have > want : have < want;
    }
    return false;
}

/* nodeSelectorRequirementsAsFieldSelector: In or NotIn, one value. */
static bool field_valid(const struct place_requirement *r)
{
    return (r->op == PLACE_OP_IN || r->op == PLACE_OP_NOT_IN) && r->n_values == 1;
}

/* fields.OneTermEqualSelector / OneTermNotEqualSelector against the node's
 * fields, which hold only metadata.name: any other key reads as "". */
static bool field_matches(const struct place_requirement *r, const struct place_node_facts *node)
{
    const char *have = strcmp(r->key, PLACE_FIELD_NODE_NAME) == 0 ? node->name : "";
    bool equal = strcmp(have, r->values[0]) == 0;
    return r->op == PLACE_OP_IN ? equal : !equal;
}

/* nodeSelectorTerm.match, after NewLazyErrorNodeSelector dropped the empty
 * terms: a requirement that does not parse fails the term (whatever the
 * others match: the checks are pure, so one pass asks both). */
static bool term_matches(const struct place_selector_term *t, const struct place_node_facts *node)
{
    if (t->n_match_expressions == 0 && t->n_match_fields == 0)
        return false;
    for (size_t i = 0; i < t->n_match_expressions; i++)
        if (!expression_valid(&t->match_expressions[i]) ||
            !expression_matches(&t->match_expressions[i], node))
            return false;
    /* The fields are matched only when the node has any: a name. */
    for (size_t i = 0; i < t->n_match_fields; i++)
        if (!field_valid(&t->match_fields[i]) ||
            (node->name[0] != '\0' && !field_matches(&t->match_fields[i], node)))
            return false;
    return true;
}

/* The label rules alone (nodeaffinity RequiredNodeAffinity.Match): true when
 * @node matches the pod's nodeSelector and its required node affinity. */
static bool matches_node_affinity(const struct place_pod_constraints *pod,
                                  const struct place_node_facts *node)
{
    /* labels.SelectorFromSet: each key present with exactly that value. */
    for (size_t i = 0; i < pod->n_node_selector; i++) {
        const char *v = label_value(node, pod->node_selector[i].key);
        if (v == NULL || strcmp(v, pod->node_selector[i].value) != 0)
            return false;
    }
    if (!pod->has_required_affinity)
        return true;
    for (size_t i = 0; i < pod->n_affinity_terms; i++)
        if (term_matches(&pod->affinity_terms[i], node))
            return true;
    return false;
}

static bool toleration_tolerates(const struct place_toleration *t, const struct place_taint *taint)
{
    if (t->effect != PLACE_EFFECT_ALL && t->effect != taint->effect)
        return false;
    if (t->key[0] != '\0' && strcmp(t->key, taint->key) != 0)
        return false;
    /* An empty key with Equal is not rejected here (validation forbids it):
     * it tolerates every taint with that value, as ToleratesTaint does. */
    if (t->op == PLACE_TOLERATION_EXISTS)
        return true;
    return strcmp(t->value, taint->value) == 0;
}

/* True when @tolerations tolerate @taint (Toleration.ToleratesTaint). */
static bool tolerates(const struct place_toleration *tolerations, size_t n,
                      const struct place_taint *taint)
{
    for (size_t i = 0; i < n; i++)
        if (toleration_tolerates(&tolerations[i], taint))
            return true;
    return false;
}

static bool is_name_in(const struct place_requirement *r)
{
    return r->op == PLACE_OP_IN && strcmp(r->key, PLACE_FIELD_NODE_NAME) == 0;
}

/* True when @name is in every metadata.name In requirement of @t; false when
 * @t has none (then the term does not narrow). */
static bool term_names(const struct place_selector_term *t, const char *name)
{
    bool any = false;
    for (size_t i = 0; i < t->n_match_fields; i++) {
        if (!is_name_in(&t->match_fields[i]))
            continue;
        if (!has_value(&t->match_fields[i], name))
            return false;
        any = true;
    }
    return any;
}

enum place_prefilter place_pod_prefilter(const struct place_pod_constraints *pod)
{
    bool empty = true;

    if (!pod->has_required_affinity || pod->n_affinity_terms == 0)
        return PLACE_PREFILTER_ALL_NODES;
    for (size_t i = 0; i < pod->n_affinity_terms; i++) {
        const struct place_selector_term *t = &pod->affinity_terms[i];
        size_t f = 0; /* the first metadata.name In requirement */
        while (f < t->n_match_fields && !is_name_in(&t->match_fields[f]))
            f++;
        /* A term without a name requirement admits every node, since the
         * terms are ORed (even an empty term, which the Filter then skips). */
        if (f == t->n_match_fields)
            return PLACE_PREFILTER_ALL_NODES;
        const struct place_requirement *first = &t->match_fields[f];
        for (size_t v = 0; v < first->n_values && empty; v++)
            if (term_names(t, first->values[v]))
                empty = false;
    }
    return empty ? PLACE_PREFILTER_CONFLICT : PLACE_PREFILTER_NAMES;
}

bool place_prefilter_admits(const struct place_pod_constraints *pod, const char *name)
{
    for (size_t i = 0; i < pod->n_affinity_terms; i++)
        if (term_names(&pod->affinity_terms[i], name))
            return true;
    return false;
}

static void reject(struct place_judgement *out, enum place_rule rule, enum place_reason reason)
{
    out->rule = rule;
    out->reasons = 1u << reason;
    out->verdict = SCORE_UNRESOLVABLE;
}

void place_judge_static(const struct place_pod_constraints *pod,
                        const struct place_node_facts *node, struct place_judgement *out)
{
    *out = (struct place_judgement){.verdict = SCORE_FITS};

    enum place_prefilter pf = place_pod_prefilter(pod);
    if (pf == PLACE_PREFILTER_CONFLICT) {
        reject(out, PLACE_RULE_PREFILTER, PLACE_REASON_AFFINITY_CONFLICT);
        return;
    }
    if (pf == PLACE_PREFILTER_NAMES && !place_prefilter_admits(pod, node->name)) {
        reject(out, PLACE_RULE_PREFILTER, PLACE_REASON_PREFILTER_AFFINITY);
        return;
    }
    /* A pod that tolerates the unschedulable taint (key
     * node.kubernetes.io/unschedulable, effect NoSchedule, no value) also
     * tolerates spec.unschedulable: DaemonSet pods get that toleration. */
    static const struct place_taint cordon = {
        .key = PLACE_TAINT_UNSCHEDULABLE,
        .value = "",
        .effect = PLACE_EFFECT_NO_SCHEDULE,
    };
    if (node->unschedulable && !tolerates(pod->tolerations, pod->n_tolerations, &cordon)) {
        reject(out, PLACE_RULE_UNSCHEDULABLE, PLACE_REASON_UNSCHEDULABLE);
        return;
    }
    if (pod->node_name != NULL && pod->node_name[0] != '\0' &&
        strcmp(pod->node_name, node->name) != 0) {
        reject(out, PLACE_RULE_NODE_NAME, PLACE_REASON_NODE_NAME);
        return;
    }
    /* Only NoSchedule and NoExecute taints filter; PreferNoSchedule only
     * scores. The first untolerated one in the node's order is named. */
    for (size_t i = 0; i < node->n_taints; i++) {
        const struct place_taint *t = &node->taints[i];
        if (t->effect != PLACE_EFFECT_NO_SCHEDULE && t->effect != PLACE_EFFECT_NO_EXECUTE)
            continue;
        if (!tolerates(pod->tolerations, pod->n_tolerations, t)) {
            reject(out, PLACE_RULE_TAINT, PLACE_REASON_TAINT);
            out->taint = t;
            return;
        }
    }
    if (!matches_node_affinity(pod, node))
        reject(out, PLACE_RULE_NODE_AFFINITY, PLACE_REASON_NODE_AFFINITY);
}

void place_judge_resources(const struct score_pod_request *req, const struct place_node_facts *node,
                           const struct score_node *res, const int threshold_percent[SCORE_NRES],
                           struct place_judgement *out)
{
    static const int whole[SCORE_NRES] = {100, 100};
    struct score_node k8s = {0};

    *out = (struct place_judgement){.verdict = SCORE_FITS};

    /* NodeResourcesFit: len(pods) + 1 > allowedPodNumber, then cpu and
     * memory as request > allocatable - requested: score_fit at 100 %. */
    memcpy(k8s.alloc, res->alloc, sizeof(k8s.alloc));
    memcpy(k8s.used, node->requested, sizeof(k8s.used));
    if (node->pods >= node->max_pods) {
        out->reasons |= 1u << PLACE_REASON_TOO_MANY_PODS;
        out->verdict = SCORE_UNFIT;
    }
    struct score_fit f = score_fit(whole, &k8s, req->fit);
    if (f.short_of & (1u << SCORE_CPU))
        out->reasons |= 1u << PLACE_REASON_INSUFFICIENT_CPU;
    if (f.short_of & (1u << SCORE_MEMORY))
        out->reasons |= 1u << PLACE_REASON_INSUFFICIENT_MEMORY;
    if (f.verdict != SCORE_FITS)
        out->verdict = f.verdict;
    if (out->reasons != 0) {
        out->rule = PLACE_RULE_RESOURCES;
        return;
    }

    /* Our filter sees only what passed the plugins. */
    f = score_fit(threshold_percent, res, req->fit);
    if (f.short_of == 0)
        return;
    out->rule = PLACE_RULE_EXTENDER;
    out->verdict = f.verdict;
    if (f.short_of == ((1u << SCORE_CPU) | (1u << SCORE_MEMORY)))
        out->reasons = 1u << PLACE_REASON_INSUFFICIENT_CPU_MEMORY;
    else if (f.short_of & (1u << SCORE_CPU))
        out->reasons = 1u << PLACE_REASON_INSUFFICIENT_CPU;
    else
        out->reasons = 1u << PLACE_REASON_INSUFFICIENT_MEMORY;
}

/* "<count> <text>" of one histogram entry. */
static void entry_line(const struct place_reason_count *e, char buf[PLACE_REASON_LEN + 24])
{
    char text[PLACE_REASON_LEN];
    snprintf(buf, PLACE_REASON_LEN + 24, "%zu %s", e->count,
             e->text != NULL ? e->text : place_reason_text(e->reason, e->taint, text));
}

/* Appends @s to @buf at *@off (snprintf-style: *@off counts past @len). */
static void put(char *buf, size_t len, size_t *off, const char *s)
{
    size_t n = strlen(s);
    if (*off < len) {
        size_t room = len - *off - 1;
        memcpy(buf + *off, s, n < room ? n : room);
        buf[*off + (n < room ? n : room)] = '\0';
    }
    *off += n;
}

size_t place_fit_error(size_t n_nodes, const struct place_reason_count *entries, size_t n,
                       char *buf, size_t len)
{
    char head[64], last[PLACE_REASON_LEN + 24], cand[PLACE_REASON_LEN + 24],
        best[PLACE_REASON_LEN + 24];
    size_t off = 0;

    snprintf(head, sizeof(head), "0/%zu nodes are available:", n_nodes);
    put(buf, len, &off, head); /* terminates @buf, whatever follows */
    for (size_t i = 0; i < n; i++) {
        if (entries[i].reason == PLACE_REASON_AFFINITY_CONFLICT && entries[i].text == NULL) {
            /* A PreFilter failure: its message alone, the nodes not listed. */
            put(buf, len, &off, " ");
            put(buf, len, &off, reason_texts[PLACE_REASON_AFFINITY_CONFLICT]);
            put(buf, len, &off, ".");
            return off;
        }
    }
    /* sort.Strings over the lines, without allocating: emit the smallest
     * line greater than the last emitted, n times (lines are distinct). */
    last[0] = '\0';
    size_t emitted = 0;
    for (size_t round = 0; round < n; round++) {
        bool found = false;
        for (size_t i = 0; i < n; i++) {
            if (entries[i].count == 0)
                continue;
            entry_line(&entries[i], cand);
            if (emitted > 0 && strcmp(cand, last) <= 0)
                continue;
            if (!found || strcmp(cand, best) < 0) {
                memcpy(best, cand, sizeof(best));
                found = true;
            }
        }
        if (!found)
            break;
        put(buf, len, &off, emitted == 0 ? " " : ", ");
        put(buf, len, &off, best);
        memcpy(last, best, sizeof(last));
        emitted++;
    }
    if (emitted > 0)
        put(buf, len, &off, ".");
    return off;
}

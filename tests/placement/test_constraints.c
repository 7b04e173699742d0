/*
 * placement/constraints.c: the placement model, rule by rule, on the examples
 * of the Kubernetes documentation (concepts/scheduling-eviction/
 * taint-and-toleration and assign-pod-node, the DaemonSet page's
 * matchFields), and kube-scheduler's order and texts.
 */
#include "placement/constraints.h"

#include <errno.h>
#include <string.h>

#include "tests/suites.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const int full[SCORE_NRES] = {100, 100};

/* A node named @name with @labels and @taints; resources generous. */
static struct place_node_facts node(const char *name, const struct place_label *labels,
                                    size_t n_labels, const struct place_taint *taints,
                                    size_t n_taints)
{
    struct place_node_facts f = {
        .name = name,
        .labels = labels,
        .n_labels = n_labels,
        .taints = taints,
        .n_taints = n_taints,
        .max_pods = 110,
    };
    return f;
}

static struct place_pod_constraints tolerating(const struct place_toleration *t, size_t n)
{
    struct place_pod_constraints c = {.tolerations = t, .n_tolerations = n};
    return c;
}

static struct place_judgement judge_static(const struct place_pod_constraints *pod,
                                           const struct place_node_facts *n)
{
    struct place_judgement j;
    place_judge_static(pod, n, &j);
    return j;
}

/* Whether @n matches the pod's nodeSelector and required node affinity:
 * the nodes these tests give it have no taints, no cordon and no other
 * name to fail on first. */
static bool affine(const struct place_pod_constraints *pod, const struct place_node_facts *n)
{
    return judge_static(pod, n).rule == PLACE_RULE_NONE;
}

static const char *text(const struct place_judgement *j)
{
    static char buf[PLACE_REASON_LEN];
    return place_judgement_text(j, buf);
}

/* ---- taints and tolerations ---------------------------------------------- */

/* kubectl taint nodes node1 key1=value1:NoSchedule */
static const struct place_taint key1_no_schedule[] = {{"key1", "value1", PLACE_EFFECT_NO_SCHEDULE}};

START_TEST(taint_equal_toleration_tolerates)
{
    /* The page's first toleration: key1 Equal value1 NoSchedule. */
    const struct place_toleration t[] = {
        {"key1", PLACE_TOLERATION_EQUAL, "value1", PLACE_EFFECT_NO_SCHEDULE}};
    struct place_pod_constraints pod = tolerating(t, N(t));
    struct place_node_facts n = node("node1", NULL, 0, key1_no_schedule, 1);
    struct place_judgement j = judge_static(&pod, &n);
    ck_assert_int_eq(j.rule, PLACE_RULE_NONE);
    ck_assert_uint_eq(j.reasons, 0);
    ck_assert_int_eq(j.verdict, SCORE_FITS);
}
END_TEST

START_TEST(taint_exists_toleration_tolerates)
{
    /* The second: key1 Exists NoSchedule (no value). */
    const struct place_toleration t[] = {
        {"key1", PLACE_TOLERATION_EXISTS, "", PLACE_EFFECT_NO_SCHEDULE}};
    struct place_pod_constraints pod = tolerating(t, N(t));
    struct place_node_facts n = node("node1", NULL, 0, key1_no_schedule, 1);
    ck_assert_int_eq(judge_static(&pod, &n).rule, PLACE_RULE_NONE);
}
END_TEST

START_TEST(taint_without_toleration_names_the_taint)
{
    struct place_pod_constraints pod = {0};
    struct place_node_facts n = node("node1", NULL, 0, key1_no_schedule, 1);
    struct place_judgement j = judge_static(&pod, &n);
    ck_assert_int_eq(j.rule, PLACE_RULE_TAINT);
    ck_assert_uint_eq(j.reasons, 1u << PLACE_REASON_TAINT);
    ck_assert_int_eq(j.verdict, SCORE_UNRESOLVABLE);
    ck_assert_ptr_eq(j.taint, &key1_no_schedule[0]);
    ck_assert_str_eq(text(&j), "node(s) had untolerated taint {key1: value1}");
    ck_assert_str_eq(place_rule_name(j.rule), "TaintToleration");
}
END_TEST

START_TEST(taint_equal_with_other_value_is_untolerated)
{
    const struct place_toleration t[] = {
        {"key1", PLACE_TOLERATION_EQUAL, "value2", PLACE_EFFECT_NO_SCHEDULE}};
    struct place_pod_constraints pod = tolerating(t, N(t));
    struct place_node_facts n = node("node1", NULL, 0, key1_no_schedule, 1);
    ck_assert_int_eq(judge_static(&pod, &n).rule, PLACE_RULE_TAINT);
}
END_TEST

START_TEST(taint_third_of_three_untolerated_is_named)
{
    /* The page's example: taints key1=value1:NoSchedule, key1=value1:NoExecute,
     * key2=value2:NoSchedule; the pod tolerates the first two only, so it
     * "will not be able to schedule onto the node": the third is named. */
    const struct place_taint taints[] = {
        {"key1", "value1", PLACE_EFFECT_NO_SCHEDULE},
        {"key1", "value1", PLACE_EFFECT_NO_EXECUTE},
        {"key2", "value2", PLACE_EFFECT_NO_SCHEDULE},
    };
    const struct place_toleration t[] = {
        {"key1", PLACE_TOLERATION_EQUAL, "value1", PLACE_EFFECT_NO_SCHEDULE},
        {"key1", PLACE_TOLERATION_EQUAL, "value1", PLACE_EFFECT_NO_EXECUTE},
    };
    struct place_pod_constraints pod = tolerating(t, N(t));
    struct place_node_facts n = node("node1", NULL, 0, taints, N(taints));
    struct place_judgement j = judge_static(&pod, &n);
    ck_assert_int_eq(j.rule, PLACE_RULE_TAINT);
    ck_assert_ptr_eq(j.taint, &taints[2]);
    ck_assert_str_eq(text(&j), "node(s) had untolerated taint {key2: value2}");
}
END_TEST

START_TEST(taint_first_untolerated_in_node_order_is_named)
{
    /* Neither is tolerated: FindMatchingUntoleratedTaint returns the first. */
    const struct place_taint taints[] = {
        {"b", "2", PLACE_EFFECT_NO_EXECUTE},
        {"a", "1", PLACE_EFFECT_NO_SCHEDULE},
    };
    struct place_pod_constraints pod = {0};
    struct place_node_facts n = node("node1", NULL, 0, taints, N(taints));
    ck_assert_ptr_eq(judge_static(&pod, &n).taint, &taints[0]);
}
END_TEST

START_TEST(toleration_empty_key_exists_tolerates_everything)
{
    /* "An empty key with operator Exists matches all keys, values and
     * effects which means this will tolerate everything." */
    const struct place_taint taints[] = {
        {"key1", "value1", PLACE_EFFECT_NO_SCHEDULE},
        {"key2", "", PLACE_EFFECT_NO_EXECUTE},
        {PLACE_TAINT_NOT_READY, "", PLACE_EFFECT_NO_SCHEDULE},
    };
    const struct place_toleration t[] = {{"", PLACE_TOLERATION_EXISTS, "", PLACE_EFFECT_ALL}};
    struct place_pod_constraints pod = tolerating(t, N(t));
    struct place_node_facts n = node("node1", NULL, 0, taints, N(taints));
    ck_assert_int_eq(judge_static(&pod, &n).rule, PLACE_RULE_NONE);
}
END_TEST

START_TEST(toleration_empty_effect_matches_every_effect_of_key)
{
    /* "An empty effect matches all effects with key key1." */
    const struct place_taint taints[] = {
        {"key1", "value1", PLACE_EFFECT_NO_SCHEDULE},
        {"key1", "value1", PLACE_EFFECT_NO_EXECUTE},
    };
    const struct place_toleration t[] = {{"key1", PLACE_TOLERATION_EXISTS, "", PLACE_EFFECT_ALL}};
    struct place_pod_constraints pod = tolerating(t, N(t));
    struct place_node_facts n = node("node1", NULL, 0, taints, N(taints));
    ck_assert_int_eq(judge_static(&pod, &n).rule, PLACE_RULE_NONE);
    /* ... but not another key. */
    const struct place_taint other[] = {{"key2", "value1", PLACE_EFFECT_NO_SCHEDULE}};
    n = node("node1", NULL, 0, other, 1);
    ck_assert_int_eq(judge_static(&pod, &n).rule, PLACE_RULE_TAINT);
}
END_TEST

START_TEST(toleration_other_effect_does_not_tolerate)
{
    const struct place_taint taints[] = {{"key1", "value1", PLACE_EFFECT_NO_EXECUTE}};
    const struct place_toleration t[] = {
        {"key1", PLACE_TOLERATION_EQUAL, "value1", PLACE_EFFECT_NO_SCHEDULE}};
    struct place_pod_constraints pod = tolerating(t, N(t));
    struct place_node_facts n = node("node1", NULL, 0, taints, N(taints));
    ck_assert_int_eq(judge_static(&pod, &n).rule, PLACE_RULE_TAINT);
}
END_TEST

START_TEST(toleration_empty_key_equal_matches_value_of_any_key)
{
    /* Validation forbids it, ToleratesTaint does not: key "" skips the key
     * check, Equal compares the values. */
    const struct place_taint taints[] = {{"anything", "v", PLACE_EFFECT_NO_SCHEDULE}};
    const struct place_toleration same[] = {{"", PLACE_TOLERATION_EQUAL, "v", PLACE_EFFECT_ALL}};
    const struct place_toleration other[] = {{"", PLACE_TOLERATION_EQUAL, "w", PLACE_EFFECT_ALL}};
    struct place_node_facts n = node("node1", NULL, 0, taints, N(taints));
    struct place_pod_constraints pod = tolerating(same, 1);
    ck_assert_int_eq(judge_static(&pod, &n).rule, PLACE_RULE_NONE);
    pod = tolerating(other, 1);
    ck_assert_int_eq(judge_static(&pod, &n).rule, PLACE_RULE_TAINT);
}
END_TEST

START_TEST(taint_prefer_no_schedule_does_not_filter)
{
    /* "PreferNoSchedule is a preference or soft version of NoSchedule". */
    const struct place_taint taints[] = {{"key1", "value1", PLACE_EFFECT_PREFER_NO_SCHEDULE}};
    struct place_pod_constraints pod = {0};
    struct place_node_facts n = node("node1", NULL, 0, taints, N(taints));
    ck_assert_int_eq(judge_static(&pod, &n).rule, PLACE_RULE_NONE);
}
END_TEST

START_TEST(taint_no_execute_toleration_with_seconds_tolerates)
{
    /* The page's key1=value1:NoExecute toleration with tolerationSeconds
     * 3600: the seconds bound the stay, scheduling is allowed. */
    const struct place_taint taints[] = {{"key1", "value1", PLACE_EFFECT_NO_EXECUTE}};
    const struct place_toleration t[] = {
        {"key1", PLACE_TOLERATION_EQUAL, "value1", PLACE_EFFECT_NO_EXECUTE}};
    struct place_pod_constraints pod = tolerating(t, N(t));
    struct place_node_facts n = node("node1", NULL, 0, taints, N(taints));
    ck_assert_int_eq(judge_static(&pod, &n).rule, PLACE_RULE_NONE);
}
END_TEST

/* The tolerations DefaultTolerationSeconds adds to every pod. */
static const struct place_toleration defaults[] = {
    {PLACE_TAINT_NOT_READY, PLACE_TOLERATION_EXISTS, "", PLACE_EFFECT_NO_EXECUTE},
    {PLACE_TAINT_UNREACHABLE, PLACE_TOLERATION_EXISTS, "", PLACE_EFFECT_NO_EXECUTE},
};

START_TEST(node_not_ready_rejects_pod_with_default_tolerations)
{
    /* A NotReady node carries not-ready:NoSchedule (while the condition
     * lasts) and not-ready:NoExecute; the default tolerations cover only the
     * NoExecute one, so the NoSchedule taint is named. */
    const struct place_taint taints[] = {
        {PLACE_TAINT_NOT_READY, "", PLACE_EFFECT_NO_EXECUTE},
        {PLACE_TAINT_NOT_READY, "", PLACE_EFFECT_NO_SCHEDULE},
    };
    struct place_pod_constraints pod = tolerating(defaults, N(defaults));
    struct place_node_facts n = node("node1", NULL, 0, taints, N(taints));
    struct place_judgement j = judge_static(&pod, &n);
    ck_assert_int_eq(j.rule, PLACE_RULE_TAINT);
    ck_assert_ptr_eq(j.taint, &taints[1]);
    ck_assert_str_eq(text(&j), "node(s) had untolerated taint {node.kubernetes.io/not-ready: }");
}
END_TEST

START_TEST(node_unreachable_no_execute_only_is_tolerated_by_defaults)
{
    /* Only the NoExecute taint (e.g. after the NoSchedule one was lifted):
     * the defaults tolerate it; a manifest pod without them does not. */
    const struct place_taint taints[] = {{PLACE_TAINT_UNREACHABLE, "", PLACE_EFFECT_NO_EXECUTE}};
    struct place_node_facts n = node("node1", NULL, 0, taints, N(taints));
    struct place_pod_constraints pod = tolerating(defaults, N(defaults));
    ck_assert_int_eq(judge_static(&pod, &n).rule, PLACE_RULE_NONE);
    pod = tolerating(NULL, 0);
    struct place_judgement j = judge_static(&pod, &n);
    ck_assert_int_eq(j.rule, PLACE_RULE_TAINT);
    ck_assert_str_eq(text(&j), "node(s) had untolerated taint {node.kubernetes.io/unreachable: }");
}
END_TEST

/* ---- unschedulable ------------------------------------------------------- */

START_TEST(unschedulable_node_is_rejected)
{
    struct place_pod_constraints pod = tolerating(defaults, N(defaults));
    struct place_node_facts n = node("node1", NULL, 0, NULL, 0);
    n.unschedulable = true;
    struct place_judgement j = judge_static(&pod, &n);
    ck_assert_int_eq(j.rule, PLACE_RULE_UNSCHEDULABLE);
    ck_assert_int_eq(j.verdict, SCORE_UNRESOLVABLE);
    ck_assert_str_eq(text(&j), "node(s) were unschedulable");
    ck_assert_str_eq(place_rule_name(j.rule), "NodeUnschedulable");
}
END_TEST

START_TEST(unschedulable_tolerated_by_unschedulable_toleration)
{
    /* What the DaemonSet controller adds: node.kubernetes.io/unschedulable
     * Exists NoSchedule. An empty effect also covers NoSchedule; a NoExecute
     * one does not. */
    const struct place_toleration ds[] = {
        {PLACE_TAINT_UNSCHEDULABLE, PLACE_TOLERATION_EXISTS, "", PLACE_EFFECT_NO_SCHEDULE}};
    const struct place_toleration all[] = {
        {PLACE_TAINT_UNSCHEDULABLE, PLACE_TOLERATION_EXISTS, "", PLACE_EFFECT_ALL}};
    const struct place_toleration wrong[] = {
        {PLACE_TAINT_UNSCHEDULABLE, PLACE_TOLERATION_EXISTS, "", PLACE_EFFECT_NO_EXECUTE}};
    struct place_node_facts n = node("node1", NULL, 0, NULL, 0);
    n.unschedulable = true;
    struct place_pod_constraints pod = tolerating(ds, 1);
    ck_assert_int_eq(judge_static(&pod, &n).rule, PLACE_RULE_NONE);
    pod = tolerating(all, 1);
    ck_assert_int_eq(judge_static(&pod, &n).rule, PLACE_RULE_NONE);
    pod = tolerating(wrong, 1);
    ck_assert_int_eq(judge_static(&pod, &n).rule, PLACE_RULE_UNSCHEDULABLE);
}
END_TEST

START_TEST(unschedulable_is_counted_before_the_cordon_taint)
{
    /* A cordoned node has spec.unschedulable and the unschedulable taint;
     * NodeUnschedulable runs first, so that is the reason. */
    const struct place_taint taints[] = {{PLACE_TAINT_UNSCHEDULABLE, "", PLACE_EFFECT_NO_SCHEDULE}};
    struct place_pod_constraints pod = {0};
    struct place_node_facts n = node("node1", NULL, 0, taints, N(taints));
    n.unschedulable = true;
    ck_assert_int_eq(judge_static(&pod, &n).rule, PLACE_RULE_UNSCHEDULABLE);
}
END_TEST

/* ---- nodeName ------------------------------------------------------------ */

START_TEST(node_name_other_node_is_rejected)
{
    /* The page's nodeName: kube-01. */
    struct place_pod_constraints pod = {.node_name = "kube-01"};
    struct place_node_facts a = node("kube-01", NULL, 0, NULL, 0);
    struct place_node_facts b = node("kube-02", NULL, 0, NULL, 0);
    ck_assert_int_eq(judge_static(&pod, &a).rule, PLACE_RULE_NONE);
    struct place_judgement j = judge_static(&pod, &b);
    ck_assert_int_eq(j.rule, PLACE_RULE_NODE_NAME);
    ck_assert_str_eq(text(&j), "node(s) didn't match the requested node name");
}
END_TEST

START_TEST(node_name_empty_means_unset)
{
    struct place_pod_constraints pod = {.node_name = ""};
    struct place_node_facts a = node("kube-01", NULL, 0, NULL, 0);
    ck_assert_int_eq(judge_static(&pod, &a).rule, PLACE_RULE_NONE);
}
END_TEST

START_TEST(node_name_checked_after_unschedulable_before_taints)
{
    const struct place_taint taints[] = {{"key1", "value1", PLACE_EFFECT_NO_SCHEDULE}};
    struct place_pod_constraints pod = {.node_name = "kube-01"};
    struct place_node_facts b = node("kube-02", NULL, 0, taints, N(taints));
    ck_assert_int_eq(judge_static(&pod, &b).rule, PLACE_RULE_NODE_NAME);
    b.unschedulable = true;
    ck_assert_int_eq(judge_static(&pod, &b).rule, PLACE_RULE_UNSCHEDULABLE);
}
END_TEST

/* ---- nodeSelector and node affinity -------------------------------------- */

static const struct place_label ssd_labels[] = {
    {"kubernetes.io/hostname", "node1"},
    {"disktype", "ssd"},
};
static const struct place_label hdd_labels[] = {
    {"kubernetes.io/hostname", "node2"},
    {"disktype", "hdd"},
};

START_TEST(node_selector_disktype_ssd)
{
    /* kubectl label nodes node1 disktype=ssd; the pod's nodeSelector
     * disktype: ssd. */
    const struct place_label sel[] = {{"disktype", "ssd"}};
    struct place_pod_constraints pod = {.node_selector = sel, .n_node_selector = 1};
    struct place_node_facts ssd = node("node1", ssd_labels, N(ssd_labels), NULL, 0);
    struct place_node_facts hdd = node("node2", hdd_labels, N(hdd_labels), NULL, 0);
    struct place_node_facts bare = node("node3", NULL, 0, NULL, 0);
    ck_assert_int_eq(judge_static(&pod, &ssd).rule, PLACE_RULE_NONE);
    struct place_judgement j = judge_static(&pod, &hdd);
    ck_assert_int_eq(j.rule, PLACE_RULE_NODE_AFFINITY);
    ck_assert_str_eq(text(&j), "node(s) didn't match Pod's node affinity/selector");
    ck_assert_int_eq(judge_static(&pod, &bare).rule, PLACE_RULE_NODE_AFFINITY);
}
END_TEST

/* The page's pod-with-node-affinity.yaml: topology.kubernetes.io/zone In
 * [antarctica-east1, antarctica-west1]. */
static const char *const antarctica[] = {"antarctica-east1", "antarctica-west1"};
static const struct place_requirement zone_in = {"topology.kubernetes.io/zone", PLACE_OP_IN,
                                                 antarctica, 2};
static const struct place_selector_term zone_term = {&zone_in, 1, NULL, 0};

static struct place_pod_constraints affinity(const struct place_selector_term *terms, size_t n)
{
    struct place_pod_constraints c = {
        .has_required_affinity = true,
        .affinity_terms = terms,
        .n_affinity_terms = n,
    };
    return c;
}

static bool matches(const struct place_pod_constraints *pod, const char *key, const char *value)
{
    struct place_label l = {key, value};
    struct place_node_facts n = node("node1", &l, key != NULL ? 1 : 0, NULL, 0);
    return affine(pod, &n);
}

START_TEST(affinity_in_zone_example)
{
    struct place_pod_constraints pod = affinity(&zone_term, 1);
    ck_assert(matches(&pod, "topology.kubernetes.io/zone", "antarctica-east1"));
    ck_assert(matches(&pod, "topology.kubernetes.io/zone", "antarctica-west1"));
    ck_assert(!matches(&pod, "topology.kubernetes.io/zone", "europe-west1"));
    ck_assert(!matches(&pod, NULL, NULL)); /* In needs the label */
}
END_TEST

START_TEST(affinity_not_in_and_does_not_exist_repel)
{
    /* NotIn and DoesNotExist "allow you to define node anti-affinity":
     * NotIn matches a node without the label. */
    const char *const vals[] = {"antarctica-east1"};
    const struct place_requirement not_in = {"topology.kubernetes.io/zone", PLACE_OP_NOT_IN, vals,
                                             1};
    const struct place_requirement dne = {"gpu", PLACE_OP_DOES_NOT_EXIST, NULL, 0};
    const struct place_requirement exists = {"gpu", PLACE_OP_EXISTS, NULL, 0};
    const struct place_selector_term t1 = {&not_in, 1, NULL, 0}, t2 = {&dne, 1, NULL, 0},
                                     t3 = {&exists, 1, NULL, 0};
    struct place_pod_constraints pod = affinity(&t1, 1);
    ck_assert(!matches(&pod, "topology.kubernetes.io/zone", "antarctica-east1"));
    ck_assert(matches(&pod, "topology.kubernetes.io/zone", "antarctica-west1"));
    ck_assert(matches(&pod, NULL, NULL));
    pod = affinity(&t2, 1);
    ck_assert(!matches(&pod, "gpu", ""));
    ck_assert(matches(&pod, "other", "x"));
    pod = affinity(&t3, 1);
    ck_assert(matches(&pod, "gpu", ""));
    ck_assert(!matches(&pod, NULL, NULL));
}
END_TEST

START_TEST(affinity_gt_lt_compare_integers)
{
    /* Gt/Lt: "the supplied value will be parsed as an integer, and that
     * integer is less than (Gt) / greater than (Lt) the integer that results
     * from parsing the value of a label"; a label that is not an integer
     * matches neither. */
    const char *const five[] = {"5"};
    const struct place_requirement gt = {"cores", PLACE_OP_GT, five, 1};
    const struct place_requirement lt = {"cores", PLACE_OP_LT, five, 1};
    const struct place_selector_term tg = {&gt, 1, NULL, 0}, tl = {&lt, 1, NULL, 0};
    struct place_pod_constraints pod = affinity(&tg, 1);
    ck_assert(matches(&pod, "cores", "6"));
    ck_assert(!matches(&pod, "cores", "5"));
    ck_assert(matches(&pod, "cores", "+006")); /* ParseInt: sign and leading zeros */
    ck_assert(!matches(&pod, "cores", "6.0"));
    ck_assert(!matches(&pod, "cores", " 6"));
    ck_assert(!matches(&pod, "cores", "1_000"));
    ck_assert(!matches(&pod, "cores", "9223372036854775808")); /* out of int64 */
    ck_assert(!matches(&pod, NULL, NULL));
    pod = affinity(&tl, 1);
    ck_assert(matches(&pod, "cores", "4"));
    ck_assert(matches(&pod, "cores", "-9223372036854775808"));
    ck_assert(!matches(&pod, "cores", "5"));
    ck_assert(!matches(&pod, "cores", "abc"));
}
END_TEST

START_TEST(affinity_invalid_requirement_fails_its_term_only)
{
    /* Gt with a non-integer value, In with no values, Exists with a value:
     * labels.NewRequirement refuses them, the term matches nothing; the
     * terms are ORed, so a valid second term still matches. */
    const char *const bad[] = {"1.5"};
    const char *const ssd[] = {"ssd"};
    const struct place_requirement gt_bad = {"cores", PLACE_OP_GT, bad, 1};
    const struct place_requirement in_none = {"disktype", PLACE_OP_IN, NULL, 0};
    const struct place_requirement exists_val = {"disktype", PLACE_OP_EXISTS, ssd, 1};
    const struct place_requirement in_ssd = {"disktype", PLACE_OP_IN, ssd, 1};
    const struct place_requirement both[] = {{"disktype", PLACE_OP_IN, ssd, 1},
                                             {"cores", PLACE_OP_GT, bad, 1}};
    const struct place_selector_term terms[] = {
        {&gt_bad, 1, NULL, 0}, {&in_none, 1, NULL, 0}, {&exists_val, 1, NULL, 0}};
    struct place_pod_constraints pod = affinity(terms, N(terms));
    ck_assert(!matches(&pod, "disktype", "ssd"));
    const struct place_selector_term with_good[] = {{&gt_bad, 1, NULL, 0}, {&in_ssd, 1, NULL, 0}};
    pod = affinity(with_good, 2);
    ck_assert(matches(&pod, "disktype", "ssd"));
    /* One bad requirement spoils the good one beside it. */
    const struct place_selector_term spoiled = {both, 2, NULL, 0};
    pod = affinity(&spoiled, 1);
    ck_assert(!matches(&pod, "disktype", "ssd"));
}
END_TEST

START_TEST(affinity_expressions_and_terms_or)
{
    /* "multiple expressions in a single matchExpressions field": ANDed;
     * "multiple terms in nodeSelectorTerms": ORed. */
    const char *const ssd[] = {"ssd"};
    const char *const east[] = {"antarctica-east1"};
    const struct place_requirement anded[] = {
        {"disktype", PLACE_OP_IN, ssd, 1}, {"topology.kubernetes.io/zone", PLACE_OP_IN, east, 1}};
    const struct place_label ssd_west[] = {{"disktype", "ssd"},
                                           {"topology.kubernetes.io/zone", "antarctica-west1"}};
    const struct place_label ssd_east[] = {{"disktype", "ssd"},
                                           {"topology.kubernetes.io/zone", "antarctica-east1"}};
    struct place_node_facts west = node("w", ssd_west, 2, NULL, 0);
    struct place_node_facts east_n = node("e", ssd_east, 2, NULL, 0);
    const struct place_selector_term and_term = {anded, 2, NULL, 0};
    struct place_pod_constraints pod = affinity(&and_term, 1);
    ck_assert(!affine(&pod, &west));
    ck_assert(affine(&pod, &east_n));
    /* Split into two terms: either suffices. */
    const struct place_selector_term or_terms[] = {{&anded[0], 1, NULL, 0},
                                                   {&anded[1], 1, NULL, 0}};
    pod = affinity(or_terms, 2);
    ck_assert(affine(&pod, &west));
}
END_TEST

START_TEST(affinity_and_node_selector_both_required)
{
    /* "If you specify both nodeSelector and nodeAffinity, both must be
     * satisfied". */
    const struct place_label sel[] = {{"disktype", "ssd"}};
    const struct place_label l1[] = {{"disktype", "ssd"},
                                     {"topology.kubernetes.io/zone", "antarctica-east1"}};
    const struct place_label l2[] = {{"disktype", "hdd"},
                                     {"topology.kubernetes.io/zone", "antarctica-east1"}};
    const struct place_label l3[] = {{"disktype", "ssd"}};
    struct place_pod_constraints pod = affinity(&zone_term, 1);
    pod.node_selector = sel;
    pod.n_node_selector = 1;
    struct place_node_facts a = node("a", l1, 2, NULL, 0), b = node("b", l2, 2, NULL, 0),
                            c = node("c", l3, 1, NULL, 0);
    ck_assert(affine(&pod, &a));
    ck_assert(!affine(&pod, &b));
    ck_assert(!affine(&pod, &c));
}
END_TEST

START_TEST(affinity_empty_terms_match_nothing)
{
    /* "nil or empty term selects no objects"; no terms at all: nothing. */
    const struct place_selector_term empty = {NULL, 0, NULL, 0};
    struct place_pod_constraints pod = affinity(&empty, 1);
    ck_assert(!matches(&pod, "disktype", "ssd"));
    pod = affinity(NULL, 0);
    ck_assert(!matches(&pod, "disktype", "ssd"));
    ck_assert_int_eq(place_pod_prefilter(&pod), PLACE_PREFILTER_ALL_NODES);
}
END_TEST

/* The DaemonSet page: matchFields metadata.name In [target-host-name]. */
static const char *const target[] = {"target-host-name"};
static const struct place_requirement name_in = {PLACE_FIELD_NODE_NAME, PLACE_OP_IN, target, 1};
static const struct place_selector_term name_term = {NULL, 0, &name_in, 1};

START_TEST(match_fields_prefilter_leaves_out_other_nodes)
{
    struct place_pod_constraints pod = affinity(&name_term, 1);
    struct place_node_facts t = node("target-host-name", NULL, 0, NULL, 0);
    struct place_node_facts o = node("other", NULL, 0, NULL, 0);
    ck_assert_int_eq(place_pod_prefilter(&pod), PLACE_PREFILTER_NAMES);
    ck_assert(place_prefilter_admits(&pod, "target-host-name"));
    ck_assert(!place_prefilter_admits(&pod, "other"));
    ck_assert_int_eq(judge_static(&pod, &t).rule, PLACE_RULE_NONE);
    /* The other node is never filtered, even when cordoned: the PreFilter
     * status is its reason. */
    o.unschedulable = true;
    struct place_judgement j = judge_static(&pod, &o);
    ck_assert_int_eq(j.rule, PLACE_RULE_PREFILTER);
    ck_assert_uint_eq(j.reasons, 1u << PLACE_REASON_PREFILTER_AFFINITY);
    ck_assert_str_eq(text(&j), "node(s) didn't satisfy plugin(s) [NodeAffinity]");
    ck_assert_str_eq(place_rule_name(j.rule), "NodeAffinity");
}
END_TEST

START_TEST(match_fields_named_node_still_filtered)
{
    /* The named node goes through every filter: a taint still rejects it. */
    const struct place_taint taints[] = {{"key1", "value1", PLACE_EFFECT_NO_SCHEDULE}};
    struct place_pod_constraints pod = affinity(&name_term, 1);
    struct place_node_facts t = node("target-host-name", NULL, 0, taints, 1);
    ck_assert_int_eq(judge_static(&pod, &t).rule, PLACE_RULE_TAINT);
}
END_TEST

START_TEST(match_fields_disjoint_names_conflict)
{
    /* One term, metadata.name In [a] and In [b]: the intersection is empty,
     * so is the union: the PreFilter fails the pod. */
    const char *const a[] = {"a"}, *const b[] = {"b"};
    const struct place_requirement f[] = {{PLACE_FIELD_NODE_NAME, PLACE_OP_IN, a, 1},
                                          {PLACE_FIELD_NODE_NAME, PLACE_OP_IN, b, 1}};
    const struct place_selector_term term = {NULL, 0, f, 2};
    struct place_pod_constraints pod = affinity(&term, 1);
    struct place_node_facts n = node("a", NULL, 0, NULL, 0);
    ck_assert_int_eq(place_pod_prefilter(&pod), PLACE_PREFILTER_CONFLICT);
    struct place_judgement j = judge_static(&pod, &n);
    ck_assert_int_eq(j.rule, PLACE_RULE_PREFILTER);
    ck_assert_str_eq(text(&j), "pod affinity terms conflict");
}
END_TEST

START_TEST(match_fields_union_of_terms_and_unnamed_term)
{
    /* Term 1 names a, term 2 names b: both admitted. A third term without a
     * name requirement admits every node (the terms are ORed). */
    const char *const a[] = {"a"}, *const b[] = {"b"};
    const struct place_requirement fa = {PLACE_FIELD_NODE_NAME, PLACE_OP_IN, a, 1};
    const struct place_requirement fb = {PLACE_FIELD_NODE_NAME, PLACE_OP_IN, b, 1};
    const struct place_selector_term two[] = {{NULL, 0, &fa, 1}, {NULL, 0, &fb, 1}};
    struct place_pod_constraints pod = affinity(two, 2);
    ck_assert_int_eq(place_pod_prefilter(&pod), PLACE_PREFILTER_NAMES);
    ck_assert(place_prefilter_admits(&pod, "a"));
    ck_assert(place_prefilter_admits(&pod, "b"));
    ck_assert(!place_prefilter_admits(&pod, "c"));
    const struct place_selector_term three[] = {
        {NULL, 0, &fa, 1}, {NULL, 0, &fb, 1}, {&zone_in, 1, NULL, 0}};
    pod = affinity(three, 3);
    ck_assert_int_eq(place_pod_prefilter(&pod), PLACE_PREFILTER_ALL_NODES);
}
END_TEST

START_TEST(match_fields_not_in_filters_not_prefilters)
{
    /* NotIn does not narrow; the Filter rejects the named node. A field
     * requirement with two values is a parse error: the term fails. */
    const char *const a[] = {"a"};
    const char *const ab[] = {"a", "b"};
    const struct place_requirement not_a = {PLACE_FIELD_NODE_NAME, PLACE_OP_NOT_IN, a, 1};
    const struct place_requirement in_ab = {PLACE_FIELD_NODE_NAME, PLACE_OP_IN, ab, 2};
    const struct place_selector_term t1 = {NULL, 0, &not_a, 1}, t2 = {NULL, 0, &in_ab, 1};
    struct place_node_facts na = node("a", NULL, 0, NULL, 0), nb = node("b", NULL, 0, NULL, 0);
    struct place_pod_constraints pod = affinity(&t1, 1);
    ck_assert_int_eq(place_pod_prefilter(&pod), PLACE_PREFILTER_ALL_NODES);
    ck_assert_int_eq(judge_static(&pod, &na).rule, PLACE_RULE_NODE_AFFINITY);
    ck_assert_int_eq(judge_static(&pod, &nb).rule, PLACE_RULE_NONE);
    /* In [a, b]: the PreFilter admits a and b, the Filter fails both. */
    pod = affinity(&t2, 1);
    ck_assert_int_eq(place_pod_prefilter(&pod), PLACE_PREFILTER_NAMES);
    ck_assert_int_eq(judge_static(&pod, &na).rule, PLACE_RULE_NODE_AFFINITY);
}
END_TEST

START_TEST(taint_counted_before_node_affinity)
{
    /* A node failing both: TaintToleration runs before NodeAffinity. */
    const struct place_taint taints[] = {{"key1", "value1", PLACE_EFFECT_NO_SCHEDULE}};
    const struct place_label sel[] = {{"disktype", "ssd"}};
    struct place_pod_constraints pod = {.node_selector = sel, .n_node_selector = 1};
    struct place_node_facts n = node("node2", hdd_labels, N(hdd_labels), taints, 1);
    ck_assert_int_eq(judge_static(&pod, &n).rule, PLACE_RULE_TAINT);
}
END_TEST

/* ---- resources ----------------------------------------------------------- */

static struct score_pod_request request(int64_t cpu, int64_t mem)
{
    struct score_pod_request r = {.fit = {cpu, mem},
                                  .real = {cpu, mem},
                                  .non_zero = {cpu, mem},
                                  .non_zero_scored = {cpu, mem}};
    return r;
}

START_TEST(resources_too_many_pods)
{
    /* len(pods) + 1 > allocatable pods: 110 pods on a 110-pod node. */
    struct place_node_facts f = node("n", NULL, 0, NULL, 0);
    struct score_node res = {.alloc = {4000, 1000}};
    struct score_pod_request req = request(100, 10);
    struct place_judgement j;
    f.pods = 110;
    place_judge_resources(&req, &f, &res, full, &j);
    ck_assert_int_eq(j.rule, PLACE_RULE_RESOURCES);
    ck_assert_uint_eq(j.reasons, 1u << PLACE_REASON_TOO_MANY_PODS);
    ck_assert_str_eq(text(&j), "Too many pods");
    ck_assert_int_eq(j.verdict, SCORE_UNFIT);
    f.pods = 109; /* 109 + 1 = 110: fits */
    place_judge_resources(&req, &f, &res, full, &j);
    ck_assert_int_eq(j.rule, PLACE_RULE_NONE);
    /* No pods key: allocatable 0, every pod is one too many. */
    f.pods = 0;
    f.max_pods = 0;
    place_judge_resources(&req, &f, &res, full, &j);
    ck_assert_uint_eq(j.reasons, 1u << PLACE_REASON_TOO_MANY_PODS);
}
END_TEST

START_TEST(resources_node_resources_fit_lists_every_reason)
{
    /* requested 3500m of 4000m and 900 of 1000 bytes; the pod asks 600m and
     * 200: both short, and the pod count too: three reasons, in
     * fitsRequest's order. 600 <= 4000 and 200 <= 1000: preemption could
     * help (unfit, not unresolvable). */
    struct place_node_facts f = node("n", NULL, 0, NULL, 0);
    struct score_node res = {.alloc = {4000, 1000}};
    struct score_pod_request req = request(600, 200);
    struct place_judgement j;
    f.pods = 110;
    f.requested[SCORE_CPU] = 3500;
    f.requested[SCORE_MEMORY] = 900;
    place_judge_resources(&req, &f, &res, full, &j);
    ck_assert_int_eq(j.rule, PLACE_RULE_RESOURCES);
    ck_assert_str_eq(text(&j), "Too many pods, Insufficient cpu, Insufficient memory");
    ck_assert_int_eq(j.verdict, SCORE_UNFIT);
    /* 5000m alone is over the 4000m allocatable: unresolvable. */
    req = request(5000, 0);
    f.pods = 0;
    place_judge_resources(&req, &f, &res, full, &j);
    ck_assert_uint_eq(j.reasons, 1u << PLACE_REASON_INSUFFICIENT_CPU);
    ck_assert_int_eq(j.verdict, SCORE_UNRESOLVABLE);
}
END_TEST

START_TEST(resources_our_filter_after_node_resources_fit)
{
    /* kube-scheduler's requested is 0, our used view (an annotation) is
     * 3000m of 4000m and 700 of 1000: NodeResourcesFit passes a 1500m/400
     * pod, our filter does not (3000 + 1500 > 4000, 700 + 400 > 1000): one
     * reason naming both, as score_fit words it. */
    struct place_node_facts f = node("n", NULL, 0, NULL, 0);
    struct score_node res = {.alloc = {4000, 1000}, .used = {3000, 700}};
    struct score_pod_request req = request(1500, 400);
    struct place_judgement j;
    place_judge_resources(&req, &f, &res, full, &j);
    ck_assert_int_eq(j.rule, PLACE_RULE_EXTENDER);
    ck_assert_uint_eq(j.reasons, 1u << PLACE_REASON_INSUFFICIENT_CPU_MEMORY);
    ck_assert_str_eq(text(&j), "Insufficient cpu, Insufficient memory");
    ck_assert_str_eq(place_rule_name(j.rule), "extender");
    /* Threshold 80 % of cpu: 3000 + 500 = 3500 > 3200: cpu only. */
    const int eighty[SCORE_NRES] = {80, 100};
    req = request(500, 100);
    place_judge_resources(&req, &f, &res, eighty, &j);
    ck_assert_int_eq(j.rule, PLACE_RULE_EXTENDER);
    ck_assert_uint_eq(j.reasons, 1u << PLACE_REASON_INSUFFICIENT_CPU);
    /* 200m: 3200 <= 3200, fits exactly. */
    req = request(200, 100);
    place_judge_resources(&req, &f, &res, eighty, &j);
    ck_assert_int_eq(j.rule, PLACE_RULE_NONE);
}
END_TEST

START_TEST(resources_zero_request_passes_full_node)
{
    /* BestEffort pod: cpu and memory are not checked, only the pod count. */
    struct place_node_facts f = node("n", NULL, 0, NULL, 0);
    struct score_node res = {.alloc = {4000, 1000}, .used = {4000, 1000}};
    struct score_pod_request req = request(0, 0);
    struct place_judgement j;
    f.requested[SCORE_CPU] = 4000;
    f.requested[SCORE_MEMORY] = 1000;
    place_judge_resources(&req, &f, &res, full, &j);
    ck_assert_int_eq(j.rule, PLACE_RULE_NONE);
}
END_TEST

/* The order the simulation judges in: the static rules, then, if the node
 * passed them, the resources. */
static void judge(const struct place_pod_constraints *pod, const struct score_pod_request *req,
                  const struct place_node_facts *node, const struct score_node *res,
                  struct place_judgement *out)
{
    place_judge_static(pod, node, out);
    if (out->rule == PLACE_RULE_NONE)
        place_judge_resources(req, node, res, full, out);
}

START_TEST(judge_static_rules_come_before_resources)
{
    const struct place_taint taints[] = {{"key1", "value1", PLACE_EFFECT_NO_SCHEDULE}};
    struct place_pod_constraints pod = {0};
    struct place_node_facts f = node("n", NULL, 0, taints, 1);
    struct score_node res = {.alloc = {1000, 1000}};
    struct score_pod_request req = request(5000, 5000);
    struct place_judgement j;
    f.pods = 200;
    judge(&pod, &req, &f, &res, &j);
    ck_assert_int_eq(j.rule, PLACE_RULE_TAINT);
    f.n_taints = 0;
    judge(&pod, &req, &f, &res, &j);
    ck_assert_int_eq(j.rule, PLACE_RULE_RESOURCES);
}
END_TEST

/* ---- the FitError message ------------------------------------------------ */

START_TEST(fit_error_sorts_lines_as_strings)
{
    /* "10 ..." sorts before "2 ..." (byte order of "1" and "2"), and upper
     * case before lower case: kube-scheduler's sort.Strings. */
    const struct place_taint gpu = {"nvidia.com/gpu", "true", PLACE_EFFECT_NO_SCHEDULE};
    const struct place_reason_count e[] = {
        {PLACE_REASON_INSUFFICIENT_CPU, NULL, 2, NULL},
        {PLACE_REASON_UNSCHEDULABLE, NULL, 10, NULL},
        {PLACE_REASON_TAINT, &gpu, 1, NULL},
        {PLACE_REASON_TOO_MANY_PODS, NULL, 0, NULL}, /* not written */
    };
    char buf[512];
    size_t n = place_fit_error(13, e, N(e), buf, sizeof(buf));
    ck_assert_str_eq(buf, "0/13 nodes are available: 1 node(s) had untolerated taint "
                          "{nvidia.com/gpu: true}, 10 node(s) were unschedulable, 2 "
                          "Insufficient cpu.");
    ck_assert_uint_eq(n, strlen(buf));
}
END_TEST

START_TEST(fit_error_prefilter_conflict_alone)
{
    const struct place_reason_count e[] = {{PLACE_REASON_AFFINITY_CONFLICT, NULL, 3, NULL}};
    char buf[128];
    place_fit_error(3, e, 1, buf, sizeof(buf));
    ck_assert_str_eq(buf, "0/3 nodes are available: pod affinity terms conflict.");
}
END_TEST

START_TEST(fit_error_counts_our_own_texts_among_the_rest)
{
    /* A node with unusable data fails our filter with its own text, which
     * kube-scheduler counts and sorts like any other line. */
    const struct place_reason_count e[] = {
        {PLACE_REASON_INSUFFICIENT_CPU, NULL, 2, NULL},
        {PLACE_REASON_AFFINITY_CONFLICT, NULL, 1, "invalid allocatable cpu"},
    };
    char buf[256];
    place_fit_error(3, e, N(e), buf, sizeof(buf));
    ck_assert_str_eq(buf,
                     "0/3 nodes are available: 1 invalid allocatable cpu, 2 Insufficient cpu.");
}
END_TEST

START_TEST(fit_error_truncates_and_reports_full_length)
{
    const struct place_reason_count e[] = {{PLACE_REASON_UNSCHEDULABLE, NULL, 4, NULL}};
    char buf[10];
    size_t n = place_fit_error(4, e, 1, buf, sizeof(buf));
    ck_assert_str_eq(buf, "0/4 nodes");
    ck_assert_uint_eq(n, strlen("0/4 nodes are available: 4 node(s) were unschedulable."));
}
END_TEST

/* ---- parsers and names --------------------------------------------------- */

START_TEST(parse_names_accept_kubernetes_spellings)
{
    enum place_taint_effect e;
    enum place_toleration_op o;
    enum place_selector_op s;
    ck_assert_int_eq(place_taint_effect_parse("NoExecute", false, &e), 0);
    ck_assert_int_eq(e, PLACE_EFFECT_NO_EXECUTE);
    ck_assert_int_eq(place_taint_effect_parse("", false, &e), -EINVAL);
    ck_assert_int_eq(place_taint_effect_parse("", true, &e), 0);
    ck_assert_int_eq(e, PLACE_EFFECT_ALL);
    ck_assert_int_eq(place_taint_effect_parse("noschedule", true, &e), -EINVAL);
    ck_assert_int_eq(place_toleration_op_parse("", &o), 0);
    ck_assert_int_eq(o, PLACE_TOLERATION_EQUAL);
    ck_assert_int_eq(place_toleration_op_parse("Exists", &o), 0);
    ck_assert_int_eq(o, PLACE_TOLERATION_EXISTS);
    ck_assert_int_eq(place_toleration_op_parse("Gt", &o), -EINVAL);
    ck_assert_int_eq(place_selector_op_parse("DoesNotExist", &s), 0);
    ck_assert_int_eq(s, PLACE_OP_DOES_NOT_EXIST);
    ck_assert_int_eq(place_selector_op_parse("Lt", &s), 0);
    ck_assert_int_eq(s, PLACE_OP_LT);
    ck_assert_int_eq(place_selector_op_parse("in", &s), -EINVAL);
}
END_TEST

Suite *constraints_suite(void)
{
    Suite *s = suite_create("constraints");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, taint_equal_toleration_tolerates);
    tcase_add_test(tc, taint_exists_toleration_tolerates);
    tcase_add_test(tc, taint_without_toleration_names_the_taint);
    tcase_add_test(tc, taint_equal_with_other_value_is_untolerated);
    tcase_add_test(tc, taint_third_of_three_untolerated_is_named);
    tcase_add_test(tc, taint_first_untolerated_in_node_order_is_named);
    tcase_add_test(tc, toleration_empty_key_exists_tolerates_everything);
    tcase_add_test(tc, toleration_empty_effect_matches_every_effect_of_key);
    tcase_add_test(tc, toleration_other_effect_does_not_tolerate);
    tcase_add_test(tc, toleration_empty_key_equal_matches_value_of_any_key);
    tcase_add_test(tc, taint_prefer_no_schedule_does_not_filter);
    tcase_add_test(tc, taint_no_execute_toleration_with_seconds_tolerates);
    tcase_add_test(tc, node_not_ready_rejects_pod_with_default_tolerations);
    tcase_add_test(tc, node_unreachable_no_execute_only_is_tolerated_by_defaults);
    tcase_add_test(tc, unschedulable_node_is_rejected);
    tcase_add_test(tc, unschedulable_tolerated_by_unschedulable_toleration);
    tcase_add_test(tc, unschedulable_is_counted_before_the_cordon_taint);
    tcase_add_test(tc, node_name_other_node_is_rejected);
    tcase_add_test(tc, node_name_empty_means_unset);
    tcase_add_test(tc, node_name_checked_after_unschedulable_before_taints);
    tcase_add_test(tc, node_selector_disktype_ssd);
    tcase_add_test(tc, affinity_in_zone_example);
    tcase_add_test(tc, affinity_not_in_and_does_not_exist_repel);
    tcase_add_test(tc, affinity_gt_lt_compare_integers);
    tcase_add_test(tc, affinity_invalid_requirement_fails_its_term_only);
    tcase_add_test(tc, affinity_expressions_and_terms_or);
    tcase_add_test(tc, affinity_and_node_selector_both_required);
    tcase_add_test(tc, affinity_empty_terms_match_nothing);
    tcase_add_test(tc, match_fields_prefilter_leaves_out_other_nodes);
    tcase_add_test(tc, match_fields_named_node_still_filtered);
    tcase_add_test(tc, match_fields_disjoint_names_conflict);
    tcase_add_test(tc, match_fields_union_of_terms_and_unnamed_term);
    tcase_add_test(tc, match_fields_not_in_filters_not_prefilters);
    tcase_add_test(tc, taint_counted_before_node_affinity);
    tcase_add_test(tc, resources_too_many_pods);
    tcase_add_test(tc, resources_node_resources_fit_lists_every_reason);
    tcase_add_test(tc, resources_our_filter_after_node_resources_fit);
    tcase_add_test(tc, resources_zero_request_passes_full_node);
    tcase_add_test(tc, judge_static_rules_come_before_resources);
    tcase_add_test(tc, fit_error_sorts_lines_as_strings);
    tcase_add_test(tc, fit_error_prefilter_conflict_alone);
    tcase_add_test(tc, fit_error_counts_our_own_texts_among_the_rest);
    tcase_add_test(tc, fit_error_truncates_and_reports_full_length);
    tcase_add_test(tc, parse_names_accept_kubernetes_spellings);
    suite_add_tcase(s, tc);
    return s;
}

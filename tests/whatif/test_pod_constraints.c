/*
 * whatif/pod_constraints.c: nodeName, nodeSelector, the required node
 * affinity and the tolerations of a pod, as the placement model takes them,
 * copied out of the tree; the errors that name the field; the controller.
 */
#include "whatif/pod_constraints.h"

#include <check.h>
#include <errno.h>
#include <string.h>

#include "base/arena.h"
#include "base/err.h"
#include "server/codec/json.h"
#include "tests/suites.h"
#include "tests/support/arena_fixture.h"

/* Parses @json into an arena of its own, decodes into test_arena, and
 * releases the tree's arena: what is read must not point into it (in the
 * ASan build the released memory is poisoned). */
static int decode(const char *json, struct place_pod_constraints *c, char *err)
{
    struct arena *tree_arena = arena_acquire();
    cJSON *tree;
    ck_assert_int_eq(codec_json_parse(tree_arena, json, strlen(json), "Pod", &tree, err), 0);
    int rc = whatif_pod_constraints_decode(test_arena, tree, c, err);
    arena_release(tree_arena);
    return rc;
}

START_TEST(pod_constraints_reads_what_the_model_needs)
{
    struct place_pod_constraints c;
    char err[ERR_LEN];
    ck_assert_int_eq(
        decode(
            "{\"spec\":{\"nodeName\":\"n1\",\"nodeSelector\":{\"disk\":\"ssd\",\"zone\":\"a\","
            "\"disk\":\"nvme\"},\"affinity\":{\"nodeAffinity\":{"
            "\"requiredDuringSchedulingIgnoredDuringExecution\":{\"nodeSelectorTerms\":["
            "{\"matchExpressions\":[{\"key\":\"kubernetes.io/arch\",\"operator\":\"In\","
            "\"values\":[\"amd64\",\"arm64\"]},{\"key\":\"gpu\",\"operator\":\"DoesNotExist\"}]},"
            "{\"matchFields\":[{\"key\":\"metadata.name\",\"operator\":\"NotIn\",\"values\":["
            "\"n9\"]}]}]},\"preferredDuringSchedulingIgnoredDuringExecution\":[{\"weight\":1,"
            "\"preference\":{}}]}},\"tolerations\":[{\"key\":\"gpu\",\"operator\":\"Equal\","
            "\"value\":\"true\",\"effect\":\"NoSchedule\"},{\"operator\":\"Exists\"},{\"key\":"
            "\"node.kubernetes.io/not-ready\",\"operator\":\"Exists\",\"effect\":\"NoExecute\","
            "\"tolerationSeconds\":300}]}}",
            &c, err),
        0);
    ck_assert_str_eq(c.node_name, "n1");
    /* a Go map: one entry per key, the last value */
    ck_assert_uint_eq(c.n_node_selector, 2);
    ck_assert_str_eq(c.node_selector[0].key, "disk");
    ck_assert_str_eq(c.node_selector[0].value, "nvme");
    ck_assert_str_eq(c.node_selector[1].value, "a");
    ck_assert(c.has_required_affinity);
    ck_assert_uint_eq(c.n_affinity_terms, 2);
    const struct place_selector_term *t = &c.affinity_terms[0];
    ck_assert_uint_eq(t->n_match_expressions, 2);
    ck_assert_uint_eq(t->n_match_fields, 0);
    ck_assert_str_eq(t->match_expressions[0].key, "kubernetes.io/arch");
    ck_assert_int_eq(t->match_expressions[0].op, PLACE_OP_IN);
    ck_assert_uint_eq(t->match_expressions[0].n_values, 2);
    ck_assert_str_eq(t->match_expressions[0].values[1], "arm64");
    ck_assert_int_eq(t->match_expressions[1].op, PLACE_OP_DOES_NOT_EXIST);
    ck_assert_uint_eq(t->match_expressions[1].n_values, 0);
    t = &c.affinity_terms[1];
    ck_assert_uint_eq(t->n_match_fields, 1);
    ck_assert_str_eq(t->match_fields[0].key, "metadata.name");
    ck_assert_int_eq(t->match_fields[0].op, PLACE_OP_NOT_IN);
    ck_assert_uint_eq(c.n_tolerations, 3);
    ck_assert_str_eq(c.tolerations[0].key, "gpu");
    ck_assert_int_eq(c.tolerations[0].op, PLACE_TOLERATION_EQUAL);
    ck_assert_str_eq(c.tolerations[0].value, "true");
    ck_assert_int_eq(c.tolerations[0].effect, PLACE_EFFECT_NO_SCHEDULE);
    /* an empty key with Exists and no effect tolerates everything */
    ck_assert_str_eq(c.tolerations[1].key, "");
    ck_assert_int_eq(c.tolerations[1].op, PLACE_TOLERATION_EXISTS);
    ck_assert_int_eq(c.tolerations[1].effect, PLACE_EFFECT_ALL);
    ck_assert_int_eq(c.tolerations[2].effect, PLACE_EFFECT_NO_EXECUTE);
}
END_TEST

START_TEST(pod_constraints_absent_and_null_are_none)
{
    struct place_pod_constraints c;
    char err[ERR_LEN];
    ck_assert_int_eq(decode("{}", &c, err), 0);
    ck_assert_str_eq(c.node_name, "");
    ck_assert_uint_eq(c.n_node_selector + c.n_affinity_terms + c.n_tolerations, 0);
    ck_assert(!c.has_required_affinity);
    ck_assert_int_eq(decode("{\"spec\":{\"nodeName\":null,\"nodeSelector\":null,\"affinity\":{"
                            "\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":"
                            "null}},\"tolerations\":null}}",
                            &c, err),
                     0);
    ck_assert(!c.has_required_affinity);
    /* required affinity with no terms is there, and matches no node */
    ck_assert_int_eq(
        decode("{\"spec\":{\"affinity\":{\"nodeAffinity\":{"
               "\"requiredDuringSchedulingIgnoredDuringExecution\":{\"nodeSelectorTerms\":[]}}}}}",
               &c, err),
        0);
    ck_assert(c.has_required_affinity);
    ck_assert_uint_eq(c.n_affinity_terms, 0);
    /* fields fold case as Go matches them */
    ck_assert_int_eq(decode("{\"Spec\":{\"NODENAME\":\"x\",\"Tolerations\":[{\"Operator\":"
                            "\"Exists\"}]}}",
                            &c, err),
                     0);
    ck_assert_str_eq(c.node_name, "x");
    ck_assert_uint_eq(c.n_tolerations, 1);
}
END_TEST

START_TEST(pod_constraints_errors_name_the_field)
{
    struct place_pod_constraints c;
    char err[ERR_LEN];
    const struct {
        const char *json, *err;
    } cases[] = {
        {"{\"spec\":[]}", "Pod.spec: want an object"},
        {"{\"spec\":{\"nodeName\":3}}", "Pod.spec.nodeName: want a string"},
        {"{\"spec\":{\"nodeSelector\":[]}}", "Pod.spec.nodeSelector: want an object"},
        {"{\"spec\":{\"nodeSelector\":{\"disk\":true}}}",
         "Pod.spec.nodeSelector[\"disk\"]: want a string"},
        {"{\"spec\":{\"affinity\":5}}", "Pod.spec.affinity: want an object"},
        {"{\"spec\":{\"affinity\":{\"nodeAffinity\":{"
         "\"requiredDuringSchedulingIgnoredDuringExecution\":{\"nodeSelectorTerms\":[{"
         "\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"Like\"}]}]}}}}}",
         "Pod.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
         "nodeSelectorTerms[0].matchExpressions[0].operator: want In, NotIn, Exists, DoesNotExist, "
         "Gt or Lt, not \"Like\""},
        {"{\"spec\":{\"affinity\":{\"nodeAffinity\":{"
         "\"requiredDuringSchedulingIgnoredDuringExecution\":{\"nodeSelectorTerms\":[{},{"
         "\"matchFields\":[{\"key\":\"metadata.name\",\"operator\":\"In\",\"values\":[1]}]}]}}}}}",
         "Pod.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
         "nodeSelectorTerms[1].matchFields[0].values[0]: want a string"},
        {"{\"spec\":{\"affinity\":{\"nodeAffinity\":{"
         "\"requiredDuringSchedulingIgnoredDuringExecution\":{\"nodeSelectorTerms\":{}}}}}}",
         "Pod.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
         "nodeSelectorTerms: want an array"},
        {"{\"spec\":{\"tolerations\":[{\"operator\":\"Maybe\"}]}}",
         "Pod.spec.tolerations[0].operator: want Equal or Exists, not \"Maybe\""},
        {"{\"spec\":{\"tolerations\":[{\"effect\":\"NoSchedules\"}]}}",
         "Pod.spec.tolerations[0].effect: want NoSchedule, PreferNoSchedule, NoExecute or empty, "
         "not \"NoSchedules\""},
        {"{\"spec\":{\"tolerations\":[{},7]}}", "Pod.spec.tolerations[1]: want an object"},
        {"{\"spec\":{\"tolerations\":[{\"key\":[]}]}}",
         "Pod.spec.tolerations[0].key: want a string"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        ck_assert_int_eq(decode(cases[i].json, &c, err), -EINVAL);
        ck_assert_str_eq(err, cases[i].err);
    }
}
END_TEST

START_TEST(pod_controller_is_the_controller_reference)
{
    struct whatif_pod_owner o;
    cJSON *p = cJSON_Parse("{\"metadata\":{\"ownerReferences\":[{\"kind\":\"Node\",\"name\":"
                           "\"n\"},{\"kind\":\"ReplicaSet\",\"name\":\"web-7d9f\","
                           "\"controller\":true}]}}");
    whatif_pod_controller(p, &o);
    ck_assert_str_eq(o.kind, "ReplicaSet");
    ck_assert_str_eq(o.name, "web-7d9f");
    cJSON_Delete(p);
    p = cJSON_Parse("{\"metadata\":{\"ownerReferences\":[{\"kind\":\"Node\",\"name\":\"n\"}]}}");
    whatif_pod_controller(p, &o);
    ck_assert_str_eq(o.kind, ""); /* an owner that is not the controller */
    cJSON_Delete(p);
    p = cJSON_Parse("{\"metadata\":{\"ownerReferences\":{}}}");
    whatif_pod_controller(p, &o);
    ck_assert_str_eq(o.kind, "");
    cJSON_Delete(p);
}
END_TEST

Suite *pod_constraints_suite(void)
{
    Suite *s = suite_create("pod_constraints");
    TCase *tc = tcase_create("pod_constraints");
    tcase_add_checked_fixture(tc, arena_fixture_setup, arena_fixture_teardown);
    tcase_add_test(tc, pod_constraints_reads_what_the_model_needs);
    tcase_add_test(tc, pod_constraints_absent_and_null_are_none);
    tcase_add_test(tc, pod_constraints_errors_name_the_field);
    tcase_add_test(tc, pod_controller_is_the_controller_reference);
    suite_add_tcase(s, tc);
    return s;
}

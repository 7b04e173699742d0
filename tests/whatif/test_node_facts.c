/*
 * whatif/node_facts.c: labels, taints, unschedulable and kind of a
 * Node object, read from its bytes by Go's rules for a typed v1.Node
 * (fields fold case, map keys do not; a repeated map merges, a repeated
 * array replaces, null clears maps and arrays and leaves scalars), and the
 * errors that name the field.
 */
#include "whatif/node_facts.h"

#include <check.h>
#include <errno.h>
#include <string.h>

#include "base/arena.h"
#include "base/err.h"
#include "server/codec/nodelist.h"
#include "tests/suites.h"
#include "tests/support/arena_fixture.h"

static int facts(const char *json, struct whatif_node_facts *f, char *err)
{
    struct codec_span s = {json, strlen(json)};
    return whatif_node_facts_decode(test_arena, s, f, err);
}

START_TEST(node_facts_reads_labels_taints_unschedulable)
{
    struct whatif_node_facts f;
    char err[ERR_LEN];
    ck_assert_int_eq(
        facts("{\"kind\":\"Node\",\"metadata\":{\"name\":\"n\",\"labels\":{\"kubernetes.io/"
              "hostname\":\"ip-10-0-0-7\",\"kubernetes.io/arch\":\"arm64\"}},\"spec\":{"
              "\"unschedulable\":true,\"taints\":[{\"key\":\"node.kubernetes.io/unschedulable\","
              "\"effect\":\"NoSchedule\",\"timeAdded\":\"2026-01-01T00:00:00Z\"},{\"key\":\"gpu\","
              "\"value\":\"true\",\"effect\":\"NoExecute\"}]},\"status\":{}}",
              &f, err),
        0);
    ck_assert_str_eq(f.kind, "Node");
    ck_assert_uint_eq(f.n_labels, 2);
    ck_assert_str_eq(whatif_node_facts_label(&f, "kubernetes.io/hostname"), "ip-10-0-0-7");
    ck_assert_str_eq(whatif_node_facts_label(&f, "kubernetes.io/arch"), "arm64");
    ck_assert_ptr_null(whatif_node_facts_label(&f, "kubernetes.io/os"));
    ck_assert(f.unschedulable);
    ck_assert_uint_eq(f.n_taints, 2);
    ck_assert_str_eq(f.taints[0].key, "node.kubernetes.io/unschedulable");
    ck_assert_str_eq(f.taints[0].value, "");
    ck_assert_int_eq(f.taints[0].effect, PLACE_EFFECT_NO_SCHEDULE);
    ck_assert_str_eq(f.taints[1].value, "true");
    ck_assert_int_eq(f.taints[1].effect, PLACE_EFFECT_NO_EXECUTE);
    /* nothing of it: no kind, no labels, no taints, schedulable */
    ck_assert_int_eq(facts("{\"metadata\":{\"name\":\"n\"}}", &f, err), 0);
    ck_assert_str_eq(f.kind, "");
    ck_assert_uint_eq(f.n_labels + f.n_taints, 0);
    ck_assert(!f.unschedulable);
    ck_assert(!f.has_containers);
    /* a pod given without its kind has containers, which no Node has */
    ck_assert_int_eq(
        facts("{\"metadata\":{\"name\":\"web\"},\"spec\":{\"containers\":[]}}", &f, err), 0);
    ck_assert(f.has_containers);
}
END_TEST

START_TEST(node_facts_duplicates_read_as_go_reads_them)
{
    struct whatif_node_facts f;
    char err[ERR_LEN];
    /* a repeated labels map merges, the last value of a key wins; a key of
     * another case is another label; null as a value is "" */
    ck_assert_int_eq(facts("{\"metadata\":{\"labels\":{\"a\":\"1\",\"b\":\"2\",\"a\":\"3\"},"
                           "\"Labels\":{\"c\":null,\"A\":\"4\"}}}",
                           &f, err),
                     0);
    ck_assert_uint_eq(f.n_labels, 4);
    ck_assert_str_eq(whatif_node_facts_label(&f, "a"), "3");
    ck_assert_str_eq(whatif_node_facts_label(&f, "A"), "4");
    ck_assert_str_eq(whatif_node_facts_label(&f, "c"), "");
    /* null clears the map; a later one starts again */
    ck_assert_int_eq(
        facts("{\"metadata\":{\"labels\":{\"a\":\"1\"},\"labels\":null,\"labels\":{\"b\":\"2\"}}}",
              &f, err),
        0);
    ck_assert_uint_eq(f.n_labels, 1);
    ck_assert_str_eq(f.labels[0].key, "b");
    /* a repeated taints array replaces; null leaves unschedulable alone */
    ck_assert_int_eq(facts("{\"SPEC\":{\"taints\":[{\"key\":\"x\",\"effect\":\"NoSchedule\"}],"
                           "\"Taints\":[{\"Key\":\"y\",\"Effect\":\"PreferNoSchedule\"}],"
                           "\"unschedulable\":true,\"unschedulable\":null}}",
                           &f, err),
                     0);
    ck_assert_uint_eq(f.n_taints, 1);
    ck_assert_str_eq(f.taints[0].key, "y");
    ck_assert_int_eq(f.taints[0].effect, PLACE_EFFECT_PREFER_NO_SCHEDULE);
    ck_assert(f.unschedulable);
    ck_assert_int_eq(facts("{\"spec\":{\"taints\":[{\"key\":\"x\",\"effect\":\"NoSchedule\"}],"
                           "\"taints\":null,\"unschedulable\":false}}",
                           &f, err),
                     0);
    ck_assert_uint_eq(f.n_taints, 0);
    ck_assert(!f.unschedulable);
    /* escapes are decoded in keys and values */
    ck_assert_int_eq(facts("{\"metadata\":{\"labels\":{\"z\\u00fcrich\":\"a\\/b\"}}}", &f, err), 0);
    ck_assert_str_eq(whatif_node_facts_label(&f, "z\xc3\xbcrich"), "a/b");
}
END_TEST

START_TEST(node_facts_wrong_types_name_the_field)
{
    struct whatif_node_facts f;
    char err[ERR_LEN];
    const struct {
        const char *json, *err;
    } cases[] = {
        {"[]", "want a Node object"},
        {"{\"kind\":5}", "kind: want a string"},
        {"{\"metadata\":[]}", "metadata: want an object"},
        {"{\"metadata\":{\"labels\":[\"a\"]}}", "metadata.labels: want an object"},
        {"{\"metadata\":{\"labels\":{\"tier\":1}}}", "metadata.labels[\"tier\"]: want a string"},
        {"{\"spec\":{\"taints\":{}}}", "spec.taints: want an array"},
        {"{\"spec\":{\"taints\":[null]}}", "spec.taints[0]: want an object"},
        {"{\"spec\":{\"taints\":[{\"key\":\"a\",\"effect\":\"NoSchedule\"},{\"key\":7}]}}",
         "spec.taints[1].key: want a string"},
        {"{\"spec\":{\"taints\":[{\"key\":\"a\"}]}}",
         "spec.taints[0].effect: want NoSchedule, PreferNoSchedule or NoExecute, not \"\""},
        {"{\"spec\":{\"taints\":[{\"key\":\"a\",\"effect\":\"Sometimes\"}]}}",
         "spec.taints[0].effect: want NoSchedule, PreferNoSchedule or NoExecute, not "
         "\"Sometimes\""},
        {"{\"spec\":{\"unschedulable\":\"yes\"}}", "spec.unschedulable: want true or false"},
        {"{\"spec\":7}", "spec: want an object"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        ck_assert_int_eq(facts(cases[i].json, &f, err), -EINVAL);
        ck_assert_str_eq(err, cases[i].err);
    }
}
END_TEST

START_TEST(node_facts_strings_outlive_the_text)
{
    /* The facts are copies: the file's text is freed after decoding. */
    struct whatif_node_facts f;
    char err[ERR_LEN], text[] = "{\"metadata\":{\"labels\":{\"k\":\"v\"}},\"spec\":{\"taints\":["
                                "{\"key\":\"t\",\"value\":\"w\",\"effect\":\"NoSchedule\"}]}}";
    ck_assert_int_eq(facts(text, &f, err), 0);
    memset(text, 'x', sizeof(text) - 1);
    ck_assert_str_eq(f.labels[0].key, "k");
    ck_assert_str_eq(f.labels[0].value, "v");
    ck_assert_str_eq(f.taints[0].key, "t");
    ck_assert_str_eq(f.taints[0].value, "w");
}
END_TEST

START_TEST(nodelist_kind_is_the_lists_own)
{
    struct codec_args a;
    struct cfg c;
    const char *kind;
    char err[ERR_LEN];
    cfg_defaults(&c);
    const char *list = "{\"apiVersion\":\"v1\",\"kind\":\"PodList\",\"kind\":\"NodeList\","
                       "\"items\":[{\"kind\":\"Node\",\"metadata\":{\"name\":\"a\"}}]}";
    ck_assert_int_eq(codec_nodelist_decode(test_arena, list, strlen(list), &c, "f", &a, err), 0);
    ck_assert_int_eq(whatif_nodelist_kind(test_arena, &a, &kind, err), 0);
    ck_assert_str_eq(kind, "NodeList"); /* the last one */
    const char *none = "{\"items\":[]}";
    ck_assert_int_eq(codec_nodelist_decode(test_arena, none, strlen(none), &c, "f", &a, err), 0);
    ck_assert_int_eq(whatif_nodelist_kind(test_arena, &a, &kind, err), 0);
    ck_assert_str_eq(kind, "");
    const char *bad = "{\"Kind\":[],\"items\":[]}";
    ck_assert_int_eq(codec_nodelist_decode(test_arena, bad, strlen(bad), &c, "f", &a, err), 0);
    ck_assert_int_eq(whatif_nodelist_kind(test_arena, &a, &kind, err), -EINVAL);
    ck_assert_str_eq(err, "kind: want a string");
}
END_TEST

Suite *node_facts_suite(void)
{
    Suite *s = suite_create("node_facts");
    TCase *tc = tcase_create("node_facts");
    tcase_add_checked_fixture(tc, arena_fixture_setup, arena_fixture_teardown);
    tcase_add_test(tc, node_facts_reads_labels_taints_unschedulable);
    tcase_add_test(tc, node_facts_duplicates_read_as_go_reads_them);
    tcase_add_test(tc, node_facts_wrong_types_name_the_field);
    tcase_add_test(tc, node_facts_strings_outlive_the_text);
    tcase_add_test(tc, nodelist_kind_is_the_lists_own);
    suite_add_tcase(s, tc);
    return s;
}

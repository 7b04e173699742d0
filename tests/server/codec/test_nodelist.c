/*
 * server/codec/nodelist.c: what the scanner takes of a NodeList and what it
 * leaves. The values expected are those of the Node objects' own text read
 * by Go's rules (the last duplicate key wins, null is absent, names fold
 * case for struct fields but not for map keys such as annotations).
 */
#include "server/codec/nodelist.h"

#include <check.h>
#include <errno.h>
#include <string.h>

#include "base/arena.h"
#include "tests/suites.h"
#include "tests/support/arena_fixture.h"

#define MI (1024LL * 1024)

static int decode(const char *json, struct codec_args *a, char *err)
{
    struct cfg c;
    cfg_defaults(&c);
    return codec_nodelist_decode(test_arena, json, strlen(json), &c, "Nodes", a, err);
}

static int decode_max(const char *json, int max_nodes, struct codec_args *a, char *err)
{
    struct cfg c;
    cfg_defaults(&c);
    c.max_nodes = max_nodes;
    return codec_nodelist_decode(test_arena, json, strlen(json), &c, "Nodes", a, err);
}

static bool span_is(struct codec_span s, const char *text)
{
    return s.len == strlen(text) && memcmp(s.p, text, s.len) == 0;
}

START_TEST(nodelist_takes_what_scoring_reads)
{
    const char *n0 = "{\"metadata\":{\"name\":\"a\",\"annotations\":{\"cpu-extender.io/cpu-used\":"
                     "\" 1500m \"}},\"status\":{\"allocatable\":{\"cpu\":\"4\",\"memory\":\"2Gi\","
                     "\"pods\":\"110\"},\"images\":[{\"names\":[\"x\"],\"sizeBytes\":1}]}}";
    char doc[1024];
    struct codec_args a;
    char err[ERR_LEN];
    snprintf(doc, sizeof(doc),
             "{\"kind\":\"NodeList\",\"items\":[%s , {\"metadata\":{\"name\":"
             "\"b\"}}],\"apiVersion\":\"v1\"}",
             n0);
    ck_assert_int_eq(decode(doc, &a, err), 0);
    ck_assert_uint_eq(a.n_nodes, 2);
    ck_assert_str_eq(a.nodes[0].name, "a");
    ck_assert_int_eq(a.nodes[0].res.alloc[SCORE_CPU], 4000);
    ck_assert_int_eq(a.nodes[0].res.alloc[SCORE_MEMORY], 2048 * MI);
    ck_assert_int_eq(a.nodes[0].res.used[SCORE_CPU], 1500); /* trimmed, as UnmarshalJSON does */
    ck_assert_int_eq(a.nodes[0].pods, 110);
    ck_assert(span_is(a.nodes[0].json, n0));
    /* no allocatable at all: zero capacity, usable, pods unknown */
    ck_assert_ptr_null(a.nodes[1].invalid);
    ck_assert_int_eq(a.nodes[1].res.alloc[SCORE_CPU], 0);
    ck_assert_int_eq(a.nodes[1].pods, -1);
    ck_assert(span_is(a.nodes[1].json, "{\"metadata\":{\"name\":\"b\"}}"));
    /* the list's other members come back in order, "items" left out */
    ck_assert_uint_eq(a.n_list_members, 2);
    ck_assert(span_is(a.list_members[0].key, "\"kind\""));
    ck_assert(span_is(a.list_members[0].value, "\"NodeList\""));
    ck_assert(span_is(a.list_members[1].key, "\"apiVersion\""));
    ck_assert(span_is(a.list_members[1].value, "\"v1\""));
}
END_TEST

START_TEST(nodelist_duplicates_read_as_go_reads_them)
{
    struct codec_args a;
    char err[ERR_LEN];
    /* fields fold; a repeated struct or map merges; a map entry's last
     * value wins; "CPU" is another resource (map keys do not fold) */
    ck_assert_int_eq(
        decode("{\"items\":[{\"METADATA\":{\"name\":\"x\"},\"metadata\":{\"Name\":\"y\"},"
               "\"status\":{\"allocatable\":{\"cpu\":\"1\",\"CPU\":\"2\",\"memory\":\"1Ki\"}},"
               "\"Status\":{\"Allocatable\":{\"cpu\":\"3\"}}}]}",
               &a, err),
        0);
    ck_assert_uint_eq(a.n_nodes, 1);
    ck_assert_str_eq(a.nodes[0].name, "y");
    ck_assert_int_eq(a.nodes[0].res.alloc[SCORE_CPU], 3000);
    ck_assert_int_eq(a.nodes[0].res.alloc[SCORE_MEMORY], 1024);
    /* null leaves a struct and a string alone, and clears a map */
    ck_assert_int_eq(decode("{\"items\":[{\"metadata\":{\"name\":\"k\"},\"metadata\":null,"
                            "\"status\":{\"allocatable\":{\"cpu\":\"1\"}},"
                            "\"status\":{\"allocatable\":null},\"status\":null}]}",
                            &a, err),
                     0);
    ck_assert_str_eq(a.nodes[0].name, "k");
    ck_assert_int_eq(a.nodes[0].res.alloc[SCORE_CPU], 0);
    ck_assert_int_eq(decode("{\"items\":[{\"metadata\":{\"name\":\"k\",\"name\":null}}]}", &a, err),
                     0);
    ck_assert_str_eq(a.nodes[0].name, "k");
    /* a wrong type is remembered even when a later value is right */
    ck_assert_int_eq(decode("{\"items\":[{\"metadata\":{\"name\":\"k\"},\"status\":5,"
                            "\"status\":{}}]}",
                            &a, err),
                     0);
    ck_assert_str_eq(a.nodes[0].invalid, "invalid node status");
    /* a second list would be merged into the first node by node: refused;
     * after a null it is just the list */
    ck_assert_int_eq(
        decode("{\"items\":[{\"metadata\":{\"name\":\"p\"}}],\"items\":[{}]}", &a, err), -EINVAL);
    ck_assert_str_eq(err, "Nodes.items: given twice");
    /* either list empty: what Go reads is the second */
    ck_assert_int_eq(decode("{\"items\":[{\"metadata\":{\"name\":\"p\"}}],\"items\":[]}", &a, err),
                     0);
    ck_assert_uint_eq(a.n_nodes, 0);
    ck_assert_int_eq(decode("{\"items\":[{\"metadata\":{\"name\":\"p\"}}],\"items\":null,"
                            "\"items\":[{\"metadata\":{\"name\":\"r\"}}]}",
                            &a, err),
                     0);
    ck_assert_uint_eq(a.n_nodes, 1);
    ck_assert_str_eq(a.nodes[0].name, "r");
    ck_assert_int_eq(decode("{\"items\":null}", &a, err), 0);
    ck_assert_uint_eq(a.n_nodes, 0);
}
END_TEST

START_TEST(nodelist_quantities_as_unmarshaljson_reads_them)
{
    struct codec_args a;
    char err[ERR_LEN];
    /* strings.TrimSpace: ASCII and Unicode white space (U+00A0, U+3000) */
    ck_assert_int_eq(decode("{\"items\":[{\"metadata\":{\"name\":\"a\"},\"status\":{"
                            "\"allocatable\":{\"cpu\":\" \xc2\xa0"
                            "2\xe3\x80\x80 \"}}}]}",
                            &a, err),
                     0);
    ck_assert_ptr_null(a.nodes[0].invalid);
    ck_assert_int_eq(a.nodes[0].res.alloc[SCORE_CPU], 2000);
    /* the bytes as they stand: an escape is no quantity */
    ck_assert_int_eq(decode("{\"items\":[{\"metadata\":{\"name\":\"a\"},\"status\":{"
                            "\"allocatable\":{\"cpu\":\"\\u0031\"}}}]}",
                            &a, err),
                     0);
    ck_assert_str_eq(a.nodes[0].invalid, "invalid allocatable cpu");
}
END_TEST

START_TEST(nodelist_annotation_keys_do_not_fold)
{
    struct codec_args a;
    char err[ERR_LEN];
    ck_assert_int_eq(decode("{\"items\":[{\"metadata\":{\"name\":\"a\",\"annotations\":"
                            "{\"CPU-extender.io/cpu-used\":\"1\"}},\"status\":{\"allocatable\":"
                            "{\"cpu\":\"2\"}}}]}",
                            &a, err),
                     0);
    ck_assert_int_eq(a.nodes[0].res.used[SCORE_CPU], 0);
}
END_TEST

START_TEST(nodelist_bad_capacity_stays_on_the_node)
{
    static const struct {
        const char *node, *invalid;
    } rows[] = {
        {"\"status\":[]", "invalid node status"},
        {"\"status\":{\"allocatable\":\"4\"}", "invalid allocatable"},
        {"\"status\":{\"allocatable\":{\"cpu\":4}}", "invalid allocatable cpu"},
        {"\"status\":{\"allocatable\":{\"cpu\":\"-1\"}}", "invalid allocatable cpu"},
        {"\"status\":{\"allocatable\":{\"memory\":\"1K\"}}", "invalid allocatable memory"},
        {"\"status\":{\"allocatable\":{\"cpu\":\"\\u0031\"}}", "invalid allocatable cpu"},
    };
    char doc[512];
    struct codec_args a;
    char err[ERR_LEN];
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        snprintf(doc, sizeof(doc), "{\"items\":[{\"metadata\":{\"name\":\"a\"},%s}]}",
                 rows[i].node);
        ck_assert_msg(decode(doc, &a, err) == 0, "%s: %s", doc, err);
        ck_assert_ptr_nonnull(a.nodes[0].invalid);
        ck_assert_msg(strcmp(a.nodes[0].invalid, rows[i].invalid) == 0, "%s: %s", doc,
                      a.nodes[0].invalid);
    }
    /* an unusable pods count is unknown, not a fault */
    ck_assert_int_eq(
        decode("{\"items\":[{\"metadata\":{\"name\":\"a\"},\"status\":{\"allocatable\":"
               "{\"pods\":\"x\"}}}]}",
               &a, err),
        0);
    ck_assert_ptr_null(a.nodes[0].invalid);
    ck_assert_int_eq(a.nodes[0].pods, -1);
}
END_TEST

START_TEST(nodelist_request_faults)
{
    struct codec_args a;
    char err[ERR_LEN];
    ck_assert_int_eq(
        decode("{\"items\":[{\"metadata\":{\"name\":\"a\"}},{\"metadata\":{}}]}", &a, err),
        -EINVAL);
    ck_assert_str_eq(err, "Nodes.items[1]: node without a metadata.name string");
    ck_assert_int_eq(decode("{\"items\":[{\"metadata\":{\"name\":\"\"}}]}", &a, err), -EINVAL);
    ck_assert_int_eq(decode("{\"items\":{}}", &a, err), -EINVAL);
    ck_assert_str_eq(err, "Nodes.items: want an array");
    ck_assert_int_eq(decode("[]", &a, err), -EINVAL);
    ck_assert_str_eq(err, "Nodes: want a NodeList object");
    /* a malformed body further on is the answer, not the earlier fault */
    ck_assert_int_eq(decode("{\"items\":[{}], \"x\":01}", &a, err), -EINVAL);
    ck_assert_ptr_nonnull(strstr(err, "malformed JSON at byte"));
    /* past max-nodes: counted, validated, refused; it wins over a faulty node */
    ck_assert_int_eq(decode_max("{\"items\":[{},{},{}]}", 2, &a, err), -E2BIG);
    ck_assert_str_eq(err, "3 nodes, more than max-nodes (2)");
    ck_assert_int_eq(decode_max("{\"items\":[{},{},[01]]}", 2, &a, err), -EINVAL);
    ck_assert_ptr_nonnull(strstr(err, "malformed JSON"));
}
END_TEST

START_TEST(nodelist_bare_node)
{
    struct codec_args a;
    char err[ERR_LEN];
    const char *node = "{\"kind\":\"Node\",\"metadata\":{\"name\":\"solo\"},\"status\":{"
                       "\"allocatable\":{\"cpu\":\"2\"}}}";
    ck_assert_int_eq(decode(node, &a, err), 0);
    ck_assert_uint_eq(a.n_nodes, 1);
    ck_assert_str_eq(a.nodes[0].name, "solo");
    ck_assert_int_eq(a.nodes[0].res.alloc[SCORE_CPU], 2000);
    ck_assert(span_is(a.nodes[0].json, node));
    ck_assert_int_eq(decode("{\"kind\":\"Node\"}", &a, err), -EINVAL);
    ck_assert_str_eq(err, "Nodes: node without a metadata.name string");
}
END_TEST

START_TEST(names_scan_reads_strings)
{
    struct codec_scan s;
    struct codec_fault f = {0};
    struct codec_args a;
    struct cfg c;
    const char *doc = "[\"a\", \"b\\u00e9\"]";
    cfg_defaults(&c);
    memset(&a, 0, sizeof(a));
    codec_scan_init(&s, doc, strlen(doc));
    ck_assert_int_eq(codec_names_scan(test_arena, &s, &c, &a, &f), 0);
    ck_assert_int_eq(f.rc, 0);
    ck_assert(a.node_names_mode);
    ck_assert_uint_eq(a.n_nodes, 2);
    ck_assert_str_eq(a.nodes[1].name, "b\xc3\xa9");
    doc = "[\"a\", 5]";
    codec_scan_init(&s, doc, strlen(doc));
    ck_assert_int_eq(codec_names_scan(test_arena, &s, &c, &a, &f), 0);
    ck_assert_int_eq(f.rc, -EINVAL);
    ck_assert_str_eq(f.err, "NodeNames[1]: want a string");
}
END_TEST

Suite *nodelist_suite(void)
{
    Suite *s = suite_create("nodelist");
    TCase *tc = tcase_create("nodelist");
    tcase_add_checked_fixture(tc, arena_fixture_setup, arena_fixture_teardown);
    tcase_add_test(tc, nodelist_takes_what_scoring_reads);
    tcase_add_test(tc, nodelist_duplicates_read_as_go_reads_them);
    tcase_add_test(tc, nodelist_quantities_as_unmarshaljson_reads_them);
    tcase_add_test(tc, nodelist_annotation_keys_do_not_fold);
    tcase_add_test(tc, nodelist_bad_capacity_stays_on_the_node);
    tcase_add_test(tc, nodelist_request_faults);
    tcase_add_test(tc, nodelist_bare_node);
    tcase_add_test(tc, names_scan_reads_strings);
    suite_add_tcase(s, tc);
    return s;
}

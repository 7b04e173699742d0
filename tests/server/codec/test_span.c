/* server/codec/span.c: byte spans in accepted JSON, what the filter answer copies. */
#include "server/codec/span.h"

#include <string.h>

#include "tests/suites.h"

static struct codec_span span(const char *s)
{
    return codec_span_root(s, strlen(s));
}

static int span_is(struct codec_span s, const char *text)
{
    return s.len == strlen(text) && memcmp(s.p, text, s.len) == 0;
}

START_TEST(jspan_root_trims_space)
{
    ck_assert(span_is(span("  {\"a\":1} \n"), "{\"a\":1}"));
    ck_assert(span_is(span("\t[1, 2]"), "[1, 2]"));
}
END_TEST

START_TEST(jspan_strings_hide_brackets_and_escaped_quotes)
{
    struct codec_span v;
    const char *doc = "{\"a\":\"}]\\\"{[\\\\\",\"b\":{\"c\":\"]\"},\"d\":[{\"e\":\"\\\\\"}]}";
    ck_assert(codec_span_member(span(doc), "b", false, &v));
    ck_assert(span_is(v, "{\"c\":\"]\"}"));
    ck_assert(codec_span_member(span(doc), "d", false, &v));
    ck_assert(span_is(v, "[{\"e\":\"\\\\\"}]"));
    ck_assert(codec_span_member(span(doc), "a", false, &v));
    ck_assert(span_is(v, "\"}]\\\"{[\\\\\""));
}
END_TEST

START_TEST(jspan_member_last_wins_and_folds_case_when_asked)
{
    struct codec_span v;
    const char *doc = "{\"Nodes\":1,\"nodes\":2,\"NODES\":3,\"Other\":4}";
    ck_assert(codec_span_member(span(doc), "Nodes", true, &v));
    ck_assert(span_is(v, "3"));
    ck_assert(codec_span_member(span(doc), "Nodes", false, &v));
    ck_assert(span_is(v, "1"));
    ck_assert(!codec_span_member(span(doc), "items", false, &v));
    ck_assert(!codec_span_member(span("[1]"), "a", false, &v));
}
END_TEST

START_TEST(jspan_keys_are_compared_unescaped)
{
    struct codec_span v;
    ck_assert(codec_span_member(span("{\"\\u004eodes\":7}"), "Nodes", false, &v));
    ck_assert(span_is(v, "7"));
    ck_assert(codec_span_member(span("{\"it\\u0065ms\":[]}"), "items", false, &v));
    ck_assert(!codec_span_member(span("{\"items\\u00e9\":[]}"), "items", false, &v));
    ck_assert(!codec_span_member(span("{\"item\":[]}"), "items", false, &v));
}
END_TEST

/* The elements of "items" as the filter answer copies them: any value,
 * brackets and commas inside strings hidden, counted past the room. */
START_TEST(jspan_node_list_elements_of_any_kind)
{
    struct codec_span el[4];
    struct codec_node_list_spans s = {.elements = el, .max_elements = 4};
    const char *doc = "{\"Nodes\":{\"items\":[ {\"a\":[1,2]} , \"x,]\" ,3,null ]}}";
    codec_span_node_list(doc, strlen(doc), &s);
    ck_assert(s.found);
    ck_assert_uint_eq(s.n_elements, 4);
    ck_assert(span_is(el[0], "{\"a\":[1,2]}"));
    ck_assert(span_is(el[1], "\"x,]\""));
    ck_assert(span_is(el[2], "3"));
    ck_assert(span_is(el[3], "null"));
    const char *empty = "{\"Nodes\":{\"items\":[]}}";
    codec_span_node_list(empty, strlen(empty), &s);
    ck_assert_uint_eq(s.n_elements, 0);
    const char *six = "{\"Nodes\":{\"items\":[1,2,3,4,5,6]}}";
    codec_span_node_list(six, strlen(six), &s);
    ck_assert_uint_eq(s.n_elements, 6); /* counted past the room */
}
END_TEST

START_TEST(jspan_node_list_takes_the_last_nodes_and_items)
{
    struct codec_span el[4];
    struct codec_node_list_spans s = {.elements = el, .max_elements = 4};
    const char *doc =
        "{\"Pod\":{},\"Nodes\":{\"items\":[1]},\"nodes\":{\"metadata\":{\"x\":1},"
        "\"items\":[9,9,9],\"items\":[{\"n\":\"a\"},{\"n\":\"b\"}]},\"NodeNames\":null}";
    codec_span_node_list(doc, strlen(doc), &s);
    ck_assert(s.found);
    ck_assert_uint_eq(s.n_elements, 2);
    ck_assert(span_is(el[1], "{\"n\":\"b\"}"));
    ck_assert_uint_eq(s.n_members, 1);
    ck_assert(span_is(s.keys[0], "\"metadata\""));
    ck_assert(span_is(s.values[0], "{\"x\":1}"));

    const char *last_not_object = "{\"Nodes\":{\"items\":[1]},\"Nodes\":null}";
    codec_span_node_list(last_not_object, strlen(last_not_object), &s);
    ck_assert(!s.found);
}
END_TEST

Suite *span_suite(void)
{
    Suite *s = suite_create("span");
    TCase *tc = tcase_create("span");
    tcase_add_test(tc, jspan_root_trims_space);
    tcase_add_test(tc, jspan_strings_hide_brackets_and_escaped_quotes);
    tcase_add_test(tc, jspan_member_last_wins_and_folds_case_when_asked);
    tcase_add_test(tc, jspan_keys_are_compared_unescaped);
    tcase_add_test(tc, jspan_node_list_elements_of_any_kind);
    tcase_add_test(tc, jspan_node_list_takes_the_last_nodes_and_items);
    suite_add_tcase(s, tc);
    return s;
}

/* The verbs in-process: answer shapes the HTTP tests do not pin down. */
#include "server/verbs.h"

#include <string.h>

#include "server/arena.h"
#include "tests/suites.h"

static struct arena *arena;

static void arena_setup(void)
{
    arena = arena_acquire();
}

static void arena_teardown(void)
{
    arena_release(arena);
    arena_pool_drain();
}

static void run(void (*verb)(const struct cfg *, const char *, size_t, struct verb_reply *),
                const char *body, struct verb_reply *out)
{
    static struct cfg c;
    cfg_defaults(&c);
    verb(&c, body, strlen(body), out);
}

START_TEST(verbs_error_never_carries_percent)
{
    struct verb_reply r;
    srv_verb_error(400, "100% used", &r);
    ck_assert_int_eq(r.status, 400);
    ck_assert_str_eq(r.body, "{\"Error\":\"100# used\"}");
}
END_TEST

START_TEST(verbs_filter_keeps_nodelist_metadata_and_drops_duplicates)
{
    struct verb_reply r;
    run(srv_filter,
        "{\"Pod\":{},\"Nodes\":{\"metadata\":{\"resourceVersion\":\"7\"},\"items\":[],"
        "\"items\":[{\"metadata\":{\"name\":\"a\"},\"status\":{\"allocatable\":{\"cpu\":\"1\"}}}]},"
        "\"NodeNames\":null}",
        &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.body, "{\"Nodes\":{\"metadata\":{\"resourceVersion\":\"7\"},\"items\":"
                             "[{\"metadata\":{\"name\":\"a\"},\"status\":{\"allocatable\":"
                             "{\"cpu\":\"1\"}}}]},\"NodeNames\":null,\"FailedNodes\":{},"
                             "\"FailedAndUnresolvableNodes\":{},\"Error\":\"\"}");
}
END_TEST

START_TEST(verbs_filter_without_nodelist_metadata_adds_empty_one)
{
    struct verb_reply r;
    run(srv_filter, "{\"Pod\":{},\"Nodes\":{\"items\":[]}}", &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.body,
                     "{\"Nodes\":{\"items\":[],\"metadata\":{}},\"NodeNames\":null,"
                     "\"FailedNodes\":{},\"FailedAndUnresolvableNodes\":{},\"Error\":\"\"}");
}
END_TEST

START_TEST(verbs_prioritize_answers_every_input_node_once)
{
    struct verb_reply r;
    run(srv_prioritize, "{\"Pod\":{},\"NodeNames\":[\"b\",\"a\",\"c\"]}", &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.body, "[{\"Host\":\"b\",\"Score\":0},{\"Host\":\"a\",\"Score\":0},"
                             "{\"Host\":\"c\",\"Score\":0}]");
    run(srv_prioritize, "{\"Pod\":{},\"NodeNames\":[]}", &r);
    ck_assert_str_eq(r.body, "[]");
}
END_TEST

Suite *verbs_suite(void)
{
    Suite *s = suite_create("verbs");
    TCase *tc = tcase_create("verbs");
    tcase_add_checked_fixture(tc, arena_setup, arena_teardown);
    tcase_add_test(tc, verbs_error_never_carries_percent);
    tcase_add_test(tc, verbs_filter_keeps_nodelist_metadata_and_drops_duplicates);
    tcase_add_test(tc, verbs_filter_without_nodelist_metadata_adds_empty_one);
    tcase_add_test(tc, verbs_prioritize_answers_every_input_node_once);
    suite_add_tcase(s, tc);
    return s;
}

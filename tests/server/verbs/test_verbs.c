/* The verbs in-process: answer shapes the HTTP tests do not pin down. */
#include "server/verbs/context.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/arena.h"
#include "server/verbs/bind.h"
#include "server/verbs/filter.h"
#include "server/verbs/preempt.h"
#include "server/verbs/prioritize.h"
#include "server/verbs/reply.h"
#include "tests/suites.h"
#include "tests/support/arena_fixture.h"
#include "tests/support/reply_join.h"

/* The answer of the last reply looked at, joined (the server sends its
 * pieces as they are). */
static char *joined;

static const char *body_of(const struct verb_reply *r)
{
    free(joined);
    joined = reply_join(r, NULL);
    ck_assert_ptr_nonnull(joined);
    return joined;
}

static void drop_body(void)
{
    free(joined);
    joined = NULL;
}

static void run(void (*verb)(const struct verb_ctx *, const char *, size_t, struct verb_reply *),
                const char *body, struct verb_reply *out)
{
    static struct cfg c;
    cfg_defaults(&c);
    const struct verb_ctx ctx = {.cfg = &c, .arena = test_arena};
    verb(&ctx, body, strlen(body), out);
}

START_TEST(verbs_error_never_carries_percent)
{
    struct verb_reply r;
    verb_reply_init(&r);
    verb_reply_error(&r, test_arena, 400, "100% used \"quoted\"");
    ck_assert_int_eq(r.status, 400);
    ck_assert_str_eq(body_of(&r), "{\"Error\":\"100# used \\\"quoted\\\"\"}\n");
    drop_body();
}
END_TEST

START_TEST(verbs_filter_keeps_nodelist_metadata_and_drops_duplicates)
{
    struct verb_reply r;
    run(verb_filter,
        "{\"Pod\":{},\"Nodes\":{\"metadata\":{\"resourceVersion\":\"7\"},\"items\":[],"
        "\"items\":[{\"metadata\":{\"name\":\"a\"},\"status\":{\"allocatable\":{\"cpu\":\"1\"}}}]},"
        "\"NodeNames\":null}",
        &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(body_of(&r), "{\"Nodes\":{\"metadata\":{\"resourceVersion\":\"7\"},\"items\":"
                                  "[{\"metadata\":{\"name\":\"a\"},\"status\":{\"allocatable\":"
                                  "{\"cpu\":\"1\"}}}]},\"NodeNames\":null,\"FailedNodes\":{},"
                                  "\"FailedAndUnresolvableNodes\":{},\"Error\":\"\"}\n");
    drop_body();
}
END_TEST

/* "Nodes" twice: Go decodes the second into the first, so the first's
 * metadata stays and the items are the second's; the answer sends both
 * members back, which kube-scheduler reads the same way. */
START_TEST(verbs_filter_repeated_nodes_merge_as_go_reads_them)
{
    struct verb_reply r;
    run(verb_filter,
        "{\"Pod\":{},\"Nodes\":{\"metadata\":{\"resourceVersion\":\"7\"},\"items\":[]},"
        "\"nodes\":{\"kind\":\"NodeList\",\"items\":[{\"metadata\":{\"name\":\"a\"}}]}}",
        &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(body_of(&r), "{\"Nodes\":{\"metadata\":{\"resourceVersion\":\"7\"},\"kind\":"
                                  "\"NodeList\",\"items\":[{\"metadata\":{\"name\":\"a\"}}]},"
                                  "\"NodeNames\":null,\"FailedNodes\":{},"
                                  "\"FailedAndUnresolvableNodes\":{},\"Error\":\"\"}\n");
    drop_body();
    run(verb_filter,
        "{\"Pod\":{},\"Nodes\":{\"items\":[{\"metadata\":{\"name\":\"a\"}}]},\"Nodes\":null,"
        "\"Nodes\":{\"items\":[{\"metadata\":{\"name\":\"b\"}}]}}",
        &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_nonnull(strstr(body_of(&r), "\"name\":\"b\""));
    ck_assert_ptr_null(strstr(body_of(&r), "\"name\":\"a\""));
    drop_body();
}
END_TEST

START_TEST(verbs_filter_without_nodelist_metadata_adds_empty_one)
{
    struct verb_reply r;
    run(verb_filter, "{\"Pod\":{},\"Nodes\":{\"items\":[]}}", &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(body_of(&r),
                     "{\"Nodes\":{\"metadata\":{},\"items\":[]},\"NodeNames\":null,"
                     "\"FailedNodes\":{},\"FailedAndUnresolvableNodes\":{},\"Error\":\"\"}\n");
    drop_body();
}
END_TEST

START_TEST(verbs_prioritize_answers_every_input_node_once)
{
    struct verb_reply r;
    run(verb_prioritize, "{\"Pod\":{},\"NodeNames\":[\"b\",\"a\",\"c\"]}", &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(body_of(&r), "[{\"Host\":\"b\",\"Score\":0},{\"Host\":\"a\",\"Score\":0},"
                                  "{\"Host\":\"c\",\"Score\":0}]\n");
    drop_body();
    run(verb_prioritize, "{\"Pod\":{},\"NodeNames\":[]}", &r);
    ck_assert_str_eq(body_of(&r), "[]\n");
    drop_body();
}
END_TEST

/* Passing nodes go back byte for byte: a number cJSON would print as a
 * double, spacing and escapes survive. */
START_TEST(verbs_filter_echoes_node_bytes_exactly)
{
    struct verb_reply r;
    const char *node = "{ \"metadata\" : {\"name\":\"a\", \"generation\": 9007199254740993},"
                       "\"status\":{\"allocatable\":{\"cpu\":\"1\"}},\"x\":\"\\u003c\\/\"}";
    char body[512], want[512];
    snprintf(body, sizeof(body), "{\"Pod\":{},\"Nodes\":{\"items\":[ %s ]}}", node);
    snprintf(want, sizeof(want),
             "{\"Nodes\":{\"metadata\":{},\"items\":[%s]},\"NodeNames\":null,"
             "\"FailedNodes\":{},\"FailedAndUnresolvableNodes\":{},\"Error\":\"\"}\n",
             node);
    run(verb_filter, body, &r);
    ck_assert_str_eq(body_of(&r), want);
    drop_body();
}
END_TEST

/* Many duplicate "items" keys: linear work (a quadratic removal once made
 * a 640 KB body take 6 s). */
START_TEST(verbs_filter_many_duplicate_items_keys_are_cheap)
{
    struct verb_reply r;
    size_t n = 40000, len = 0;
    char *body = malloc(n * 20 + 64);
    len += (size_t)sprintf(body, "{\"Pod\":{},\"Nodes\":{");
    for (size_t i = 0; i < n; i++)
        len += (size_t)sprintf(body + len, "\"items\":0,");
    len += (size_t)sprintf(body + len, "\"items\":[]}}");
    struct cfg c;
    cfg_defaults(&c);
    const struct verb_ctx ctx = {.cfg = &c, .arena = test_arena};
    verb_filter(&ctx, body, len, &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_nonnull(strstr(body_of(&r), "\"items\":[]},\"NodeNames\":null"));
    drop_body();
    free(body);
}
END_TEST

/* A NodeList with more members than the single pass records: the answer
 * still copies every one of them (the second-pass path). */
START_TEST(verbs_filter_copies_many_nodelist_members)
{
    struct verb_reply r;
    char body[2048];
    size_t b = 0;
    b += (size_t)snprintf(body + b, sizeof(body) - b, "{\"Pod\":{},\"Nodes\":{");
    for (int i = 0; i < 20; i++)
        b += (size_t)snprintf(body + b, sizeof(body) - b, "\"k%d\":%d,", i, i);
    snprintf(body + b, sizeof(body) - b, "\"items\":[{\"metadata\":{\"name\":\"a\"}}]}}");
    run(verb_filter, body, &r);
    ck_assert_int_eq(r.status, 200);
    for (int i = 0; i < 20; i++) {
        char member[32];
        snprintf(member, sizeof(member), "\"k%d\":%d,", i, i);
        ck_assert_ptr_nonnull(strstr(body_of(&r), member));
    }
    /* the pod requests nothing, so the node passes and comes back as sent */
    ck_assert_ptr_nonnull(
        strstr(body_of(&r), "\"metadata\":{},\"items\":[{\"metadata\":{\"name\":\"a\"}}]}"));
    drop_body();
}
END_TEST

/* Bind answers success through its own writer, not as an empty error. */
START_TEST(verbs_bind_without_cluster_fails_honestly)
{
    struct verb_reply r;
    run(verb_bind, "{\"PodName\":\"p\",\"PodNamespace\":\"default\",\"Node\":\"n\"}", &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_nonnull(strstr(body_of(&r), "no cluster connection"));
    ck_assert_ptr_nonnull(strstr(r.error, "no cluster connection"));
    drop_body();
}
END_TEST

/* The request memory runs out while decoding: 500 "out of memory", not a 400. */
START_TEST(verbs_out_of_memory_is_a_500)
{
    struct verb_reply r;
    arena_set_limit(test_arena, 1024);
    char body[4096];
    int n = snprintf(body, sizeof(body), "{\"Pod\":{},\"NodeNames\":[");
    for (int i = 0; i < 300; i++)
        n += snprintf(body + n, sizeof(body) - (size_t)n, "%s\"n%d\"", i ? "," : "", i);
    snprintf(body + n, sizeof(body) - (size_t)n, "]}");
    run(verb_prioritize, body, &r);
    ck_assert_int_eq(r.status, 500);
    ck_assert_str_eq(body_of(&r), "{\"Error\":\"out of memory\"}\n");
    drop_body();
}
END_TEST

/* ExtenderPreemptionArgs by UID with @n candidates named by @len bytes
 * each (unique in their last 8), one victim each. */
static char *preempt_names(size_t n, size_t len, size_t *out_len)
{
    char *b = malloc(n * (len + 64) + 128);
    size_t w = (size_t)sprintf(b, "{\"Pod\":{\"metadata\":{\"name\":\"p\"}},"
                                  "\"NodeNameToMetaVictims\":{");
    for (size_t i = 0; i < n; i++) {
        if (i)
            b[w++] = ',';
        b[w++] = '"';
        memset(b + w, 'x', len - 8);
        w += len - 8;
        w += (size_t)sprintf(
            b + w, "%08zu\":{\"Pods\":[{\"UID\":\"v-%zu\"}],\"NumPDBViolations\":0}", i, i);
    }
    w += (size_t)sprintf(b + w, "}}");
    *out_len = w;
    return b;
}

/* The least CPU time of three preempt calls on @body. */
static double preempt_cpu(const char *body, size_t len, struct verb_reply *r)
{
    struct cfg c;
    double best = 1e9;
    cfg_defaults(&c);
    for (int k = 0; k < 3; k++) {
        struct arena *a = arena_acquire();
        const struct verb_ctx ctx = {.cfg = &c, .arena = a};
        struct timespec t0, t1;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
        verb_preempt(&ctx, body, len, r);
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
        ck_assert_int_eq(r->status, 200);
        ck_assert_uint_gt(r->len, len / 2);
        arena_release(a);
        double t = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
        best = t < best ? t : best;
    }
    return best;
}

/* Names of 8000 bytes, candidates that differ only in their last bytes:
 * four times the candidates cost about four times the CPU (a duplicate
 * check by strcmp over all earlier keys once made 10 000 of them take
 * 20 s; sixteen times would be quadratic). CPU time, not wall: the load of
 * a shared machine does not count. */
START_TEST(verbs_preempt_is_linear_in_its_candidates)
{
    size_t small_len, big_len;
    struct verb_reply r;
    char *small = preempt_names(1250, 8000, &small_len);
    char *big = preempt_names(5000, 8000, &big_len);
    double ts = preempt_cpu(small, small_len, &r), tb = preempt_cpu(big, big_len, &r);
    ck_assert_msg(tb < 8 * ts, "1250 candidates: %.3f s, 5000: %.3f s (%.1f x)", ts, tb, tb / ts);
    free(small);
    free(big);
}
END_TEST

Suite *verbs_suite(void)
{
    Suite *s = suite_create("verbs");
    TCase *tc = tcase_create("verbs");
    tcase_add_checked_fixture(tc, arena_fixture_setup, arena_fixture_teardown);
    tcase_add_test(tc, verbs_error_never_carries_percent);
    tcase_add_test(tc, verbs_filter_keeps_nodelist_metadata_and_drops_duplicates);
    tcase_add_test(tc, verbs_filter_repeated_nodes_merge_as_go_reads_them);
    tcase_add_test(tc, verbs_filter_without_nodelist_metadata_adds_empty_one);
    tcase_add_test(tc, verbs_prioritize_answers_every_input_node_once);
    tcase_add_test(tc, verbs_filter_echoes_node_bytes_exactly);
    tcase_add_test(tc, verbs_filter_many_duplicate_items_keys_are_cheap);
    tcase_add_test(tc, verbs_filter_copies_many_nodelist_members);
    tcase_add_test(tc, verbs_bind_without_cluster_fails_honestly);
    tcase_add_test(tc, verbs_out_of_memory_is_a_500);
    tcase_add_test(tc, verbs_preempt_is_linear_in_its_candidates);
    suite_add_tcase(s, tc);
    return s;
}

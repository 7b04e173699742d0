/* scoring/used.c: which used value each source and stale policy yields. */
#include <check.h>
#include <stdint.h>

#include "scoring/used.h"
#include "tests/suites.h"

/* A node with 3 cores requested (3.2 with defaults), 1.5 cores in use per
 * a 20 s old sample, and 500m placed since that sample's window began. */
static struct score_used_inputs inputs(void)
{
    struct score_used_inputs in = {
        .has_requests = true,
        .req_real = 3000,
        .req_non_zero = 3200,
        .req_age = 0,
        .has_usage = true,
        .usage = 1500,
        .usage_age = 20,
        .in_flight = 500,
        .annotation = 700,
    };
    return in;
}

static const struct score_used_limits limits = {300, 180, SCORE_STALE_REQUESTS};

START_TEST(used_requests_keeps_both_sums)
{
    struct score_used_inputs in = inputs();
    struct score_used u;
    score_used_resolve(SCORE_USED_REQUESTS, &in, &limits, &u);
    ck_assert_int_eq(u.outcome, SCORE_USED_FRESH);
    ck_assert_int_eq(u.used_real, 3000);
    ck_assert_int_eq(u.used_non_zero, 3200);
}
END_TEST

START_TEST(used_usage_adds_in_flight)
{
    struct score_used_inputs in = inputs();
    struct score_used u;
    score_used_resolve(SCORE_USED_USAGE, &in, &limits, &u);
    ck_assert_int_eq(u.outcome, SCORE_USED_FRESH);
    ck_assert_int_eq(u.source, SCORE_USED_USAGE);
    ck_assert_int_eq(u.used_real, 2000); /* 1500 + 500 */
    ck_assert_int_eq(u.used_non_zero, 2000);
}
END_TEST

START_TEST(used_max_takes_larger_per_view)
{
    struct score_used_inputs in = inputs();
    struct score_used u;
    score_used_resolve(SCORE_USED_MAX, &in, &limits, &u);
    ck_assert_int_eq(u.used_real, 3000);     /* max(3000, 2000) */
    ck_assert_int_eq(u.used_non_zero, 3200); /* max(3200, 2000) */
    in.usage = 3100;
    score_used_resolve(SCORE_USED_MAX, &in, &limits, &u);
    ck_assert_int_eq(u.used_real, 3600);     /* max(3000, 3600) */
    ck_assert_int_eq(u.used_non_zero, 3600); /* max(3200, 3600) */
}
END_TEST

START_TEST(used_annotation_is_the_node_word)
{
    struct score_used_inputs in = inputs();
    struct score_used u;
    score_used_resolve(SCORE_USED_ANNOTATION, &in, &limits, &u);
    ck_assert_int_eq(u.used_real, 700);
    ck_assert_int_eq(u.used_non_zero, 700);
    /* current with the Node object: never stale, whatever the other sources */
    struct score_used_limits full = {300, 180, SCORE_STALE_FULL};
    in.req_age = 1e9;
    in.has_usage = false;
    score_used_resolve(SCORE_USED_ANNOTATION, &in, &full, &u);
    ck_assert_int_eq(u.outcome, SCORE_USED_FRESH);
    ck_assert_int_eq(u.used_real, 700);
}
END_TEST

START_TEST(used_stale_usage_follows_policy)
{
    struct score_used_inputs in = inputs();
    struct score_used_limits lim = limits;
    struct score_used u;
    in.usage_age = 181; /* one second past the limit */
    score_used_resolve(SCORE_USED_USAGE, &in, &lim, &u);
    ck_assert_int_eq(u.outcome, SCORE_USED_FELL_BACK);
    ck_assert_int_eq(u.source, SCORE_USED_REQUESTS);
    ck_assert_int_eq(u.used_real, 3000);
    ck_assert_int_eq(u.used_non_zero, 3200);
    lim.policy = SCORE_STALE_FULL;
    score_used_resolve(SCORE_USED_USAGE, &in, &lim, &u);
    ck_assert_int_eq(u.outcome, SCORE_USED_STALE_FULL);
    lim.policy = SCORE_STALE_PASS;
    score_used_resolve(SCORE_USED_MAX, &in, &lim, &u);
    ck_assert_int_eq(u.outcome, SCORE_USED_STALE_PASS);
    in.usage_age = 180; /* exactly at the limit is still fresh */
    score_used_resolve(SCORE_USED_USAGE, &in, &lim, &u);
    ck_assert_int_eq(u.outcome, SCORE_USED_FRESH);
}
END_TEST

START_TEST(used_missing_sample_is_stale)
{
    struct score_used_inputs in = inputs();
    struct score_used u;
    in.has_usage = false;
    score_used_resolve(SCORE_USED_USAGE, &in, &limits, &u);
    ck_assert_int_eq(u.outcome, SCORE_USED_FELL_BACK);
    ck_assert_int_eq(u.used_real, 3000);
}
END_TEST

START_TEST(used_stale_requests_stand_in_or_pass)
{
    struct score_used_inputs in = inputs();
    struct score_used u;
    in.req_age = 301;
    /* requests are their own fallback: still the best known */
    score_used_resolve(SCORE_USED_REQUESTS, &in, &limits, &u);
    ck_assert_int_eq(u.outcome, SCORE_USED_FELL_BACK);
    ck_assert_int_eq(u.used_real, 3000);
    /* no pod list at all: nothing to fall back to */
    in.has_requests = false;
    score_used_resolve(SCORE_USED_REQUESTS, &in, &limits, &u);
    ck_assert_int_eq(u.outcome, SCORE_USED_STALE_PASS);
    /* max needs both */
    in = inputs();
    in.req_age = 301;
    struct score_used_limits full = {300, 180, SCORE_STALE_FULL};
    score_used_resolve(SCORE_USED_MAX, &in, &full, &u);
    ck_assert_int_eq(u.outcome, SCORE_USED_STALE_FULL);
    /* 0 means never stale */
    struct score_used_limits never = {0, 180, SCORE_STALE_FULL};
    in.req_age = 1e9;
    score_used_resolve(SCORE_USED_REQUESTS, &in, &never, &u);
    ck_assert_int_eq(u.outcome, SCORE_USED_FRESH);
}
END_TEST

START_TEST(used_sums_saturate)
{
    struct score_used_inputs in = inputs();
    struct score_used u;
    in.usage = INT64_MAX - 1;
    score_used_resolve(SCORE_USED_USAGE, &in, &limits, &u);
    ck_assert(u.used_real == INT64_MAX);
}
END_TEST

Suite *used_suite(void)
{
    Suite *s = suite_create("used");
    TCase *tc = tcase_create("used");
    tcase_add_test(tc, used_requests_keeps_both_sums);
    tcase_add_test(tc, used_usage_adds_in_flight);
    tcase_add_test(tc, used_max_takes_larger_per_view);
    tcase_add_test(tc, used_annotation_is_the_node_word);
    tcase_add_test(tc, used_stale_usage_follows_policy);
    tcase_add_test(tc, used_missing_sample_is_stale);
    tcase_add_test(tc, used_stale_requests_stand_in_or_pass);
    tcase_add_test(tc, used_sums_saturate);
    suite_add_tcase(s, tc);
    return s;
}

/*
 * scoring/usage_window.c: a window of usage samples into one usage, per
 * resource: latest, avg, max and percentiles as PromQL's
 * quantile_over_time takes them (linear between the nearest ranks), the
 * window measured from the newest sample; usageAggregation's two forms.
 */
#include "scoring/usage_window.h"

#include <check.h>
#include <string.h>

#include "tests/suites.h"

static int64_t agg1(const int64_t *cpu, size_t n, double window, enum score_usage_agg a,
                    size_t *held)
{
    struct score_usage_sample s[16] = {{0}};
    int64_t scratch[SCORE_USAGE_MAX_SAMPLES], out[SCORE_NRES];
    const enum score_usage_agg agg[SCORE_NRES] = {a, SCORE_AGG_LATEST};
    for (size_t i = 0; i < n; i++)
        s[i] = (struct score_usage_sample){.time = 100 + 10 * (double)i, .value = {cpu[i], 7}};
    *held = score_usage_aggregate(s, n, window, agg, out, scratch);
    ck_assert_int_eq(out[SCORE_MEMORY], n > 0 ? 7 : 0);
    return out[SCORE_CPU];
}

START_TEST(usage_window_aggregations)
{
    const int64_t v[] = {40, 10, 30, 20, 1000};
    size_t held;
    ck_assert_int_eq(agg1(v, 5, 0, SCORE_AGG_AVG, &held), 1000); /* window 0: newest alone */
    ck_assert_uint_eq(held, 1);
    ck_assert_int_eq(agg1(v, 5, 1000, SCORE_AGG_LATEST, &held), 1000);
    ck_assert_uint_eq(held, 5);
    ck_assert_int_eq(agg1(v, 5, 1000, SCORE_AGG_AVG, &held), 220);
    ck_assert_int_eq(agg1(v, 5, 1000, SCORE_AGG_MAX, &held), 1000);
    /* sorted 10 20 30 40 1000: p50 rank 2 -> 30; p90 rank 3.6 -> 40 + 960 x 0.6 */
    ck_assert_int_eq(agg1(v, 5, 1000, SCORE_AGG_P50, &held), 30);
    ck_assert_int_eq(agg1(v, 5, 1000, SCORE_AGG_P90, &held), 616);
    ck_assert_int_eq(agg1(v, 5, 1000, SCORE_AGG_P95, &held), 808);
    ck_assert_int_eq(agg1(v, 5, 1000, SCORE_AGG_P99, &held), 961); /* 40 + 960 x 0.96, cut */
    /* times 100..140; window 20 before 140 is (120, 140]: 20 and 1000 */
    ck_assert_int_eq(agg1(v, 5, 20, SCORE_AGG_AVG, &held), 510);
    ck_assert_uint_eq(held, 2);
    ck_assert_int_eq(agg1(v, 0, 20, SCORE_AGG_MAX, &held), 0);
    ck_assert_uint_eq(held, 0);
    const int64_t big[] = {INT64_MAX - 1, INT64_MAX};
    ck_assert_int_eq(agg1(big, 2, 1000, SCORE_AGG_AVG, &held), INT64_MAX - 1); /* no wrap */
    ck_assert_int_eq(agg1(big, 2, 1000, SCORE_AGG_P50, &held), INT64_MAX - 1);
}
END_TEST

START_TEST(usage_window_parse)
{
    enum score_usage_agg a[SCORE_NRES];
    ck_assert_int_eq(score_usage_agg_parse_list("p95", a), 0);
    ck_assert(a[SCORE_CPU] == SCORE_AGG_P95 && a[SCORE_MEMORY] == SCORE_AGG_P95);
    ck_assert_int_eq(score_usage_agg_parse_list("cpu=p90,memory=max", a), 0);
    ck_assert(a[SCORE_CPU] == SCORE_AGG_P90 && a[SCORE_MEMORY] == SCORE_AGG_MAX);
    ck_assert_int_eq(score_usage_agg_parse_list("memory=avg", a), 0);
    ck_assert(a[SCORE_CPU] == SCORE_AGG_LATEST && a[SCORE_MEMORY] == SCORE_AGG_AVG);
    static const char *const bad[] = {"",        "p80", "mean", "cpu=p90,", "cpu=p90,cpu=max",
                                      "gpu=max", "cpu", "cpu=", "=max",     "P90"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        ck_assert_msg(score_usage_agg_parse_list(bad[i], a) != 0, "%s", bad[i]);
    for (int i = SCORE_AGG_LATEST; i <= SCORE_AGG_P99; i++) {
        const char *name = score_usage_agg_name((enum score_usage_agg)i);
        ck_assert_int_eq(score_usage_agg_parse_list(name, a), 0);
        ck_assert_int_eq(a[SCORE_CPU], i);
        ck_assert_int_eq(a[SCORE_MEMORY], i);
    }
}
END_TEST

Suite *usage_window_suite(void)
{
    Suite *s = suite_create("usage_window");
    TCase *tc = tcase_create("usage_window");
    tcase_add_test(tc, usage_window_aggregations);
    tcase_add_test(tc, usage_window_parse);
    suite_add_tcase(s, tc);
    return s;
}

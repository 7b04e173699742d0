/* The filter rule: NodeResourcesFit for cpu and memory, with thresholds. */
#include "scoring/fit.h"

#include <string.h>

#include "tests/suites.h"

static const int full[SCORE_NRES] = {100, 100};

static struct score_node node(int64_t cpu_alloc, int64_t cpu_used, int64_t mem_alloc,
                              int64_t mem_used)
{
    struct score_node n = {.alloc = {cpu_alloc, mem_alloc}, .used = {cpu_used, mem_used}};
    return n;
}

START_TEST(fit_exactly_full_node_fits)
{
    char reason[SCORE_ERR_LEN];
    struct score_node n = node(4000, 3500, 1000, 0);
    const int64_t req[SCORE_NRES] = {500, 1000};
    ck_assert_int_eq(score_fit(full, &n, req, reason), SCORE_FITS);
    ck_assert_str_eq(reason, "");
}
END_TEST

START_TEST(fit_one_milli_over_is_unfit)
{
    char reason[SCORE_ERR_LEN];
    struct score_node n = node(4000, 3500, 1000, 0);
    const int64_t req[SCORE_NRES] = {501, 0};
    ck_assert_int_eq(score_fit(full, &n, req, reason), SCORE_UNFIT);
    ck_assert_str_eq(reason, "Insufficient cpu");
}
END_TEST

START_TEST(fit_request_above_allocatable_is_unresolvable)
{
    char reason[SCORE_ERR_LEN];
    struct score_node n = node(4000, 0, 1000, 0);
    const int64_t req[SCORE_NRES] = {4001, 0};
    ck_assert_int_eq(score_fit(full, &n, req, reason), SCORE_UNRESOLVABLE);
    ck_assert_str_eq(reason, "Insufficient cpu");
}
END_TEST

START_TEST(fit_both_resources_short_lists_both)
{
    char reason[SCORE_ERR_LEN];
    struct score_node n = node(1000, 900, 1000, 900);
    const int64_t req[SCORE_NRES] = {200, 2000};
    /* memory alone exceeds allocatable: the worse verdict wins */
    ck_assert_int_eq(score_fit(full, &n, req, reason), SCORE_UNRESOLVABLE);
    ck_assert_str_eq(reason, "Insufficient cpu, Insufficient memory");
    ck_assert_ptr_null(strchr(reason, '%'));
}
END_TEST

START_TEST(fit_zero_request_passes_overcommitted_node)
{
    /* kube-scheduler only checks resources the pod requests */
    char reason[SCORE_ERR_LEN];
    struct score_node n = node(1000, 5000, 1000, 5000);
    const int64_t req[SCORE_NRES] = {0, 0};
    ck_assert_int_eq(score_fit(full, &n, req, reason), SCORE_FITS);
}
END_TEST

START_TEST(fit_missing_allocatable_is_unresolvable)
{
    char reason[SCORE_ERR_LEN];
    struct score_node n = node(0, 0, 0, 0);
    const int64_t req[SCORE_NRES] = {1, 0};
    ck_assert_int_eq(score_fit(full, &n, req, reason), SCORE_UNRESOLVABLE);
}
END_TEST

START_TEST(fit_threshold_80_percent_boundaries)
{
    char reason[SCORE_ERR_LEN];
    const int eighty[SCORE_NRES] = {80, 100};
    struct score_node n = node(1000, 700, 1000, 0);
    const int64_t at[SCORE_NRES] = {100, 0};    /* 800 <= 80 % of 1000 */
    const int64_t over[SCORE_NRES] = {101, 0};  /* 801 > 800, request alone fits */
    const int64_t alone[SCORE_NRES] = {801, 0}; /* request alone > 800 */
    ck_assert_int_eq(score_fit(eighty, &n, at, reason), SCORE_FITS);
    ck_assert_int_eq(score_fit(eighty, &n, over, reason), SCORE_UNFIT);
    ck_assert_int_eq(score_fit(eighty, &n, alone, reason), SCORE_UNRESOLVABLE);
}
END_TEST

START_TEST(fit_huge_values_do_not_wrap)
{
    char reason[SCORE_ERR_LEN];
    struct score_node n = node(INT64_MAX, INT64_MAX, INT64_MAX, 0);
    const int64_t req[SCORE_NRES] = {INT64_MAX, 0};
    ck_assert_int_eq(score_fit(full, &n, req, reason), SCORE_UNFIT);
    struct score_node m = node(INT64_MAX, 0, INT64_MAX, 0);
    ck_assert_int_eq(score_fit(full, &m, req, reason), SCORE_FITS);
}
END_TEST

START_TEST(fit_mask_names_each_short_resource)
{
    /* cpu: 3500 + 600 = 4100 > 4000 (unfit: 600 <= 4000); memory: 0 + 2000 >
     * 1000 and the request alone is over (unresolvable): both bits. */
    enum score_verdict v;
    struct score_node n = node(4000, 3500, 1000, 0);
    const int64_t both[SCORE_NRES] = {600, 2000};
    const int64_t cpu_only[SCORE_NRES] = {600, 1000};
    const int64_t none[SCORE_NRES] = {500, 1000};
    ck_assert_uint_eq(score_fit_mask(full, &n, both, &v), (1u << SCORE_CPU) | (1u << SCORE_MEMORY));
    ck_assert_int_eq(v, SCORE_UNRESOLVABLE);
    ck_assert_uint_eq(score_fit_mask(full, &n, cpu_only, &v), 1u << SCORE_CPU);
    ck_assert_int_eq(v, SCORE_UNFIT);
    ck_assert_uint_eq(score_fit_mask(full, &n, none, &v), 0);
    ck_assert_int_eq(v, SCORE_FITS);
}
END_TEST

Suite *fit_suite(void)
{
    Suite *s = suite_create("fit");
    TCase *tc = tcase_create("fit");
    tcase_add_test(tc, fit_exactly_full_node_fits);
    tcase_add_test(tc, fit_one_milli_over_is_unfit);
    tcase_add_test(tc, fit_request_above_allocatable_is_unresolvable);
    tcase_add_test(tc, fit_both_resources_short_lists_both);
    tcase_add_test(tc, fit_zero_request_passes_overcommitted_node);
    tcase_add_test(tc, fit_missing_allocatable_is_unresolvable);
    tcase_add_test(tc, fit_threshold_80_percent_boundaries);
    tcase_add_test(tc, fit_huge_values_do_not_wrap);
    tcase_add_test(tc, fit_mask_names_each_short_resource);
    suite_add_tcase(s, tc);
    return s;
}

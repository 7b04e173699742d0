/* scoring/placement.c: the placement-quality gauge, worked by hand. */
#include <check.h>
#include <math.h>

#include "scoring/placement.h"
#include "tests/suites.h"

START_TEST(placement_cv_of_two_ratios)
{
    /* 1000/4000 = 0.25 and 3000/4000 = 0.75: mean 0.5, population std
     * 0.25, cv 0.5 */
    struct score_spread_sums s = {0};
    score_spread_add(&s, 1000, 4000);
    score_spread_add(&s, 3000, 4000);
    ck_assert_uint_eq(s.n, 2);
    ck_assert_double_eq_tol(score_spread_mean(&s), 0.5, 1e-12);
    ck_assert_double_eq_tol(score_spread_cv(&s), 0.5, 1e-12);
}
END_TEST

START_TEST(placement_cv_of_three_ratios)
{
    /* 0, 0.5, 1 (2 of 2 cores): mean 0.5, variance (0.25 + 0 + 0.25) / 3,
     * std sqrt(1/6) = 0.408248..., cv 0.816496... */
    struct score_spread_sums s = {0};
    score_spread_add(&s, 0, 8000);
    score_spread_add(&s, 2000, 4000);
    score_spread_add(&s, 2000, 2000);
    ck_assert_double_eq_tol(score_spread_cv(&s), sqrt(1.0 / 6.0) / 0.5, 1e-12);
}
END_TEST

START_TEST(placement_even_empty_and_unusable)
{
    struct score_spread_sums s = {0};
    ck_assert_double_eq(score_spread_cv(&s), 0); /* no nodes */
    ck_assert_double_eq(score_spread_mean(&s), 0);
    score_spread_add(&s, 0, 4000);
    score_spread_add(&s, 0, 8000);
    ck_assert_double_eq(score_spread_cv(&s), 0); /* nothing requested */
    score_spread_add(&s, 500, 0);                /* no allocatable: left out */
    ck_assert_uint_eq(s.n, 2);
    struct score_spread_sums even = {0};
    for (int i = 1; i <= 10; i++)
        score_spread_add(&even, 300 * i, 1000 * i); /* 0.3 everywhere */
    ck_assert_double_eq_tol(score_spread_cv(&even), 0, 1e-9);
    ck_assert_double_eq_tol(score_spread_mean(&even), 0.3, 1e-12);
}
END_TEST

Suite *placement_suite(void)
{
    Suite *s = suite_create("placement");
    TCase *tc = tcase_create("placement");
    tcase_add_test(tc, placement_cv_of_two_ratios);
    tcase_add_test(tc, placement_cv_of_three_ratios);
    tcase_add_test(tc, placement_even_empty_and_unusable);
    suite_add_tcase(s, tc);
    return s;
}

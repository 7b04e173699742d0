/* config/filter_need.c: when the filter verb decides something that
 * kube-scheduler's NodeResourcesFit does not. */
#include "config/filter_need.h"

#include <check.h>
#include <stdio.h>

#include "tests/suites.h"

START_TEST(filter_need_rules)
{
    struct cfg c;
    cfg_defaults(&c);
    /* the defaults, with cluster state: requests, 100 %: redundant */
    ck_assert_ptr_null(cfg_filter_need(&c, true));
    /* without a cluster the used annotations are what it judges by */
    ck_assert_str_eq(cfg_filter_need(&c, false),
                     "no cluster: the nodes' cpu used annotation is what the filter judges by");
    c.used_annotation[SCORE_CPU][0] = c.used_annotation[SCORE_MEMORY][0] = '\0';
    ck_assert_ptr_null(cfg_filter_need(&c, false));

    cfg_defaults(&c);
    c.score.threshold_percent[SCORE_MEMORY] = 99;
    ck_assert_str_eq(cfg_filter_need(&c, true), "memory threshold below 100 %");
    cfg_defaults(&c);
    c.used_source[SCORE_CPU] = SCORE_USED_USAGE;
    ck_assert_str_eq(cfg_filter_need(&c, true),
                     "cpu used from usage, max or an annotation, not requests");
    cfg_defaults(&c);
    c.stale_policy = SCORE_STALE_FULL;
    ck_assert_ptr_nonnull(cfg_filter_need(&c, true));
    c.stale_policy = SCORE_STALE_PASS; /* passes the stale node: nothing rejected */
    ck_assert_ptr_null(cfg_filter_need(&c, true));
    /* shadow and passthrough pass every node, whatever the thresholds */
    c.score.threshold_percent[SCORE_CPU] = 50;
    c.mode = CFG_MODE_SHADOW;
    ck_assert_ptr_null(cfg_filter_need(&c, true));
}
END_TEST

Suite *filter_need_suite(void)
{
    Suite *s = suite_create("filter_need");
    TCase *tc = tcase_create("filter_need");
    tcase_add_test(tc, filter_need_rules);
    suite_add_tcase(s, tc);
    return s;
}

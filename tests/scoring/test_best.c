/* scoring/best.c: the best-node rule, with every kind of tie. */
#include <check.h>

#include "scoring/best.h"
#include "tests/suites.h"

static struct score_explain ex(int value, int score)
{
    struct score_explain e = {.value = value, .score = score};
    return e;
}

START_TEST(best_none_offered_is_minus_one)
{
    struct score_best b;
    score_best_init(&b);
    ck_assert_int_eq(b.index, -1);
}
END_TEST

START_TEST(best_higher_score_wins_then_value)
{
    struct score_best b;
    const struct score_explain c[] = {ex(61, 6), ex(88, 9), ex(84, 8), ex(93, 9)};
    score_best_init(&b);
    for (long i = 0; i < 4; i++)
        score_best_offer(&b, i, &c[i]);
    ck_assert_int_eq(b.index, 3); /* 9 and 9: value 93 beats 88 */
    ck_assert_int_eq(b.score, 9);
    ck_assert_int_eq(b.value, 93);
}
END_TEST

START_TEST(best_tie_goes_to_the_first_offered)
{
    struct score_best b;
    const struct score_explain c[] = {ex(40, 4), ex(70, 7), ex(70, 7), ex(0, 0)};
    score_best_init(&b);
    for (long i = 0; i < 4; i++)
        score_best_offer(&b, i, &c[i]);
    ck_assert_int_eq(b.index, 1);
}
END_TEST

START_TEST(best_zero_candidate_still_wins_alone)
{
    /* A node that fits with score 0 is still a place for the pod. */
    struct score_best b;
    const struct score_explain c = ex(0, 0);
    score_best_init(&b);
    score_best_offer(&b, 5, &c);
    ck_assert_int_eq(b.index, 5);
}
END_TEST

Suite *best_suite(void)
{
    Suite *s = suite_create("best");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, best_none_offered_is_minus_one);
    tcase_add_test(tc, best_higher_score_wins_then_value);
    tcase_add_test(tc, best_tie_goes_to_the_first_offered);
    tcase_add_test(tc, best_zero_candidate_still_wins_alone);
    suite_add_tcase(s, tc);
    return s;
}

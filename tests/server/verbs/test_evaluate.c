/* server/verbs/evaluate.c: judging and scoring the candidate nodes. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "server/verbs/evaluate.h"
#include "tests/suites.h"
#include "tests/support/arena_fixture.h"

START_TEST(evaluate_gives_up_past_the_deadline)
{
    struct cfg c;
    struct codec_args args;
    struct verb_deadline d = {.on = true, .at = 1}; /* long past */
    cfg_defaults(&c);
    memset(&args, 0, sizeof(args));
    args.n_nodes = 1000;
    args.nodes = calloc(args.n_nodes, sizeof(*args.nodes));
    struct verb_eval eval;
    struct score_pod_request req = {0};
    for (size_t i = 0; i < args.n_nodes; i++) {
        args.nodes[i].name = "n";
        args.nodes[i].res.alloc[SCORE_CPU] = 4000;
        args.nodes[i].res.alloc[SCORE_MEMORY] = 1 << 30;
    }
    ck_assert_int_eq(verb_evaluate(test_arena, &c, NULL, &args, &req, &d, &eval), -ETIMEDOUT);
    d.on = false;
    ck_assert_int_eq(verb_evaluate(test_arena, &c, NULL, &args, &req, &d, &eval), 0);
    ck_assert_int_eq(eval.explain[999].score, 10);
    /* fewer nodes than one stride finish: the clock is read every 256 */
    args.n_nodes = 255;
    d.on = true;
    ck_assert_int_eq(verb_evaluate(test_arena, &c, NULL, &args, &req, &d, &eval), 0);
    free(args.nodes);
}
END_TEST

Suite *evaluate_suite(void)
{
    Suite *s = suite_create("evaluate");
    TCase *tc = tcase_create("evaluate");
    tcase_add_checked_fixture(tc, arena_fixture_setup, arena_fixture_teardown);
    tcase_add_test(tc, evaluate_gives_up_past_the_deadline);
    suite_add_tcase(s, tc);
    return s;
}

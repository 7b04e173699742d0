/* server/verbs/deadline.c: deadline-aware answers. */
#include <check.h>
#include <time.h>

#include "base/clock.h"
#include "server/verbs/deadline.h"
#include "tests/suites.h"

START_TEST(deadline_is_80_percent_of_the_timeout)
{
    struct cfg c;
    struct verb_deadline d;
    struct timespec now;
    cfg_defaults(&c);
    c.scheduler_timeout_ms = 1000;
    clock_gettime(CLOCK_MONOTONIC, &now);
    verb_deadline_init(&d, &c, &now);
    ck_assert(d.on);
    ck_assert_uint_eq(d.at - clock_ns_of(&now), 800000000ULL);
    ck_assert(!verb_deadline_passed(&d));
    /* a start 900 ms ago has passed it */
    now.tv_sec -= 1;
    now.tv_nsec += 100000000L;
    if (now.tv_nsec >= 1000000000L) {
        now.tv_sec++;
        now.tv_nsec -= 1000000000L;
    }
    verb_deadline_init(&d, &c, &now);
    ck_assert(verb_deadline_passed(&d));
    ck_assert(verb_deadline_would_miss(&d, 1));
    /* off: timeout 0, or no start */
    c.scheduler_timeout_ms = 0;
    verb_deadline_init(&d, &c, &now);
    ck_assert(!verb_deadline_passed(&d) && !verb_deadline_would_miss(&d, 1000000));
    struct timespec zero = {0, 0};
    c.scheduler_timeout_ms = 1000;
    verb_deadline_init(&d, &c, &zero);
    ck_assert(!verb_deadline_passed(&d));
}
END_TEST

START_TEST(deadline_predicts_from_the_measured_cost)
{
    struct cfg c;
    struct verb_deadline d;
    struct timespec now;
    cfg_defaults(&c);
    c.scheduler_timeout_ms = 1000; /* 800 ms to go */
    for (int i = 0; i < 200; i++)
        verb_deadline_learn(1000, 0.001); /* 1 us a node */
    clock_gettime(CLOCK_MONOTONIC, &now);
    verb_deadline_init(&d, &c, &now);
    /* twice the scoring time (the answer is written after): 2 us a node */
    ck_assert(!verb_deadline_would_miss(&d, 100000)); /* about 200 ms */
    ck_assert(verb_deadline_would_miss(&d, 1000000)); /* about 2 s */
    verb_deadline_learn(0, 5);                        /* no nodes: ignored */
    ck_assert(!verb_deadline_would_miss(&d, 100000));
}
END_TEST

/* A spike of slow scoring must not switch scoring off for good: requests
 * answered neutral are not measured, so each predicted miss lowers the
 * estimate until one is scored again. */
START_TEST(deadline_estimate_recovers_after_a_spike)
{
    struct cfg c;
    struct verb_deadline d;
    struct timespec now;
    int misses = 0;
    /* 60 s: 48 s to go. The margins below are seconds of wall time, not the
     * microseconds between init and the check: a loaded machine cannot
     * make the test's clock decide it. */
    cfg_defaults(&c);
    c.scheduler_timeout_ms = 60000;
    for (int i = 0; i < 100; i++)
        verb_deadline_learn(5000, 25.0); /* 25 s for 5000 nodes: predicted 50 s */
    clock_gettime(CLOCK_MONOTONIC, &now);
    verb_deadline_init(&d, &c, &now);
    while (verb_deadline_would_miss(&d, 5000) && misses < 100)
        misses++;
    /* 50 s -> 43.75 s after one eighth off: the next request is scored
     * (unless more than 4 s passed since init) */
    ck_assert_int_eq(misses, 1);
    for (int i = 0; i < 100; i++)
        verb_deadline_learn(5000, 200.0); /* a worse spike: 400 s predicted */
    misses = 0;
    while (verb_deadline_would_miss(&d, 5000) && misses < 100)
        misses++;
    ck_assert_int_gt(misses, 1);
    ck_assert_int_lt(misses, 30); /* (7/8)^k * 400 s < 48 s within 16 */
}
END_TEST

Suite *deadline_suite(void)
{
    Suite *s = suite_create("deadline");
    TCase *tc = tcase_create("deadline");
    tcase_add_test(tc, deadline_is_80_percent_of_the_timeout);
    tcase_add_test(tc, deadline_predicts_from_the_measured_cost);
    tcase_add_test(tc, deadline_estimate_recovers_after_a_spike);
    suite_add_tcase(s, tc);
    return s;
}

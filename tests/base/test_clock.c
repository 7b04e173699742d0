/* base/clock.c: nanosecond deadlines that saturate, timespec conversions. */
#include <check.h>
#include <stdint.h>

#include "base/clock.h"
#include "tests/suites.h"

/* A deadline past the end of uint64_t time never comes, rather than
 * wrapping into the past. */
START_TEST(clock_add_saturates_at_uint64_max)
{
    ck_assert_uint_eq(clock_add_ns(1, 2), 3);
    ck_assert_uint_eq(clock_add_ns(UINT64_MAX - 1, 1), UINT64_MAX);
    ck_assert_uint_eq(clock_add_ns(UINT64_MAX - 1, 2), UINT64_MAX);
    ck_assert_uint_eq(clock_add_ns(UINT64_MAX, UINT64_MAX), UINT64_MAX);
    ck_assert_uint_eq(clock_add_ns(0, UINT64_MAX), UINT64_MAX);
}
END_TEST

START_TEST(clock_timespec_round_trip)
{
    const uint64_t cases[] = {
        0, 1, 999999999ULL, 1000000000ULL, 1500000001ULL, 123456789012345678ULL};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct timespec t = clock_timespec_of(cases[i]);
        ck_assert_int_lt(t.tv_nsec, 1000000000L);
        ck_assert_uint_eq(clock_ns_of(&t), cases[i]);
    }
    /* carries into seconds as the hand-written additions did */
    struct timespec t = clock_timespec_of(clock_add_ns(999999999ULL, 2));
    ck_assert_int_eq(t.tv_sec, 1);
    ck_assert_int_eq(t.tv_nsec, 1);
    /* a saturated deadline stays in the future as a timespec */
    t = clock_timespec_of(UINT64_MAX);
    ck_assert_int_gt(t.tv_sec, 0);
    ck_assert_uint_eq(clock_ns_of(&(struct timespec){.tv_sec = -1}), 0);
}
END_TEST

START_TEST(clock_mono_ns_moves_forward)
{
    uint64_t a = clock_mono_ns(), b = clock_mono_ns();
    ck_assert_uint_le(a, b);
    ck_assert_uint_gt(a, 0);
}
END_TEST

Suite *clock_suite(void)
{
    Suite *s = suite_create("clock");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, clock_add_saturates_at_uint64_max);
    tcase_add_test(tc, clock_timespec_round_trip);
    tcase_add_test(tc, clock_mono_ns_moves_forward);
    suite_add_tcase(s, tc);
    return s;
}

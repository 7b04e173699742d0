/* server/http/limits.c: the header checks that need no daemon. */
#include <check.h>
#include <errno.h>

#include "server/http/limits.h"
#include "tests/suites.h"

START_TEST(limits_content_length_digits_only)
{
    unsigned long long n = 7;
    ck_assert_int_eq(http_content_length("0", &n), 0);
    ck_assert_uint_eq(n, 0);
    ck_assert_int_eq(http_content_length("19004", &n), 0);
    ck_assert_uint_eq(n, 19004);
    ck_assert_int_eq(http_content_length("18446744073709551615", &n), 0);
    ck_assert_uint_eq(n, 18446744073709551615ULL);
    /* what strtoull would have read as a number */
    const char *bad[] = {"",
                         "12abc",
                         "-1",
                         "+5",
                         " 5",
                         "5 ",
                         "0x10",
                         "1e3",
                         "18446744073709551616",
                         "99999999999999999999999"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        ck_assert_msg(http_content_length(bad[i], &n) == -EINVAL, "\"%s\" accepted", bad[i]);
}
END_TEST

Suite *limits_suite(void)
{
    Suite *s = suite_create("limits");
    TCase *tc = tcase_create("limits");
    tcase_add_test(tc, limits_content_length_digits_only);
    suite_add_tcase(s, tc);
    return s;
}

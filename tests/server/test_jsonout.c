/* server/jsonout.c: the answer writer. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server/jsonout.h"
#include "tests/suites.h"

static void assert_int_text(int64_t v, const char *want)
{
    struct jsonout o;
    size_t len;
    srv_out_init(&o, 1);
    srv_out_int(&o, v);
    char *got = srv_out_take(&o, &len);
    ck_assert_ptr_nonnull(got);
    ck_assert_str_eq(got, want);
    ck_assert_uint_eq(len, strlen(want));
    free(got);
}

START_TEST(jsonout_int_matches_printf)
{
    assert_int_text(0, "0");
    assert_int_text(7, "7");
    assert_int_text(10, "10");
    assert_int_text(-1, "-1");
    assert_int_text(1000000, "1000000");
    assert_int_text(INT64_MAX, "9223372036854775807");
    assert_int_text(INT64_MIN, "-9223372036854775808");
}
END_TEST

Suite *jsonout_suite(void)
{
    Suite *s = suite_create("jsonout");
    TCase *tc = tcase_create("jsonout");
    tcase_add_test(tc, jsonout_int_matches_printf);
    suite_add_tcase(s, tc);
    return s;
}

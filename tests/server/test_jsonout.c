/* server/jsonout.c: the answer writer. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
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

/* A name cut into a fixed buffer loses its incomplete last character only. */
START_TEST(jsonout_utf8_trim_drops_a_cut_character)
{
    const struct {
        const char *in, *out;
    } cases[] = {
        {"", ""},
        {"abc", "abc"},
        {"ab\xc3", "ab"},
        {"ab\xc3\xa9", "ab\xc3\xa9"},
        {"a\xe2\x82", "a"},
        {"a\xe2\x82\xac", "a\xe2\x82\xac"},
        {"\xf0\x9f\x98", ""},
        {"x\xf0\x9f\x98\x80", "x\xf0\x9f\x98\x80"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char buf[16];
        snprintf(buf, sizeof(buf), "%s", cases[i].in);
        srv_utf8_trim(buf);
        ck_assert_msg(strcmp(buf, cases[i].out) == 0, "case %zu", i);
    }
}
END_TEST

Suite *jsonout_suite(void)
{
    Suite *s = suite_create("jsonout");
    TCase *tc = tcase_create("jsonout");
    tcase_add_test(tc, jsonout_int_matches_printf);
    tcase_add_test(tc, jsonout_utf8_trim_drops_a_cut_character);
    suite_add_tcase(s, tc);
    return s;
}

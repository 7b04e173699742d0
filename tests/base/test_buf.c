/* base/buf.c: the output buffer and its JSON strings. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "tests/suites.h"

static void assert_int_text(int64_t v, const char *want)
{
    struct buf o;
    size_t len;
    buf_init(&o, 1);
    buf_int(&o, v);
    char *got = buf_take(&o, &len);
    ck_assert_ptr_nonnull(got);
    ck_assert_str_eq(got, want);
    ck_assert_uint_eq(len, strlen(want));
    free(got);
}

START_TEST(buf_int_matches_printf)
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

static char *json_of(const char *in, size_t len)
{
    struct buf o;
    size_t n;
    buf_init(&o, 1);
    buf_json_strn(&o, in, len);
    char *got = buf_take(&o, &n);
    ck_assert_ptr_nonnull(got);
    return got;
}

/* Any bytes give a valid JSON string: quotes, backslashes and control
 * characters escaped, each byte of a malformed UTF-8 sequence U+FFFD. */
START_TEST(buf_json_str_escapes_and_replaces_bad_utf8)
{
    const struct {
        const char *in;
        size_t len;
        const char *want;
    } cases[] = {
        {"a\"b\\c", 5, "\"a\\\"b\\\\c\""},
        {"\n\x01", 2, "\"\\u000a\\u0001\""},
        {"\0x", 2, "\"\\u0000x\""},
        {"\xc3\xa9", 2, "\"\xc3\xa9\""},                                 /* é stays */
        {"\xf0\x9f\x98\x80", 4, "\"\xf0\x9f\x98\x80\""},                 /* an emoji stays */
        {"a\xc3", 2, "\"a\xef\xbf\xbd\""},                               /* cut sequence */
        {"\xc0\xaf", 2, "\"\xef\xbf\xbd\xef\xbf\xbd\""},                 /* overlong '/' */
        {"\xed\xa0\x80", 3, "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\""}, /* a surrogate */
        {"\xff", 1, "\"\xef\xbf\xbd\""},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *got = json_of(cases[i].in, cases[i].len);
        ck_assert_msg(strcmp(got, cases[i].want) == 0, "case %zu: %s", i, got);
        free(got);
    }
}
END_TEST

START_TEST(buf_printf_appends_and_grows)
{
    struct buf o;
    size_t len;
    buf_init(&o, 1);
    buf_str(&o, "x=");
    for (int i = 0; i < 100; i++)
        buf_printf(&o, "%04d", i);
    char *got = buf_take(&o, &len);
    ck_assert_uint_eq(len, 2 + 400);
    ck_assert(strncmp(got, "x=000000010002", 14) == 0);
    ck_assert_str_eq(got + len - 4, "0099");
    free(got);
}
END_TEST

Suite *buf_suite(void)
{
    Suite *s = suite_create("buf");
    TCase *tc = tcase_create("buf");
    tcase_add_test(tc, buf_int_matches_printf);
    tcase_add_test(tc, buf_json_str_escapes_and_replaces_bad_utf8);
    tcase_add_test(tc, buf_printf_appends_and_grows);
    suite_add_tcase(s, tc);
    return s;
}

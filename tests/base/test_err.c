/* base/err.c: one error size, context put in front, cuts at characters. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "tests/suites.h"

/* A name cut into a fixed buffer loses its incomplete last character only. */
START_TEST(err_utf8_trim_drops_a_cut_character)
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
        err_utf8_trim(buf);
        ck_assert_msg(strcmp(buf, cases[i].out) == 0, "case %zu", i);
    }
}
END_TEST

START_TEST(err_prefix_keeps_the_whole_message)
{
    char err[ERR_LEN];
    err_set(err, "quantity does not match %s", "[+-]digits");
    err_prefix(err, "Pod.spec.containers[%d].resources.requests.cpu: ", 0);
    ck_assert_str_eq(err, "Pod.spec.containers[0].resources.requests.cpu: quantity does not "
                          "match [+-]digits");
}
END_TEST

START_TEST(err_prefix_cuts_a_long_message_at_a_character)
{
    char err[ERR_LEN], name[ERR_LEN];
    /* 2-byte characters all the way: whatever the cut, no half character */
    for (size_t i = 0; i + 2 < sizeof(name); i += 2)
        memcpy(name + i, "\xc3\xa9", 2);
    name[sizeof(name) - 2] = '\0';
    err_set(err, "%s", name);
    ck_assert_uint_lt(strlen(err), ERR_LEN);
    ck_assert_uint_eq(strlen(err) % 2, 0);
    err_prefix(err, "x: ");
    ck_assert(strncmp(err, "x: ", 3) == 0);
    ck_assert_uint_lt(strlen(err), ERR_LEN);
    ck_assert_uint_eq((strlen(err) - 3) % 2, 0);
}
END_TEST

Suite *err_suite(void)
{
    Suite *s = suite_create("err");
    TCase *tc = tcase_create("err");
    tcase_add_test(tc, err_utf8_trim_drops_a_cut_character);
    tcase_add_test(tc, err_prefix_keeps_the_whole_message);
    tcase_add_test(tc, err_prefix_cuts_a_long_message_at_a_character);
    suite_add_tcase(s, tc);
    return s;
}

/* server/http/limits.c: the header checks that need no daemon. */
#include <check.h>
#include <errno.h>
#include <string.h>

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

/* Token characters only (RFC 9110 5.6.2), as Go's ValidHeaderFieldName. */
START_TEST(limits_header_names_are_tokens)
{
    const char *good[] = {"Host", "Content-Length", "x", "!#$%&'*+-.^_`|~09azAZ"};
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        ck_assert_msg(http_is_header_name(good[i], strlen(good[i])), "\"%s\" refused", good[i]);
    const char *bad[] = {
        "", "Content-Length ", " Host", "X(A)", "a:b", "a\"b", "a/b", "a\tb", "a@b", "a\x80"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        ck_assert_msg(!http_is_header_name(bad[i], strlen(bad[i])), "\"%s\" accepted", bad[i]);
    ck_assert(!http_is_header_name("a\0b", 3)); /* a NUL inside counts */
}
END_TEST

/* No control characters but tab, as Go's ValidHeaderFieldValue. */
START_TEST(limits_header_values_have_no_controls)
{
    ck_assert(http_is_header_value("", 0));
    ck_assert(http_is_header_value("a\tb c", 5));
    ck_assert(http_is_header_value("caf\xc3\xa9", 5));
    const char *bad[] = {"a\x01", "a\rb", "a\nb", "\x7f", "\x1f"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        ck_assert_msg(!http_is_header_value(bad[i], strlen(bad[i])), "value %zu accepted", i);
    ck_assert(!http_is_header_value("a\0b", 3));
}
END_TEST

/* Every refusal of the framing rule with its status, and what passes. */
START_TEST(limits_framing_that_reads_two_ways_is_refused)
{
    static const struct {
        struct http_framing f;
        unsigned status;
        const char *why; /* NULL: accepted */
    } rows[] = {
        {{true, 1, 0, 0, NULL, 0}, 400, NULL},
        {{true, 1, 1, 0, NULL, 0}, 400, NULL},
        {{true, 1, 0, 1, "chunked", 7}, 400, NULL},
        {{true, 1, 0, 1, "ChUnKeD", 7}, 400, NULL},
        {{false, 0, 1, 0, NULL, 0}, 400, NULL},
        {{true, 0, 1, 0, NULL, 0}, 400, "missing required Host header"},
        {{false, 2, 0, 0, NULL, 0}, 400, "too many Host headers"},
        {{true, 1, 2, 0, NULL, 0}, 400, "more than one Content-Length"},
        {{true, 1, 1, 1, "chunked", 7}, 400, "both Transfer-Encoding and Content-Length: want one"},
        {{true, 1, 0, 2, "chunked", 7}, 501, "unsupported Transfer-Encoding: more than one header"},
        {{true, 1, 0, 1, "chunked, chunked", 16},
         501,
         "unsupported Transfer-Encoding: only chunked is"},
        {{true, 1, 0, 1, "identity", 8}, 501, "unsupported Transfer-Encoding: only chunked is"},
        {{true, 1, 0, 1, "gzip, chunked", 13},
         501,
         "unsupported Transfer-Encoding: only chunked is"},
        {{true, 1, 0, 1, "", 0}, 501, "unsupported Transfer-Encoding: only chunked is"},
        /* with a length too, the encoding is what is wrong first */
        {{true, 1, 1, 1, "gzip", 4}, 501, "unsupported Transfer-Encoding: only chunked is"},
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        unsigned status = 0;
        const char *why = http_framing_refusal(&rows[i].f, &status);
        if (rows[i].why == NULL) {
            ck_assert_msg(why == NULL, "row %zu refused: %s", i, why);
            continue;
        }
        ck_assert_msg(why != NULL && strcmp(why, rows[i].why) == 0, "row %zu: %s, want %s", i,
                      why ? why : "accepted", rows[i].why);
        ck_assert_msg(status == rows[i].status, "row %zu: status %u, want %u", i, status,
                      rows[i].status);
    }
}
END_TEST

Suite *limits_suite(void)
{
    Suite *s = suite_create("limits");
    TCase *tc = tcase_create("limits");
    tcase_add_test(tc, limits_content_length_digits_only);
    tcase_add_test(tc, limits_header_names_are_tokens);
    tcase_add_test(tc, limits_header_values_have_no_controls);
    tcase_add_test(tc, limits_framing_that_reads_two_ways_is_refused);
    suite_add_tcase(s, tc);
    return s;
}

/* server/http/target.c: the request-target decoded whole, before routing. */
#include <check.h>
#include <string.h>

#include "server/http/target.h"
#include "tests/suites.h"

START_TEST(target_path_is_decoded_without_the_query)
{
    char path[HTTP_PATH_MAX];
    ck_assert_ptr_null(http_target_read("/scheduler/%66ilter?x=%00&y=%zz", path));
    ck_assert_str_eq(path, "/scheduler/filter");
    ck_assert_ptr_null(http_target_read("/a%2Fb%2fc", path));
    ck_assert_str_eq(path, "/a/b/c");
    ck_assert_ptr_null(http_target_read("", path));
    ck_assert_str_eq(path, "");
    /* bytes past ASCII are not control characters (UTF-8 in a name) */
    ck_assert_ptr_null(http_target_read("/caf\xc3\xa9%C3%A9", path));
    ck_assert_str_eq(path, "/caf\xc3\xa9\xc3\xa9");
}
END_TEST

/* RFC 9112 section 3.2.2: a server must accept the absolute form; it
 * routes by its path (issue 23, finding 11: it got 404). */
START_TEST(target_absolute_form_routes_by_its_path)
{
    char path[HTTP_PATH_MAX];
    ck_assert_ptr_null(http_target_read("http://127.0.0.1:8888/scheduler/prioritize", path));
    ck_assert_str_eq(path, "/scheduler/prioritize");
    ck_assert_ptr_null(http_target_read("HTTPS://[::1]:8888/scheduler/%66ilter?x=1", path));
    ck_assert_str_eq(path, "/scheduler/filter");
    ck_assert_ptr_null(http_target_read("http://host", path));
    ck_assert_str_eq(path, "/");
    ck_assert_ptr_null(http_target_read("http://host?healthz", path));
    ck_assert_str_eq(path, "/");
    /* not a scheme we serve: a path like any other, routed nowhere */
    ck_assert_ptr_null(http_target_read("ftp://host/healthz", path));
    ck_assert_str_eq(path, "ftp://host/healthz");
    ck_assert_str_eq(http_target_read("http://host/a%00", path), "control character in the path");
}
END_TEST

/* libmicrohttpd would end the path at %00 and route what is before it. */
START_TEST(target_decoded_control_characters_are_refused)
{
    char path[HTTP_PATH_MAX];
    const char *bad[] = {
        "/scheduler/filter%00x", "/healthz%00", "/scheduler/filter%0a", "/a%0D", "/a%1f", "/a%7F"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        const char *why = http_target_read(bad[i], path);
        ck_assert_msg(why != NULL && strcmp(why, "control character in the path") == 0, "%s: %s",
                      bad[i], why ? why : "accepted");
    }
    /* %20 is a space, not a control character: it routes nowhere */
    ck_assert_ptr_null(http_target_read("/a%20b", path));
    ck_assert_str_eq(path, "/a b");
}
END_TEST

START_TEST(target_raw_controls_spaces_and_bad_escapes_are_refused)
{
    char path[HTTP_PATH_MAX];
    const char *raw[] = {"/healthz\x01", "/healthz x", "/h\tz", "/h?q=\x7f", "/h?q= "};
    for (size_t i = 0; i < sizeof(raw) / sizeof(raw[0]); i++) {
        const char *why = http_target_read(raw[i], path);
        ck_assert_msg(why != NULL &&
                          strcmp(why, "control character or space in the request target") == 0,
                      "raw %zu: %s", i, why ? why : "accepted");
    }
    const char *esc[] = {"/health%zz", "/h%", "/h%4", "/h%4g", "/h%g4"};
    for (size_t i = 0; i < sizeof(esc) / sizeof(esc[0]); i++) {
        const char *why = http_target_read(esc[i], path);
        ck_assert_msg(why != NULL && strcmp(why, "invalid percent escape in the path") == 0,
                      "%s: %s", esc[i], why ? why : "accepted");
    }
}
END_TEST

/* A path that does not fit routes nowhere rather than as its prefix. */
START_TEST(target_too_long_path_is_empty)
{
    static char target[HTTP_PATH_MAX + 16];
    char path[HTTP_PATH_MAX];
    memset(target, 'a', sizeof(target) - 1);
    target[0] = '/';
    target[sizeof(target) - 1] = '\0';
    ck_assert_ptr_null(http_target_read(target, path));
    ck_assert_str_eq(path, "");
    /* the longest that fits: HTTP_PATH_MAX - 1 bytes */
    target[HTTP_PATH_MAX - 1] = '\0';
    ck_assert_ptr_null(http_target_read(target, path));
    ck_assert_uint_eq(strlen(path), HTTP_PATH_MAX - 1);
}
END_TEST

Suite *target_suite(void)
{
    Suite *s = suite_create("target");
    TCase *tc = tcase_create("target");
    tcase_add_test(tc, target_path_is_decoded_without_the_query);
    tcase_add_test(tc, target_absolute_form_routes_by_its_path);
    tcase_add_test(tc, target_decoded_control_characters_are_refused);
    tcase_add_test(tc, target_raw_controls_spaces_and_bad_escapes_are_refused);
    tcase_add_test(tc, target_too_long_path_is_empty);
    suite_add_tcase(s, tc);
    return s;
}

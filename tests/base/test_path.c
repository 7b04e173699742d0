/* base/path.c: the one URL path normaliser. */
#include <check.h>
#include <string.h>

#include "base/path.h"
#include "tests/suites.h"

START_TEST(path_squash_collapses_and_trims)
{
    const struct {
        const char *in;
        bool trim;
        const char *out;
    } cases[] = {
        {"", false, ""},
        {"/", false, "/"},
        {"/", true, ""},
        {"//filter", false, "/filter"},
        {"/a//b///c", false, "/a/b/c"},
        {"//a//b/", true, "/a/b"},
        {"//a//b/", false, "/a/b/"},
        {"scheduler///", true, "scheduler"},
        {"///", true, ""},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char out[32];
        size_t n = path_squash(cases[i].in, strlen(cases[i].in), out, sizeof(out), cases[i].trim);
        ck_assert_msg(strcmp(out, cases[i].out) == 0, "case %zu: %s", i, out);
        ck_assert_uint_eq(n, strlen(cases[i].out));
    }
}
END_TEST

/* In place (the option parser), a length that stops before a query
 * (scheduler configuration URLs), and a cut at the output size. */
START_TEST(path_squash_in_place_by_length_and_cut)
{
    char p[] = "//x//y//";
    path_squash(p, strlen(p), p, sizeof(p), true);
    ck_assert_str_eq(p, "/x/y");
    char out[16];
    path_squash("/a//b?q=//", 5, out, sizeof(out), true);
    ck_assert_str_eq(out, "/a/b");
    char small[4];
    path_squash("/abcdef", 7, small, sizeof(small), false);
    ck_assert_str_eq(small, "/ab");
}
END_TEST

Suite *path_suite(void)
{
    Suite *s = suite_create("path");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, path_squash_collapses_and_trims);
    tcase_add_test(tc, path_squash_in_place_by_length_and_cut);
    suite_add_tcase(s, tc);
    return s;
}

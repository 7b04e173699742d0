/*
 * server/codec/json.c: the scanner's trees. Every valid document gives the
 * tree cJSON's own parser gives (compared printed), numbers keep their
 * bytes, repeated keys stay in order; a malformed one is refused with the
 * scanner's words (what a verb answers), and an arena too small is -ENOMEM.
 */
#include "server/codec/json.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/err.h"
#include "tests/suites.h"

static char *printed(const cJSON *t)
{
    char *s = cJSON_PrintUnformatted(t);
    ck_assert_ptr_nonnull(s);
    return s;
}

START_TEST(json_tree_is_cjson_tree)
{
    static const char *const docs[] = {
        "{}",
        "[]",
        " { \"a\" : [ 1 , -2.5e3 , true , false , null , \"x\" ] } ",
        "{\"a\":{\"b\":{\"c\":[[],{},[{}]]}},\"a\":0}",
        "\"\\u00e9\\n\\\"\\\\\\/\"",
        "[0,-0,1e300,12345678901234567890,0.1]",
        "{\"\\u0041\":\"\xc3\xa9\"}",
    };
    for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
        struct arena *a = arena_acquire();
        char err[ERR_LEN];
        cJSON *ours, *theirs = cJSON_Parse(docs[i]);
        ck_assert_ptr_nonnull(theirs);
        ck_assert_msg(codec_json_tree(a, docs[i], strlen(docs[i]), &ours, err) == 0, "%s: %s",
                      docs[i], err);
        char *x = printed(ours), *y = printed(theirs);
        ck_assert_str_eq(x, y);
        free(x);
        free(y);
        cJSON_Delete(theirs);
        arena_release(a);
    }
}
END_TEST

START_TEST(json_numbers_keep_their_bytes)
{
    struct arena *a = arena_acquire();
    const char *doc = "{\"p\":1e2,\"p\":100,\"q\":-7}";
    char err[ERR_LEN];
    cJSON *t;
    ck_assert_int_eq(codec_json_tree(a, doc, strlen(doc), &t, err), 0);
    ck_assert_str_eq(t->child->valuestring, "1e2");
    ck_assert(t->child->valuedouble == 100.0);
    ck_assert_str_eq(codec_json_field(t, "P")->valuestring, "100"); /* the last, folded */
    ck_assert_int_eq(codec_json_field(t, "q")->valueint, -7);
    ck_assert_ptr_eq(t->child->prev, t->child->next->next); /* cJSON's links */
    arena_release(a);
}
END_TEST

START_TEST(json_malformed_in_the_scanners_words)
{
    static const struct {
        const char *doc, *want;
    } rows[] = {
        {"{\"a\":[1,]}", "want a value"}, {"{\"a\":1,}", "want a member name"},
        {"{\"a\" 1}", "want ':'"},        {"{\"a\":01}", "leading zero"},
        {"{\"a\":tru}", "want a value"},  {"[1] 2", "malformed JSON"},
        {"{\"a\":\"\\u0000\"}", "NUL"},   {"", "ends early"},
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct arena *a = arena_acquire();
        char err[ERR_LEN] = "";
        cJSON *t;
        ck_assert_int_eq(codec_json_tree(a, rows[i].doc, strlen(rows[i].doc), &t, err), -EINVAL);
        ck_assert_msg(strstr(err, rows[i].want) != NULL, "%s: %s", rows[i].doc, err);
        arena_release(a);
    }
}
END_TEST

START_TEST(json_deep_nesting_is_refused_not_recursed)
{
    size_t n = 5000;
    char *doc = malloc(2 * n + 1);
    memset(doc, '[', n);
    memset(doc + n, ']', n);
    doc[2 * n] = '\0';
    struct arena *a = arena_acquire();
    char err[ERR_LEN];
    cJSON *t;
    ck_assert_int_eq(codec_json_tree(a, doc, 2 * n, &t, err), -EINVAL);
    ck_assert_ptr_nonnull(strstr(err, "nested too deeply"));
    arena_release(a);
    free(doc);
}
END_TEST

Suite *json_suite(void)
{
    Suite *s = suite_create("json");
    TCase *tc = tcase_create("json");
    tcase_add_test(tc, json_tree_is_cjson_tree);
    tcase_add_test(tc, json_numbers_keep_their_bytes);
    tcase_add_test(tc, json_malformed_in_the_scanners_words);
    tcase_add_test(tc, json_deep_nesting_is_refused_not_recursed);
    suite_add_tcase(s, tc);
    return s;
}

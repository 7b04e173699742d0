/*
 * server/codec/ints.c: integers, in a tree json.h built, as Go's encoding/json reads them into an
 * int32 or int64 field: digits only, in range; null leaves the field alone;
 * struct field names fold case; every occurrence counts, a duplicate key's
 * earlier value included (Go reports the first error after decoding all).
 */
#include "server/codec/ints.h"

#include <check.h>
#include <stdint.h>
#include <string.h>

#include "base/arena.h"
#include "base/err.h"
#include "server/codec/json.h"
#include "tests/suites.h"

static const struct codec_int_path priority = {.names = {"spec", "priority"},
                                               .depth = 2,
                                               .fold = 3,
                                               .min = INT32_MIN,
                                               .max = INT32_MAX,
                                               .what = "want a 32-bit integer"};

/* Is every integer at @path of @json (read as the codec reads a body:
 * json.h's tree, numbers with their bytes) one as Go reads it? */
static bool ok_at(const char *json, const struct codec_int_path *path)
{
    struct arena *a = arena_acquire();
    char err[ERR_LEN];
    cJSON *root;
    ck_assert_ptr_nonnull(a);
    ck_assert_int_eq(codec_json_tree(a, json, strlen(json), &root, err), 0);
    bool ok = codec_ints_ok(root, path);
    arena_release(a);
    return ok;
}

static int check(const char *json)
{
    return ok_at(json, &priority) ? 0 : -1;
}

START_TEST(ints_go_integers)
{
    static const struct {
        const char *json;
        int ok;
    } rows[] = {
        {"{}", 1},
        {"{\"spec\":{}}", 1},
        {"{\"spec\":null}", 1},
        {"{\"spec\":{\"priority\":null}}", 1},
        {"{\"spec\":{\"priority\":0}}", 1},
        {"{\"spec\":{\"priority\":-0}}", 1},
        {"{\"spec\":{\"priority\":2147483647}}", 1},
        {"{\"spec\":{\"priority\":-2147483648}}", 1},
        {"{\"spec\":{\"priority\":2147483648}}", 0},
        {"{\"spec\":{\"priority\":-2147483649}}", 0},
        {"{\"spec\":{\"priority\":99999999999999999999999}}", 0},
        {"{\"spec\":{\"priority\":1.0}}", 0},
        {"{\"spec\":{\"priority\":1e2}}", 0},
        {"{\"spec\":{\"priority\":\"1\"}}", 0},
        {"{\"spec\":{\"priority\":true}}", 0},
        {"{\"spec\":{\"priority\":[1]}}", 0},
        {"{\"SPEC\":{\"Priority\":1.5}}", 0},                /* names fold */
        {"{\"spec\":{\"priority\":1.5,\"priority\":1}}", 0}, /* the earlier value counts */
        {"{\"spec\":{\"x\":{\"priority\":1.5}}}", 1},        /* only the path */
        {"{\"metadata\":{\"priority\":1.5},\"spec\":{}}", 1},
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
        ck_assert_msg((check(rows[i].json) == 0) == rows[i].ok, "%s", rows[i].json);
}
END_TEST

START_TEST(ints_any_member_and_int64_edges)
{
    static const struct codec_int_path any = {
        .names = {"m", "*", "n"}, .depth = 3, .min = INT64_MIN, .max = INT64_MAX, .what = "n"};
    const char *ok =
        "{\"m\":{\"a\":{\"n\":9223372036854775807},\"b\":{\"n\":-9223372036854775808}}}";
    const char *big = "{\"m\":{\"a\":{\"n\":1},\"b\":{\"n\":9223372036854775808}}}";
    const char *folded = "{\"M\":{\"a\":{\"n\":1.5}}}"; /* fold bit not set: not on the path */
    ck_assert(ok_at(ok, &any));
    ck_assert(!ok_at(big, &any));
    ck_assert(ok_at(folded, &any));
}
END_TEST

Suite *ints_suite(void)
{
    Suite *s = suite_create("ints");
    TCase *tc = tcase_create("ints");
    tcase_add_test(tc, ints_go_integers);
    tcase_add_test(tc, ints_any_member_and_int64_edges);
    suite_add_tcase(s, tc);
    return s;
}

/* server/ops/debug_json.c: /debug/decisions stays within its bound. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "server/ops/debug_json.h"
#include "server/ops/ring.h"
#include "server/ops/shadow.h"
#include "tests/suites.h"

#define RECORDS 40
#define NODES   1000 /* about 300 KB of JSON a decision: 12 MB for all */

static void add(struct ops_ring *d, int i)
{
    struct ops_record *rec = ops_record_new(NODES, 64 + 24 * NODES);
    ck_assert_ptr_nonnull(rec);
    char name[24];
    snprintf(name, sizeof(name), "pod-%d", i);
    rec->pod_ns = ops_record_strdup(rec, "default");
    rec->pod_name = ops_record_strdup(rec, name);
    rec->pod_uid = ops_record_strdup(rec, "");
    rec->best = -1;
    for (size_t n = 0; n < NODES; n++) {
        snprintf(name, sizeof(name), "node-%05zu", n);
        rec->nodes[n].name = ops_record_strdup(rec, name);
        rec->nodes[n].reason = "";
    }
    ops_shadow_add(d, NULL, rec); /* takes the reference */
}

/* Renders @q; returns the parsed answer, its length in *@len. */
static cJSON *render(struct ops_ring *d, const struct ops_query *q, size_t *len)
{
    char *text;
    ck_assert_int_eq(ops_debug_json(d, q, &text, len), 0);
    cJSON *j = cJSON_ParseWithLength(text, *len);
    ck_assert_msg(cJSON_IsObject(j), "not JSON: %.200s", text);
    free(text);
    return j;
}

/* The whole ring would be about 12 MB of JSON: the answer stops at the
 * bound, newest first, and says how many it left out. The old rendering
 * wrote every decision. */
START_TEST(debug_json_answer_is_bounded_and_says_what_it_left_out)
{
    struct ops_ring d;
    size_t len;
    ck_assert_int_eq(ops_ring_init(&d, 1000, 256LL << 20), 0);
    for (int i = 0; i < RECORDS; i++)
        add(&d, i);

    cJSON *j = render(&d, &(struct ops_query){0}, &len);
    ck_assert_uint_le(len, OPS_DEBUG_JSON_MAX + 1024);
    int shown = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "decisions"));
    const cJSON *omitted = cJSON_GetObjectItemCaseSensitive(j, "omitted");
    ck_assert_msg(cJSON_IsNumber(omitted), "no omitted count (%zu bytes)", len);
    ck_assert_int_ge(shown, 1);
    ck_assert_int_eq(shown + omitted->valueint, RECORDS);
    const cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "decisions"), 0);
    const cJSON *pod = cJSON_GetObjectItemCaseSensitive(first, "pod");
    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(pod, "name")->valuestring, "pod-39");
    ck_assert_ptr_nonnull(
        strstr(cJSON_GetObjectItemCaseSensitive(j, "why")->valuestring, "?limit=N"));
    cJSON_Delete(j);

    /* What fits is complete, with nothing said of omissions. */
    j = render(&d, &(struct ops_query){.limit = 2}, &len);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "decisions")), 2);
    ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(j, "omitted"));
    cJSON_Delete(j);
    ops_ring_destroy(&d);
}
END_TEST

Suite *debug_json_suite(void)
{
    Suite *s = suite_create("debug_json");
    TCase *tc = tcase_create("debug_json");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, debug_json_answer_is_bounded_and_says_what_it_left_out);
    suite_add_tcase(s, tc);
    return s;
}

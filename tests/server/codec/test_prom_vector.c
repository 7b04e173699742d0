/*
 * server/codec/prom_vector.c: a Prometheus instant-query answer into one
 * sample per series. Values are read as quantities (cores up to
 * millicores, bytes exact); NaN, infinities, negatives and anything but a
 * [time, "number"] pair are skipped and counted; an error status, a
 * result that is not a vector and text that is not JSON are errors with a
 * message; hostile answers (huge, deep, wrong types, duplicates) end in
 * one of those, never in a crash.
 */
#include "server/codec/prom_vector.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "tests/suites.h"

#define MAX_SEEN 8

struct seen {
    int n;
    char node[MAX_SEEN][64];
    int64_t value[MAX_SEEN];
    double timestamp[MAX_SEEN];
};

static void collect(void *ctx, const struct codec_prom_sample *s)
{
    struct seen *w = ctx;
    if (w->n < MAX_SEEN) {
        snprintf(w->node[w->n], sizeof(w->node[w->n]), "%s", s->node);
        w->value[w->n] = s->value;
        w->timestamp[w->n] = s->timestamp;
    }
    w->n++;
}

static int decode(const char *body, const char *label, enum score_unit unit, struct seen *w,
                  size_t *skipped, char *err)
{
    memset(w, 0, sizeof(*w));
    err[0] = '\0';
    return codec_prom_vector(body, strlen(body), label, unit, collect, w, skipped, err);
}

/* A vector answer of the series @series (text of the result array). */
static char *vector_of(const char *series)
{
    size_t n = strlen(series) + 128;
    char *b = malloc(n);
    ck_assert_ptr_nonnull(b);
    snprintf(b, n, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[%s]}}",
             series);
    return b;
}

START_TEST(prom_vector_cores_and_bytes)
{
    char err[ERR_LEN];
    size_t skipped;
    struct seen w;
    char *b = vector_of("{\"metric\":{\"instance\":\"10.0.0.1:9100\"},\"value\":[1700000000.5,"
                        "\"0.5\"]},"
                        "{\"metric\":{\"instance\":\"10.0.0.2:9100\",\"job\":\"node\"},\"value\":"
                        "[1700000000.5,\"1.2341\"]},"
                        "{\"metric\":{\"instance\":\"10.0.0.3:9100\"},\"value\":[1700000000.5,"
                        "\"3\"]},"
                        "{\"metric\":{\"instance\":\"10.0.0.4:9100\"},\"value\":[1700000000.5,"
                        "\"0.0000001\"]},"
                        "{\"metric\":{\"instance\":\"10.0.0.5:9100\"},\"value\":[1700000000.5,"
                        "\"0\"]}");
    ck_assert_int_eq(decode(b, "instance", SCORE_UNIT_MILLI, &w, &skipped, err), 5);
    ck_assert_uint_eq(skipped, 0);
    ck_assert_str_eq(w.node[0], "10.0.0.1:9100");
    ck_assert_int_eq(w.value[0], 500);
    ck_assert_int_eq(w.value[1], 1235); /* rounded up, as MilliValue() does */
    ck_assert_int_eq(w.value[2], 3000);
    ck_assert_int_eq(w.value[3], 1); /* a trace of load is not 0 */
    ck_assert_int_eq(w.value[4], 0);
    ck_assert(w.timestamp[0] == 1700000000.5);
    free(b);

    b = vector_of("{\"metric\":{\"node\":\"a\"},\"value\":[1,\"17179869184\"]},"
                  "{\"metric\":{\"node\":\"b\"},\"value\":[1,\"1.5e3\"]},"
                  "{\"metric\":{\"node\":\"c\"},\"value\":[1,\"1073741824.2\"]},"
                  "{\"metric\":{\"node\":\"d\"},\"value\":[1,\"9223372036854775807\"]}");
    ck_assert_int_eq(decode(b, "node", SCORE_UNIT_BASE, &w, &skipped, err), 4);
    ck_assert_int_eq(w.value[0], 17179869184LL);
    ck_assert_int_eq(w.value[1], 1500);
    ck_assert_int_eq(w.value[2], 1073741825LL);
    ck_assert_int_eq(w.value[3], INT64_MAX);
    free(b);
}
END_TEST

START_TEST(prom_vector_unusable_series_skipped)
{
    static const char *const series[] = {
        "{\"metric\":{\"node\":\"a\"},\"value\":[1,\"NaN\"]}",
        "{\"metric\":{\"node\":\"a\"},\"value\":[1,\"+Inf\"]}",
        "{\"metric\":{\"node\":\"a\"},\"value\":[1,\"-Inf\"]}",
        "{\"metric\":{\"node\":\"a\"},\"value\":[1,\"-0.5\"]}",
        "{\"metric\":{\"node\":\"a\"},\"value\":[1,\"-0\"]}",
        "{\"metric\":{\"node\":\"a\"},\"value\":[1,\"\"]}",
        "{\"metric\":{\"node\":\"a\"},\"value\":[1,\"abc\"]}",
        "{\"metric\":{\"node\":\"a\"},\"value\":[1,\"1e+30\"]}", /* past int64 */
        "{\"metric\":{\"node\":\"a\"},\"value\":[1,\" 1\"]}",
        "{\"metric\":{\"node\":\"a\"},\"value\":[1,\"1 \"]}",
        "{\"metric\":{\"node\":\"a\"},\"value\":[1,\"0x10\"]}",
        "{\"metric\":{\"node\":\"a\"},\"value\":[1,5]}",
        "{\"metric\":{\"node\":\"a\"},\"value\":[1,null]}",
        "{\"metric\":{\"node\":\"a\"},\"value\":[1,\"5\",2]}",
        "{\"metric\":{\"node\":\"a\"},\"value\":[1]}",
        "{\"metric\":{\"node\":\"a\"},\"value\":[]}",
        "{\"metric\":{\"node\":\"a\"},\"value\":{\"0\":1,\"1\":\"5\"}}",
        "{\"metric\":{\"node\":\"a\"},\"value\":[\"1\",\"5\"]}",
        "{\"metric\":{\"node\":\"a\"},\"values\":[[1,\"5\"]]}", /* a matrix's series */
        "{\"metric\":{\"node\":\"a\"}}",
        "{\"metric\":{\"node\":5},\"value\":[1,\"5\"]}",
        "{\"metric\":{\"node\":\"\"},\"value\":[1,\"5\"]}",
        "{\"metric\":{\"node\":null},\"value\":[1,\"5\"]}",
        "{\"metric\":{\"instance\":\"a\"},\"value\":[1,\"5\"]}",
        "{\"metric\":\"node\",\"value\":[1,\"5\"]}",
        "{\"value\":[1,\"5\"]}",
        "\"series\"",
        "null",
        "[]",
    };
    char err[ERR_LEN];
    size_t skipped;
    struct seen w;
    for (size_t i = 0; i < sizeof(series) / sizeof(series[0]); i++) {
        char *b = vector_of(series[i]);
        int rc = decode(b, "node", SCORE_UNIT_MILLI, &w, &skipped, err);
        ck_assert_msg(rc == 0 && skipped == 1 && w.n == 0, "%s: rc %d skipped %zu", series[i], rc,
                      skipped);
        free(b);
    }
}
END_TEST

START_TEST(prom_vector_errors)
{
    static const struct {
        const char *body;
        const char *says;
    } rows[] = {
        {"{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"1:27: parse error: "
         "unclosed left parenthesis\"}",
         "bad_data: 1:27: parse error: unclosed left parenthesis"},
        {"{\"status\":\"error\"}", "status error"},
        {"{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[]}}", "matrix"},
        {"{\"status\":\"success\",\"data\":{\"resultType\":\"scalar\",\"result\":[1,\"2\"]}}",
         "scalar"},
        {"{\"status\":\"success\",\"data\":{\"resultType\":\"vector\"}}", "result array"},
        {"{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":{}}}",
         "result array"},
        {"{\"status\":\"success\",\"data\":[]}", "resultType"},
        {"{\"status\":\"success\"}", "resultType"},
        {"{\"status\":5,\"data\":{\"resultType\":\"vector\",\"result\":[]}}", "status"},
        {"{\"data\":{\"resultType\":\"vector\",\"result\":[]}}", "status"},
        {"[]", "not a JSON object"},
        {"", "not a JSON object"},
        {"<html>502 Bad Gateway</html>", "not a JSON object"},
        {"{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[]}",
         "not a JSON"},
    };
    char err[ERR_LEN];
    size_t skipped;
    struct seen w;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        ck_assert_msg(decode(rows[i].body, "node", SCORE_UNIT_MILLI, &w, &skipped, err) == -EINVAL,
                      "%s", rows[i].body);
        ck_assert_msg(strstr(err, rows[i].says) != NULL, "%s: %s", rows[i].body, err);
        ck_assert_int_eq(w.n, 0);
    }
    /* An empty vector is an answer: no node has a series (each goes stale). */
    ck_assert_int_eq(decode("{\"status\":\"success\",\"data\":{\"resultType\":\"vector\","
                            "\"result\":[]}}",
                            "node", SCORE_UNIT_MILLI, &w, &skipped, err),
                     0);
}
END_TEST

START_TEST(prom_vector_duplicates)
{
    char err[ERR_LEN];
    size_t skipped;
    struct seen w;
    /* Two series for one node are both reported: the poller, which knows
     * the nodes, refuses the ambiguity. A duplicate key keeps the last. */
    char *b = vector_of("{\"metric\":{\"node\":\"a\"},\"value\":[1,\"1\"]},"
                        "{\"metric\":{\"node\":\"a\"},\"value\":[1,\"2\"]},"
                        "{\"metric\":{\"node\":\"x\",\"node\":\"b\"},\"value\":[1,\"3\"],"
                        "\"value\":[1,\"4\"]}");
    ck_assert_int_eq(decode(b, "node", SCORE_UNIT_BASE, &w, &skipped, err), 3);
    ck_assert_str_eq(w.node[0], "a");
    ck_assert_str_eq(w.node[1], "a");
    ck_assert_str_eq(w.node[2], "b");
    ck_assert_int_eq(w.value[2], 4);
    free(b);
    b = strdup("{\"status\":\"error\",\"status\":\"success\",\"data\":{\"resultType\":"
               "\"vector\",\"result\":[]}}");
    ck_assert_int_eq(decode(b, "node", SCORE_UNIT_BASE, &w, &skipped, err), 0);
    free(b);
}
END_TEST

START_TEST(prom_vector_deep_and_huge)
{
    char err[ERR_LEN];
    size_t skipped;
    struct seen w;
    /* Nesting far past cJSON's limit: an error, not a stack overflow. */
    size_t depth = 100000;
    char *deep = malloc(2 * depth + 1);
    ck_assert_ptr_nonnull(deep);
    memset(deep, '[', depth);
    memset(deep + depth, ']', depth);
    deep[2 * depth] = '\0';
    ck_assert_int_eq(decode(deep, "node", SCORE_UNIT_MILLI, &w, &skipped, err), -EINVAL);
    free(deep);
    /* A deep metric inside a well-formed answer: the series is skipped. */
    char *inner = malloc(2 * 500 + 64);
    ck_assert_ptr_nonnull(inner);
    size_t n = (size_t)sprintf(inner, "{\"metric\":{\"node\":");
    memset(inner + n, '[', 500);
    memset(inner + n + 500, ']', 500);
    sprintf(inner + n + 1000, "},\"value\":[1,\"1\"]}");
    char *b = vector_of(inner);
    ck_assert_int_eq(decode(b, "node", SCORE_UNIT_MILLI, &w, &skipped, err), 0);
    ck_assert_uint_eq(skipped, 1);
    free(b);
    free(inner);
    /* 100 000 series: each one reported, in one pass. */
    size_t count = 100000, cap = count * 64 + 128;
    char *many = malloc(cap);
    ck_assert_ptr_nonnull(many);
    size_t len = (size_t)snprintf(many, cap,
                                  "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\","
                                  "\"result\":[");
    for (size_t i = 0; i < count; i++)
        len += (size_t)snprintf(many + len, cap - len,
                                "%s{\"metric\":{\"node\":\"n%zu\"},\"value\":[1,\"%zu\"]}",
                                i > 0 ? "," : "", i, i);
    snprintf(many + len, cap - len, "]}}");
    ck_assert_int_eq(decode(many, "node", SCORE_UNIT_BASE, &w, &skipped, err), (int)count);
    ck_assert_uint_eq(skipped, 0);
    free(many);
    /* The bound grows with the nodes and stays finite. */
    ck_assert_uint_gt(codec_prom_vector_bound(5000), codec_prom_vector_bound(10));
    ck_assert_uint_lt(codec_prom_vector_bound(5000), 64u << 20);
}
END_TEST

Suite *prom_vector_suite(void)
{
    Suite *s = suite_create("prom_vector");
    TCase *tc = tcase_create("prom_vector");
    tcase_add_test(tc, prom_vector_cores_and_bytes);
    tcase_add_test(tc, prom_vector_unusable_series_skipped);
    tcase_add_test(tc, prom_vector_errors);
    tcase_add_test(tc, prom_vector_duplicates);
    tcase_add_test(tc, prom_vector_deep_and_huge);
    suite_add_tcase(s, tc);
    return s;
}

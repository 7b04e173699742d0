/*
 * GET /metrics on the real binary: every counter and histogram moves by
 * exactly what was sent (the examples' sizes and node counts), and the
 * histograms are well formed.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server/ops/labels.h"
#include "tests/suites.h"
#include "tests/support/fixtures.h"
#include "tests/support/http_client.h"
#include "tests/support/metrics_scrape.h"
#include "tests/support/server_proc.h"

static int post(int port, const char *path, const char *body, size_t len)
{
    struct http_response r;
    ck_assert_int_eq(http_request(port, "POST", path, body, len, &r), 0);
    int status = r.status;
    http_response_free(&r);
    return status;
}

START_TEST(metrics_count_exactly_what_was_sent)
{
    struct server_proc s;
    const char *const args[] = {"--max-body-bytes", "8192", NULL};
    size_t filter_len, prio_len;
    char *filter = file_slurp("examples/filter.json", &filter_len);
    char *prio = file_slurp("examples/prioritize.json", &prio_len);
    server_start(&s, args);

    char *before = metrics_get(s.port);
    ck_assert_double_eq(
        metrics_must(before, "cpu_extender_requests_total{verb=\"filter\",status=\"200\"}"), 0);
    /* Every verb's 200 histogram before its first call: rate() needs the 0. */
    for (int v = 0; v < OPS_VERB_COUNT; v++) {
        char name[128];
        snprintf(name, sizeof(name),
                 "cpu_extender_request_duration_seconds_count{verb=\"%s\",status=\"200\"}",
                 ops_verb_name((enum ops_verb)v));
        ck_assert_double_eq(metrics_must(before, name), 0);
    }
    ck_assert_msg(metrics_value(before,
                                "cpu_extender_request_duration_seconds_count{verb=\"filter\","
                                "status=\"400\"}") < 0,
                  "other statuses once seen");
    free(before);

    ck_assert_int_eq(post(s.port, "/scheduler/filter", filter, filter_len), 200);
    ck_assert_int_eq(post(s.port, "/scheduler/prioritize", prio, prio_len), 200);
    ck_assert_int_eq(post(s.port, "/scheduler/prioritize", prio, prio_len), 200);
    ck_assert_int_eq(post(s.port, "/scheduler/prioritize", "{}", 2), 400);
    static char big[9000];
    memset(big, ' ', sizeof(big));
    ck_assert_int_eq(post(s.port, "/scheduler/preempt", big, sizeof(big)), 413);
    const char *bind = "{\"PodName\":\"p\",\"PodNamespace\":\"d\",\"Node\":\"n\"}";
    ck_assert_int_eq(post(s.port, "/scheduler/bind", bind, strlen(bind)), 200);

    char *m = metrics_get(s.port);
    ck_assert_double_eq(
        metrics_must(m, "cpu_extender_requests_total{verb=\"filter\",status=\"200\"}"), 1);
    ck_assert_double_eq(
        metrics_must(m, "cpu_extender_requests_total{verb=\"prioritize\",status=\"200\"}"), 2);
    ck_assert_double_eq(
        metrics_must(m, "cpu_extender_requests_total{verb=\"prioritize\",status=\"400\"}"), 1);
    ck_assert_double_eq(
        metrics_must(m, "cpu_extender_requests_total{verb=\"preempt\",status=\"413\"}"), 1);
    ck_assert_double_eq(
        metrics_must(m, "cpu_extender_requests_total{verb=\"bind\",status=\"200\"}"), 1);
    ck_assert_double_eq(
        metrics_must(
            m, "cpu_extender_request_duration_seconds_count{verb=\"prioritize\",status=\"200\"}"),
        2);
    /* bodies to the byte; the 400's two bytes count, its nodes do not */
    ck_assert_double_eq(metrics_must(m, "cpu_extender_request_body_bytes_sum{verb=\"filter\"}"),
                        (double)filter_len);
    ck_assert_double_eq(metrics_must(m, "cpu_extender_request_body_bytes_sum{verb=\"prioritize\"}"),
                        (double)(2 * prio_len + 2));
    ck_assert_double_eq(
        metrics_must(m, "cpu_extender_request_body_bytes_count{verb=\"prioritize\"}"), 3);
    /* both examples carry four nodes */
    ck_assert_double_eq(metrics_must(m, "cpu_extender_request_nodes_sum{verb=\"filter\"}"), 4);
    ck_assert_double_eq(metrics_must(m, "cpu_extender_request_nodes_sum{verb=\"prioritize\"}"), 8);
    ck_assert_double_eq(metrics_must(m, "cpu_extender_request_nodes_count{verb=\"prioritize\"}"),
                        2);
    ck_assert_double_eq(
        metrics_must(m, "cpu_extender_request_nodes_bucket{verb=\"prioritize\",le=\"3\"}"), 0);
    ck_assert_double_eq(
        metrics_must(m, "cpu_extender_request_nodes_bucket{verb=\"prioritize\",le=\"10\"}"), 2);
    ck_assert_double_eq(metrics_must(m, "cpu_extender_unknown_nodes_total"), 0);
    ck_assert_msg(metrics_value(m, "cpu_extender_cluster_nodes") < 0, "no cluster, no gauge");
    ck_assert_msg(strstr(m, "cpu_extender_build_info{version=\"") != NULL, "%s", m);
    ck_assert_msg(strstr(m, "# TYPE cpu_extender_request_duration_seconds histogram") != NULL, "%s",
                  m);
    /* without a cluster no binding is seen: the shadow report is all zero */
    ck_assert_double_eq(
        metrics_must(m, "cpu_extender_shadow_decisions_compared_total{mode=\"enforce\"}"), 0);
    ck_assert_double_eq(metrics_must(m, "cpu_extender_shadow_bound_rank_count{mode=\"shadow\"}"),
                        0);
    /* duration: 200 of the four verbs (preempt's empty), prioritize 400, preempt 413; body
     * bytes for the four verbs; nodes for the three with candidates; the score spread; the
     * bound node's rank in both modes */
    ck_assert_int_eq(metrics_assert_histograms(m), 6 + 4 + 3 + 1 + 2);
    free(m);
    free(filter);
    free(prio);
    ck_assert_int_eq(server_stop(&s), 0);
}
END_TEST

Suite *metrics_suite(void)
{
    Suite *s = suite_create("metrics");
    TCase *tc = tcase_create("metrics");
    tcase_add_test(tc, metrics_count_exactly_what_was_sent);
    suite_add_tcase(s, tc);
    return s;
}

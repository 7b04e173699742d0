/*
 * API answers bounded from what was asked (issue 23, finding 3): the real
 * binary against the fake API server (tests/support/fake_world.h).
 *
 * - A list page over its bound (kube_informer_page_bound: 8 MiB at most)
 *   is refused and asked for again with half the limit, counted in
 *   cpu_extender_list_pages_shrunk_total; the list still completes.
 * - A server that ignores limit= and sends the whole list as one page
 *   costs a list error, not the page's size in memory.
 * - A metrics.k8s.io answer over its bound from the node count
 *   (codec_node_metrics_bound) is an error of the poll, not memory.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/suites.h"
#include "tests/support/fake_world.h"
#include "tests/support/metrics_scrape.h"
#include "tests/support/skip.h"

#define PAD (1u << 20) /* bytes of annotation per node: 1 MiB */

static struct test_pki pki;

static void make_pki(void)
{
    test_pki_make(&pki);
}

static void remove_pki(void)
{
    test_pki_remove(&pki);
}

/* Stores nodes n0 .. n(@count-1), each carrying @pad bytes of annotation. */
static void put_nodes(struct fake_world *w, int count, size_t pad)
{
    size_t cap = pad + 512;
    char *json = malloc(cap);
    char *fill = malloc(pad + 1);
    ck_assert_ptr_nonnull(json);
    ck_assert_ptr_nonnull(fill);
    memset(fill, 'x', pad);
    fill[pad] = '\0';
    for (int i = 0; i < count; i++) {
        snprintf(
            json, cap,
            "{\"metadata\":{\"name\":\"n%d\",\"annotations\":{\"pad\":\"%s\"}},"
            "\"status\":{\"allocatable\":{\"cpu\":\"4\",\"memory\":\"8Gi\",\"pods\":\"110\"}}}",
            i, fill);
        ck_assert_int_eq(fake_put(w->fake, FAKE_NODE, json, NULL), 0);
    }
    free(fill);
    free(json);
}

static double metric(struct fake_world *w, const char *series)
{
    char *m = metrics_get(w->server.port);
    double v = metrics_value(m, series);
    free(m);
    return v;
}

/* Waits (@seconds at most) until @series is at least @want; false if never. */
static bool await_metric(struct fake_world *w, const char *series, double want, int seconds)
{
    for (int i = 0; i < seconds * 20; i++) {
        if (metric(w, series) >= want)
            return true;
        usleep(50000);
    }
    return false;
}

/* Is the binary under test built with ASan (terabytes of address space)?
 * Its RSS measures the sanitizer, not us. */
static bool sanitized(pid_t pid)
{
    return fake_world_proc_kib(pid, "VmSize") > (1L << 30);
}

/* 12 nodes of 1 MiB: a 12 MiB first page at limit=500. It is refused,
 * asked again with limits 250, 125, ... 7 (7 MiB fits), and the list ends
 * with every node; after it the process is back near its idle size. The
 * old client took the 12 MiB page. */
START_TEST(api_bounds_oversized_page_is_asked_smaller)
{
    struct fake_world w;
    fake_world_prepare(&w, &pki);
    put_nodes(&w, 12, PAD);
    fake_world_start(&w, NULL);
    fake_world_await_ready(&w);
    ck_assert_double_eq(metric(&w, "cpu_extender_cluster_nodes"), 12);
    double shrunk = metric(&w, "cpu_extender_list_pages_shrunk_total{resource=\"nodes\"}");
    ck_assert_msg(shrunk >= 1, "pages shrunk: %g", shrunk);
    ck_assert_double_eq(metric(&w, "cpu_extender_list_pages_shrunk_total{resource=\"pods\"}"), 0);
    /* The pages' memory went back (malloc_trim, large blocks mapped): idle
     * is about 10 MiB, the peak of the 7 MiB page more than twice that. */
    long rss = fake_world_proc_kib(w.server.pid, "VmRSS");
    long peak = fake_world_proc_kib(w.server.pid, "VmHWM");
    if (sanitized(w.server.pid))
        test_skip_unsupported("RSS under ASan measures the sanitizer");
    else
        ck_assert_msg(rss > 0 && rss < 20 * 1024, "RSS %ld KiB after the list (peak %ld KiB)", rss,
                      peak);
    ck_assert_int_eq(server_stop(&w.server), 0);
    fake_world_end(&w);
}
END_TEST

/* The fake ignores limit= and sends 24 MiB in one page: each try stops
 * at its bound (8 MiB at most), the list fails, the process stays small.
 * The old client took the page (24 MiB of text, and its tree). */
START_TEST(api_bounds_page_ignoring_limit_costs_bounded_memory)
{
    struct fake_world w;
    fake_world_prepare(&w, &pki);
    put_nodes(&w, 24, PAD);
    fake_ignore_limit(w.fake, true);
    fake_world_start(&w, NULL);
    ck_assert_msg(await_metric(&w, "cpu_extender_api_errors_total{resource=\"nodes\"}", 1, 60),
                  "the list never failed");
    ck_assert_msg(metric(&w, "cpu_extender_list_pages_shrunk_total{resource=\"nodes\"}") >= 8,
                  "the page was not asked for smaller");
    long peak = fake_world_proc_kib(w.server.pid, "VmHWM");
    if (sanitized(w.server.pid)) {
        test_skip_unsupported("RSS under ASan measures the sanitizer");
    } else {
        /* Idle about 10 MiB; one try holds at most 8 MiB of body. */
        ck_assert_msg(peak > 0 && peak < 48 * 1024, "peak RSS %ld KiB", peak);
    }
    ck_assert_int_eq(server_stop(&w.server), 0);
    fake_world_end(&w);
}
END_TEST

/* Three nodes whose metrics items carry 1 MiB of labels each: 3 MiB,
 * over the bound for three nodes (about 330 KiB), so the poll fails with
 * an error. The old poller took any answer up to 512 MiB. */
START_TEST(api_bounds_metrics_answer_bounded_by_node_count)
{
    struct fake_world w;
    fake_world_prepare(&w, &pki);
    put_nodes(&w, 3, 16);
    for (int i = 0; i < 3; i++) {
        char name[16];
        snprintf(name, sizeof(name), "n%d", i);
        ck_assert_int_eq(fake_set_node_metrics(w.fake, name, "100m", "1Gi"), 0);
    }
    ck_assert_int_eq(fake_set_metrics_padding(w.fake, PAD), 0);
    fake_world_start(&w, (const char *const[]){"--cpu-used-source", "usage",
                                               "--metrics-interval-seconds", "1", NULL});
    fake_world_await_ready(&w);
    ck_assert_msg(
        await_metric(&w, "cpu_extender_api_errors_total{resource=\"nodes.metrics.k8s.io\"}", 1, 30),
        "the oversized metrics answer was taken");
    ck_assert_int_eq(server_stop(&w.server), 0);
    fake_world_end(&w);
}
END_TEST

Suite *api_bounds_suite(void)
{
    Suite *s = suite_create("api_bounds");
    TCase *tc = tcase_create("api_bounds");
    tcase_add_unchecked_fixture(tc, make_pki, remove_pki);
    tcase_set_timeout(tc, 180);
    tcase_add_test(tc, api_bounds_oversized_page_is_asked_smaller);
    tcase_add_test(tc, api_bounds_page_ignoring_limit_costs_bounded_memory);
    tcase_add_test(tc, api_bounds_metrics_answer_bounded_by_node_count);
    suite_add_tcase(s, tc);
    return s;
}

/*
 * GET /metrics on the real binary: every counter and histogram moves by
 * exactly what was sent (the examples' sizes and node counts), and the
 * histograms are well formed.
 */
#include <check.h>
#include <dirent.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "server/ops/labels.h"
#include "server/ops/metrics.h"
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

/* The label pairs of family @name on @text, each "a|b" (the values of
 * its two labels in order), joined by spaces in the order shown. */
static void pairs_of(const char *text, const char *name, char *out, size_t n)
{
    size_t len = strlen(name);
    out[0] = '\0';
    for (const char *line = text; line != NULL && *line != '\0';) {
        char a[64], b[64];
        if (strncmp(line, name, len) == 0 && line[len] == '{' &&
            sscanf(line + len, "{%*[^=]=\"%63[^\"]\",%*[^=]=\"%63[^\"]\"}", a, b) == 2) {
            size_t used = strlen(out);
            snprintf(out + used, n - used, "%s%s|%s", used ? " " : "", a, b);
        }
        line = strchr(line, '\n');
        if (line != NULL)
            line++;
    }
}

/* Only label pairs that can happen are exported: a node passes the filter
 * because it fits, is unknown to the state, is stale under stalePolicy
 * pass, or is over a threshold but exempt (thresholdExempt) or let through
 * with every other candidate (thresholdPolicy unlessAllFail); it fails short of cpu, memory or
 * both, stale under stalePolicy full, or unusable. Every verb but bind answers every kind: preempt
 * too keeps every candidate past its deadline (neutral_deadline). */
START_TEST(metrics_export_only_possible_label_pairs)
{
    struct server_proc s;
    char pairs[4096];
    server_start(&s, NULL);
    char *m = metrics_get(s.port);
    pairs_of(m, "cpu_extender_filter_decisions_total", pairs, sizeof(pairs));
    ck_assert_str_eq(pairs,
                     "passed|fits passed|unknown_node passed|stale_data passed|threshold_exempt "
                     "passed|threshold_let_through "
                     "failed|insufficient_cpu failed|insufficient_memory "
                     "failed|insufficient_cpu_and_memory failed|stale_data "
                     "failed|invalid_node");
    pairs_of(m, "cpu_extender_answers_total", pairs, sizeof(pairs));
    ck_assert_str_eq(pairs, "filter|scored filter|shadow filter|passthrough_mode "
                            "filter|passthrough_selector filter|neutral_deadline "
                            "prioritize|scored prioritize|shadow prioritize|passthrough_mode "
                            "prioritize|passthrough_selector prioritize|neutral_deadline "
                            "preempt|scored preempt|shadow preempt|passthrough_mode "
                            "preempt|passthrough_selector preempt|neutral_deadline");
    free(m);
    ck_assert_int_eq(server_stop(&s), 0);
}
END_TEST

/* A number from /proc/PID/FILE: the one after @label on its line. */
static double proc_field(pid_t pid, const char *file, const char *label)
{
    char path[64], line[512];
    double v = -1;
    snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    while (fgets(line, sizeof(line), f) != NULL)
        if (strncmp(line, label, strlen(label)) == 0)
            v = strtod(line + strlen(label), NULL);
    fclose(f);
    return v;
}

static int count_fds(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
    DIR *d = opendir(path);
    ck_assert_ptr_nonnull(d);
    int n = 0;
    const struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* process_* as the Prometheus client libraries define them, against what
 * the test reads of the server from outside (its /proc entry, the time
 * around its start). */
START_TEST(metrics_process_families_describe_the_process)
{
    struct server_proc s;
    time_t before = time(NULL);
    server_start(&s, NULL);
    time_t after = time(NULL);
    char *m = metrics_get(s.port);
    int fds_now = count_fds(s.pid);
    double rss_kb = proc_field(s.pid, "status", "VmRSS:");
    double vm_kb = proc_field(s.pid, "status", "VmSize:");
    double max_fds = proc_field(s.pid, "limits", "Max open files");

    double start = metrics_must(m, "process_start_time_seconds");
    /* boot time has whole seconds and the start ticks 1/100 s */
    ck_assert_msg(start >= (double)before - 1 && start <= (double)after + 1, "start %f", start);
    double rss = metrics_must(m, "process_resident_memory_bytes");
    ck_assert_msg(rss > 0.8 * rss_kb * 1024 && rss < 1.25 * rss_kb * 1024, "rss %f, VmRSS %f kB",
                  rss, rss_kb);
    double vm = metrics_must(m, "process_virtual_memory_bytes");
    ck_assert_msg(vm > 0.9 * vm_kb * 1024 && vm < 1.1 * vm_kb * 1024, "vm %f, VmSize %f kB", vm,
                  vm_kb);
    /* during the scrape: the descriptors of now, plus the scrape's socket */
    double fds = metrics_must(m, "process_open_fds");
    ck_assert_msg(fds >= fds_now && fds <= fds_now + 2, "open fds %f, /proc says %d", fds, fds_now);
    ck_assert_double_eq(metrics_must(m, "process_max_fds"), max_fds);
    double cpu = metrics_must(m, "process_cpu_seconds_total");
    ck_assert_msg(cpu >= 0 && cpu < 5, "cpu %f", cpu);
    for (const char *const *t =
             (const char *const[]){"# TYPE process_cpu_seconds_total counter",
                                   "# TYPE process_open_fds gauge", "# TYPE process_max_fds gauge",
                                   "# TYPE process_virtual_memory_bytes gauge",
                                   "# TYPE process_resident_memory_bytes gauge",
                                   "# TYPE process_start_time_seconds gauge", NULL};
         *t != NULL; t++)
        ck_assert_msg(strstr(m, *t) != NULL, "no \"%s\"", *t);
    free(m);
    ck_assert_int_eq(server_stop(&s), 0);
}
END_TEST

static char *config_path(void)
{
    static char path[96];
    snprintf(path, sizeof(path), "/tmp/cpu-extender-metrics-%d.json", (int)getpid());
    return path;
}

/* Replaces the config file (a rename: a new inode, as a ConfigMap does). */
static void write_config(const char *text)
{
    char tmp[128];
    snprintf(tmp, sizeof(tmp), "%s.new", config_path());
    FILE *f = fopen(tmp, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    ck_assert_int_eq(rename(tmp, config_path()), 0);
}

/* Waits until /metrics on @port shows @series at @want. */
static char *await_series(int port, const char *series, double want)
{
    for (int i = 0; i < 100; i++) {
        char *m = metrics_get(port);
        if (metrics_value(m, series) == want)
            return m;
        free(m);
        usleep(50000);
    }
    ck_abort_msg("%s never reached %g", series, want);
    return NULL;
}

START_TEST(metrics_last_reload_gauges_follow_the_reloads)
{
    struct server_proc s;
    static const char ok[] = "cpu_extender_config_last_reload_successful";
    static const char ts[] = "cpu_extender_config_last_reload_success_timestamp_seconds";
    write_config("{\"strategy\": \"spread\"}");
    const char *const args[] = {"--config", config_path(), NULL};
    time_t before = time(NULL);
    server_start(&s, args);
    time_t after = time(NULL);

    char *m = metrics_get(s.port);
    ck_assert_double_eq(metrics_must(m, ok), 1); /* the start's load counts */
    double t0 = metrics_must(m, ts);
    ck_assert_msg(t0 >= (double)before && t0 <= (double)after + 1, "%f", t0);
    free(m);

    usleep(20000); /* a later timestamp, in ms */
    write_config("{\"strategy\": \"nonsense\"}");
    m = await_series(s.port, "cpu_extender_config_reloads_total{result=\"rejected\"}", 1);
    ck_assert_double_eq(metrics_must(m, ok), 0);
    ck_assert_double_eq(metrics_must(m, ts), t0); /* the configuration in use is still t0's */
    free(m);

    write_config("{\"strategy\": \"pack\"}");
    m = await_series(s.port, "cpu_extender_config_reloads_total{result=\"accepted\"}", 1);
    ck_assert_double_eq(metrics_must(m, ok), 1);
    double t1 = metrics_must(m, ts);
    ck_assert_msg(t1 > t0, "%f after %f", t1, t0);
    free(m);

    /* SIGHUP with the same file: a good reload (the gauge and the time),
     * not counted as a change */
    usleep(20000);
    kill(s.pid, SIGHUP);
    for (int i = 0; i < 100; i++) {
        m = metrics_get(s.port);
        if (metrics_must(m, ts) > t1)
            break;
        free(m);
        m = NULL;
        usleep(50000);
    }
    ck_assert_ptr_nonnull(m);
    ck_assert_double_eq(metrics_must(m, ok), 1);
    ck_assert_double_eq(metrics_must(m, "cpu_extender_config_reloads_total{result=\"accepted\"}"),
                        1);
    free(m);
    ck_assert_int_eq(server_stop(&s), 0);
    unlink(config_path());
}
END_TEST

/* The duration buckets as the rule gives them: 25 us to 10 s, le inclusive,
 * printed as Prometheus' clients print them (Go's %g: 2.5e-05). A call with
 * node names takes about 0.05 ms; with 0.1 ms as the first bound
 * histogram_quantile could not tell 0.025 ms from 0.05 ms. */
START_TEST(metrics_duration_buckets_resolve_tens_of_microseconds)
{
    static const char *const le[] = {
        "2.5e-05", "5e-05", "0.0001", "0.00025", "0.0005", "0.001", "0.0025",
        "0.005",   "0.01",  "0.025",  "0.05",    "0.1",    "0.25",  "0.5",
        "1",       "2.5",   "5",      "10",      "+Inf",
    };
    /* 20, 25 (on the bound), 30, 50 (on the bound), 70, 100 and 200 us, and 12 s */
    static const double calls[] = {0.00002, 0.000025, 0.00003, 0.00005,
                                   0.00007, 0.0001,   0.0002,  12};
    static const double want[] = {2, 4, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 8};
    struct ops_metrics m;
    ops_metrics_init(&m);
    for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
        ops_metrics_request(&m, OPS_VERB_FILTER, 200, calls[i], 100, 1);
    struct ops_cluster_gauges g = {0};
    char *t;
    size_t len;
    ck_assert_int_eq(ops_metrics_render(&m, &g, 0, 0, &t, &len), 0);

    /* exactly these bounds, in this order, and nothing else */
    const char *prefix =
        "cpu_extender_request_duration_seconds_bucket{verb=\"filter\",status=\"200\","
        "le=\"";
    size_t n = 0;
    for (const char *p = strstr(t, prefix); p != NULL; p = strstr(p + 1, prefix)) {
        const char *v = p + strlen(prefix);
        ck_assert_msg(n < sizeof(le) / sizeof(le[0]), "more buckets than %zu", n);
        ck_assert_msg(strncmp(v, le[n], strlen(le[n])) == 0 && v[strlen(le[n])] == '"',
                      "bucket %zu: %.12s, want %s", n, v, le[n]);
        char series[160];
        snprintf(series, sizeof(series), "%s%s\"}", prefix, le[n]);
        ck_assert_double_eq(metrics_must(t, series), want[n]);
        n++;
    }
    ck_assert_uint_eq(n, sizeof(le) / sizeof(le[0]));
    ck_assert_double_eq(
        metrics_must(t,
                     "cpu_extender_request_duration_seconds_count{verb=\"filter\",status=\"200\"}"),
        8);
    double sum = metrics_must(
        t, "cpu_extender_request_duration_seconds_sum{verb=\"filter\",status=\"200\"}");
    ck_assert_double_eq_tol(sum, 12.000495, 1e-8);
    metrics_assert_histograms(t);
    free(t);

    /* the man page names the same bounds: ms below 1 s, then s */
    char said[512] = "end at";
    size_t last = sizeof(le) / sizeof(le[0]) - 1; /* +Inf is not named */
    for (size_t i = 0; i < last; i++) {
        double v = strtod(le[i], NULL);
        bool ms = v < 1,
             unit_ends = ms ? strtod(le[i + 1], NULL) >= 1 || i + 1 == last : i + 1 == last;
        bool unit_starts = i == 0 || (!ms && strtod(le[i - 1], NULL) < 1);
        size_t k = strlen(said);
        snprintf(said + k, sizeof(said) - k, "%s%s%.10g%s", unit_starts && i > 0 ? " and at" : "",
                 unit_starts ? " " : (unit_ends ? " and " : ", "), ms ? v * 1000 : v,
                 unit_ends ? (ms ? " ms" : " s") : "");
    }
    char *page = file_slurp("docs/cpu-extender.1", &len);
    ck_assert_ptr_nonnull(page);
    for (char *c = page; *c != '\0'; c++)
        if (*c == '\n')
            *c = ' ';
    ck_assert_msg(strstr(page, said) != NULL, "docs/cpu-extender.1 does not say: %s", said);
    free(page);
}
END_TEST

Suite *metrics_suite(void)
{
    Suite *s = suite_create("metrics");
    TCase *tc = tcase_create("metrics");
    tcase_add_test(tc, metrics_count_exactly_what_was_sent);
    tcase_add_test(tc, metrics_export_only_possible_label_pairs);
    tcase_add_test(tc, metrics_process_families_describe_the_process);
    tcase_add_test(tc, metrics_last_reload_gauges_follow_the_reloads);
    tcase_add_test(tc, metrics_duration_buckets_resolve_tens_of_microseconds);
    suite_add_tcase(s, tc);
    return s;
}

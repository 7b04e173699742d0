/*
 * The shadow report end to end (issue 16): the real binary watches the
 * fake API server of tests/support/fake_apiserver.c, scores pods in shadow
 * mode, and compares each binding the watch shows with the pod's decision.
 * Pods are bound as kube-scheduler binds them: through the extender's bind
 * verb (a Binding POSTed to the API server) or by the API server's own
 * binding (the pod stored with spec.nodeName), both seen as a MODIFIED or
 * ADDED event.
 *
 * Worked values (spread, cpu weight 3, memory weight 1, score = (value + 5)
 * / 10, integer division). Every node has 4 CPUs and 8Gi; every web-* pod
 * asks for 500m and 512Mi.
 *
 * Before any binding: n1 3000m, 1Gi used; n2 1000m, 1Gi; n3 nothing (its
 * Succeeded pod is not charged).
 *   n1  cpu (4000-3500)*100/4000 = 12  mem (8Gi-1.5Gi)*100/8Gi = 81
 *       value (3*12 + 81)/4 = 29, score 3
 *   n2  cpu 2500*100/4000 = 62          mem 81   value (186+81)/4 = 66, score 7
 *   n3  cpu 3500*100/4000 = 87          mem 93   value (261+93)/4 = 88, score 9
 * so the order is n3 (9), n2 (7), n1 (3):
 *   web-a bound to n3: rank 1, difference 0, agreed;
 *   web-b bound to n1 (our third): rank 3, difference 9 - 3 = 6.
 *
 * Then web-a is on n3 and web-b on n1; "other" (requests 0) and web-c
 * arrive already bound to n2 (web-c before its decision: the race):
 *   n1  3500m, 1.5Gi: cpu (4000-4000) = 0    mem (8-2)/8 = 75   value 75/4 = 18, score 2
 *   n2  1500m, 1.5Gi: cpu 2000*100/4000 = 50 mem 75           value 225/4 = 56, score 6
 *   n3   500m, 0.5Gi: cpu 3000*100/4000 = 75 mem (8-1)/8 = 87 value 312/4 = 78, score 8
 *   web-c on n2: rank 2, difference 8 - 6 = 2.
 * web-d is scored on n1 and n2 only and bound to n3: not a candidate.
 *
 * Finally, in enforce mode, with web-d (500m, 512Mi) on n3 too:
 *   n3  1000m, 1Gi: cpu 2500*100/4000 = 62, mem (8-1.5)/8 = 81: value 66, score 7
 *   web-e scores n1 2, n2 6, n3 7 and is bound to n3: agreed.
 */
#include <check.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "tests/suites.h"
#include "tests/support/fake_apiserver.h"
#include "tests/support/fixtures.h"
#include "tests/support/http_client.h"
#include "tests/support/json_assert.h"
#include "tests/support/metrics_scrape.h"
#include "tests/support/server_proc.h"
#include "tests/support/test_certs.h"

#define TOKEN "token-shadow"

static struct test_pki pki;

static void make_pki(void)
{
    test_pki_make(&pki);
}

static void remove_pki(void)
{
    test_pki_remove(&pki);
}

struct world {
    struct fake_apiserver *fake;
    char kubeconfig[128], config[128];
    struct server_proc server;
};

static void put_node(struct world *w, const char *name, const char *mem)
{
    char json[512];
    snprintf(json, sizeof(json),
             "{\"metadata\":{\"name\":\"%s\"},\"status\":{\"allocatable\":"
             "{\"cpu\":\"4\",\"memory\":\"%s\",\"pods\":\"110\"}}}",
             name, mem);
    ck_assert_int_eq(fake_put(w->fake, FAKE_NODE, json, NULL), 0);
}

/* Pod default/@name (UID uid-@name) requesting @cpu and @mem, on @node
 * ("" pending), in @phase. */
static void put_pod(struct world *w, const char *name, const char *node, const char *cpu,
                    const char *mem, const char *phase)
{
    char json[1024];
    snprintf(json, sizeof(json),
             "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"default\",\"uid\":\"uid-%s\"},"
             "\"spec\":{\"nodeName\":\"%s\",\"containers\":[{\"name\":\"c\",\"resources\":"
             "{\"requests\":{\"cpu\":\"%s\",\"memory\":\"%s\"}}}]},\"status\":{\"phase\":\"%s\"}}",
             name, name, node, cpu, mem, phase);
    ck_assert_int_eq(fake_put(w->fake, FAKE_POD, json, NULL), 0);
}

static void start(struct world *w, const char *config)
{
    char ca[256], c[256], k[256];
    struct fake_params p = {
        .cert_file = test_pki_path(&pki, "server.pem", c, sizeof(c)),
        .key_file = test_pki_path(&pki, "server.key", k, sizeof(k)),
        .token = TOKEN,
    };
    ck_assert_int_eq(fake_start(&p, &w->fake), 0);
    put_node(w, "n1", "8Gi");
    put_node(w, "n2", "8Gi");
    put_node(w, "n3", "8192Mi");
    put_pod(w, "a", "n1", "2", "512Mi", "Running");
    put_pod(w, "b", "n1", "1", "512Mi", "Running");
    put_pod(w, "c", "n2", "1", "1Gi", "Running");
    put_pod(w, "done", "n3", "3", "4Gi", "Succeeded");
    put_pod(w, "web-a", "", "500m", "512Mi", "Pending");
    put_pod(w, "web-b", "", "500m", "512Mi", "Pending");
    put_pod(w, "web-e", "", "500m", "512Mi", "Pending");

    snprintf(w->kubeconfig, sizeof(w->kubeconfig), "%s/kubeconfig-shadow-%d", pki.dir, getpid());
    FILE *f = fopen(w->kubeconfig, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f,
            "apiVersion: v1\nkind: Config\ncurrent-context: t\n"
            "clusters:\n- name: fake\n  cluster:\n    server: https://127.0.0.1:%d\n"
            "    certificate-authority: %s\n"
            "users:\n- name: u\n  user:\n    token: " TOKEN "\n"
            "contexts:\n- name: t\n  context:\n    cluster: fake\n    user: u\n",
            fake_port(w->fake), test_pki_path(&pki, "ca.pem", ca, sizeof(ca)));
    fclose(f);
    snprintf(w->config, sizeof(w->config), "%s/config-shadow-%d.json", pki.dir, getpid());
    file_write(w->config, config);
    const char *args[] = {"--kubeconfig", w->kubeconfig, "--config", w->config,
                          "--log-level",  "debug",       NULL};
    server_start(&w->server, args);
    for (int i = 0; i < 200; i++) {
        struct http_response r;
        ck_assert_int_eq(http_request(w->server.port, "GET", "/readyz", NULL, 0, &r), 0);
        int status = r.status;
        http_response_free(&r);
        if (status == 200)
            return;
        usleep(50000);
    }
    ck_abort_msg("never ready");
}

static void stop(struct world *w)
{
    ck_assert_int_eq(server_stop(&w->server), 0);
    fake_stop(w->fake);
    unlink(w->kubeconfig);
    unlink(w->config);
}

static char *request(int port, const char *method, const char *path, const char *body, int want)
{
    struct http_response r;
    ck_assert_int_eq(http_request(port, method, path, body, body ? strlen(body) : 0, &r), 0);
    ck_assert_msg(r.status == want, "%s %s: %d, want %d: %s", method, path, r.status, want, r.body);
    char *out = strdup(r.body != NULL ? r.body : "");
    http_response_free(&r);
    return out;
}

/* prioritize for default/@pod (500m, 512Mi) over @names; the answer. */
static char *prioritize(int port, const char *pod, const char *names)
{
    char body[1024];
    snprintf(
        body, sizeof(body),
        "{\"Pod\":{\"metadata\":{\"name\":\"%s\",\"namespace\":\"default\",\"uid\":\"uid-%s\"},"
        "\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":"
        "{\"cpu\":\"500m\",\"memory\":\"512Mi\"}}}]}},\"NodeNames\":[%s]}",
        pod, pod, names);
    return request(port, "POST", "/scheduler/prioritize", body, 200);
}

static void assert_prioritize(int port, const char *pod, const char *names, const char *want)
{
    char *got = prioritize(port, pod, names);
    assert_json_eq(got, want);
    free(got);
}

/* Waits (10 s at most: the watch is asynchronous) until @series is @want. */
static void await_metric(int port, const char *series, double want)
{
    double v = -1;
    for (int i = 0; i < 200; i++) {
        char *m = metrics_get(port);
        v = metrics_value(m, series);
        free(m);
        if (v == want)
            return;
        usleep(50000);
    }
    ck_abort_msg("%s is %g, want %g", series, v, want);
}

/* Rewrites the config file and waits for the @n-th accepted reload. */
static void reload(struct world *w, const char *config, double n)
{
    file_write(w->config, config);
    kill(w->server.pid, SIGHUP);
    await_metric(w->server.port, "cpu_extender_config_reloads_total{result=\"accepted\"}", n);
}

static void expect_counts(int port, const char *mode, double compared, double agreed,
                          double elsewhere, const double buckets[6], double sum)
{
    static const char *const le[] = {"1", "2", "3", "5", "10", "+Inf"};
    char series[160];
    char *m = metrics_get(port);
    snprintf(series, sizeof(series), "cpu_extender_shadow_decisions_compared_total{mode=\"%s\"}",
             mode);
    ck_assert_double_eq(metrics_must(m, series), compared);
    snprintf(series, sizeof(series), "cpu_extender_shadow_decisions_agreed_total{mode=\"%s\"}",
             mode);
    ck_assert_double_eq(metrics_must(m, series), agreed);
    snprintf(series, sizeof(series), "cpu_extender_shadow_bound_elsewhere_total{mode=\"%s\"}",
             mode);
    ck_assert_double_eq(metrics_must(m, series), elsewhere);
    for (int i = 0; i < 6; i++) {
        snprintf(series, sizeof(series),
                 "cpu_extender_shadow_bound_rank_bucket{mode=\"%s\",le=\"%s\"}", mode, le[i]);
        ck_assert_msg(metrics_must(m, series) == buckets[i], "%s: %g, want %g", series,
                      metrics_must(m, series), buckets[i]);
    }
    snprintf(series, sizeof(series), "cpu_extender_shadow_bound_rank_count{mode=\"%s\"}", mode);
    ck_assert_double_eq(metrics_must(m, series), compared);
    snprintf(series, sizeof(series), "cpu_extender_shadow_bound_rank_sum{mode=\"%s\"}", mode);
    ck_assert_double_eq(metrics_must(m, series), sum);
    metrics_assert_histograms(m);
    free(m);
}

/* The decision of pod @name in @decisions, NULL when absent. */
static const cJSON *decision_of(const cJSON *decisions, const char *name)
{
    const cJSON *d;
    cJSON_ArrayForEach(d, decisions)
    {
        const cJSON *pod = cJSON_GetObjectItem(d, "pod");
        if (strcmp(cJSON_GetObjectItem(pod, "name")->valuestring, name) == 0)
            return d;
    }
    return NULL;
}

/* The decision's binding without its time (which is the clock's), as text. */
static char *binding_of(const cJSON *d)
{
    cJSON *b = cJSON_Duplicate(cJSON_GetObjectItem(d, "binding"), true);
    ck_assert_ptr_nonnull(b);
    ck_assert_msg(cJSON_IsString(cJSON_GetObjectItem(b, "seen")), "no seen time");
    cJSON_DeleteItemFromObject(b, "seen");
    char *text = cJSON_PrintUnformatted(b);
    cJSON_Delete(b);
    return text;
}

/* The text of the table row that starts at @needle in @page, up to the
 * end of the decision's second row. */
static char *rows_of(const char *page, const char *needle)
{
    const char *start = strstr(page, needle);
    ck_assert_msg(start != NULL, "no %s in the page", needle);
    const char *end = strstr(start, "</tr>");
    ck_assert_ptr_nonnull(end);
    end = strstr(end + 5, "</tr>");
    ck_assert_ptr_nonnull(end);
    return strndup(start, (size_t)(end - start));
}

static void assert_has(const char *text, const char *want)
{
    ck_assert_msg(strstr(text, want) != NULL, "no %s in %s", want, text);
}

#define NAMES3 "\"n1\",\"n2\",\"n3\""
#define ZERO3                                                                                      \
    "[{\"Host\":\"n1\",\"Score\":0},{\"Host\":\"n2\",\"Score\":0},{\"Host\":\"n3\",\"Score\":0}]"
#define COMPARED(n) "cpu_extender_shadow_decisions_compared_total{mode=\"" n "\"}"

START_TEST(shadow_report_compares_bindings_with_decisions)
{
    struct world w;
    /* shadow without the debug endpoints: the decisions are kept for the
     * comparison, the pages stay off */
    start(&w, "{\"mode\":\"shadow\"}");
    int port = w.server.port;
    assert_prioritize(port, "web-a", NAMES3, ZERO3); /* decision 1 */
    assert_prioritize(port, "web-b", NAMES3, ZERO3); /* decision 2 */

    /* (a) bound to our best through the bind verb, (b) by the API server to our third */
    char *got = request(port, "POST", "/scheduler/bind",
                        "{\"PodName\":\"web-a\",\"PodNamespace\":\"default\","
                        "\"PodUID\":\"uid-web-a\",\"Node\":\"n3\"}",
                        200);
    assert_json_eq(got, "{\"Error\":\"\"}");
    free(got);
    put_pod(&w, "web-b", "n1", "500m", "512Mi", "Pending");
    await_metric(port, COMPARED("shadow"), 2);
    expect_counts(port, "shadow", 2, 1, 0, (const double[]){1, 1, 2, 2, 2, 2}, 1 + 3);
    expect_counts(port, "enforce", 0, 0, 0, (const double[]){0, 0, 0, 0, 0, 0}, 0);
    free(request(port, "GET", "/debug/decisions", NULL, 404));

    /* an unknown pod's binding is ignored; (c) web-c is bound before its
     * decision is made: compared when the decision is recorded */
    put_pod(&w, "other", "n2", "0", "0", "Running");
    put_pod(&w, "web-c", "n2", "500m", "512Mi", "Pending");
    await_metric(port, "cpu_extender_cluster_pods", 9);
    assert_prioritize(port, "web-c", NAMES3, ZERO3); /* decision 3 */
    await_metric(port, COMPARED("shadow"), 3);
    /* (d) bound to a node the decision did not score */
    assert_prioritize(port, "web-d", "\"n1\",\"n2\"",
                      "[{\"Host\":\"n1\",\"Score\":0},{\"Host\":\"n2\",\"Score\":0}]");
    put_pod(&w, "web-d", "n3", "500m", "512Mi", "Pending"); /* decision 4 */
    await_metric(port, "cpu_extender_shadow_bound_elsewhere_total{mode=\"shadow\"}", 1);
    expect_counts(port, "shadow", 3, 1, 1, (const double[]){1, 2, 3, 3, 3, 3}, 1 + 3 + 2);

    /* the pages on (a reload keeps the decisions): the comparisons in the JSON */
    reload(&w, "{\"mode\":\"shadow\",\"debugEndpoints\":true}", 1);
    char *text = request(port, "GET", "/debug/decisions", NULL, 200);
    cJSON *all = cJSON_Parse(text);
    free(text);
    const cJSON *decisions = cJSON_GetObjectItem(all, "decisions");
    ck_assert_int_eq(cJSON_GetArraySize(decisions), 4);
    const cJSON *d = decision_of(decisions, "web-a");
    ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(d, "pod"), "uid")->valuestring,
                     "uid-web-a");
    char *b = binding_of(d);
    assert_json_eq(b, "{\"node\":\"n3\",\"candidate\":true,\"ourNode\":\"n3\",\"rank\":1,"
                      "\"scoreDifference\":0,\"agreed\":true}");
    free(b);
    b = binding_of(decision_of(decisions, "web-b"));
    assert_json_eq(b, "{\"node\":\"n1\",\"candidate\":true,\"ourNode\":\"n3\",\"rank\":3,"
                      "\"scoreDifference\":6,\"agreed\":false}");
    free(b);
    d = decision_of(decisions, "web-c");
    b = binding_of(d);
    assert_json_eq(b, "{\"node\":\"n2\",\"candidate\":true,\"ourNode\":\"n3\",\"rank\":2,"
                      "\"scoreDifference\":2,\"agreed\":false}");
    free(b);
    const cJSON *n = cJSON_GetObjectItem(d, "nodes");
    ck_assert_int_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(n, 0), "score")->valueint, 2);
    ck_assert_int_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(n, 1), "score")->valueint, 6);
    ck_assert_int_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(n, 2), "score")->valueint, 8);
    b = binding_of(decision_of(decisions, "web-d"));
    assert_json_eq(b, "{\"node\":\"n3\",\"candidate\":false,\"ourNode\":\"n2\","
                      "\"agreed\":false}");
    free(b);
    cJSON_Delete(all);
    /* ?disagreed=1: the three that disagree, newest first */
    text = request(port, "GET", "/debug/decisions?disagreed=1", NULL, 200);
    all = cJSON_Parse(text);
    free(text);
    decisions = cJSON_GetObjectItem(all, "decisions");
    ck_assert_int_eq(cJSON_GetArraySize(decisions), 3);
    ck_assert_int_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(decisions, 0), "id")->valueint, 4);
    ck_assert_int_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(decisions, 1), "id")->valueint, 3);
    ck_assert_int_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(decisions, 2), "id")->valueint, 2);
    cJSON_Delete(all);
    free(request(port, "GET", "/debug/decisions?disagreed=yes", NULL, 400));

    /* /debug: the last disagreements with both nodes' terms, newest first */
    char *page = request(port, "GET", "/debug", NULL, 200);
    const char *d4 = strstr(page, "<tr data-decision=\"4\">");
    const char *d3 = strstr(page, "<tr data-decision=\"3\">");
    const char *d2 = strstr(page, "<tr data-decision=\"2\">");
    ck_assert(d4 != NULL && d3 != NULL && d2 != NULL && d4 < d3 && d3 < d2);
    ck_assert_ptr_null(strstr(page, "<tr data-decision=\"1\">")); /* agreed */
    char *rows = rows_of(page, "<tr data-decision=\"2\">");
    assert_has(rows, "rank 3<br>difference 6");
    assert_has(rows, "<td data-role=\"ours\">ours: n3</td><td>fits</td>"
                     "<td>alloc 4000m, used 0m <span class=\"muted\">(requests)</span>, pod 500m "
                     "&rarr; term <b>87</b></td>"
                     "<td>alloc 8Gi, used 0 <span class=\"muted\">(requests)</span>, pod 512Mi "
                     "&rarr; term <b>93</b></td>"
                     "<td class=\"n\">88</td><td class=\"n\">9</td><td class=\"n\">90</td>"
                     "<td>value 88 = (3x87 + 1x93) / 4; score 9 = (88 + 5) / 10</td>");
    assert_has(rows, "<td data-role=\"bound\">bound: n1</td><td>fits</td>"
                     "<td>alloc 4000m, used 3000m <span class=\"muted\">(requests)</span>, pod "
                     "500m &rarr; term <b>12</b></td>"
                     "<td>alloc 8Gi, used 1Gi <span class=\"muted\">(requests)</span>, pod 512Mi "
                     "&rarr; term <b>81</b></td>"
                     "<td class=\"n\">29</td><td class=\"n\">3</td><td class=\"n\">30</td>"
                     "<td>value 29 = (3x12 + 1x81) / 4; score 3 = (29 + 5) / 10</td>");
    free(rows);
    rows = rows_of(page, "<tr data-decision=\"3\">");
    assert_has(rows, "rank 2<br>difference 2");
    assert_has(rows, "ours: n3</td><td>fits</td><td>alloc 4000m, used 500m");
    assert_has(rows, "<td>value 78 = (3x75 + 1x87) / 4; score 8 = (78 + 5) / 10</td>");
    assert_has(rows, "bound: n2</td><td>fits</td><td>alloc 4000m, used 1500m");
    assert_has(rows, "<td>value 56 = (3x50 + 1x75) / 4; score 6 = (56 + 5) / 10</td>");
    free(rows);
    rows = rows_of(page, "<tr data-decision=\"4\">");
    assert_has(rows, "bound: n3</td><td colspan=\"7\" class=\"muted\">not among the candidates");
    free(rows);
    free(page);
    /* one decision: the binding said under its heading, the bound node marked */
    page = request(port, "GET", "/debug?id=2", NULL, 200);
    assert_has(page, "<p id=\"binding\" data-agreed=\"false\">Bound by kube-scheduler to "
                     "<b>n1</b>");
    assert_has(page, "disagreed, rank 3, score difference 6 (ours: n3, score 9).</p>");
    assert_has(page, "<tr data-node=\"n1\"><td>n1 <span class=\"muted\">(bound here)</span>");
    free(page);

    /* (e) enforce with the pages on: compared too, under its own mode */
    reload(&w, "{\"mode\":\"enforce\",\"debugEndpoints\":true}", 2);
    assert_prioritize(port, "web-e", NAMES3,
                      "[{\"Host\":\"n1\",\"Score\":2},{\"Host\":\"n2\",\"Score\":6},"
                      "{\"Host\":\"n3\",\"Score\":7}]");
    got = request(port, "POST", "/scheduler/bind",
                  "{\"PodName\":\"web-e\",\"PodNamespace\":\"default\","
                  "\"PodUID\":\"uid-web-e\",\"Node\":\"n3\"}",
                  200);
    free(got);
    await_metric(port, COMPARED("enforce"), 1);
    expect_counts(port, "enforce", 1, 1, 0, (const double[]){1, 1, 1, 1, 1, 1}, 1);
    expect_counts(port, "shadow", 3, 1, 1, (const double[]){1, 2, 3, 3, 3, 3}, 6);
    stop(&w);
}
END_TEST

/* The pages off and mode enforce: nothing is kept, so nothing is compared
 * (the report costs nothing where it cannot be read). */
START_TEST(shadow_report_off_in_enforce_without_debug)
{
    struct world w;
    start(&w, "{\"mode\":\"enforce\"}");
    int port = w.server.port;
    assert_prioritize(port, "web-a", NAMES3,
                      "[{\"Host\":\"n1\",\"Score\":3},{\"Host\":\"n2\",\"Score\":7},"
                      "{\"Host\":\"n3\",\"Score\":9}]");
    put_pod(&w, "web-a", "n3", "500m", "512Mi", "Pending");
    /* the binding is in the state (n3's free cpu falls by 500m) ... */
    for (int i = 0; i < 200; i++) {
        char *got = prioritize(port, "web-b", "\"n3\"");
        bool seen = strstr(got, "\"Score\":8") != NULL;
        free(got);
        if (seen)
            break;
        usleep(50000);
    }
    assert_prioritize(port, "web-b", "\"n3\"", "[{\"Host\":\"n3\",\"Score\":8}]");
    /* ... and nothing was compared */
    char *m = metrics_get(port);
    ck_assert_double_eq(metrics_must(m, COMPARED("enforce")), 0);
    ck_assert_double_eq(metrics_must(m, "cpu_extender_decisions_kept"), 0);
    free(m);
    stop(&w);
}
END_TEST

Suite *shadow_report_suite(void)
{
    Suite *s = suite_create("shadow_report");
    TCase *tc = tcase_create("shadow_report");
    tcase_add_unchecked_fixture(tc, make_pki, remove_pki);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, shadow_report_compares_bindings_with_decisions);
    tcase_add_test(tc, shadow_report_off_in_enforce_without_debug);
    suite_add_tcase(s, tc);
    return s;
}

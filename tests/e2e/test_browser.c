/*
 * GET /debug in a real browser: headless Chromium (Debian's chromium) loads
 * the page after a few requests; its DOM must chart every node of the
 * decision with the score, value and influence of /debug/decisions, bars
 * 30 px a point, names escaped; and the page must render to a screenshot.
 * Chromium runs with its own profile in a temporary directory and only ever
 * talks to 127.0.0.1.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "tests/suites.h"
#include "tests/support/fixtures.h"
#include "tests/support/http_client.h"
#include "tests/support/server_proc.h"

static const char *chromium(void)
{
    const char *env = getenv("CHROMIUM");
    if (env != NULL && env[0] != '\0')
        return env;
    return "/usr/bin/chromium";
}

/* Runs Chromium headless on @url with @what ("--dump-dom" or
 * "--screenshot=PATH"); returns its stdout (malloc'd). */
static char *browse(const char *profile, const char *what, const char *url)
{
    char cmd[1024];
    snprintf(cmd, sizeof(cmd),
             "timeout 90 %s --headless --no-sandbox --disable-gpu --no-first-run "
             "--disable-extensions --disable-background-networking --disable-sync "
             "--user-data-dir=%s --window-size=1100,800 %s '%s' 2>/dev/null",
             chromium(), profile, what, url);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    size_t cap = 1 << 16, len = 0, n;
    char *out = malloc(cap);
    while ((n = fread(out + len, 1, cap - len - 1, p)) > 0) {
        len += n;
        if (cap - len < 4096)
            out = realloc(out, cap *= 2);
    }
    out[len] = '\0';
    int rc = pclose(p);
    ck_assert_msg(rc == 0, "%s exited with %d", cmd, rc);
    return out;
}

static void post(int port, const char *path, const char *body, size_t len)
{
    struct http_response r;
    ck_assert_int_eq(http_request(port, "POST", path, body, len, &r), 0);
    ck_assert_int_eq(r.status, 200);
    http_response_free(&r);
}

static cJSON *decision(int port, const char *query)
{
    struct http_response r;
    char path[128];
    snprintf(path, sizeof(path), "/debug/decisions?%s", query);
    ck_assert_int_eq(http_request(port, "GET", path, NULL, 0, &r), 0);
    ck_assert_int_eq(r.status, 200);
    cJSON *all = cJSON_Parse(r.body);
    http_response_free(&r);
    cJSON *rec = cJSON_DetachItemFromArray(cJSON_GetObjectItem(all, "decisions"), 0);
    cJSON_Delete(all);
    ck_assert_ptr_nonnull(rec);
    return rec;
}

static int num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    ck_assert_msg(cJSON_IsNumber(v), "no %s", key);
    return v->valueint;
}

/* Millicores of a CPU quantity the example files write ("250m", "2"). */
static long millis(const char *q)
{
    size_t n = strlen(q);
    return n > 0 && q[n - 1] == 'm' ? atol(q) : 1000 * atol(q);
}

static long requested_cpu(const cJSON *c)
{
    const cJSON *q = cJSON_GetObjectItem(
        cJSON_GetObjectItem(cJSON_GetObjectItem(c, "resources"), "requests"), "cpu");
    return cJSON_IsString(q) ? millis(q->valuestring) : 0;
}

/* The effective CPU request of a pod spec of the example files: the
 * containers and sidecars, or an init container with the sidecars before
 * it, whichever is larger (no pod-level requests or overhead there). */
static long cpu_of(const cJSON *spec)
{
    long containers = 0, sidecars = 0, init_peak = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(spec, "containers")) containers += requested_cpu(c);
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(spec, "initContainers"))
    {
        const cJSON *policy = cJSON_GetObjectItem(c, "restartPolicy");
        if (cJSON_IsString(policy) && strcmp(policy->valuestring, "Always") == 0)
            sidecars += requested_cpu(c);
        else if (sidecars + requested_cpu(c) > init_peak)
            init_peak = sidecars + requested_cpu(c);
    }
    return containers + sidecars > init_peak ? containers + sidecars : init_peak;
}

/* Checks the chart of @rec in the DOM @dom node by node. */
static void assert_chart_matches(const char *dom, const cJSON *rec)
{
    const cJSON *n;
    int rows = 0;
    cJSON_ArrayForEach(n, cJSON_GetObjectItem(rec, "nodes"))
    {
        const char *name = cJSON_GetObjectItem(n, "name")->valuestring;
        int score = num(n, "score"), value = num(n, "value"), influence = num(n, "influence");
        char want[256];
        /* the group names the node and carries its numbers */
        snprintf(want, sizeof(want),
                 "<g class=\"node\" data-node=\"%s\" data-score=\"%d\" "
                 "data-value=\"%d\"",
                 name, score, value);
        const char *g = strstr(dom, want);
        ck_assert_msg(g != NULL, "no bar group %s in the DOM", want);
        const char *end = strstr(g, "</g>");
        ck_assert_ptr_nonnull(end);
        /* the bar is 30 px a point */
        snprintf(want, sizeof(want), "width=\"%d\"", score * 30);
        const char *w = strstr(g, want);
        ck_assert_msg(w != NULL && w < end, "%s: bar width is not %s", name, want);
        /* the label: score · points added (Chromium writes the middle dot as UTF-8) */
        snprintf(want, sizeof(want), ">%d \xc2\xb7 +%d", score, influence);
        const char *t = strstr(g, want);
        ck_assert_msg(t != NULL && t < end, "%s: no label %s", name, want);
        rows++;
    }
    ck_assert_int_gt(rows, 0);
    int groups = 0;
    for (const char *p = strstr(dom, "<g class=\"node\""); p != NULL;
         p = strstr(p + 1, "<g class=\"node\""))
        groups++;
    ck_assert_int_eq(groups, rows);
}

START_TEST(browser_debug_page_charts_the_decisions)
{
    struct server_proc s;
    char profile[] = "/tmp/cpu-extender-chromium-XXXXXX", url[256], shot[128], what[160];
    size_t filter_len, prio_len;
    char *filter = file_slurp("examples/filter.json", &filter_len);
    char *prio = file_slurp("examples/prioritize.json", &prio_len);
    const char *const args[] = {"--debug-endpoints", NULL};

    ck_assert_msg(access(chromium(), X_OK) == 0,
                  "%s not found: install Debian's chromium (scripts/debian-packages-test.txt)",
                  chromium());
    ck_assert_ptr_nonnull(mkdtemp(profile));
    server_start(&s, args);
    post(s.port, "/scheduler/filter", filter, filter_len);
    post(s.port, "/scheduler/prioritize", prio, prio_len);
    /* a pod whose name would be markup if it were not escaped */
    char *evil = malloc(prio_len + 64);
    const char *at = strstr(prio, "\"name\":\"web-0\"");
    ck_assert_ptr_nonnull(at);
    int n = sprintf(evil, "%.*s\"name\":\"x<i>y</i>&z\"%s", (int)(at - prio), prio,
                    at + strlen("\"name\":\"web-0\""));
    post(s.port, "/scheduler/prioritize", evil, (size_t)n);

    /* decision 2 (the prioritize example), chosen by id */
    cJSON *rec = decision(s.port, "id=2");
    snprintf(url, sizeof(url), "http://127.0.0.1:%d/debug?id=2", s.port);
    char *dom = browse(profile, "--dump-dom", url);
    ck_assert_ptr_nonnull(strstr(dom, "Decision 2: prioritize default/web-0"));
    assert_chart_matches(dom, rec);
    /* the terms table has a row per node with the same score */
    ck_assert_ptr_nonnull(strstr(dom, "<tr data-node=\"node-b\"><td>node-b</td><td>fits</td>"));
    cJSON_Delete(rec);
    free(dom);

    /* the newest decision by default: the escaped name is text, not markup */
    rec = decision(s.port, "limit=1");
    snprintf(url, sizeof(url), "http://127.0.0.1:%d/debug", s.port);
    dom = browse(profile, "--dump-dom", url);
    ck_assert_ptr_nonnull(
        strstr(dom, "Decision 3: prioritize default/x&lt;i&gt;y&lt;/i&gt;&amp;z"));
    ck_assert_ptr_null(strstr(dom, "<i>y</i>"));
    assert_chart_matches(dom, rec);
    /* the recent-decisions table lists all three, newest first */
    const char *d3 = strstr(dom, "<a href=\"/debug?id=3\">3</a>");
    const char *d1 = strstr(dom, "<a href=\"/debug?id=1\">1</a>");
    ck_assert(d3 != NULL && d1 != NULL && d3 < d1);
    cJSON_Delete(rec);
    free(dom);

    /* it renders: a PNG of the window */
    snprintf(shot, sizeof(shot), "%s/page.png", profile);
    snprintf(what, sizeof(what), "--screenshot=%s", shot);
    free(browse(profile, what, url));
    size_t png_len;
    char *png = file_slurp(shot, &png_len);
    ck_assert_msg(png_len > 10000 && memcmp(png, "\x89PNG\r\n\x1a\n", 8) == 0,
                  "no screenshot (%zu bytes)", png_len);
    free(png);

    ck_assert_int_eq(server_stop(&s), 0);
    char rm[128];
    snprintf(rm, sizeof(rm), "rm -rf '%s'", profile);
    ck_assert_int_eq(system(rm), 0);
    free(evil);
    free(filter);
    free(prio);
}
END_TEST

/* CPU requested on node @name before the simulation: the pods of
 * existing.json bound to it that have not finished. */
static long cpu_before(const cJSON *existing, const char *name)
{
    long before = 0;
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(existing, "items"))
    {
        const cJSON *spec = cJSON_GetObjectItem(p, "spec");
        const char *phase =
            cJSON_GetObjectItem(cJSON_GetObjectItem(p, "status"), "phase")->valuestring;
        if (strcmp(cJSON_GetObjectItem(spec, "nodeName")->valuestring, name) == 0 &&
            strcmp(phase, "Succeeded") != 0)
            before += cpu_of(spec);
    }
    return before;
}

/* Asserts the bars of section @sec (up to @end) of @strategy: one per node
 * of @nodes, with the CPU before (@existing) and after (the pods the CSV
 * puts there) and the widths they make. Returns how many. */
static int expect_bars(const char *sec, const char *end, const char *strategy, const cJSON *nodes,
                       const cJSON *existing, const cJSON *pods, const char *csv)
{
    char want[256];
    const cJSON *n;
    int bars = 0;
    cJSON_ArrayForEach(n, cJSON_GetObjectItem(nodes, "items"))
    {
        const char *name =
            cJSON_GetObjectItem(cJSON_GetObjectItem(n, "metadata"), "name")->valuestring;
        long alloc =
            1000 *
            atol(cJSON_GetObjectItem(
                     cJSON_GetObjectItem(cJSON_GetObjectItem(n, "status"), "allocatable"), "cpu")
                     ->valuestring);
        long before = cpu_before(existing, name), after;
        const cJSON *p;
        after = before;
        cJSON_ArrayForEach(p, cJSON_GetObjectItem(pods, "items"))
        {
            const cJSON *meta = cJSON_GetObjectItem(p, "metadata");
            char row[256];
            snprintf(row, sizeof(row), "\n%s,%s/%s,%s,", strategy,
                     cJSON_GetObjectItem(meta, "namespace")->valuestring,
                     cJSON_GetObjectItem(meta, "name")->valuestring, name);
            if (strstr(csv, row) != NULL)
                after += cpu_of(cJSON_GetObjectItem(p, "spec"));
        }
        snprintf(want, sizeof(want),
                 "<div class=\"node\" data-node=\"%s\" data-alloc=\"%ld\" "
                 "data-before=\"%ld\" data-after=\"%ld\">",
                 name, alloc, before, after);
        const char *bar = strstr(sec, want);
        ck_assert_msg(bar != NULL && bar < end, "%s: no bar %s", strategy, want);
        snprintf(want, sizeof(want),
                 "<span class=\"before\" style=\"width:%.2f%%\"></span><span "
                 "class=\"added\" style=\"width:%.2f%%\"></span>",
                 100.0 * (double)before / (double)alloc,
                 100.0 * (double)(after - before) / (double)alloc);
        const char *w = strstr(bar, want);
        ck_assert_msg(w != NULL && w < strstr(bar, "</div>"), "%s %s: no %s", strategy, name, want);
        bars++;
    }
    return bars;
}

/* The page `simulate --html` writes, in Chromium from file://: a section
 * per strategy with a bar per node whose numbers are those of the
 * placements CSV (CPU requested before, after, allocatable), the widths
 * the share of allocatable, and it renders. The example cluster of
 * examples/cluster; the CPU each node ends with is summed here from the
 * CSV and the pods' requests in pods.json. */
START_TEST(browser_simulate_page_bars_match_the_placements)
{
    char dir[] = "/tmp/cpu-extender-simpage-XXXXXX", cmd[8192], abs[4096], path[4200], url[4300],
         what[4300];
    ck_assert_msg(access(chromium(), X_OK) == 0, "%s not found", chromium());
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_ptr_nonnull(realpath(server_binary(), abs));
    snprintf(cmd, sizeof(cmd),
             "env -u KUBECONFIG HOME=/nonexistent '%s' simulate --nodes "
             "examples/cluster/nodes.json --existing examples/cluster/existing.json --pods "
             "examples/cluster/pods.json --html %s/sim.html --placements %s/p.csv >/dev/null",
             abs, dir, dir);
    int rc = system(cmd);
    ck_assert_msg(WIFEXITED(rc) && WEXITSTATUS(rc) == 3, "%s: %d", cmd, rc);
    /* CPU each pod asks (pods.json: one container each, or a sidecar or an
     * init container named in the spec) as the page's numbers count it:
     * kube-scheduler's requested, the real effective request */
    size_t len;
    char *pods_text = file_slurp("examples/cluster/pods.json", &len);
    cJSON *pods = cJSON_Parse(pods_text);
    free(pods_text);
    char *nodes_text = file_slurp("examples/cluster/nodes.json", &len);
    cJSON *nodes = cJSON_Parse(nodes_text);
    free(nodes_text);
    char *existing_text = file_slurp("examples/cluster/existing.json", &len);
    cJSON *existing = cJSON_Parse(existing_text);
    free(existing_text);
    snprintf(path, sizeof(path), "%s/p.csv", dir);
    char *csv = file_slurp(path, &len);
    snprintf(url, sizeof(url), "file://%s/sim.html", dir);
    char profile[4200];
    snprintf(profile, sizeof(profile), "%s/profile", dir);
    char *dom = browse(profile, "--dump-dom", url);
    ck_assert_ptr_null(strstr(dom, "<script"));
    const char *strategies[] = {"spread", "pack", "balanced", "target"};
    for (size_t s = 0; s < 4; s++) {
        char want[256];
        snprintf(want, sizeof(want), "<section class=\"strategy\" id=\"%s\"", strategies[s]);
        const char *sec = strstr(dom, want);
        ck_assert_msg(sec != NULL, "no section %s", strategies[s]);
        const char *end = strstr(sec, "</section>");
        ck_assert_ptr_nonnull(end);
        ck_assert_int_eq(expect_bars(sec, end, strategies[s], nodes, existing, pods, csv), 20);
    }
    /* the summary table, side by side */
    ck_assert_ptr_nonnull(strstr(dom, "<th>spread</th><th>pack</th><th>balanced</th>"
                                      "<th>target</th>"));
    /* it renders */
    snprintf(path, sizeof(path), "%s/page.png", dir);
    snprintf(what, sizeof(what), "--screenshot=%s", path);
    free(browse(profile, what, url));
    char *png = file_slurp(path, &len);
    ck_assert_msg(len > 10000 && memcmp(png, "\x89PNG\r\n\x1a\n", 8) == 0,
                  "no screenshot (%zu bytes)", len);
    free(png);
    free(dom);
    free(csv);
    cJSON_Delete(pods);
    cJSON_Delete(nodes);
    cJSON_Delete(existing);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

Suite *browser_suite(void)
{
    Suite *s = suite_create("browser");
    TCase *tc = tcase_create("browser");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, browser_debug_page_charts_the_decisions);
    tcase_add_test(tc, browser_simulate_page_bars_match_the_placements);
    suite_add_tcase(s, tc);
    return s;
}

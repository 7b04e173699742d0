/*
 * Operations on the real binary: the access log, the decision metrics,
 * modes (switched by reload), the pod selector, deadline-aware answers and
 * the /debug endpoints.
 *
 * Worked values for examples/{filter,prioritize}.json (pod: cpu 1, memory
 * 1Gi; strategy spread, weights cpu 3 memory 1; score = (value + 5) / 10):
 *   node-a  cpu 4000m, 3000m used: (4000-4000)*100/4000 = 0; memory 8Gi:
 *           7*100/8 = 87; value (3*0 + 87)/4 = 21; score 2; fits (4000 <= 4000)
 *   node-b  cpu 8000m: 7000*100/8000 = 87; memory 16Gi: 15*100/16 = 93;
 *           value (261 + 93)/4 = 88; score 9; fits
 *   node-c  cpu 2000m, 1500m used: requested 2500 > 2000 -> 0; memory 4Gi:
 *           75; value 75/4 = 18; score 2; Insufficient cpu (unfit)
 *   node-d  cpu 500m: 1000 > 500 -> 0; memory 2Gi: 50; value 50/4 = 12;
 *           score 1; Insufficient cpu, the request alone too big (unresolvable)
 * so filter passes a and b; the best node is b (9); prioritize's spread is
 * 9 - 1 = 8; influence (score * weight 1 * 10): 20, 90, 20, 10.
 */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "tests/suites.h"
#include "tests/support/fixtures.h"
#include "tests/support/http_client.h"
#include "tests/support/metrics_scrape.h"
#include "tests/support/server_proc.h"

struct examples {
    char *filter, *prio;
    size_t filter_len, prio_len;
};

static void examples_read(struct examples *e)
{
    e->filter = file_slurp("examples/filter.json", &e->filter_len);
    e->prio = file_slurp("examples/prioritize.json", &e->prio_len);
}

static void examples_free(struct examples *e)
{
    free(e->filter);
    free(e->prio);
}

/* POSTs and returns the parsed JSON answer; fails unless it is @status. */
static cJSON *post_json(int port, const char *path, const char *body, size_t len, int status)
{
    struct http_response r;
    ck_assert_int_eq(http_request(port, "POST", path, body, len, &r), 0);
    ck_assert_msg(r.status == status, "%s: status %d, want %d: %s", path, r.status, status, r.body);
    cJSON *j = cJSON_Parse(r.body);
    ck_assert_msg(j != NULL, "not JSON: %s", r.body);
    http_response_free(&r);
    return j;
}

static cJSON *get_json(int port, const char *path, int status)
{
    struct http_response r;
    ck_assert_int_eq(http_request(port, "GET", path, NULL, 0, &r), 0);
    ck_assert_msg(r.status == status, "%s: status %d, want %d: %s", path, r.status, status, r.body);
    cJSON *j = cJSON_Parse(r.body);
    ck_assert_msg(j != NULL, "not JSON: %s", r.body);
    http_response_free(&r);
    return j;
}

/* The Score of @host in a HostPriorityList. */
static int score_of(const cJSON *list, const char *host)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, list)
    {
        if (strcmp(cJSON_GetObjectItem(e, "Host")->valuestring, host) == 0)
            return cJSON_GetObjectItem(e, "Score")->valueint;
    }
    ck_abort_msg("no host %s", host);
    return -1;
}

static void assert_scores(int port, const struct examples *ex, int a, int b, int c, int d)
{
    cJSON *p = post_json(port, "/scheduler/prioritize", ex->prio, ex->prio_len, 200);
    ck_assert_int_eq(score_of(p, "node-a"), a);
    ck_assert_int_eq(score_of(p, "node-b"), b);
    ck_assert_int_eq(score_of(p, "node-c"), c);
    ck_assert_int_eq(score_of(p, "node-d"), d);
    cJSON_Delete(p);
}

/* The filter answer's passing node names, joined by ','. */
static void passed_names(const cJSON *f, char *out, size_t n)
{
    const cJSON *item;
    out[0] = '\0';
    cJSON_ArrayForEach(item, cJSON_GetObjectItem(cJSON_GetObjectItem(f, "Nodes"), "items"))
    {
        const cJSON *name = cJSON_GetObjectItem(cJSON_GetObjectItem(item, "metadata"), "name");
        size_t len = strlen(out);
        snprintf(out + len, n - len, "%s%s", len ? "," : "", name->valuestring);
    }
}

/* The access-log lines ("msg":"request") of the server's log, parsed, in
 * order, as a JSON array. */
static cJSON *access_lines(const struct server_proc *s)
{
    cJSON *all = server_log_lines(s), *lines = cJSON_CreateArray();
    while (cJSON_GetArraySize(all) > 0) {
        cJSON *j = cJSON_DetachItemFromArray(all, 0);
        if (strcmp(cJSON_GetObjectItem(j, "msg")->valuestring, "request") == 0)
            cJSON_AddItemToArray(lines, j);
        else
            cJSON_Delete(j);
    }
    cJSON_Delete(all);
    return lines;
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    ck_assert_msg(cJSON_IsString(v), "no string %s", key);
    return v->valuestring;
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    ck_assert_msg(cJSON_IsNumber(v), "no number %s", key);
    return v->valuedouble;
}

static char *example_pod(const struct examples *ex, const char *meta, const char *priority,
                         size_t *len);
static const cJSON *node_named(const cJSON *rec, const char *name);

START_TEST(ops_access_log_has_every_field)
{
    struct server_proc s;
    struct examples ex;
    const char *const args[] = {"--debug-endpoints", NULL};
    const char *bind = "{\"PodName\":\"p\",\"PodNamespace\":\"d\",\"Node\":\"n\"}";
    examples_read(&ex);
    server_start(&s, args);
    cJSON_Delete(post_json(s.port, "/scheduler/filter", ex.filter, ex.filter_len, 200));
    cJSON_Delete(post_json(s.port, "/scheduler/prioritize", ex.prio, ex.prio_len, 200));
    cJSON_Delete(post_json(s.port, "/scheduler/prioritize", "{}", 2, 400));
    cJSON_Delete(post_json(s.port, "/scheduler/bind", bind, strlen(bind), 200));

    cJSON *lines = access_lines(&s);
    ck_assert_int_eq(cJSON_GetArraySize(lines), 4);
    const cJSON *f = cJSON_GetArrayItem(lines, 0), *p = cJSON_GetArrayItem(lines, 1);
    const cJSON *bad = cJSON_GetArrayItem(lines, 2), *b = cJSON_GetArrayItem(lines, 3);
    ck_assert_str_eq(str(f, "level"), "info");
    ck_assert_str_eq(str(f, "verb"), "filter");
    ck_assert_str_eq(str(f, "pod"), "default/web-0");
    ck_assert_double_eq(num(f, "nodesIn"), 4);
    ck_assert_double_eq(num(f, "nodesPassed"), 2);
    ck_assert_str_eq(str(f, "bestNode"), "node-b");
    ck_assert_double_eq(num(f, "bestScore"), 9);
    ck_assert_double_eq(num(f, "decision"), 1);
    ck_assert_str_eq(str(f, "answer"), "scored");
    ck_assert_double_eq(num(f, "status"), 200);
    ck_assert_double_eq(num(f, "bodyBytes"), (double)ex.filter_len);
    ck_assert(num(f, "durationSeconds") > 0 && num(f, "durationSeconds") < 5);
    ck_assert_ptr_null(cJSON_GetObjectItem(f, "error"));
    /* prioritize: every node gets a score; nodesPassed is what the filter
     * would pass */
    ck_assert_str_eq(str(p, "verb"), "prioritize");
    ck_assert_double_eq(num(p, "nodesPassed"), 2);
    ck_assert_str_eq(str(p, "bestNode"), "node-b");
    ck_assert_double_eq(num(p, "bestScore"), 9);
    ck_assert_double_eq(num(p, "decision"), 2);
    ck_assert_double_eq(num(p, "bodyBytes"), (double)ex.prio_len);
    /* a malformed request: warn, with the error the scheduler got */
    ck_assert_str_eq(str(bad, "level"), "warn");
    ck_assert_double_eq(num(bad, "status"), 400);
    ck_assert_str_eq(str(bad, "pod"), "");
    ck_assert_str_eq(str(bad, "bestNode"), "");
    ck_assert_double_eq(num(bad, "bestScore"), -1);
    ck_assert_double_eq(num(bad, "bodyBytes"), 2);
    ck_assert_str_eq(str(bad, "error"), "Pod: missing");
    /* bind without a cluster answers 200 with an Error: a warning */
    ck_assert_str_eq(str(b, "verb"), "bind");
    ck_assert_str_eq(str(b, "level"), "warn");
    ck_assert_str_eq(str(b, "pod"), "d/p");
    ck_assert_str_eq(str(b, "node"), "n");
    ck_assert_double_eq(num(b, "status"), 200);
    ck_assert_ptr_nonnull(strstr(str(b, "error"), "no cluster connection"));
    cJSON_Delete(lines);
    ck_assert_int_eq(server_stop(&s), 0);

    examples_free(&ex);
}
END_TEST

/* Sends SIGHUP and waits until /metrics counts @accepted reloads. */
static void reload(const struct server_proc *s, double accepted)
{
    kill(s->pid, SIGHUP);
    for (int i = 0; i < 500; i++) {
        char *m = metrics_get(s->port);
        double v = metrics_value(m, "cpu_extender_config_reloads_total{result=\"accepted\"}");
        free(m);
        if (v >= accepted)
            return;
        usleep(10000);
    }
    ck_abort_msg("reload not applied");
}

/* A config file for the test, removed by the caller. */
static void temp_config(char path[64], const char *text)
{
    snprintf(path, 64, "/tmp/cpu-extender-ops-XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    file_write(path, text);
}

START_TEST(ops_access_log_follows_the_log_level)
{
    struct server_proc s;
    struct examples ex;
    char path[64];
    examples_read(&ex);
    /* the level is set by reload: the test finds the port in the info line */
    temp_config(path, "{\"logLevel\":\"info\"}");
    const char *const args[] = {"--config", path, NULL};
    server_start(&s, args);
    file_write(path, "{\"logLevel\":\"warn\"}");
    reload(&s, 1);
    /* warn keeps only the requests that went wrong */
    cJSON_Delete(post_json(s.port, "/scheduler/filter", ex.filter, ex.filter_len, 200));
    cJSON_Delete(post_json(s.port, "/scheduler/filter", "[]", 2, 400));
    cJSON *lines = access_lines(&s);
    ck_assert_int_eq(cJSON_GetArraySize(lines), 1);
    ck_assert_double_eq(num(cJSON_GetArrayItem(lines, 0), "status"), 400);
    /* without debug endpoints no decision is kept */
    ck_assert_double_eq(num(cJSON_GetArrayItem(lines, 0), "decision"), 0);
    cJSON_Delete(lines);
    ck_assert_int_eq(server_stop(&s), 0);
    unlink(path);
    examples_free(&ex);
}
END_TEST

/* Names come from requests: whatever they hold, every log line stays one
 * JSON object and no value turns into a field of its own. */
START_TEST(ops_hostile_names_keep_log_lines_json)
{
    struct server_proc s;
    struct examples ex;
    const char *const args[] = {"--log-level", "debug", NULL};
    const char *hostile = "x y\\\"z=1 level=error msg=forged \\u0001\\u00e9";
    char preempt[512], meta[256];
    size_t len;
    examples_read(&ex);
    server_start(&s, args);
    snprintf(preempt, sizeof(preempt),
             "{\"Pod\":{\"metadata\":{\"name\":\"%s\",\"namespace\":\"n s\"}},"
             "\"NodeNameToMetaVictims\":{\"n\":{\"Pods\":[{\"UID\":\"u\"}]}}}",
             hostile);
    cJSON_Delete(post_json(s.port, "/scheduler/preempt", preempt, strlen(preempt), 200));
    snprintf(meta, sizeof(meta), "{\"name\":\"%s\",\"namespace\":\"default\"}", hostile);
    char *body = example_pod(&ex, meta, NULL, &len);
    cJSON_Delete(post_json(s.port, "/scheduler/prioritize", body, len, 200));
    free(body);

    cJSON *lines = server_log_lines(&s); /* each one JSON object */
    const cJSON *j;
    int preempt_lines = 0;
    cJSON_ArrayForEach(j, lines)
    {
        ck_assert_msg(strcmp(str(j, "level"), "error") != 0, "a value made a field");
        ck_assert_msg(strcmp(str(j, "msg"), "forged") != 0, "a value made a field");
        ck_assert_ptr_null(cJSON_GetObjectItem(j, "z"));
        if (strcmp(str(j, "msg"), "preempt") == 0) {
            /* the name as one value, exactly, its quote and control byte escaped */
            ck_assert_str_eq(str(j, "pod"), "n s/x y\"z=1 level=error msg=forged \x01\xc3\xa9");
            preempt_lines++;
        }
    }
    ck_assert_int_eq(preempt_lines, 1);
    ck_assert_int_ge(cJSON_GetArraySize(lines), 4);
    cJSON_Delete(lines);
    /* the access line carries the name exactly, escaped as JSON */
    cJSON *access = access_lines(&s);
    ck_assert_str_eq(str(cJSON_GetArrayItem(access, 1), "pod"),
                     "default/x y\"z=1 level=error msg=forged \x01\xc3\xa9");
    cJSON_Delete(access);
    ck_assert_int_eq(server_stop(&s), 0);
    examples_free(&ex);
}
END_TEST

START_TEST(ops_metrics_count_decisions_by_reason_and_spread)
{
    struct server_proc s;
    struct examples ex;
    const char *const args[] = {"--debug-endpoints", NULL};
    examples_read(&ex);
    server_start(&s, args);
    cJSON_Delete(post_json(s.port, "/scheduler/filter", ex.filter, ex.filter_len, 200));
    assert_scores(s.port, &ex, 2, 9, 2, 1);

    char *m = metrics_get(s.port);
    ck_assert_double_eq(
        metrics_must(m, "cpu_extender_filter_decisions_total{result=\"passed\",reason=\"fits\"}"),
        2);
    ck_assert_double_eq(
        metrics_must(
            m,
            "cpu_extender_filter_decisions_total{result=\"failed\",reason=\"insufficient_cpu\"}"),
        2);
    /* a node that fits never fails: no such series */
    ck_assert_double_eq(
        metrics_value(m, "cpu_extender_filter_decisions_total{result=\"failed\",reason=\"fits\"}"),
        -1);
    ck_assert_double_eq(
        metrics_must(
            m, "cpu_extender_filter_decisions_total{result=\"failed\",reason=\"invalid_node\"}"),
        0);
    ck_assert_double_eq(metrics_must(m, "cpu_extender_prioritize_score_spread_count"), 1);
    ck_assert_double_eq(metrics_must(m, "cpu_extender_prioritize_score_spread_sum"), 8);
    ck_assert_double_eq(metrics_must(m, "cpu_extender_prioritize_score_spread_bucket{le=\"7\"}"),
                        0);
    ck_assert_double_eq(metrics_must(m, "cpu_extender_prioritize_score_spread_bucket{le=\"8\"}"),
                        1);
    ck_assert_double_eq(
        metrics_must(m, "cpu_extender_answers_total{verb=\"filter\",kind=\"scored\"}"), 1);
    ck_assert_double_eq(
        metrics_must(m, "cpu_extender_answers_total{verb=\"prioritize\",kind=\"scored\"}"), 1);
    ck_assert_double_eq(
        metrics_must(m, "cpu_extender_answers_total{verb=\"prioritize\",kind=\"shadow\"}"), 0);
    ck_assert_double_eq(metrics_must(m, "cpu_extender_stale_nodes_total"), 0);
    ck_assert_double_eq(metrics_must(m, "cpu_extender_decisions_kept"), 2);
    ck_assert(metrics_must(m, "cpu_extender_decisions_kept_bytes") > 2 * 4 * sizeof(void *));
    ck_assert_int_ge(metrics_assert_histograms(m), 1);
    free(m);
    ck_assert_int_eq(server_stop(&s), 0);
    examples_free(&ex);
}
END_TEST

START_TEST(ops_shadow_answers_neutral_but_records_the_scores)
{
    struct server_proc s;
    struct examples ex;
    char names[256];
    const char *const args[] = {"--mode", "shadow", "--debug-endpoints", NULL};
    examples_read(&ex);
    server_start(&s, args);
    cJSON *f = post_json(s.port, "/scheduler/filter", ex.filter, ex.filter_len, 200);
    passed_names(f, names, sizeof(names));
    ck_assert_str_eq(names, "node-a,node-b,node-c,node-d");
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(f, "FailedNodes")), 0);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(f, "FailedAndUnresolvableNodes")), 0);
    cJSON_Delete(f);
    assert_scores(s.port, &ex, 0, 0, 0, 0);

    /* what would have been answered is recorded and counted */
    cJSON *d = get_json(s.port, "/debug/decisions?limit=1", 200);
    const cJSON *rec = cJSON_GetArrayItem(cJSON_GetObjectItem(d, "decisions"), 0);
    ck_assert_str_eq(str(rec, "answer"), "shadow");
    ck_assert_str_eq(str(rec, "bestNode"), "node-b");
    const cJSON *nodes = cJSON_GetObjectItem(rec, "nodes");
    ck_assert_double_eq(num(cJSON_GetArrayItem(nodes, 1), "score"), 9);
    ck_assert_double_eq(num(cJSON_GetArrayItem(nodes, 3), "score"), 1);
    cJSON_Delete(d);
    char *m = metrics_get(s.port);
    ck_assert_double_eq(
        metrics_must(m, "cpu_extender_answers_total{verb=\"filter\",kind=\"shadow\"}"), 1);
    ck_assert_double_eq(
        metrics_must(m, "cpu_extender_answers_total{verb=\"prioritize\",kind=\"shadow\"}"), 1);
    ck_assert_double_eq(
        metrics_must(
            m,
            "cpu_extender_filter_decisions_total{result=\"failed\",reason=\"insufficient_cpu\"}"),
        2);
    ck_assert_double_eq(metrics_must(m, "cpu_extender_prioritize_score_spread_sum"), 8);
    free(m);
    cJSON *lines = access_lines(&s);
    ck_assert_str_eq(str(cJSON_GetArrayItem(lines, 1), "answer"), "shadow");
    ck_assert_str_eq(str(cJSON_GetArrayItem(lines, 1), "bestNode"), "node-b");
    cJSON_Delete(lines);
    ck_assert_int_eq(server_stop(&s), 0);

    /* pack: node-d would score highest (cpu min(1000, 500)*100/500 = 100,
     * memory 50: (300 + 50)/4 = 87 -> 9) and node-c next (100 and 25: 81 -> 8),
     * but neither fits; the best is node-a (100 and 12: 78 -> 8) */
    const char *const pack[] = {"--mode", "shadow", "--strategy", "pack", "--debug-endpoints",
                                NULL};
    server_start(&s, pack);
    assert_scores(s.port, &ex, 0, 0, 0, 0);
    lines = access_lines(&s);
    ck_assert_str_eq(str(cJSON_GetArrayItem(lines, 0), "bestNode"), "node-a");
    ck_assert_double_eq(num(cJSON_GetArrayItem(lines, 0), "bestScore"), 8);
    cJSON_Delete(lines);
    cJSON *d2 = get_json(s.port, "/debug/decisions", 200);
    rec = cJSON_GetArrayItem(cJSON_GetObjectItem(d2, "decisions"), 0);
    ck_assert_str_eq(str(rec, "bestNode"), "node-a");
    ck_assert_double_eq(num(node_named(rec, "node-d"), "score"), 9);
    cJSON_Delete(d2);
    ck_assert_int_eq(server_stop(&s), 0);
    examples_free(&ex);
}
END_TEST

START_TEST(ops_mode_switches_by_reload)
{
    struct server_proc s;
    struct examples ex;
    char path[64];
    temp_config(path, "{\"mode\":\"enforce\",\"debugEndpoints\":true}");
    const char *const args[] = {"--config", path, NULL};
    examples_read(&ex);
    server_start(&s, args);
    assert_scores(s.port, &ex, 2, 9, 2, 1);

    file_write(path, "{\"mode\":\"passthrough\",\"debugEndpoints\":true}");
    reload(&s, 1);
    assert_scores(s.port, &ex, 0, 0, 0, 0);
    cJSON *f = post_json(s.port, "/scheduler/filter", ex.filter, ex.filter_len, 200);
    char names[256];
    passed_names(f, names, sizeof(names));
    ck_assert_str_eq(names, "node-a,node-b,node-c,node-d");
    cJSON_Delete(f);
    /* passthrough scores nothing: the decision has no nodes */
    cJSON *d = get_json(s.port, "/debug/decisions?limit=1", 200);
    const cJSON *rec = cJSON_GetArrayItem(cJSON_GetObjectItem(d, "decisions"), 0);
    ck_assert_str_eq(str(rec, "answer"), "passthrough_mode");
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(rec, "nodes")), 0);
    ck_assert_double_eq(num(rec, "candidates"), 4);
    cJSON_Delete(d);

    file_write(path, "{\"mode\":\"shadow\",\"debugEndpoints\":true}");
    reload(&s, 2);
    assert_scores(s.port, &ex, 0, 0, 0, 0);
    file_write(path, "{\"mode\":\"enforce\",\"debugEndpoints\":true}");
    reload(&s, 3);
    assert_scores(s.port, &ex, 2, 9, 2, 1);

    char *m = metrics_get(s.port);
    ck_assert_double_eq(
        metrics_must(m, "cpu_extender_answers_total{verb=\"prioritize\",kind=\"scored\"}"), 2);
    ck_assert_double_eq(
        metrics_must(m,
                     "cpu_extender_answers_total{verb=\"prioritize\",kind=\"passthrough_mode\"}"),
        1);
    ck_assert_double_eq(
        metrics_must(m, "cpu_extender_answers_total{verb=\"filter\",kind=\"passthrough_mode\"}"),
        1);
    ck_assert_double_eq(
        metrics_must(m, "cpu_extender_answers_total{verb=\"prioritize\",kind=\"shadow\"}"), 1);
    ck_assert(metrics_must(m, "cpu_extender_decisions_kept") > 0);
    free(m);

    /* debug endpoints off by reload: the pages go, and so does what was kept */
    file_write(path, "{\"mode\":\"enforce\",\"debugEndpoints\":false}");
    reload(&s, 4);
    cJSON_Delete(get_json(s.port, "/debug/decisions", 404));
    m = metrics_get(s.port);
    ck_assert_double_eq(metrics_must(m, "cpu_extender_decisions_kept"), 0);
    ck_assert_double_eq(metrics_must(m, "cpu_extender_decisions_kept_bytes"), 0);
    free(m);
    ck_assert_int_eq(server_stop(&s), 0);
    unlink(path);
    examples_free(&ex);
}
END_TEST

/* The prioritize example with its pod's metadata replaced by @meta and a
 * spec.priority of @priority (none when NULL). */
static char *example_pod(const struct examples *ex, const char *meta, const char *priority,
                         size_t *len)
{
    const char *old_meta = "\"metadata\":{\"name\":\"web-0\",\"namespace\":\"default\"}";
    const char *spec = "\"spec\":{";
    const char *at = strstr(ex->prio, old_meta);
    ck_assert_ptr_nonnull(at);
    char *body = malloc(ex->prio_len + strlen(meta) + 64);
    int n = sprintf(body, "%.*s\"metadata\":%s,%s", (int)(at - ex->prio), ex->prio, meta, spec);
    if (priority != NULL)
        n += sprintf(body + n, "\"priority\":%s,", priority);
    const char *rest = at + strlen(old_meta) + 1 + strlen(spec);
    n += sprintf(body + n, "%s", rest);
    *len = (size_t)n;
    return body;
}

/* Node-b's score for the example with @meta / @priority: 9 when scored, 0
 * when passed through. */
static int score_b(int port, const struct examples *ex, const char *meta, const char *priority)
{
    size_t len;
    char *body = example_pod(ex, meta, priority, &len);
    cJSON *p = post_json(port, "/scheduler/prioritize", body, len, 200);
    int score = score_of(p, "node-b");
    cJSON_Delete(p);
    free(body);
    return score;
}

START_TEST(ops_pods_outside_the_selector_pass_through)
{
    struct server_proc s;
    struct examples ex;
    const char *const args[] = {"--select-namespaces",
                                "prod,staging",
                                "--select-labels",
                                "team=a,tier=",
                                "--select-priority-min",
                                "100",
                                "--select-priority-max",
                                "1000",
                                NULL};
    const char *team_a = "{\"name\":\"p\",\"namespace\":\"prod\",\"labels\":{\"team\":\"a\","
                         "\"tier\":\"\",\"x\":\"y\"}}";
    examples_read(&ex);
    server_start(&s, args);
    ck_assert_int_eq(score_b(s.port, &ex, team_a, "100"), 9);
    ck_assert_int_eq(score_b(s.port, &ex, team_a, "1000"), 9);
    /* each condition alone takes the pod out */
    ck_assert_int_eq(score_b(s.port, &ex, team_a, NULL), 0); /* priority 0 */
    ck_assert_int_eq(score_b(s.port, &ex, team_a, "1001"), 0);
    ck_assert_int_eq(score_b(s.port, &ex,
                             "{\"name\":\"p\",\"namespace\":\"default\",\"labels\":{\"team\":"
                             "\"a\",\"tier\":\"\"}}",
                             "500"),
                     0);
    ck_assert_int_eq(score_b(s.port, &ex,
                             "{\"name\":\"p\",\"namespace\":\"staging\",\"labels\":{\"team\":"
                             "\"b\",\"tier\":\"\"}}",
                             "500"),
                     0);
    ck_assert_int_eq(
        score_b(s.port, &ex,
                "{\"name\":\"p\",\"namespace\":\"staging\",\"labels\":{\"team\":\"a\"}}", "500"),
        0); /* tier missing */
    ck_assert_int_eq(score_b(s.port, &ex, "{\"name\":\"p\",\"namespace\":\"staging\"}", "500"), 0);
    /* a duplicate label key: the last value wins, as in Go's map */
    ck_assert_int_eq(score_b(s.port, &ex,
                             "{\"name\":\"p\",\"namespace\":\"staging\",\"labels\":{\"team\":"
                             "\"b\",\"tier\":\"\",\"team\":\"a\"}}",
                             "500"),
                     9);
    char *m = metrics_get(s.port);
    ck_assert_double_eq(
        metrics_must(m, "cpu_extender_answers_total{verb=\"prioritize\",kind=\"scored\"}"), 3);
    ck_assert_double_eq(
        metrics_must(
            m, "cpu_extender_answers_total{verb=\"prioritize\",kind=\"passthrough_selector\"}"),
        6);
    free(m);
    ck_assert_int_eq(server_stop(&s), 0);
    examples_free(&ex);
}
END_TEST

START_TEST(ops_late_request_gets_a_neutral_answer_in_time)
{
    struct server_proc s;
    struct examples ex;
    struct http_response r;
    struct timespec t0, t1;
    const char *const args[] = {"--scheduler-timeout-ms", "250", NULL};
    examples_read(&ex);
    server_start(&s, args);
    assert_scores(s.port, &ex, 2, 9, 2, 1); /* in time: scored */

    /* The body arrives 300 ms after the headers: past 80 % of 250 ms. */
    int fd = http_connect(s.port);
    ck_assert_int_ge(fd, 0);
    char head[256];
    int n = snprintf(head, sizeof(head),
                     "POST /scheduler/prioritize HTTP/1.1\r\nHost: x\r\nContent-Type: "
                     "application/json\r\nContent-Length: %zu\r\n\r\n",
                     ex.prio_len);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ck_assert_int_eq(http_send_raw(fd, head, (size_t)n), 0);
    usleep(300 * 1000);
    ck_assert_int_eq(http_send_raw(fd, ex.prio, ex.prio_len), 0);
    ck_assert_int_eq(http_read(fd, &r, 5000), 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    close(fd);
    ck_assert_int_eq(r.status, 200);
    cJSON *p = cJSON_Parse(r.body);
    ck_assert_int_eq(score_of(p, "node-a"), 0);
    ck_assert_int_eq(score_of(p, "node-b"), 0);
    ck_assert_int_eq(cJSON_GetArraySize(p), 4);
    cJSON_Delete(p);
    http_response_free(&r);
    double took = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    ck_assert_msg(took < 1.0, "answered after %.3f s", took);

    char *m = metrics_get(s.port);
    ck_assert_double_eq(
        metrics_must(m,
                     "cpu_extender_answers_total{verb=\"prioritize\",kind=\"neutral_deadline\"}"),
        1);
    ck_assert_double_eq(
        metrics_must(m, "cpu_extender_answers_total{verb=\"prioritize\",kind=\"scored\"}"), 1);
    free(m);
    cJSON *lines = access_lines(&s);
    ck_assert_str_eq(str(cJSON_GetArrayItem(lines, 1), "answer"), "neutral_deadline");
    cJSON_Delete(lines);
    ck_assert_int_eq(server_stop(&s), 0);
    examples_free(&ex);
}
END_TEST

static const cJSON *node_named(const cJSON *rec, const char *name)
{
    const cJSON *n;
    cJSON_ArrayForEach(n, cJSON_GetObjectItem(rec, "nodes"))
    {
        if (strcmp(str(n, "name"), name) == 0)
            return n;
    }
    ck_abort_msg("no node %s", name);
    return NULL;
}

START_TEST(ops_debug_decisions_explain_every_node)
{
    struct server_proc s;
    struct examples ex;
    examples_read(&ex);
    const char *const off[] = {NULL};
    server_start(&s, off);
    cJSON *e = get_json(s.port, "/debug/decisions", 404);
    ck_assert_ptr_nonnull(strstr(str(e, "Error"), "--debug-endpoints"));
    cJSON_Delete(e);
    cJSON_Delete(get_json(s.port, "/debug", 404));
    ck_assert_int_eq(server_stop(&s), 0);

    const char *const on[] = {"--debug-endpoints", NULL};
    server_start(&s, on);
    cJSON_Delete(post_json(s.port, "/scheduler/filter", ex.filter, ex.filter_len, 200));
    assert_scores(s.port, &ex, 2, 9, 2, 1);
    cJSON *all = get_json(s.port, "/debug/decisions", 200);
    const cJSON *list = cJSON_GetObjectItem(all, "decisions");
    ck_assert_int_eq(cJSON_GetArraySize(list), 2);
    const cJSON *p = cJSON_GetArrayItem(list, 0), *f = cJSON_GetArrayItem(list, 1);
    ck_assert_double_eq(num(p, "id"), 2); /* newest first */
    ck_assert_str_eq(str(p, "verb"), "prioritize");
    ck_assert_str_eq(str(f, "verb"), "filter");
    const cJSON *pod = cJSON_GetObjectItem(p, "pod");
    ck_assert_str_eq(str(pod, "namespace"), "default");
    ck_assert_str_eq(str(pod, "name"), "web-0");
    ck_assert_double_eq(num(pod, "cpuMillis"), 1000);
    ck_assert_double_eq(num(pod, "memoryBytes"), 1073741824);
    ck_assert_str_eq(str(p, "strategy"), "spread");
    ck_assert_double_eq(num(p, "schedulerWeight"), 1);
    ck_assert_double_eq(num(p, "influenceMax"), 100);
    ck_assert_double_eq(num(p, "defaultPluginsMax"), 1200);
    ck_assert_double_eq(num(p, "candidates"), 4);
    ck_assert_double_eq(num(p, "passed"), 2);
    const cJSON *a = node_named(p, "node-a"), *b = node_named(p, "node-b");
    const cJSON *c = node_named(p, "node-c"), *d = node_named(p, "node-d");
    const cJSON *a_cpu = cJSON_GetObjectItem(cJSON_GetObjectItem(a, "resources"), "cpu");
    const cJSON *a_mem = cJSON_GetObjectItem(cJSON_GetObjectItem(a, "resources"), "memory");
    ck_assert_double_eq(num(a_cpu, "allocatable"), 4000);
    ck_assert_double_eq(num(a_cpu, "used"), 3000);
    ck_assert_str_eq(str(a_cpu, "usedFrom"), "annotation");
    ck_assert_double_eq(num(a_cpu, "pod"), 1000);
    ck_assert_double_eq(num(a_cpu, "requested"), 4000);
    ck_assert_double_eq(num(a_cpu, "weight"), 3);
    ck_assert_double_eq(num(a_cpu, "value"), 0);
    ck_assert_double_eq(num(a_mem, "value"), 87);
    ck_assert_double_eq(num(a, "value"), 21);
    ck_assert_double_eq(num(a, "score"), 2);
    ck_assert_double_eq(num(a, "influence"), 20);
    ck_assert_str_eq(str(a, "verdict"), "fits");
    ck_assert_double_eq(num(b, "value"), 88);
    ck_assert_double_eq(num(b, "score"), 9);
    ck_assert_double_eq(num(b, "influence"), 90);
    ck_assert_double_eq(num(c, "value"), 18);
    ck_assert_str_eq(str(c, "verdict"), "unfit");
    ck_assert_str_eq(str(c, "reason"), "Insufficient cpu");
    ck_assert_str_eq(str(c, "reasonCode"), "insufficient_cpu");
    ck_assert_double_eq(num(d, "value"), 12);
    ck_assert_double_eq(num(d, "score"), 1);
    ck_assert_str_eq(str(d, "verdict"), "unresolvable");
    cJSON_Delete(all);

    /* the queries */
    const struct {
        const char *path;
        int count;
        int first_id;
    } queries[] = {
        {"/debug/decisions?pod=default/web-0", 2, 2},
        {"/debug/decisions?pod=web-0", 2, 2},
        {"/debug/decisions?pod=other/web-0", 0, 0},
        {"/debug/decisions?pod=web-1", 0, 0},
        {"/debug/decisions?id=1", 1, 1},
        {"/debug/decisions?id=3", 0, 0},
        {"/debug/decisions?limit=1", 1, 2},
        {"/debug/decisions?pod=default%2Fweb-0&limit=5", 2, 2},
    };
    for (size_t i = 0; i < sizeof(queries) / sizeof(queries[0]); i++) {
        cJSON *q = get_json(s.port, queries[i].path, 200);
        const cJSON *l = cJSON_GetObjectItem(q, "decisions");
        ck_assert_msg(cJSON_GetArraySize(l) == queries[i].count, "%s", queries[i].path);
        if (queries[i].count > 0)
            ck_assert_double_eq(num(cJSON_GetArrayItem(l, 0), "id"), queries[i].first_id);
        cJSON_Delete(q);
    }
    const char *bad[] = {"/debug/decisions?id=abc", "/debug/decisions?limit=0",
                         "/debug/decisions?id=-1", "/debug/decisions?id=99999999999999999999"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        cJSON_Delete(get_json(s.port, bad[i], 400));

    /* the page charts the newest decision: one bar per node, 30 px a point */
    struct http_response r;
    ck_assert_int_eq(http_request(s.port, "GET", "/debug", NULL, 0, &r), 0);
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_nonnull(strstr(r.headers, "text/html"));
    /* no script may run there, whatever a name in a request held */
    ck_assert_ptr_nonnull(strstr(r.headers, "Content-Security-Policy: default-src 'none';"));
    ck_assert_ptr_nonnull(strstr(r.body, "data-node=\"node-b\" data-score=\"9\""));
    ck_assert_ptr_nonnull(strstr(r.body, "width=\"270\""));
    ck_assert_ptr_nonnull(strstr(r.body, "Decision 2: prioritize default/web-0"));
    http_response_free(&r);
    ck_assert_int_eq(server_stop(&s), 0);
    examples_free(&ex);
}
END_TEST

START_TEST(ops_decisions_ring_keeps_the_newest)
{
    struct server_proc s;
    struct examples ex;
    const char *const args[] = {"--debug-endpoints", "--decisions-kept", "3", NULL};
    examples_read(&ex);
    server_start(&s, args);
    for (int i = 0; i < 5; i++)
        assert_scores(s.port, &ex, 2, 9, 2, 1);
    cJSON *all = get_json(s.port, "/debug/decisions", 200);
    const cJSON *list = cJSON_GetObjectItem(all, "decisions");
    ck_assert_int_eq(cJSON_GetArraySize(list), 3);
    ck_assert_double_eq(num(cJSON_GetArrayItem(list, 0), "id"), 5);
    ck_assert_double_eq(num(cJSON_GetArrayItem(list, 2), "id"), 3);
    cJSON_Delete(all);
    char *m = metrics_get(s.port);
    ck_assert_double_eq(metrics_must(m, "cpu_extender_decisions_kept"), 3);
    free(m);
    ck_assert_int_eq(server_stop(&s), 0);
    examples_free(&ex);
}
END_TEST

/* GET @path: its HTML page's body (malloc'd), checking the status and that
 * it is HTML with the policy that runs no script. */
static char *get_page(int port, const char *path, int status)
{
    struct http_response r;
    ck_assert_int_eq(http_request(port, "GET", path, NULL, 0, &r), 0);
    ck_assert_msg(r.status == status, "%s: status %d", path, r.status);
    ck_assert_msg(strstr(r.headers, "text/html") != NULL, "%s: %s", path, r.headers);
    ck_assert_ptr_nonnull(strstr(r.headers, "Content-Security-Policy: default-src 'none';"));
    char *body = strdup(r.body);
    http_response_free(&r);
    return body;
}

static void page_says(int port, const char *path, int status, const char *text)
{
    char *body = get_page(port, path, status);
    ck_assert_msg(strstr(body, text) != NULL, "%s does not say %s:\n%s", path, text, body);
    free(body);
}

static void json_not_found(int port, const char *path, const char *text)
{
    cJSON *j = get_json(port, path, 200);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "decisions")), 0);
    ck_assert_msg(strcmp(str(j, "notFound"), text) == 0, "%s: %s", path, str(j, "notFound"));
    cJSON_Delete(j);
}

/* What was asked and is not there is said as such, in the page's own
 * format: a pod with no decision was "No decision recorded yet", an id
 * never given was "no longer kept", and /debug answered a bad query with
 * JSON (issue 24, item 10). */
START_TEST(ops_debug_says_what_was_not_found)
{
    struct server_proc s;
    struct examples ex;
    const char *const args[] = {"--debug-endpoints", "--decisions-kept", "2", NULL};
    examples_read(&ex);
    server_start(&s, args);
    page_says(s.port, "/debug", 200, "<p id=\"decision\">No decision recorded yet: send a filter");
    page_says(s.port, "/debug?id=99", 200,
              "<p id=\"decision\">Decision 99 has not been made: none has been recorded yet.</p>");
    json_not_found(s.port, "/debug/decisions?id=99",
                   "decision 99 has not been made: none has been recorded yet");
    for (int i = 0; i < 3; i++)
        assert_scores(s.port, &ex, 2, 9, 2, 1);
    page_says(s.port, "/debug?pod=nope", 200,
              "<p id=\"decision\">No decision kept for pod nope.</p>");
    page_says(s.port, "/debug?pod=%3Cb%3Enope", 200, "No decision kept for pod &lt;b&gt;nope.");
    page_says(s.port, "/debug?pod=nope&disagreed=1", 200,
              "No decision kept for pod nope that kube-scheduler bound elsewhere.");
    page_says(s.port, "/debug?id=99", 200,
              "<p id=\"decision\">Decision 99 has not been made: the newest is 3.</p>");
    page_says(s.port, "/debug?id=1", 200, "<p id=\"decision\">Decision 1 is no longer kept.</p>");
    page_says(s.port, "/debug?id=3", 200, "Decision 3: prioritize default/web-0");
    json_not_found(s.port, "/debug/decisions?pod=nope", "no decision kept for pod nope");
    json_not_found(s.port, "/debug/decisions?id=99",
                   "decision 99 has not been made: the newest is 3");
    json_not_found(s.port, "/debug/decisions?id=1", "decision 1 is no longer kept");
    cJSON *found = get_json(s.port, "/debug/decisions?id=3", 200);
    ck_assert_ptr_null(cJSON_GetObjectItem(found, "notFound"));
    cJSON_Delete(found);
    /* a bad query: HTML on the HTML page, JSON on the JSON one */
    page_says(s.port, "/debug?id=abc", 400,
              "<p id=\"error\">id and limit must be whole numbers from 1 to 2^63.");
    page_says(s.port, "/debug?disagreed=yes", 400, "disagreed must be 1 or 0.");
    cJSON *e = get_json(s.port, "/debug/decisions?id=abc", 400);
    ck_assert_str_eq(str(e, "Error"), "id and limit must be whole numbers from 1 to 2^63");
    cJSON_Delete(e);
    ck_assert_int_eq(server_stop(&s), 0);
    examples_free(&ex);
}
END_TEST

Suite *ops_suite(void)
{
    Suite *s = suite_create("ops");
    TCase *tc = tcase_create("ops");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, ops_access_log_has_every_field);
    tcase_add_test(tc, ops_access_log_follows_the_log_level);
    tcase_add_test(tc, ops_hostile_names_keep_log_lines_json);
    tcase_add_test(tc, ops_metrics_count_decisions_by_reason_and_spread);
    tcase_add_test(tc, ops_shadow_answers_neutral_but_records_the_scores);
    tcase_add_test(tc, ops_mode_switches_by_reload);
    tcase_add_test(tc, ops_pods_outside_the_selector_pass_through);
    tcase_add_test(tc, ops_late_request_gets_a_neutral_answer_in_time);
    tcase_add_test(tc, ops_debug_decisions_explain_every_node);
    tcase_add_test(tc, ops_decisions_ring_keeps_the_newest);
    tcase_add_test(tc, ops_debug_says_what_was_not_found);
    suite_add_tcase(s, tc);
    return s;
}

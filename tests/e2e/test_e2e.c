/*
 * End to end: the real binary on an ephemeral loopback port, fed the
 * requests a real kube-scheduler sent (tests/fixtures/captured) over one
 * keep-alive connection. Expected answers are worked out by hand from the
 * rules (spread, weights cpu 3 memory 1, no used annotations):
 *
 *   allocatable  node-0 1920m, 7574524Ki = 7756312576
 *                node-1 3900m, 15963132Ki = 16346247168
 *                node-2 7860m, 32740348Ki = 33526116352
 *   cap-requests   {500m, 256Mi}: node-1 cpu 340000/3900=87 mem 98 -> (261+98)/4=89 -> 9
 *                                 node-2 cpu 93 mem 99 -> 94 -> 9; node-0 73, 96 -> 78 -> 8
 *   cap-norequests {100m, 200Mi} (non-zero defaults): node-1 97,98 -> 97 -> 10
 *                                 node-2 98,99 -> 98 -> 10; node-0 94,97 -> 94 -> 9
 *   cap-complex    {1000m, 160Mi} (max of init 1 and 250m+100m): node-1 74,98 -> 80 -> 8
 *                                 node-0 47,97 -> 59 -> 6
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "tests/suites.h"
#include "tests/support/fixtures.h"
#include "tests/support/http_client.h"
#include "tests/support/json_assert.h"
#include "tests/support/metrics_scrape.h"
#include "tests/support/server_proc.h"

/* POSTs fixture @rel on @fd and checks status 200 and the answer. */
static void post_fixture(int fd, const char *rel, const char *verb, struct http_response *r)
{
    size_t len;
    char *body = fixture_read(rel, &len), path[64];
    snprintf(path, sizeof(path), "/scheduler/%s", verb);
    ck_assert_int_eq(http_roundtrip(fd, "POST", path, body, len, r), 0);
    ck_assert_msg(r->status == 200, "%s: status %d: %s", rel, r->status, r->body);
    free(body);
}

/* A filter answer in Nodes mode must return every input node unchanged
 * (JSON-equal), in input order, and nothing else. */
static void assert_filter_passes_all(const char *rel, const char *answer)
{
    size_t len;
    char *body = fixture_read(rel, &len);
    cJSON *req = cJSON_Parse(body), *res = cJSON_Parse(answer);
    ck_assert_ptr_nonnull(res);
    cJSON *in =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(req, "Nodes"), "items");
    cJSON *nodes = cJSON_GetObjectItemCaseSensitive(res, "Nodes");
    ck_assert(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(nodes, "items"), in, 1));
    ck_assert(cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(nodes, "metadata")));
    ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(res, "NodeNames")));
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(res, "FailedNodes")), 0);
    ck_assert_int_eq(
        cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(res, "FailedAndUnresolvableNodes")), 0);
    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(res, "Error")->valuestring, "");
    cJSON_Delete(req);
    cJSON_Delete(res);
    free(body);
}

START_TEST(e2e_nocache_fixtures_over_one_connection)
{
    struct server_proc s;
    struct http_response r;
    server_start(&s, NULL);
    int fd = http_connect(s.port);
    ck_assert_int_ge(fd, 0);

    post_fixture(fd, "nocache-3nodes/raw/000001-filter.req.json", "filter", &r);
    assert_filter_passes_all("nocache-3nodes/raw/000001-filter.req.json", r.body);
    http_response_free(&r);
    post_fixture(fd, "nocache-3nodes/raw/000002-prioritize.req.json", "prioritize", &r);
    assert_json_eq(r.body, "[{\"Host\":\"node-1\",\"Score\":9},{\"Host\":\"node-2\",\"Score\":9},"
                           "{\"Host\":\"node-0\",\"Score\":8}]");
    http_response_free(&r);
    post_fixture(fd, "nocache-3nodes/raw/000003-filter.req.json", "filter", &r);
    assert_filter_passes_all("nocache-3nodes/raw/000003-filter.req.json", r.body);
    http_response_free(&r);
    post_fixture(fd, "nocache-3nodes/raw/000004-prioritize.req.json", "prioritize", &r);
    assert_json_eq(r.body, "[{\"Host\":\"node-1\",\"Score\":10},{\"Host\":\"node-2\",\"Score\":10},"
                           "{\"Host\":\"node-0\",\"Score\":9}]");
    http_response_free(&r);
    post_fixture(fd, "nocache-3nodes/raw/000005-filter.req.json", "filter", &r);
    assert_filter_passes_all("nocache-3nodes/raw/000005-filter.req.json", r.body);
    http_response_free(&r);
    post_fixture(fd, "nocache-3nodes/raw/000006-prioritize.req.json", "prioritize", &r);
    assert_json_eq(r.body, "[{\"Host\":\"node-1\",\"Score\":8},{\"Host\":\"node-0\",\"Score\":6}]");
    http_response_free(&r);
    /* the other captures with full nodes: bind and preempt runs */
    post_fixture(fd, "bind-nocache/raw/000001-filter.req.json", "filter", &r);
    assert_filter_passes_all("bind-nocache/raw/000001-filter.req.json", r.body);
    http_response_free(&r);
    post_fixture(fd, "bind-nocache/raw/000002-prioritize.req.json", "prioritize", &r);
    assert_json_eq(r.body, "[{\"Host\":\"node-2\",\"Score\":9},{\"Host\":\"node-1\",\"Score\":9},"
                           "{\"Host\":\"node-0\",\"Score\":8}]");
    http_response_free(&r);
    /* cap-preemptor {1, 256Mi} on node-2 (1920m): fits, nothing known is used */
    post_fixture(fd, "preempt-nocache/raw/000002-filter.req.json", "filter", &r);
    assert_filter_passes_all("preempt-nocache/raw/000002-filter.req.json", r.body);
    http_response_free(&r);

    close(fd);
    ck_assert_int_eq(server_stop(&s), 0);
}
END_TEST

START_TEST(e2e_cache_fixtures_pass_names_with_neutral_scores)
{
    struct server_proc s;
    struct http_response r;
    server_start(&s, NULL);
    int fd = http_connect(s.port);

    post_fixture(fd, "cache-3nodes/raw/000001-filter.req.json", "filter", &r);
    assert_json_eq(r.body, "{\"Nodes\":null,\"NodeNames\":[\"node-0\",\"node-1\",\"node-2\"],"
                           "\"FailedNodes\":{},\"FailedAndUnresolvableNodes\":{},\"Error\":\"\"}");
    http_response_free(&r);
    post_fixture(fd, "cache-3nodes/raw/000002-prioritize.req.json", "prioritize", &r);
    assert_json_eq(r.body, "[{\"Host\":\"node-0\",\"Score\":0},{\"Host\":\"node-1\",\"Score\":0},"
                           "{\"Host\":\"node-2\",\"Score\":0}]");
    http_response_free(&r);
    post_fixture(fd, "cache-3nodes/raw/000005-filter.req.json", "filter", &r);
    assert_json_eq(r.body, "{\"Nodes\":null,\"NodeNames\":[\"node-0\",\"node-1\"],"
                           "\"FailedNodes\":{},\"FailedAndUnresolvableNodes\":{},\"Error\":\"\"}");
    http_response_free(&r);
    post_fixture(fd, "preempt-cache/raw/000002-filter.req.json", "filter", &r);
    assert_json_eq(r.body, "{\"Nodes\":null,\"NodeNames\":[\"node-1\"],"
                           "\"FailedNodes\":{},\"FailedAndUnresolvableNodes\":{},\"Error\":\"\"}");
    http_response_free(&r);
    close(fd);

    /* the log says once why every name passes */
    char *log;
    size_t len;
    log = file_slurp(s.log_path, &len);
    ck_assert_ptr_nonnull(strstr(log, "NodeNames request: no cluster state"));
    ck_assert_ptr_null(strstr(strstr(log, "NodeNames request") + 1, "NodeNames request"));
    free(log);
    ck_assert_int_eq(server_stop(&s), 0);
}
END_TEST

/* Sets metadata.annotations[@key] = @value on node @name of a NodeList request. */
static void set_node_field(cJSON *req, const char *name, const char *where, const char *key,
                           const char *value)
{
    cJSON *item;
    cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(
                                 cJSON_GetObjectItemCaseSensitive(req, "Nodes"), "items"))
    {
        cJSON *meta = cJSON_GetObjectItemCaseSensitive(item, "metadata");
        if (strcmp(cJSON_GetObjectItemCaseSensitive(meta, "name")->valuestring, name) != 0)
            continue;
        cJSON *obj = strcmp(where, "annotations") == 0
                         ? cJSON_GetObjectItemCaseSensitive(meta, "annotations")
                         : cJSON_GetObjectItemCaseSensitive(
                               cJSON_GetObjectItemCaseSensitive(item, "status"), "allocatable");
        cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
        cJSON_AddStringToObject(obj, key, value);
    }
}

/* cap-requests {500m, 256Mi} against three nodes made to fail three ways:
 *   node-1: cpu-used 3500m -> 3900-3500 = 400 free < 500: FailedNodes
 *   node-2: memory-used = all of it -> FailedNodes for memory
 *   node-0: allocatable cpu 400m < 500 request: unresolvable
 * prioritize (same body): node-1 cpu (4000 > 3900) 0, mem 98 -> 98/4 = 24 -> 2
 *   node-2 cpu 93, mem over -> 0 -> 279/4 = 69 -> 7; node-0 cpu 0, mem 96 -> 24 -> 2 */
START_TEST(e2e_used_annotations_and_allocatable_decide)
{
    struct server_proc s;
    struct http_response r;
    size_t len;
    char *body = fixture_read("nocache-3nodes/raw/000001-filter.req.json", &len);
    cJSON *req = cJSON_Parse(body);
    set_node_field(req, "node-1", "annotations", "cpu-extender.io/cpu-used", "3500m");
    set_node_field(req, "node-2", "annotations", "cpu-extender.io/memory-used", "32740348Ki");
    set_node_field(req, "node-0", "allocatable", "cpu", "400m");
    char *text = cJSON_PrintUnformatted(req);

    server_start(&s, NULL);
    int fd = http_connect(s.port);
    ck_assert_int_eq(http_roundtrip(fd, "POST", "/scheduler/filter", text, strlen(text), &r), 0);
    ck_assert_int_eq(r.status, 200);
    assert_json_eq(
        r.body, "{\"Nodes\":{\"metadata\":{},\"items\":[]},\"NodeNames\":null,"
                "\"FailedNodes\":{\"node-1\":\"Insufficient cpu\","
                "\"node-2\":\"Insufficient memory\"},"
                "\"FailedAndUnresolvableNodes\":{\"node-0\":\"Insufficient cpu\"},\"Error\":\"\"}");
    http_response_free(&r);
    ck_assert_int_eq(http_roundtrip(fd, "POST", "/scheduler/prioritize", text, strlen(text), &r),
                     0);
    assert_json_eq(r.body, "[{\"Host\":\"node-1\",\"Score\":2},{\"Host\":\"node-2\",\"Score\":7},"
                           "{\"Host\":\"node-0\",\"Score\":2}]");
    http_response_free(&r);

    /* bad data on one node rejects that node only, with a reason */
    set_node_field(req, "node-0", "allocatable", "cpu", "abc");
    set_node_field(req, "node-2", "annotations", "cpu-extender.io/memory-used", "1e999");
    free(text);
    text = cJSON_PrintUnformatted(req);
    ck_assert_int_eq(http_roundtrip(fd, "POST", "/scheduler/filter", text, strlen(text), &r), 0);
    ck_assert_int_eq(r.status, 200);
    assert_json_eq(r.body,
                   "{\"Nodes\":{\"metadata\":{},\"items\":[]},\"NodeNames\":null,"
                   "\"FailedNodes\":{\"node-1\":\"Insufficient cpu\"},"
                   "\"FailedAndUnresolvableNodes\":{\"node-2\":\"invalid memory-used annotation\","
                   "\"node-0\":\"invalid allocatable cpu\"},\"Error\":\"\"}");
    http_response_free(&r);
    ck_assert_int_eq(http_roundtrip(fd, "POST", "/scheduler/prioritize", text, strlen(text), &r),
                     0);
    assert_json_eq(r.body, "[{\"Host\":\"node-1\",\"Score\":2},{\"Host\":\"node-2\",\"Score\":0},"
                           "{\"Host\":\"node-0\",\"Score\":0}]");
    http_response_free(&r);

    close(fd);
    free(text);
    free(body);
    cJSON_Delete(req);
    ck_assert_int_eq(server_stop(&s), 0);
}
END_TEST

/* --strategy pack --normalize, from flags:
 *   node-1 cpu 500*100/3900 = 12, mem 1 -> (36+1)/4 = 9
 *   node-2 cpu 6, mem 0 -> 18/4 = 4; node-0 cpu 26, mem 3 -> 81/4 = 20
 *   normalised to vmax 20: (90+10)/20 = 5, (40+10)/20 = 2, (200+10)/20 = 10 */
START_TEST(e2e_flags_select_strategy_and_normalize)
{
    struct server_proc s;
    struct http_response r;
    const char *args[] = {"--strategy", "pack", "--normalize", NULL};
    server_start(&s, args);
    int fd = http_connect(s.port);
    post_fixture(fd, "nocache-3nodes/raw/000002-prioritize.req.json", "prioritize", &r);
    assert_json_eq(r.body, "[{\"Host\":\"node-1\",\"Score\":5},{\"Host\":\"node-2\",\"Score\":2},"
                           "{\"Host\":\"node-0\",\"Score\":10}]");
    http_response_free(&r);
    close(fd);
    ck_assert_int_eq(server_stop(&s), 0);
}
END_TEST

START_TEST(e2e_prefix_slashes_and_query_are_normalized)
{
    struct server_proc s;
    struct http_response r;
    const char *args[] = {"--prefix", "/ext/", NULL};
    size_t len;
    char *body = fixture_read("cache-3nodes/raw/000002-prioritize.req.json", &len);
    server_start(&s, args);
    int fd = http_connect(s.port);
    ck_assert_int_eq(http_roundtrip(fd, "POST", "//ext//prioritize?trace=1", body, len, &r), 0);
    ck_assert_int_eq(r.status, 200);
    http_response_free(&r);
    ck_assert_int_eq(http_roundtrip(fd, "POST", "/scheduler/prioritize", body, len, &r), 0);
    ck_assert_int_eq(r.status, 404);
    http_response_free(&r);
    close(fd);
    free(body);
    ck_assert_int_eq(server_stop(&s), 0);
}
END_TEST

START_TEST(e2e_health_ready_version_and_probe)
{
    struct server_proc s;
    struct http_response r;
    char listen[64], cmd[512];
    server_start(&s, NULL);
    int fd = http_connect(s.port);
    ck_assert_int_eq(http_roundtrip(fd, "GET", "/healthz", NULL, 0, &r), 0);
    ck_assert_int_eq(r.status, 200);
    assert_json_eq(r.body, "{\"status\":\"ok\"}");
    http_response_free(&r);
    ck_assert_int_eq(http_roundtrip(fd, "GET", "/readyz", NULL, 0, &r), 0);
    ck_assert_int_eq(r.status, 200);
    http_response_free(&r);
    ck_assert_int_eq(http_roundtrip(fd, "GET", "/version", NULL, 0, &r), 0);
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_nonnull(strstr(r.body, "\"version\":\""));
    http_response_free(&r);
    close(fd);

    snprintf(listen, sizeof(listen), "127.0.0.1:%d", s.port);
    snprintf(cmd, sizeof(cmd), "%s probe --listen %s", server_binary(), listen);
    ck_assert_int_eq(WEXITSTATUS(system(cmd)), 0);
    snprintf(cmd, sizeof(cmd), "%s probe --ready --listen %s", server_binary(), listen);
    ck_assert_int_eq(WEXITSTATUS(system(cmd)), 0);
    ck_assert_int_eq(server_stop(&s), 0);
    /* nothing listens any more: the probe fails */
    snprintf(cmd, sizeof(cmd), "%s probe --listen %s 2>/dev/null", server_binary(), listen);
    ck_assert_int_eq(WEXITSTATUS(system(cmd)), 1);
}
END_TEST

/* SIGTERM while a request is half sent: the request still gets its answer,
 * new connections are refused, and the process exits 0. */
START_TEST(e2e_sigterm_lets_request_in_flight_finish)
{
    struct server_proc s;
    struct http_response r;
    size_t len;
    char *body = fixture_read("nocache-3nodes/raw/000002-prioritize.req.json", &len), head[256];
    server_start(&s, NULL);
    int fd = http_connect(s.port);
    int n = snprintf(
        head, sizeof(head),
        "POST /scheduler/prioritize HTTP/1.1\r\nHost: x\r\nContent-Length: %zu\r\n\r\n", len);
    ck_assert_int_eq(http_send_raw(fd, head, (size_t)n), 0);
    ck_assert_int_eq(http_send_raw(fd, body, len / 2), 0);
    usleep(200000);
    kill(s.pid, SIGTERM);
    usleep(200000);
    ck_assert_int_lt(http_connect(s.port), 0); /* no new connections */
    ck_assert_int_eq(http_send_raw(fd, body + len / 2, len - len / 2), 0);
    ck_assert_int_eq(http_read(fd, &r, 5000), 0);
    ck_assert_int_eq(r.status, 200);
    assert_json_eq(r.body, "[{\"Host\":\"node-1\",\"Score\":9},{\"Host\":\"node-2\",\"Score\":9},"
                           "{\"Host\":\"node-0\",\"Score\":8}]");
    http_response_free(&r);
    close(fd);
    free(body);
    ck_assert_int_eq(server_stop(&s), 0);
}
END_TEST

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

/* The configHash of /version on a fresh connection. */
static void version_hash(int port, char out[32])
{
    struct http_response r;
    int fd = http_connect(port);
    ck_assert_int_eq(http_roundtrip(fd, "GET", "/version", NULL, 0, &r), 0);
    const char *h = strstr(r.body, "\"configHash\":\"");
    ck_assert_ptr_nonnull(h);
    snprintf(out, 32, "%.16s", h + strlen("\"configHash\":\""));
    http_response_free(&r);
    close(fd);
}

static void wait_hash(int port, const char *want_differ, const char *want_equal)
{
    char h[32];
    for (int i = 0; i < 100; i++) {
        version_hash(port, h);
        if ((want_differ && strcmp(h, want_differ) != 0) ||
            (want_equal && strcmp(h, want_equal) == 0))
            return;
        usleep(50000);
    }
    ck_abort_msg("config hash did not change as expected (now %s)", h);
}

static void expect_prioritize(int port, const char *want)
{
    struct http_response r;
    int fd = http_connect(port);
    post_fixture(fd, "nocache-3nodes/raw/000002-prioritize.req.json", "prioritize", &r);
    assert_json_eq(r.body, want);
    http_response_free(&r);
    close(fd);
}

#define SPREAD_SCORES                                                                              \
    "[{\"Host\":\"node-1\",\"Score\":9},{\"Host\":\"node-2\",\"Score\":9},"                        \
    "{\"Host\":\"node-0\",\"Score\":8}]"
#define PACK_NORMALIZED_SCORES                                                                     \
    "[{\"Host\":\"node-1\",\"Score\":5},{\"Host\":\"node-2\",\"Score\":2},"                        \
    "{\"Host\":\"node-0\",\"Score\":10}]"

/* SIGHUP and a changed file reload; an invalid file is refused and the last
 * good configuration keeps serving; /version shows which one is in use. */
START_TEST(e2e_config_reload_keeps_last_good)
{
    struct server_proc s;
    char path[64], h1[32], h2[32], h3[32];
    snprintf(path, sizeof(path), "/tmp/reload-%d.json", (int)getpid());
    write_text(path, "{\"strategy\":\"spread\"}");
    const char *args[] = {"--config", path, NULL};
    server_start(&s, args);
    version_hash(s.port, h1);
    expect_prioritize(s.port, SPREAD_SCORES);

    write_text(path, "{\"strategy\":\"pack\",\"normalize\":true}");
    kill(s.pid, SIGHUP);
    wait_hash(s.port, h1, NULL);
    version_hash(s.port, h2);
    expect_prioritize(s.port, PACK_NORMALIZED_SCORES);

    write_text(path, "{\"strategy\":\"fast\"}");
    kill(s.pid, SIGHUP);
    usleep(300000);
    version_hash(s.port, h3);
    ck_assert_str_eq(h3, h2);
    expect_prioritize(s.port, PACK_NORMALIZED_SCORES);

    /* no signal: the file's change is noticed by itself */
    write_text(path, "{\"cpuWeight\":3}");
    wait_hash(s.port, NULL, h1);
    expect_prioritize(s.port, SPREAD_SCORES);

    size_t len;
    char *log = file_slurp(s.log_path, &len);
    ck_assert_ptr_nonnull(strstr(log, "config reload rejected"));
    ck_assert_ptr_nonnull(strstr(log, "want spread, pack, balanced or target"));
    free(log);
    /* pack and cpuWeight went in (a signal and a poll of the same change
     * count once); the invalid file was refused at least once */
    char *m = metrics_get(s.port);
    ck_assert_double_eq(metrics_value(m, "cpu_extender_config_reloads_total{result=\"accepted\"}"),
                        2);
    ck_assert(metrics_value(m, "cpu_extender_config_reloads_total{result=\"rejected\"}") >= 1);
    free(m);
    ck_assert_int_eq(server_stop(&s), 0);
    unlink(path);
}
END_TEST

/* Waits up to @ms for @text in the server's log. */
static bool log_says(const struct server_proc *s, const char *text, int ms)
{
    for (int waited = 0; waited <= ms; waited += 20) {
        size_t len;
        char *log = file_slurp(s->log_path, &len);
        bool found = log != NULL && strstr(log, text) != NULL;
        free(log);
        if (found)
            return true;
        usleep(20000);
    }
    return false;
}

/* A config file that became a FIFO is refused on reload, and the main
 * thread goes on to handle SIGTERM: opening a FIFO without a writer used
 * to block it for ever (issue 23, finding 8). */
START_TEST(e2e_config_reload_refuses_a_fifo)
{
    struct server_proc s;
    char path[64];
    snprintf(path, sizeof(path), "/tmp/reload-fifo-%d.json", (int)getpid());
    write_text(path, "{\"strategy\":\"spread\"}");
    const char *args[] = {"--config", path, NULL};
    server_start(&s, args);
    ck_assert_int_eq(unlink(path), 0);
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    kill(s.pid, SIGHUP);
    bool refused = log_says(&s, "not a regular file (a FIFO)", 5000);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = server_stop(&s);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    unlink(path);
    double took = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    ck_assert_msg(refused, "the FIFO was not refused with a clear error");
    ck_assert_int_eq(rc, 0);
    ck_assert_msg(took < 5.0, "SIGTERM took %.1f s", took);
}
END_TEST

START_TEST(e2e_listens_on_ipv6_loopback)
{
    struct server_proc s;
    char cmd[512];
    server_start_at(&s, "[::1]:0", NULL);
    snprintf(cmd, sizeof(cmd), "%s probe --ready --listen '[::1]:%d'", server_binary(), s.port);
    ck_assert_int_eq(WEXITSTATUS(system(cmd)), 0);
    ck_assert_int_eq(server_stop(&s), 0);
}
END_TEST

/* Writes the fixture's nodes as `kubectl get nodes -o json` would, and its
 * pod as `kubectl get pod -o json`, then runs `cpu-extender rank`. */
START_TEST(e2e_rank_prints_table_and_pinned_manifest)
{
    size_t len;
    char *body = fixture_read("nocache-3nodes/raw/000001-filter.req.json", &len);
    cJSON *req = cJSON_Parse(body);
    char nodes_path[64], pod_path[64], out_path[64], err_path[64], cmd[1024];
    snprintf(nodes_path, sizeof(nodes_path), "/tmp/rank-nodes-%d.json", (int)getpid());
    snprintf(pod_path, sizeof(pod_path), "/tmp/rank-pod-%d.json", (int)getpid());
    snprintf(out_path, sizeof(out_path), "/tmp/rank-out-%d.json", (int)getpid());
    snprintf(err_path, sizeof(err_path), "/tmp/rank-err-%d.txt", (int)getpid());
    cJSON *list = cJSON_GetObjectItemCaseSensitive(req, "Nodes");
    cJSON_AddStringToObject(list, "apiVersion", "v1");
    cJSON_AddStringToObject(list, "kind", "List");
    char *nodes = cJSON_Print(list), *pod = cJSON_Print(cJSON_GetObjectItem(req, "Pod"));
    FILE *f = fopen(nodes_path, "w");
    fputs(nodes, f);
    fclose(f);
    f = fopen(pod_path, "w");
    fputs(pod, f);
    fclose(f);

    /* the table and the advice on stderr without -o; with -o json only the
     * manifest, for $(...) */
    snprintf(cmd, sizeof(cmd), "%s rank --nodes %s --pod %s >/dev/null 2>%s", server_binary(),
             nodes_path, pod_path, err_path);
    ck_assert_int_eq(WEXITSTATUS(system(cmd)), 0);
    char *table = file_slurp(err_path, &len);
    snprintf(cmd, sizeof(cmd), "%s rank --nodes %s --pod %s -o json >%s 2>%s", server_binary(),
             nodes_path, pod_path, out_path, err_path);
    ck_assert_int_eq(WEXITSTATUS(system(cmd)), 0);
    char *manifest = file_slurp(out_path, &len), *quiet = file_slurp(err_path, &len);
    ck_assert_str_eq(quiet, "");
    free(quiet);
    /* node-2 has value 94, node-1 89: both score 9, the higher value wins */
    ck_assert_msg(strstr(table, "best node: node-2 (score 9, value 94)") != NULL, "%s", table);
    /* the breakdown /debug shows: value 94 from both terms, score (94 + 5) / 10 */
    ck_assert_msg(strstr(table, "; score 9 = (94 + 5) / 10") != NULL, "%s", table);
    ck_assert_msg(strstr(table, "+90") != NULL, "%s", table);
    ck_assert_ptr_nonnull(strstr(table, "node-0"));
    ck_assert_ptr_nonnull(strstr(table, "cannot be changed"));
    cJSON *m = cJSON_Parse(manifest);
    ck_assert_ptr_nonnull(m);
    cJSON *meta = cJSON_GetObjectItemCaseSensitive(m, "metadata");
    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(meta, "name")->valuestring, "cap-requests");
    ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(meta, "uid"));
    ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(meta, "resourceVersion"));
    ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(meta, "managedFields"));
    ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(meta, "creationTimestamp"));
    ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(m, "status"));
    cJSON *spec = cJSON_GetObjectItemCaseSensitive(m, "spec");
    ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(spec, "nodeName"));
    ck_assert_str_eq(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(spec, "nodeSelector"),
                                         "kubernetes.io/hostname")
            ->valuestring,
        "node-2");
    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(m, "kind")->valuestring, "Pod");
    cJSON_Delete(m);
    free(table);
    free(manifest);

    /* a node too small for the pod everywhere: table, no manifest, exit 1 */
    snprintf(cmd, sizeof(cmd), "%s rank --nodes %s --pod %s --cpu-threshold-percent 1 >%s 2>%s",
             server_binary(), nodes_path, pod_path, out_path, err_path);
    ck_assert_int_eq(WEXITSTATUS(system(cmd)), 1);
    table = file_slurp(err_path, &len);
    ck_assert_ptr_nonnull(strstr(table, "no node fits"));
    free(table);

    unlink(nodes_path);
    unlink(pod_path);
    unlink(out_path);
    unlink(err_path);
    free(nodes);
    free(pod);
    free(body);
    cJSON_Delete(req);
}
END_TEST

START_TEST(e2e_config_check_command)
{
    char path[64], cmd[512];
    snprintf(path, sizeof(path), "/tmp/cfg-check-%d.json", (int)getpid());
    FILE *f = fopen(path, "w");
    fputs("{\"strategy\":\"target\",\"targetPercent\":70}", f);
    fclose(f);
    snprintf(cmd, sizeof(cmd), "%s config check %s >/dev/null 2>&1", server_binary(), path);
    ck_assert_int_eq(WEXITSTATUS(system(cmd)), 0);
    f = fopen(path, "w");
    fputs("{\"targetPercent\":170}", f);
    fclose(f);
    ck_assert_int_eq(WEXITSTATUS(system(cmd)), 2);
    unlink(path);
    /* a serve with a bad flag refuses to start, naming it */
    snprintf(cmd, sizeof(cmd), "%s --cpu-weight 500 2>/dev/null", server_binary());
    ck_assert_int_eq(WEXITSTATUS(system(cmd)), 2);
}
END_TEST

Suite *e2e_suite(void)
{
    Suite *s = suite_create("e2e");
    TCase *tc = tcase_create("e2e");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, e2e_nocache_fixtures_over_one_connection);
    tcase_add_test(tc, e2e_cache_fixtures_pass_names_with_neutral_scores);
    tcase_add_test(tc, e2e_used_annotations_and_allocatable_decide);
    tcase_add_test(tc, e2e_flags_select_strategy_and_normalize);
    tcase_add_test(tc, e2e_prefix_slashes_and_query_are_normalized);
    tcase_add_test(tc, e2e_health_ready_version_and_probe);
    tcase_add_test(tc, e2e_listens_on_ipv6_loopback);
    tcase_add_test(tc, e2e_sigterm_lets_request_in_flight_finish);
    tcase_add_test(tc, e2e_config_reload_keeps_last_good);
    tcase_add_test(tc, e2e_config_reload_refuses_a_fifo);
    tcase_add_test(tc, e2e_rank_prints_table_and_pinned_manifest);
    tcase_add_test(tc, e2e_config_check_command);
    suite_add_tcase(s, tc);
    return s;
}

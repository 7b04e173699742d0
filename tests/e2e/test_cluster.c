/*
 * End to end with a cluster: the real binary, given a kubeconfig, watches
 * the fake API server of tests/support/fake_apiserver.c over TLS (a CA the
 * test makes) and answers kube-scheduler's requests from that state.
 *
 * Expected scores are worked out from the rules (spread, cpu weight 3,
 * memory weight 1, score = (value + 5) / 10, integer division throughout):
 * every node has 4000m and 8Gi; the pending pod asks for 500m and 512Mi.
 *
 *   n1: pods 3000m, 1Gi   cpu (4000-3500)*100/4000 = 12   mem 6.5Gi/8Gi = 81
 *                          (3*12 + 81) / 4 = 29 -> 3
 *   n2: pods 1000m, 1Gi   cpu 2500*100/4000 = 62          mem 81
 *                          (186 + 81) / 4 = 66 -> 7
 *   n3: no pods           cpu 3500*100/4000 = 87          mem 7.5/8 = 93
 *                          (261 + 93) / 4 = 88 -> 9
 */
#include <check.h>
#include <errno.h>
#include <math.h>
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

#include "base/clock.h"
#include "tests/suites.h"
#include "tests/support/fake_apiserver.h"
#include "tests/support/fixtures.h"
#include "tests/support/http_client.h"
#include "tests/support/json_assert.h"
#include "tests/support/metrics_scrape.h"
#include "tests/support/server_proc.h"
#include "tests/support/test_certs.h"

#define TOKEN      "token-one"
#define NODE_MILLI 4000 /* every node's allocatable cpu */

static struct test_pki pki;

/* One cluster test's world: the fake, a kubeconfig naming it, the binary. */
struct world {
    struct fake_apiserver *fake;
    char kubeconfig[128];
    char token_file[128];
    struct server_proc server;
};

static void make_pki(void)
{
    test_pki_make(&pki);
}

static void remove_pki(void)
{
    test_pki_remove(&pki);
}

static struct fake_apiserver *start_fake(const char *cert, const char *key)
{
    char c[256], k[256];
    struct fake_params p = {
        .cert_file = test_pki_path(&pki, cert, c, sizeof(c)),
        .key_file = test_pki_path(&pki, key, k, sizeof(k)),
        .token = TOKEN,
    };
    struct fake_apiserver *f = NULL;
    ck_assert_int_eq(fake_start(&p, &f), 0);
    return f;
}

/* Writes a kubeconfig for @w->fake trusting @ca (NULL: none, with
 * insecure-skip-tls-verify), with the token inline or, when @token_file, in
 * a file next to it (as a rotated token would be). */
static void write_kubeconfig(struct world *w, const char *ca, bool token_file)
{
    char ca_path[256];
    snprintf(w->kubeconfig, sizeof(w->kubeconfig), "%s/kubeconfig-%d", pki.dir, getpid());
    snprintf(w->token_file, sizeof(w->token_file), "%s/token-%d", pki.dir, getpid());
    FILE *t = fopen(w->token_file, "w");
    ck_assert_ptr_nonnull(t);
    fputs(TOKEN "\n", t);
    fclose(t);
    FILE *f = fopen(w->kubeconfig, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f,
            "apiVersion: v1\nkind: Config\ncurrent-context: test\n"
            "clusters:\n- name: fake\n  cluster:\n    server: https://127.0.0.1:%d\n"
            "    %s: %s\n"
            "users:\n- name: sched\n  user:\n    %s: %s\n"
            "contexts:\n- name: test\n  context:\n    cluster: fake\n    user: sched\n",
            fake_port(w->fake), ca != NULL ? "certificate-authority" : "insecure-skip-tls-verify",
            ca != NULL ? test_pki_path(&pki, ca, ca_path, sizeof(ca_path)) : "true",
            token_file ? "tokenFile" : "token", token_file ? w->token_file : TOKEN);
    fclose(f);
}

static void put_node(struct world *w, const char *name, const char *cpu, const char *mem)
{
    char json[512];
    snprintf(json, sizeof(json),
             "{\"metadata\":{\"name\":\"%s\"},\"status\":{\"allocatable\":"
             "{\"cpu\":\"%s\",\"memory\":\"%s\",\"pods\":\"110\"}}}",
             name, cpu, mem);
    ck_assert_int_eq(fake_put(w->fake, FAKE_NODE, json, NULL), 0);
}

/* A pod with one container requesting @cpu and @mem (NULL: no request),
 * on @node ("" pending), in @phase. */
static void put_pod(struct world *w, const char *name, const char *node, const char *cpu,
                    const char *mem, const char *phase)
{
    char json[1024], req[256] = "";
    if (cpu != NULL && mem != NULL)
        snprintf(req, sizeof(req), "\"cpu\":\"%s\",\"memory\":\"%s\"", cpu, mem);
    else if (cpu != NULL)
        snprintf(req, sizeof(req), "\"cpu\":\"%s\"", cpu);
    snprintf(json, sizeof(json),
             "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"default\",\"uid\":\"uid-%s\"},"
             "\"spec\":{\"nodeName\":\"%s\",\"containers\":[{\"name\":\"c\",\"resources\":"
             "{\"requests\":{%s}}}]},\"status\":{\"phase\":\"%s\"}}",
             name, name, node, req, phase);
    ck_assert_int_eq(fake_put(w->fake, FAKE_POD, json, NULL), 0);
}

static void three_nodes(struct world *w)
{
    put_node(w, "n1", "4", "8Gi");
    put_node(w, "n2", "4000m", "8Gi");
    put_node(w, "n3", "4", "8192Mi");
    put_pod(w, "a", "n1", "2", "512Mi", "Running");
    put_pod(w, "b", "n1", "1", "512Mi", "Running");
    put_pod(w, "c", "n2", "1", "1Gi", "Running");
    put_pod(w, "done", "n3", "3", "4Gi", "Succeeded"); /* terminal: not charged */
    put_pod(w, "pending", "", "2", "1Gi", "Pending");  /* not on a node */
}

static int get_ready(int port, char **reason)
{
    struct http_response r;
    int fd = http_connect(port);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(http_roundtrip(fd, "GET", "/readyz", NULL, 0, &r), 0);
    close(fd);
    int status = r.status;
    if (reason != NULL)
        *reason = strdup(r.body != NULL ? r.body : "");
    http_response_free(&r);
    return status;
}

/* Polls /readyz until it answers @want (10 s at most); returns the last body. */
static char *wait_ready(int port, int want)
{
    char *body = NULL;
    for (int i = 0; i < 200; i++) {
        free(body);
        if (get_ready(port, &body) == want)
            return body;
        usleep(50000);
    }
    ck_abort_msg("/readyz never answered %d; last: %s", want, body);
    return body;
}

static void start_world(struct world *w, const char *const *flags)
{
    const char *args[24] = {"--kubeconfig", w->kubeconfig, "--log-level", "debug"};
    size_t n = 4;
    for (; flags != NULL && *flags != NULL && n < 23; flags++)
        args[n++] = *flags;
    args[n] = NULL;
    server_start(&w->server, args);
}

static void stop_world(struct world *w)
{
    ck_assert_int_eq(server_stop(&w->server), 0);
    fake_stop(w->fake);
    unlink(w->kubeconfig);
    unlink(w->token_file);
}

/* The fake serving @cert, three nodes and their pods, a kubeconfig for it. */
static void prepare_world(struct world *w, const char *cert, const char *key, const char *ca,
                          bool token_file)
{
    w->fake = start_fake(cert, key);
    write_kubeconfig(w, ca, token_file);
    three_nodes(w);
}

static void standard_world(struct world *w, const char *const *flags)
{
    prepare_world(w, "server.pem", "server.key", "ca.pem", false);
    start_world(w, flags);
    free(wait_ready(w->server.port, 200));
}

static char *post(int port, const char *verb, const char *body, int *status)
{
    struct http_response r;
    char path[64];
    snprintf(path, sizeof(path), "/scheduler/%s", verb);
    int fd = http_connect(port);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(http_roundtrip(fd, "POST", path, body, strlen(body), &r), 0);
    close(fd);
    char *out = strdup(r.body != NULL ? r.body : "");
    if (status != NULL)
        *status = r.status;
    else
        ck_assert_msg(r.status == 200, "%s: %d %s", verb, r.status, out);
    http_response_free(&r);
    return out;
}

/* ExtenderArgs in NodeNames mode for a pod requesting @cpu and @mem. */
static char *names_args(const char *cpu, const char *mem, const char *names)
{
    char *b = malloc(1024);
    snprintf(
        b, 1024,
        "{\"Pod\":{\"metadata\":{\"name\":\"new\",\"namespace\":\"default\",\"uid\":\"u-new\"},"
        "\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":"
        "{\"cpu\":\"%s\",\"memory\":\"%s\"}}}]}},\"Nodes\":null,\"NodeNames\":[%s]}",
        cpu, mem, names);
    return b;
}

static void assert_prioritize(int port, const char *cpu, const char *mem, const char *names,
                              const char *want)
{
    char *args = names_args(cpu, mem, names);
    char *got = post(port, "prioritize", args, NULL);
    assert_json_eq(got, want);
    free(got);
    free(args);
}

static void assert_filter(int port, const char *cpu, const char *names, const char *want)
{
    char *args = names_args(cpu, "1", names);
    char *got = post(port, "filter", args, NULL);
    assert_json_eq(got, want);
    free(got);
    free(args);
}

/* Free CPU on @node is exactly @free_milli: a pod of that much fits, one
 * millicore more does not. */
static void assert_free_cpu(int port, const char *node, long free_milli)
{
    char fits[32], over[32], name[64], want[512];
    snprintf(fits, sizeof(fits), "%ldm", free_milli);
    snprintf(over, sizeof(over), "%ldm", free_milli + 1);
    snprintf(name, sizeof(name), "\"%s\"", node);
    snprintf(want, sizeof(want),
             "{\"Nodes\":null,\"NodeNames\":[\"%s\"],\"FailedNodes\":{},"
             "\"FailedAndUnresolvableNodes\":{},\"Error\":\"\"}",
             node);
    if (free_milli > 0)
        assert_filter(port, fits, name, want);
    /* More than the node has at all: preemption cannot help. */
    bool beyond = free_milli + 1 > NODE_MILLI;
    snprintf(want, sizeof(want),
             "{\"Nodes\":null,\"NodeNames\":[],\"FailedNodes\":{%s%s%s},"
             "\"FailedAndUnresolvableNodes\":{%s%s%s},\"Error\":\"\"}",
             beyond ? "" : "\"", beyond ? "" : node, beyond ? "" : "\":\"Insufficient cpu\"",
             beyond ? "\"" : "", beyond ? node : "", beyond ? "\":\"Insufficient cpu\"" : "");
    assert_filter(port, over, name, want);
}

/* Does a pod of @milli millicores pass the filter on @node alone? */
static bool fits(int port, const char *node, long milli)
{
    char cpu[32], name[64];
    snprintf(cpu, sizeof(cpu), "%ldm", milli);
    snprintf(name, sizeof(name), "\"%s\"", node);
    char *args = names_args(cpu, "1", name);
    char *got = post(port, "filter", args, NULL);
    bool ok = strstr(got, "\"FailedNodes\":{}") != NULL &&
              strstr(got, "\"FailedAndUnresolvableNodes\":{}") != NULL;
    free(got);
    free(args);
    return ok;
}

/* Waits (10 s at most: the watch is asynchronous) until free CPU on @node
 * is exactly @free_milli, then checks the answers in full. */
static void await_free_cpu(int port, const char *node, long free_milli)
{
    for (int i = 0; i < 200; i++) {
        if ((free_milli <= 0 || fits(port, node, free_milli)) && !fits(port, node, free_milli + 1))
            break;
        usleep(50000);
    }
    assert_free_cpu(port, node, free_milli);
}

START_TEST(cluster_names_mode_ranks_by_real_free_cpu)
{
    struct world w;
    standard_world(&w, NULL);
    assert_prioritize(w.server.port, "500m", "512Mi", "\"n1\",\"n2\",\"n3\",\"ghost\"",
                      "[{\"Host\":\"n1\",\"Score\":3},{\"Host\":\"n2\",\"Score\":7},"
                      "{\"Host\":\"n3\",\"Score\":9},{\"Host\":\"ghost\",\"Score\":0}]");
    /* n1 has exactly 1000m free, n2 3000m, n3 4000m (the Succeeded pod is not charged) */
    assert_free_cpu(w.server.port, "n1", 1000);
    assert_free_cpu(w.server.port, "n2", 3000);
    assert_free_cpu(w.server.port, "n3", 4000);
    /* a name the state does not know passes (and is counted, see the log) */
    assert_filter(w.server.port, "100", "\"ghost\"",
                  "{\"Nodes\":null,\"NodeNames\":[\"ghost\"],\"FailedNodes\":{},"
                  "\"FailedAndUnresolvableNodes\":{},\"Error\":\"\"}");
    /* an unknown name is logged; a hostile one stays one value of a JSON line */
    char *hostile = names_args("100m", "1", "\"gh ost\\\" level=error msg=forged\"");
    free(post(w.server.port, "filter", hostile, NULL));
    free(hostile);
    cJSON *lines = server_log_lines(&w.server); /* each one JSON object */
    const cJSON *line;
    int named = 0;
    cJSON_ArrayForEach(line, lines)
    {
        ck_assert_str_ne(cJSON_GetObjectItem(line, "level")->valuestring, "error");
        const cJSON *node = cJSON_GetObjectItem(line, "node");
        named += cJSON_IsString(node) &&
                 strcmp(node->valuestring, "gh ost\" level=error msg=forged") == 0;
    }
    ck_assert_int_eq(named, 1);
    cJSON_Delete(lines);
    char *m = metrics_get(w.server.port);
    ck_assert_double_eq(metrics_value(m, "cpu_extender_unknown_nodes_total"), 3);
    ck_assert_double_eq(metrics_value(m, "cpu_extender_cluster_nodes"), 3);
    ck_assert_double_eq(metrics_value(m, "cpu_extender_cluster_pods"), 5);
    ck_assert_double_eq(metrics_value(m, "cpu_extender_cluster_ready"), 1);
    /* placement quality: requested/allocatable 3/4, 1/4, 0; mean 1/3;
     * deviations 5/12, -1/12, -4/12: variance 42/144/3 = 7/72; cv 3*sqrt(7/72) */
    ck_assert_double_eq_tol(metrics_value(m, "cpu_extender_cpu_requested_ratio_cv"),
                            3 * sqrt(7.0 / 72.0), 1e-6);
    ck_assert_double_eq_tol(metrics_value(m, "cpu_extender_cpu_requested_ratio_mean"), 1.0 / 3,
                            1e-6);
    free(m);
    stop_world(&w);
}
END_TEST

START_TEST(cluster_nodes_mode_uses_state_for_used)
{
    struct world w;
    standard_world(&w, NULL);
    /* The Node objects of the request give allocatable; the pods come from
     * the state: n1 scores as in NodeNames mode. */
    const char *args =
        "{\"Pod\":{\"metadata\":{\"name\":\"new\"},\"spec\":{\"containers\":[{\"resources\":"
        "{\"requests\":{\"cpu\":\"500m\",\"memory\":\"512Mi\"}}}]}},\"Nodes\":{\"items\":["
        "{\"metadata\":{\"name\":\"n1\"},\"status\":{\"allocatable\":{\"cpu\":\"4\","
        "\"memory\":\"8Gi\"}}},{\"metadata\":{\"name\":\"n3\"},\"status\":{\"allocatable\":"
        "{\"cpu\":\"4\",\"memory\":\"8Gi\"}}}]}}";
    char *got = post(w.server.port, "prioritize", args, NULL);
    assert_json_eq(got, "[{\"Host\":\"n1\",\"Score\":3},{\"Host\":\"n3\",\"Score\":9}]");
    free(got);
    stop_world(&w);
}
END_TEST

START_TEST(cluster_state_converges_through_faults)
{
    struct world w;
    standard_world(&w, NULL);
    int port = w.server.port;
    /* adds, a binding, an update to a terminal phase, a delete */
    put_pod(&w, "d", "n3", "250m", "1Gi", "Running");
    put_pod(&w, "pending", "n2", "2", "1Gi", "Running"); /* bound: n2 3000m -> 1000m */
    put_pod(&w, "a", "n1", "2", "512Mi", "Failed");      /* n1 1000m -> 3000m */
    ck_assert_int_eq(fake_delete(w.fake, FAKE_POD, "default", "c", NULL), 0); /* n2 +1000m */
    await_free_cpu(port, "n1", 3000);
    await_free_cpu(port, "n2", 2000);
    await_free_cpu(port, "n3", 3750);

    /* a watch cut in the middle of an event line: resumes, nothing lost or doubled */
    struct fake_counts before, after;
    fake_counts(w.fake, &before);
    fake_drop_watches(w.fake, FAKE_DROP_MID_LINE);
    put_pod(&w, "e", "n3", "750m", NULL, "Running");
    ck_assert_int_eq(fake_wait_open_watches(w.fake, FAKE_POD, 1, 10000), 0);
    put_pod(&w, "f", "n3", "1", NULL, "Running");
    await_free_cpu(port, "n3", 2000);
    fake_counts(w.fake, &after);
    ck_assert_int_eq(after.lists[FAKE_POD], before.lists[FAKE_POD]); /* resumed, no relist */

    /* compaction while the watch is down: 410 Gone, a relist, and a delete
     * that happened in the gap is noticed */
    fake_fail_next(w.fake, 4, 503); /* keep the reconnects back until compacted */
    fake_drop_watches(w.fake, FAKE_DROP_CLOSE);
    ck_assert_int_eq(fake_delete(w.fake, FAKE_POD, "default", "f", NULL), 0);
    ck_assert_int_eq(fake_delete(w.fake, FAKE_POD, "default", "b", NULL), 0);
    fake_compact(w.fake);
    await_free_cpu(port, "n3", 3000);
    await_free_cpu(port, "n1", 4000);
    fake_counts(w.fake, &after);
    ck_assert_int_gt(after.lists[FAKE_POD], before.lists[FAKE_POD]);

    /* a node that goes away is unknown: passed with score 0 */
    ck_assert_int_eq(fake_delete(w.fake, FAKE_NODE, NULL, "n2", NULL), 0);
    for (int i = 0; i < 200; i++) {
        char *args = names_args("100m", "1", "\"n2\"");
        char *got = post(port, "prioritize", args, NULL);
        bool gone = strstr(got, "\"Score\":0") != NULL;
        free(got);
        free(args);
        if (gone)
            break;
        usleep(50000);
    }
    assert_prioritize(port, "100m", "1", "\"n2\"", "[{\"Host\":\"n2\",\"Score\":0}]");
    stop_world(&w);
}
END_TEST

START_TEST(cluster_not_ready_until_listed_and_says_why)
{
    struct world w;
    prepare_world(&w, "server.pem", "server.key", "ca.pem", false);
    fake_fail_next(w.fake, 6, 503);
    start_world(&w, NULL);
    char *why = NULL;
    ck_assert_int_eq(get_ready(w.server.port, &why), 503);
    ck_assert_msg(strstr(why, "cluster state incomplete") != NULL, "%s", why);
    free(why);
    why = wait_ready(w.server.port, 200);
    ck_assert_msg(strstr(why, "serving from cluster state") != NULL, "%s", why);
    ck_assert_msg(strstr(why, "\"nodes\":3,\"pods\":5,\"unknownNodeNames\":0") != NULL, "%s", why);
    free(why);
    stop_world(&w);
}
END_TEST

/* A CA that did not sign the server, or a server certificate for another
 * name: never trusted, never ready, and /readyz says why. */
static void assert_refused(const char *cert, const char *key, const char *ca, const char *words)
{
    struct world w;
    prepare_world(&w, cert, key, ca, false);
    start_world(&w, NULL);
    char *why = NULL;
    for (int i = 0; i < 100; i++) {
        free(why);
        ck_assert_int_eq(get_ready(w.server.port, &why), 503);
        if (strstr(why, words) != NULL)
            break;
        usleep(50000);
    }
    ck_assert_msg(strstr(why, words) != NULL, "readyz: %s", why);
    free(why);
    struct fake_counts c;
    fake_counts(w.fake, &c);
    ck_assert_int_eq(c.lists[FAKE_NODE] + c.lists[FAKE_POD], 0); /* no request got through */
    stop_world(&w);
}

START_TEST(cluster_wrong_ca_is_refused)
{
    assert_refused("server.pem", "server.key", "other-ca.pem", "certificate");
}
END_TEST

START_TEST(cluster_wrong_hostname_is_refused)
{
    assert_refused("wrong-host.pem", "wrong-host.key", "ca.pem", "certificate");
}
END_TEST

/* insecure-skip-tls-verify: a certificate for another host is accepted,
 * and the start says so loudly. */
START_TEST(cluster_insecure_skip_tls_verify_is_honoured_and_loud)
{
    struct world w;
    prepare_world(&w, "wrong-host.pem", "wrong-host.key", NULL, false);
    start_world(&w, NULL);
    free(wait_ready(w.server.port, 200));
    assert_free_cpu(w.server.port, "n1", 1000);
    size_t len;
    char *log = file_slurp(w.server.log_path, &len);
    ck_assert_msg(strstr(log, "\"level\":\"warn\",\"msg\":\"insecure-skip-tls-verify is set") !=
                      NULL,
                  "%s", log);
    free(log);
    stop_world(&w);
}
END_TEST

START_TEST(cluster_rotated_token_is_picked_up)
{
    struct world w;
    prepare_world(&w, "server.pem", "server.key", "ca.pem", true);
    start_world(&w, NULL);
    free(wait_ready(w.server.port, 200));
    /* the kubelet writes a new token and the old one stops working */
    fake_set_token(w.fake, "token-two");
    FILE *t = fopen(w.token_file, "w");
    ck_assert_ptr_nonnull(t);
    fputs("token-two\n", t);
    fclose(t);
    fake_drop_watches(w.fake, FAKE_DROP_CLOSE);
    put_pod(&w, "late", "n3", "1500m", NULL, "Running");
    await_free_cpu(w.server.port, "n3", 2500);
    stop_world(&w);
}
END_TEST

/* Every sample the fake serves is @age seconds old, over 20 s. */
static void metrics_age(struct world *w, int age)
{
    char ts[64];
    time_t t = time(NULL) - age;
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
    fake_set_metrics_time(w->fake, ts, "20s");
}

/* Metrics at @age seconds before now for n1 (3500m used) and n2 (1000m). */
static void set_metrics(struct world *w, int age)
{
    metrics_age(w, age);
    ck_assert_int_eq(fake_set_node_metrics(w->fake, "n1", "3500m", "1Gi"), 0);
    ck_assert_int_eq(fake_set_node_metrics(w->fake, "n2", "1000000000n", "1Gi"), 0);
}

/* cpu_extender_stale_nodes_total, and the filter's stale_data verdicts
 * with @result. */
struct stale_counts {
    double nodes, verdicts;
};

static struct stale_counts stale_counts(int port, const char *result)
{
    char series[128];
    char *m = metrics_get(port);
    snprintf(series, sizeof(series),
             "cpu_extender_filter_decisions_total{result=\"%s\",reason=\"stale_data\"}", result);
    struct stale_counts c = {metrics_must(m, "cpu_extender_stale_nodes_total"),
                             metrics_must(m, series)};
    free(m);
    return c;
}

/* The credential plugin of the plugin test: its first three runs hand out
 * a token the fake refuses (the 401 loop reruns it), then the right one;
 * every run leaves a sleep in its process group and one that left it. */
static const char litter_plugin[] =
    "#!/bin/sh\n"
    "d=$(dirname \"$0\")\n"
    "n=$(cat \"$d/runs\" 2>/dev/null || echo 0)\n"
    "n=$((n + 1))\n"
    "echo $n >\"$d/runs\"\n"
    "sleep 300 & echo $! >>\"$d/litter.pids\"\n"
    "setsid sleep 0.2 & echo $! >>\"$d/escaped.pids\"\n"
    "t=" TOKEN "\n"
    "[ $n -le 3 ] && t=refused-token\n"
    "printf '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
    "\"status\":{\"token\":\"%s\"}}\\n' $t\n";

/* Whether every pid listed in @path (one a line) is gone, reaped; the
 * first that is not into *@left. */
static bool all_pids_gone(const char *path, int *left)
{
    size_t len;
    char *text = file_slurp(path, &len);
    ck_assert_ptr_nonnull(text);
    bool all = true;
    for (char *line = strtok(text, "\n"); all && line != NULL; line = strtok(NULL, "\n")) {
        char proc[64];
        snprintf(proc, sizeof(proc), "/proc/%d", atoi(line));
        if (access(proc, F_OK) == 0) {
            *left = atoi(line);
            all = false;
        }
    }
    free(text);
    return all;
}

/* How many zombie children @parent has. */
static int zombies_of(pid_t parent)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "ps -o stat= --ppid %d | grep -c '^Z'", (int)parent);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    int n = 0;
    ck_assert_int_eq(fscanf(p, "%d", &n), 1);
    pclose(p);
    return n;
}

/* The image runs the binary as PID 1 with no init: what a credential
 * plugin left running, rerun by a 401 loop, stayed running, and became
 * zombies nobody reaped (issue 23, finding 7). The plugin's group is
 * ended with it and reaped; what left the group is reaped by the server
 * (a subreaper, as PID 1 is) when it exits. */
START_TEST(cluster_credential_plugin_leaves_no_process_and_no_zombie)
{
    struct world w = {0};
    char dir[100], plugin[160], litter[160], escaped[160], ca[256];
    snprintf(dir, sizeof(dir), "%s/plugin-%d", pki.dir, getpid());
    ck_assert_int_eq(mkdir(dir, 0700), 0);
    snprintf(plugin, sizeof(plugin), "%s/plugin", dir);
    snprintf(litter, sizeof(litter), "%s/litter.pids", dir);
    snprintf(escaped, sizeof(escaped), "%s/escaped.pids", dir);
    file_write(plugin, litter_plugin);
    ck_assert_int_eq(chmod(plugin, 0755), 0);
    w.fake = start_fake("server.pem", "server.key");
    three_nodes(&w);
    snprintf(w.kubeconfig, sizeof(w.kubeconfig), "%s/kubeconfig", dir);
    FILE *f = fopen(w.kubeconfig, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f,
            "apiVersion: v1\nkind: Config\ncurrent-context: test\n"
            "clusters:\n- name: fake\n  cluster:\n    server: https://127.0.0.1:%d\n"
            "    certificate-authority: %s\n"
            "users:\n- name: sched\n  user:\n    exec:\n"
            "      apiVersion: client.authentication.k8s.io/v1\n"
            "      interactiveMode: Never\n"
            "      command: %s\n"
            "contexts:\n- name: test\n  context:\n    cluster: fake\n    user: sched\n",
            fake_port(w.fake), test_pki_path(&pki, "ca.pem", ca, sizeof(ca)), plugin);
    fclose(f);
    start_world(&w, NULL);
    free(wait_ready(w.server.port, 200));

    int left = 0;
    bool clean = false;
    for (int i = 0; i < 100 && !clean; i++) {
        clean = all_pids_gone(litter, &left) && all_pids_gone(escaped, &left) &&
                zombies_of(w.server.pid) == 0;
        if (!clean)
            usleep(50 * 1000);
    }
    size_t len;
    char *runs = file_slurp(strcat(strcpy(ca, dir), "/runs"), &len);
    ck_assert_ptr_nonnull(runs);
    ck_assert_int_ge(atoi(runs), 4);
    free(runs);
    int zombies = zombies_of(w.server.pid);
    stop_world(&w);
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_msg(clean, "pid %d is left; the server has %d zombie(s)", left, zombies);
}
END_TEST

START_TEST(cluster_usage_source_and_stale_policy)
{
    struct world w;
    const char *const full[] = {"--cpu-used-source",
                                "usage",
                                "--metrics-interval-seconds",
                                "1",
                                "--stale-policy",
                                "full",
                                NULL};
    prepare_world(&w, "server.pem", "server.key", "ca.pem", false);
    set_metrics(&w, 5); /* fresh for n1 and n2; none for n3 */
    start_world(&w, full);
    free(wait_ready(w.server.port, 200));
    /* usage: n1 has 500m free by metrics (1000m by requests), n2 3000m */
    await_free_cpu(w.server.port, "n1", 500);
    assert_free_cpu(w.server.port, "n2", 3000);
    /* n3 has no sample: stale, and policy full rejects it (counted once;
     * the waits above met stale nodes too, before the first poll) */
    struct stale_counts stale = stale_counts(w.server.port, "failed"), after;
    assert_filter(w.server.port, "100m", "\"n3\"",
                  "{\"Nodes\":null,\"NodeNames\":[],\"FailedNodes\":{\"n3\":\"Stale cpu data "
                  "(usage)\"},\"FailedAndUnresolvableNodes\":{},\"Error\":\"\"}");
    after = stale_counts(w.server.port, "failed");
    ck_assert_double_eq(after.nodes, stale.nodes + 1);
    ck_assert_double_eq(after.verdicts, stale.verdicts + 1);
    ck_assert_int_eq(server_stop(&w.server), 0);

    /* the same stale data under pass: n3 passes, scores 0 */
    const char *const pass[] = {"--cpu-used-source",
                                "usage",
                                "--metrics-interval-seconds",
                                "1",
                                "--stale-policy",
                                "pass",
                                NULL};
    start_world(&w, pass);
    free(wait_ready(w.server.port, 200));
    await_free_cpu(w.server.port, "n1", 500);
    stale = stale_counts(w.server.port, "passed");
    assert_filter(w.server.port, "100m", "\"n3\"",
                  "{\"Nodes\":null,\"NodeNames\":[\"n3\"],\"FailedNodes\":{},"
                  "\"FailedAndUnresolvableNodes\":{},\"Error\":\"\"}");
    assert_prioritize(w.server.port, "100m", "1", "\"n3\"", "[{\"Host\":\"n3\",\"Score\":0}]");
    /* filter and prioritize met it stale; the filter passed it */
    after = stale_counts(w.server.port, "passed");
    ck_assert_double_eq(after.nodes, stale.nodes + 2);
    ck_assert_double_eq(after.verdicts, stale.verdicts + 1);
    ck_assert_int_eq(server_stop(&w.server), 0);

    /* samples an hour old under requests: every node falls back to requests */
    set_metrics(&w, 3600);
    const char *const fallback[] = {"--cpu-used-source", "usage", "--metrics-interval-seconds", "1",
                                    NULL};
    struct fake_counts before;
    fake_counts(w.fake, &before);
    start_world(&w, fallback);
    free(wait_ready(w.server.port, 200));
    /* Two polls answered (one second apart): the first one's samples are in
     * the state, and being an hour old they must not count. */
    for (int i = 0; i < 100; i++) {
        struct fake_counts now;
        fake_counts(w.fake, &now);
        if (now.metrics >= before.metrics + 2)
            break;
        usleep(50000);
    }
    struct fake_counts polled;
    fake_counts(w.fake, &polled);
    ck_assert_uint_ge(polled.metrics, before.metrics + 2);
    assert_free_cpu(w.server.port, "n1", 1000);
    assert_free_cpu(w.server.port, "n3", 4000);
    stop_world(&w);
}
END_TEST

/* n2's usage sample, @age seconds old, at @cpu. */
static void set_n2_usage(struct world *w, int age, const char *cpu)
{
    metrics_age(w, age);
    ck_assert_int_eq(fake_set_node_metrics(w->fake, "n2", cpu, "1Gi"), 0);
}

/* Waits until the fake API server has answered @n more metrics polls. */
static void await_polls(struct world *w, unsigned n)
{
    struct fake_counts before, now;
    fake_counts(w->fake, &before);
    for (int i = 0; i < 200; i++) {
        fake_counts(w->fake, &now);
        if (now.metrics >= before.metrics + n)
            return;
        usleep(50000);
    }
    ck_abort_msg("no %u metrics polls in 10 s", n);
}

/* usageWindowSeconds 60 at max with usageMinSamples 2: n2 (4000m) is
 * scored by the largest of its samples in the window, and its one first
 * sample alone is not enough (stale: requests). */
START_TEST(cluster_usage_window_scores_the_aggregate)
{
    struct world w;
    const char *const win[] = {"--cpu-used-source",
                               "usage",
                               "--metrics-interval-seconds",
                               "1",
                               "--usage-window-seconds",
                               "60",
                               "--usage-aggregation",
                               "cpu=max,memory=latest",
                               "--usage-min-samples",
                               "2",
                               NULL};
    prepare_world(&w, "server.pem", "server.key", "ca.pem", false);
    set_n2_usage(&w, 10, "1500m");
    start_world(&w, win);
    free(wait_ready(w.server.port, 200));
    await_polls(&w, 2);
    /* one sample (1500m: 2500m free) is stale: its requests, 1 CPU */
    assert_free_cpu(w.server.port, "n2", 3000);
    set_n2_usage(&w, 5, "2000m");
    await_free_cpu(w.server.port, "n2", 2000); /* max(1500m, 2000m) */
    set_n2_usage(&w, 2, "500m");
    await_polls(&w, 2);
    assert_free_cpu(w.server.port, "n2", 2000); /* 500m is the latest, 2000m still the max */
    stop_world(&w);
}
END_TEST

START_TEST(cluster_in_flight_damping_counts_new_pods)
{
    struct world w;
    const char *const usage[] = {"--cpu-used-source", "usage", "--metrics-interval-seconds", "1",
                                 NULL};
    prepare_world(&w, "server.pem", "server.key", "ca.pem", false);
    set_metrics(&w, 5);
    start_world(&w, usage);
    free(wait_ready(w.server.port, 200));
    await_free_cpu(w.server.port, "n2", 3000); /* usage 1000m */
    /* a pod bound now is not in the 5 s old sample: it counts until one is */
    put_pod(&w, "burst", "n2", "1200m", NULL, "Running");
    await_free_cpu(w.server.port, "n2", 1800);
    stop_world(&w);
}
END_TEST

/* GET @path on @port: the body (malloc'd), 200 asserted. */
static char *get_body(int port, const char *path)
{
    struct http_response r;
    ck_assert_int_eq(http_request(port, "GET", path, NULL, 0, &r), 0);
    ck_assert_msg(r.status == 200, "GET %s: %d", path, r.status);
    char *out = strdup(r.body != NULL ? r.body : "");
    http_response_free(&r);
    return out;
}

/* /debug shows, per node and resource, the window behind a used from
 * usage: the aggregation, the window's seconds, the samples it holds, the
 * aggregate and the newest sample; in JSON and on the page. */
START_TEST(cluster_debug_shows_the_usage_window)
{
    struct world w;
    const char *const win[] = {
        "--cpu-used-source",      "usage", "--metrics-interval-seconds", "1",
        "--usage-window-seconds", "60",    "--usage-aggregation",        "cpu=max,memory=latest",
        "--usage-min-samples",    "2",     "--debug-endpoints",          NULL};
    prepare_world(&w, "server.pem", "server.key", "ca.pem", false);
    set_n2_usage(&w, 10, "1500m");
    start_world(&w, win);
    free(wait_ready(w.server.port, 200));
    await_polls(&w, 2);
    set_n2_usage(&w, 5, "2000m");
    await_free_cpu(w.server.port, "n2", 2000); /* max(1500m, 2000m) */
    set_n2_usage(&w, 2, "500m");
    await_polls(&w, 2);
    char *args = names_args("100m", "1", "\"n2\"");
    free(post(w.server.port, "prioritize", args, NULL));
    free(args);
    char *json = get_body(w.server.port, "/debug/decisions?limit=1");
    const char *want = "\"usageWindow\":{\"aggregation\":\"max\",\"windowSeconds\":60,"
                       "\"samples\":3,\"aggregate\":2000,\"newest\":500,"
                       "\"text\":\"usage max over 60 s, 3 samples\"}";
    ck_assert_msg(strstr(json, want) != NULL, "%s", json);
    /* memory is scored on requests, as asked: no window beside it */
    ck_assert_msg(strstr(json, "\"usedFrom\":\"requests\",\"usedOutcome\":\"fresh\",\"pod\"") !=
                      NULL,
                  "%s", json);
    free(json);
    char *page = get_body(w.server.port, "/debug");
    ck_assert_msg(strstr(page, "usage max over 60 s, 3 samples: 2000m, newest 500m") != NULL, "%s",
                  page);
    free(page);
    stop_world(&w);
}
END_TEST

/* Writes pod default/web (100m, 64Mi) for rank to @path, named after @tag. */
static void write_web_pod(char *path, size_t n, const char *tag)
{
    snprintf(path, n, "%s/%s-%d.json", pki.dir, tag, getpid());
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"web\","
          "\"namespace\":\"default\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":"
          "{\"requests\":{\"cpu\":\"100m\",\"memory\":\"64Mi\"}}}]}}",
          f);
    fclose(f);
}

/* rank against a live cluster with a usage source scores what serve would:
 * it waits for the first metrics poll, shows each node's window, and says
 * which source each resource actually had: n3 has no sample, so its usage
 * is stale and falls back to its requests (stalePolicy requests), on
 * stderr with -o json too. */
START_TEST(cluster_rank_says_which_used_source_it_used)
{
    struct world w;
    char pod_path[128], out_path[128], err_path[128], cmd[1024];
    size_t len;
    prepare_world(&w, "server.pem", "server.key", "ca.pem", false);
    set_metrics(&w, 5);
    write_web_pod(pod_path, sizeof(pod_path), "upod");
    snprintf(out_path, sizeof(out_path), "%s/urank-out-%d", pki.dir, getpid());
    snprintf(err_path, sizeof(err_path), "%s/urank-err-%d", pki.dir, getpid());
    const char *flags = "--cpu-used-source usage --metrics-interval-seconds 1 "
                        "--usage-aggregation cpu=max";
    snprintf(cmd, sizeof(cmd),
             "env -u KUBECONFIG HOME=/nonexistent %s rank --kubeconfig %s --pod %s %s -o table "
             ">%s 2>%s",
             server_binary(), w.kubeconfig, pod_path, flags, out_path, err_path);
    ck_assert_int_eq(WEXITSTATUS(system(cmd)), 0);
    char *table = file_slurp(out_path, &len), *err = file_slurp(err_path, &len);
    const char *used = "used: cpu: requests on 1 node, usage on 2 nodes (usage asked; 1 without "
                       "it: stalePolicy requests applied); memory: requests on 3 nodes";
    ck_assert_msg(strstr(table, used) != NULL, "%s", table);
    ck_assert_msg(strstr(table, "cpu: usage max (no window), 1 sample: 3500m, newest 3500m") !=
                      NULL,
                  "%s", table);
    ck_assert_msg(strstr(table, "cpu: usage max (no window), 0 samples: no sample") != NULL, "%s",
                  table);
    ck_assert_msg(strstr(err, "cpu-extender rank: used cpu: requests on 1 node, usage on 2") !=
                      NULL,
                  "%s", err);
    ck_assert_msg(strstr(table, "memory: usage") == NULL, "%s", table); /* memory: requests */
    free(table);
    free(err);
    snprintf(cmd, sizeof(cmd),
             "env -u KUBECONFIG HOME=/nonexistent %s rank --kubeconfig %s --pod %s %s -o json "
             ">%s 2>%s",
             server_binary(), w.kubeconfig, pod_path, flags, out_path, err_path);
    ck_assert_int_eq(WEXITSTATUS(system(cmd)), 0);
    err = file_slurp(err_path, &len);
    ck_assert_msg(strstr(err, "cpu-extender rank: used cpu: requests on 1 node, usage on 2") !=
                      NULL,
                  "%s", err);
    free(err);
    unlink(pod_path);
    unlink(out_path);
    unlink(err_path);
    fake_stop(w.fake);
}
END_TEST

/* rank under stalePolicy pass scores every node as serve does: a stale
 * node before the others counts in the normalization with value 0 and
 * scores 0, and each node after it keeps its own score (rank once gave
 * each the score of the node before it). n1 has no sample; n2 uses 1 CPU
 * and n3 500m of their 4. */
START_TEST(cluster_rank_stale_pass_keeps_each_nodes_score)
{
    struct world w;
    char pod_path[128], out_path[128], cmd[1024];
    size_t len;
    prepare_world(&w, "server.pem", "server.key", "ca.pem", false);
    metrics_age(&w, 5);
    ck_assert_int_eq(fake_set_node_metrics(w.fake, "n2", "1000m", "1Gi"), 0);
    ck_assert_int_eq(fake_set_node_metrics(w.fake, "n3", "500m", "1Gi"), 0);
    write_web_pod(pod_path, sizeof(pod_path), "spod");
    snprintf(out_path, sizeof(out_path), "%s/srank-out-%d", pki.dir, getpid());
    snprintf(cmd, sizeof(cmd),
             "env -u KUBECONFIG HOME=/nonexistent %s rank --kubeconfig %s --pod %s "
             "--cpu-used-source usage --metrics-interval-seconds 1 --stale-policy pass -o table "
             ">%s 2>&1",
             server_binary(), w.kubeconfig, pod_path, out_path);
    ck_assert_int_eq(WEXITSTATUS(system(cmd)), 0);
    char *table = file_slurp(out_path, &len);
    ck_assert_msg(strstr(table, "score 9 = (88 + 5) / 10") != NULL, "%s", table);     /* n3 */
    ck_assert_msg(strstr(table, "score 8 = (75 + 5) / 10") != NULL, "%s", table);     /* n2 */
    ck_assert_msg(strstr(table, "score 0: used data is stale") != NULL, "%s", table); /* n1 */
    ck_assert_msg(strstr(table, "best node: n3 (score 9, value 88)") != NULL, "%s", table);
    free(table);
    unlink(pod_path);
    unlink(out_path);
    fake_stop(w.fake);
}
END_TEST

/* simulate against a live cluster on usage: each pod it places adds its
 * in-flight estimate to the node's usage, as serve counts a pod placed but
 * not yet in the samples. Usage n1 3500m, n2 2000m, n3 500m (4 CPU each);
 * p1 asks 1 CPU with a limit of 2 and goes to n3; then p2 (100m) goes where
 * more is left: n3 (2500m) when p1 counts its request, n2 (2000m against
 * n3's 1500m) when it counts its limit. */
START_TEST(cluster_simulate_on_usage_adds_the_in_flight_estimate)
{
    static const struct {
        const char *mode, *p2_on;
    } cases[] = {{"requests", "n3"}, {"limits", "n2"}};
    struct world w;
    char pods_path[128], csv_path[128], out_path[128], cmd[1024], want[64];
    prepare_world(&w, "server.pem", "server.key", "ca.pem", false);
    metrics_age(&w, 5);
    ck_assert_int_eq(fake_set_node_metrics(w.fake, "n1", "3500m", "1Gi"), 0);
    ck_assert_int_eq(fake_set_node_metrics(w.fake, "n2", "2000m", "1Gi"), 0);
    ck_assert_int_eq(fake_set_node_metrics(w.fake, "n3", "500m", "1Gi"), 0);
    snprintf(pods_path, sizeof(pods_path), "%s/usim-pods-%d.json", pki.dir, getpid());
    snprintf(csv_path, sizeof(csv_path), "%s/usim-%d.csv", pki.dir, getpid());
    snprintf(out_path, sizeof(out_path), "%s/usim-out-%d", pki.dir, getpid());
    FILE *f = fopen(pods_path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("{\"kind\":\"List\",\"items\":[{\"metadata\":{\"name\":\"p1\",\"namespace\":"
          "\"default\"},\"spec\":{\"containers\":[{\"resources\":{\"requests\":{\"cpu\":"
          "\"1\",\"memory\":\"512Mi\"},\"limits\":{\"cpu\":\"2\"}}}]}},{\"metadata\":{\"name\":"
          "\"p2\",\"namespace\":\"default\"},\"spec\":{\"containers\":[{\"resources\":"
          "{\"requests\":{\"cpu\":\"100m\",\"memory\":\"64Mi\"}}}]}}]}",
          f);
    fclose(f);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        snprintf(cmd, sizeof(cmd),
                 "env -u KUBECONFIG HOME=/nonexistent %s simulate --kubeconfig %s --pods %s "
                 "--strategy spread --placements %s --cpu-used-source usage "
                 "--metrics-interval-seconds 1 --in-flight-estimate %s >%s 2>&1",
                 server_binary(), w.kubeconfig, pods_path, csv_path, cases[i].mode, out_path);
        ck_assert_int_eq(WEXITSTATUS(system(cmd)), 0);
        size_t len;
        char *csv = file_slurp(csv_path, &len), *out = file_slurp(out_path, &len);
        ck_assert_msg(strstr(csv, "spread,default/p1,n3,") != NULL, "%s: %s\n%s", cases[i].mode,
                      csv, out);
        snprintf(want, sizeof(want), "spread,default/p2,%s,", cases[i].p2_on);
        ck_assert_msg(strstr(csv, want) != NULL, "%s: %s\n%s", cases[i].mode, csv, out);
        free(csv);
        free(out);
    }
    unlink(pods_path);
    unlink(csv_path);
    unlink(out_path);
    fake_stop(w.fake);
}
END_TEST

/* inFlightEstimate, through the pod watch: a pod of two containers, one
 * asking 1 CPU with a limit of 2, one asking 1 CPU without a limit, bound
 * to n2 (usage 1000m, 3000m free) after the sample. In flight it counts
 * requests 2000m, limits 2000m + 1000m, factor 0.85: 2000m + 850m. */
START_TEST(cluster_in_flight_estimate_per_mode)
{
    static const struct {
        const char *mode;
        long free_milli;
    } cases[] = {{"requests", 1000}, {"limits", 0}, {"factor", 150}};
    const char *pod =
        "{\"metadata\":{\"name\":\"burst\",\"namespace\":\"default\",\"uid\":\"uid-burst\"},"
        "\"spec\":{\"nodeName\":\"n2\",\"containers\":["
        "{\"name\":\"a\",\"resources\":{\"requests\":{\"cpu\":\"1\"},\"limits\":{\"cpu\":\"2\"}}},"
        "{\"name\":\"b\",\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]},"
        "\"status\":{\"phase\":\"Running\"}}";
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct world w;
        const char *const flags[] = {"--cpu-used-source",
                                     "usage",
                                     "--metrics-interval-seconds",
                                     "1",
                                     "--in-flight-estimate",
                                     cases[i].mode,
                                     "--in-flight-cpu-factor",
                                     "0.85",
                                     NULL};
        prepare_world(&w, "server.pem", "server.key", "ca.pem", false);
        set_metrics(&w, 5);
        start_world(&w, flags);
        free(wait_ready(w.server.port, 200));
        await_free_cpu(w.server.port, "n2", 3000); /* usage 1000m */
        ck_assert_int_eq(fake_put(w.fake, FAKE_POD, pod, NULL), 0);
        await_free_cpu(w.server.port, "n2", cases[i].free_milli);
        stop_world(&w);
    }
}
END_TEST

START_TEST(cluster_preempt_keeps_nodes_where_victims_make_room)
{
    struct world w;
    standard_world(&w, NULL);
    /* The pod asks for 2500m. n1: 1000m free, + a (2000m) = 3000m: kept.
     * n2: 3000m free already... + c: kept. n1 with only b (1000m): 2000m,
     * dropped. A node without victims is never listed. */
    const char *meta =
        "{\"Pod\":{\"metadata\":{\"name\":\"big\"},\"spec\":{\"containers\":[{\"resources\":"
        "{\"requests\":{\"cpu\":\"2500m\"}}}]}},\"NodeNameToVictims\":null,"
        "\"NodeNameToMetaVictims\":{"
        "\"n1\":{\"Pods\":[{\"UID\":\"uid-b\"}],\"NumPDBViolations\":0},"
        "\"n2\":{\"Pods\":[{\"UID\":\"uid-c\"}],\"NumPDBViolations\":1},"
        "\"n3\":{\"Pods\":[],\"NumPDBViolations\":0}}}";
    char *got = post(w.server.port, "preempt", meta, NULL);
    assert_json_eq(got, "{\"NodeNameToMetaVictims\":{\"n2\":{\"Pods\":[{\"UID\":\"uid-c\"}],"
                        "\"NumPDBViolations\":1}}}");
    free(got);
    const char *meta2 =
        "{\"Pod\":{\"metadata\":{\"name\":\"big\"},\"spec\":{\"containers\":[{\"resources\":"
        "{\"requests\":{\"cpu\":\"2500m\"}}}]}},\"NodeNameToMetaVictims\":{"
        "\"n1\":{\"Pods\":[{\"UID\":\"uid-a\"},{\"UID\":\"uid-b\"}],\"NumPDBViolations\":0}}}";
    got = post(w.server.port, "preempt", meta2, NULL);
    assert_json_eq(got, "{\"NodeNameToMetaVictims\":{\"n1\":{\"Pods\":[{\"UID\":\"uid-a\"},"
                        "{\"UID\":\"uid-b\"}],\"NumPDBViolations\":0}}}");
    free(got);
    /* the full form (nodeCacheCapable: false): requests come with the pods;
     * the answer is the meta form all the same */
    const char *full =
        "{\"Pod\":{\"metadata\":{\"name\":\"big\"},\"spec\":{\"containers\":[{\"resources\":"
        "{\"requests\":{\"cpu\":\"2500m\"}}}]}},\"NodeNameToVictims\":{"
        "\"n1\":{\"Pods\":[{\"metadata\":{\"name\":\"a\",\"uid\":\"uid-a\"},\"spec\":"
        "{\"containers\":[{\"resources\":{\"requests\":{\"cpu\":\"2\"}}}]}}],"
        "\"NumPDBViolations\":0}},\"NodeNameToMetaVictims\":null}";
    got = post(w.server.port, "preempt", full, NULL);
    assert_json_eq(got, "{\"NodeNameToMetaVictims\":{\"n1\":{\"Pods\":[{\"UID\":\"uid-a\"}],"
                        "\"NumPDBViolations\":0}}}");
    free(got);
    stop_world(&w);
}
END_TEST

/* Outside mode enforce, or for a pod outside the selector, preempt keeps
 * every candidate with victims: the extender has no say. */
START_TEST(cluster_preempt_outside_enforce_keeps_every_candidate)
{
    struct world w;
    const char *meta =
        "{\"Pod\":{\"metadata\":{\"name\":\"big\",\"namespace\":\"default\"},\"spec\":"
        "{\"containers\":[{\"resources\":{\"requests\":{\"cpu\":\"2500m\"}}}]}},"
        "\"NodeNameToMetaVictims\":{"
        "\"n1\":{\"Pods\":[{\"UID\":\"uid-b\"}],\"NumPDBViolations\":0},"
        "\"n2\":{\"Pods\":[{\"UID\":\"uid-c\"}],\"NumPDBViolations\":1},"
        "\"n3\":{\"Pods\":[],\"NumPDBViolations\":0}}}";
    const char *all = "{\"NodeNameToMetaVictims\":{"
                      "\"n1\":{\"Pods\":[{\"UID\":\"uid-b\"}],\"NumPDBViolations\":0},"
                      "\"n2\":{\"Pods\":[{\"UID\":\"uid-c\"}],\"NumPDBViolations\":1}}}";
    const char *const shadow[] = {"--mode", "shadow", NULL};
    standard_world(&w, shadow);
    char *got = post(w.server.port, "preempt", meta, NULL);
    assert_json_eq(got, all); /* enforce would drop n1 (see the test above) */
    free(got);
    char *m = metrics_get(w.server.port);
    ck_assert_double_eq(
        metrics_value(m, "cpu_extender_answers_total{verb=\"preempt\",kind=\"shadow\"}"), 1);
    free(m);
    ck_assert_int_eq(server_stop(&w.server), 0);
    const char *const outside[] = {"--select-namespaces", "prod", NULL};
    start_world(&w, outside);
    free(wait_ready(w.server.port, 200));
    got = post(w.server.port, "preempt", meta, NULL);
    assert_json_eq(got, all);
    free(got);
    m = metrics_get(w.server.port);
    ck_assert_double_eq(
        metrics_value(m,
                      "cpu_extender_answers_total{verb=\"preempt\",kind=\"passthrough_selector\"}"),
        1);
    free(m);
    stop_world(&w);
}
END_TEST

/* Past its deadline preempt judges nothing and keeps every candidate, as
 * filter and prioritize answer neutral: the body comes 300 ms after the
 * headers, against 80 % of a 250 ms httpTimeout (200 ms). In time, the
 * same request drops n1 (cluster_preempt_keeps_nodes_where_victims_make_room). */
START_TEST(cluster_preempt_past_its_deadline_keeps_every_candidate)
{
    struct world w;
    struct http_response r;
    const char *meta =
        "{\"Pod\":{\"metadata\":{\"name\":\"big\",\"namespace\":\"default\"},\"spec\":"
        "{\"containers\":[{\"resources\":{\"requests\":{\"cpu\":\"2500m\"}}}]}},"
        "\"NodeNameToMetaVictims\":{"
        "\"n1\":{\"Pods\":[{\"UID\":\"uid-b\"}],\"NumPDBViolations\":0},"
        "\"n2\":{\"Pods\":[{\"UID\":\"uid-c\"}],\"NumPDBViolations\":1},"
        "\"n3\":{\"Pods\":[],\"NumPDBViolations\":0}}}";
    const char *all = "{\"NodeNameToMetaVictims\":{"
                      "\"n1\":{\"Pods\":[{\"UID\":\"uid-b\"}],\"NumPDBViolations\":0},"
                      "\"n2\":{\"Pods\":[{\"UID\":\"uid-c\"}],\"NumPDBViolations\":1}}}";
    const char *const flags[] = {"--scheduler-timeout-ms", "250", NULL};
    standard_world(&w, flags);
    char *got = post(w.server.port, "preempt", meta, NULL);
    assert_json_eq(got, "{\"NodeNameToMetaVictims\":{\"n2\":{\"Pods\":[{\"UID\":\"uid-c\"}],"
                        "\"NumPDBViolations\":1}}}");
    free(got);

    int fd = http_connect(w.server.port);
    ck_assert_int_ge(fd, 0);
    char head[256];
    int n = snprintf(head, sizeof(head),
                     "POST /scheduler/preempt HTTP/1.1\r\nHost: x\r\nContent-Type: "
                     "application/json\r\nContent-Length: %zu\r\n\r\n",
                     strlen(meta));
    ck_assert_int_eq(http_send_raw(fd, head, (size_t)n), 0);
    /* The request's clock starts with its headers, before it reserves
     * memory for the body: once the reservation shows, 300 ms of ours are
     * at least 300 ms of the server's, past its 200 ms deadline. */
    for (int i = 0;; i++) {
        char *m = metrics_get(w.server.port);
        double reserved = metrics_must(m, "cpu_extender_memory_reserved_bytes");
        free(m);
        if (reserved > 0)
            break;
        ck_assert_msg(i < 1000, "the server did not take the headers within 10 s");
        usleep(10 * 1000);
    }
    usleep(300 * 1000);
    ck_assert_int_eq(http_send_raw(fd, meta, strlen(meta)), 0);
    ck_assert_int_eq(http_read(fd, &r, 5000), 0);
    close(fd);
    ck_assert_int_eq(r.status, 200);
    assert_json_eq(r.body, all);
    http_response_free(&r);
    char *m = metrics_get(w.server.port);
    ck_assert_double_eq(
        metrics_must(m, "cpu_extender_answers_total{verb=\"preempt\",kind=\"neutral_deadline\"}"),
        1);
    ck_assert_double_eq(
        metrics_must(m, "cpu_extender_answers_total{verb=\"preempt\",kind=\"scored\"}"), 1);
    free(m);
    stop_world(&w);
}
END_TEST

START_TEST(cluster_bind_creates_binding_once)
{
    struct world w;
    standard_world(&w, NULL);
    const char *bind = "{\"PodName\":\"pending\",\"PodNamespace\":\"default\","
                       "\"PodUID\":\"uid-pending\",\"Node\":\"n3\"}";
    char *got = post(w.server.port, "bind", bind, NULL);
    assert_json_eq(got, "{\"Error\":\"\"}");
    free(got);
    char *sent = fake_binding_body(w.fake, 0);
    ck_assert_ptr_nonnull(sent);
    assert_json_eq(sent, "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{\"name\":"
                         "\"pending\",\"namespace\":\"default\",\"uid\":\"uid-pending\"},"
                         "\"target\":{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":\"n3\"}}");
    free(sent);
    /* the pod counts on n3 at once (in flight), then through the watch */
    await_free_cpu(w.server.port, "n3", 2000);
    /* our earlier answer was lost and the scheduler asks again: success */
    got = post(w.server.port, "bind", bind, NULL);
    assert_json_eq(got, "{\"Error\":\"\"}");
    free(got);
    /* bound elsewhere: an error, with the API server's words */
    const char *elsewhere = "{\"PodName\":\"pending\",\"PodNamespace\":\"default\","
                            "\"PodUID\":\"uid-pending\",\"Node\":\"n1\"}";
    got = post(w.server.port, "bind", elsewhere, NULL);
    ck_assert_msg(strstr(got, "already assigned to node") != NULL, "%s", got);
    free(got);
    /* no such pod */
    got = post(w.server.port, "bind",
               "{\"PodName\":\"nope\",\"PodNamespace\":\"default\",\"Node\":\"n1\"}", NULL);
    ck_assert_msg(strstr(got, "404") != NULL, "%s", got);
    free(got);
    /* a name that would change the URL path */
    int status;
    got = post(w.server.port, "bind",
               "{\"PodName\":\"../x\",\"PodNamespace\":\"default\",\"Node\":\"n1\"}", &status);
    ck_assert_int_eq(status, 400);
    free(got);
    stop_world(&w);
}
END_TEST

START_TEST(cluster_unreadable_kubeconfig_exits_with_reason)
{
    char log[] = "/tmp/cpu-extender-kc-XXXXXX";
    int fd = mkstemp(log);
    ck_assert_int_ge(fd, 0);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd, STDERR_FILENO);
        execl(server_binary(), server_binary(), "--listen", "127.0.0.1:0", "--kubeconfig",
              "/nonexistent/kubeconfig", (char *)NULL);
        _exit(127);
    }
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status));
    ck_assert_int_eq(WEXITSTATUS(status), 2);
    char text[2048] = "";
    ssize_t n = pread(fd, text, sizeof(text) - 1, 0);
    ck_assert_int_gt(n, 0);
    text[n] = '\0';
    ck_assert_msg(strstr(text, "/nonexistent/kubeconfig") != NULL, "%s", text);
    close(fd);
    unlink(log);
}
END_TEST

START_TEST(cluster_none_bind_fails_and_preempt_keeps_all)
{
    struct server_proc s;
    server_start(&s, NULL);
    char *got = post(s.port, "bind",
                     "{\"PodName\":\"p\",\"PodNamespace\":\"default\",\"Node\":\"n1\"}", NULL);
    ck_assert_msg(strstr(got, "no cluster connection") != NULL, "%s", got);
    free(got);
    got = post(s.port, "preempt",
               "{\"Pod\":{},\"NodeNameToMetaVictims\":{\"n1\":{\"Pods\":[{\"UID\":\"x\"}],"
               "\"NumPDBViolations\":2},\"n2\":{\"Pods\":null}}}",
               NULL);
    assert_json_eq(got, "{\"NodeNameToMetaVictims\":{\"n1\":{\"Pods\":[{\"UID\":\"x\"}],"
                        "\"NumPDBViolations\":2}}}");
    free(got);
    char *why = NULL;
    ck_assert_int_eq(get_ready(s.port, &why), 200);
    ck_assert_msg(strstr(why, "request-only") != NULL, "%s", why);
    free(why);
    ck_assert_int_eq(server_stop(&s), 0);
}
END_TEST

START_TEST(cluster_rank_against_live_cluster)
{
    struct world w;
    char pod_path[128], out_path[128], err_path[128], cmd[1024];
    prepare_world(&w, "server.pem", "server.key", "ca.pem", false);
    snprintf(pod_path, sizeof(pod_path), "%s/pod-%d.json", pki.dir, getpid());
    snprintf(out_path, sizeof(out_path), "%s/rank-out-%d", pki.dir, getpid());
    snprintf(err_path, sizeof(err_path), "%s/rank-err-%d", pki.dir, getpid());
    FILE *f = fopen(pod_path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"web\","
          "\"namespace\":\"default\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":"
          "{\"requests\":{\"cpu\":\"500m\",\"memory\":\"512Mi\"}}}]}}",
          f);
    fclose(f);
    snprintf(cmd, sizeof(cmd),
             "env -u KUBECONFIG HOME=/nonexistent %s rank --kubeconfig %s --pod %s >%s 2>%s",
             server_binary(), w.kubeconfig, pod_path, out_path, err_path);
    ck_assert_int_eq(WEXITSTATUS(system(cmd)), 0);
    size_t len;
    char *table = file_slurp(err_path, &len), *manifest = file_slurp(out_path, &len);
    /* the scores of the header comment, from the cluster's pods */
    ck_assert_msg(strstr(table, "best node: n3 (score 9, value 88)") != NULL, "%s", table);
    ck_assert_msg(strstr(table, "n1 ") != NULL && strstr(table, "1000m") != NULL, "%s", table);
    ck_assert_msg(strstr(table, "requests") != NULL, "%s", table); /* the used source */
    /* the fake's nodes have no hostname label: pinned by name */
    ck_assert_msg(strstr(manifest, "- matchFields:\n") != NULL &&
                      strstr(manifest, "- key: metadata.name\n") != NULL &&
                      strstr(manifest, "\n            - n3\n") != NULL,
                  "%s", manifest);
    free(table);
    free(manifest);
    /* pod a runs on n1 (2 CPU, 512Mi, beside b's 1 CPU): ranked, its own
     * request is taken out of n1's sums, so n1 fits it again:
     * (4000 - 1000 - 2000)*100/4000 = 25, (8192 - 512 - 512)*100/8192 = 87,
     * (75 + 87)/4 = 40 -> score 4 (counted twice, n1 would be 1000m short) */
    f = fopen(pod_path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"a\","
          "\"namespace\":\"default\",\"uid\":\"uid-a\"},\"spec\":{\"nodeName\":\"n1\","
          "\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"2\","
          "\"memory\":\"512Mi\"}}}]},\"status\":{\"phase\":\"Running\"}}",
          f);
    fclose(f);
    snprintf(cmd, sizeof(cmd),
             "env -u KUBECONFIG HOME=/nonexistent %s rank --kubeconfig %s --pod %s -o table >%s "
             "2>%s",
             server_binary(), w.kubeconfig, pod_path, out_path, err_path);
    ck_assert_int_eq(WEXITSTATUS(system(cmd)), 0);
    table = file_slurp(out_path, &len);
    const char *n1 = strstr(table, "\nn1 ");
    ck_assert_msg(n1 != NULL && strstr(n1, "4000m 1000m(requests) 2000m -> 25") != NULL &&
                      strstr(n1, "fits") != NULL,
                  "%s", table);
    ck_assert_msg(strstr(table, "(this pod's own request left out)") != NULL, "%s", table);
    free(table);
    /* no --nodes and no cluster anywhere: a clear refusal */
    snprintf(
        cmd, sizeof(cmd),
        "env -u KUBECONFIG -u KUBERNETES_SERVICE_HOST HOME=/nonexistent %s rank --pod %s >%s 2>%s",
        server_binary(), pod_path, out_path, err_path);
    ck_assert_int_eq(WEXITSTATUS(system(cmd)), 2);
    table = file_slurp(err_path, &len);
    ck_assert_msg(strstr(table, "no cluster") != NULL, "%s", table);
    free(table);
    unlink(pod_path);
    unlink(out_path);
    unlink(err_path);
    fake_stop(w.fake);
    unlink(w.kubeconfig);
    unlink(w.token_file);
}
END_TEST

/* One series of /metrics on @port, now. */
static double metric_now(int port, const char *series)
{
    char *m = metrics_get(port);
    double v = metrics_value(m, series);
    free(m);
    return v;
}

static double by_resource(int port, const char *family, const char *resource)
{
    char series[160];
    snprintf(series, sizeof(series), "cpu_extender_%s{resource=\"%s\"}", family, resource);
    return metric_now(port, series);
}

/* Waits until the fake has seen @n more watch requests of @kind than in
 * @before. */
static void await_watches(struct world *w, const struct fake_counts *before, enum fake_kind kind,
                          unsigned n)
{
    for (int i = 0; i < 400; i++) {
        struct fake_counts now;
        fake_counts(w->fake, &now);
        if (now.watches[kind] >= before->watches[kind] + n)
            return;
        usleep(25000);
    }
    ck_abort_msg("no new watch of kind %d", (int)kind);
}

/* Watch restarts, relists and API errors, by resource, against what the
 * fake itself counted: every watch request that is not the first after a
 * list resumes an earlier one; a 410 is a relist, not an error; a cut
 * stream and an error status are errors. */
START_TEST(cluster_watch_faults_are_counted_by_resource)
{
    struct world w;
    struct fake_counts start, before, after;
    standard_world(&w, NULL);
    int port = w.server.port;
    /* ready means listed: the first watches may still be on their way, and
     * counted in the window they would be taken for restarts */
    ck_assert_int_eq(fake_wait_open_watches(w.fake, FAKE_NODE, 1, 10000), 0);
    ck_assert_int_eq(fake_wait_open_watches(w.fake, FAKE_POD, 1, 10000), 0);
    fake_counts(w.fake, &start);
    for (int r = 0; r < 2; r++) {
        const char *res = r == 0 ? "nodes" : "pods";
        ck_assert_double_eq(by_resource(port, "watch_restarts_total", res), 0);
        ck_assert_double_eq(by_resource(port, "relists_total", res), 0);
        ck_assert_double_eq(by_resource(port, "api_errors_total", res), 0);
    }
    /* no used source reads metrics.k8s.io: no such series */
    ck_assert_double_eq(by_resource(port, "api_errors_total", "nodes.metrics.k8s.io"), -1);

    /* both streams cut: each an error, each resumed once */
    fake_counts(w.fake, &before);
    fake_drop_watches(w.fake, FAKE_DROP_CLOSE);
    await_watches(&w, &before, FAKE_NODE, 1);
    await_watches(&w, &before, FAKE_POD, 1);
    ck_assert_double_eq(by_resource(port, "watch_restarts_total", "nodes"), 1);
    ck_assert_double_eq(by_resource(port, "watch_restarts_total", "pods"), 1);
    ck_assert_double_eq(by_resource(port, "api_errors_total", "nodes"), 1);
    ck_assert_double_eq(by_resource(port, "api_errors_total", "pods"), 1);
    ck_assert_double_eq(by_resource(port, "relists_total", "nodes"), 0);

    /* cut again while three answers are 503 and the versions are
     * compacted away: errors for the cuts and the 503s, and one relist each
     * once a watch gets 410 */
    fake_fail_next(w.fake, 3, 503);
    fake_drop_watches(w.fake, FAKE_DROP_CLOSE);
    put_pod(&w, "late", "n3", "100m", NULL, "Running");
    put_node(&w, "n4", "4", "8Gi");
    fake_compact(w.fake);
    for (int i = 0; i < 400; i++) {
        if (by_resource(port, "relists_total", "nodes") == 1 &&
            by_resource(port, "relists_total", "pods") == 1)
            break;
        usleep(25000);
    }
    /* the watches after the relists are open; the counters settle on what
     * the cuts and the 503s make (polled, up to 10 s: not a bet on how
     * long the last increments take) */
    ck_assert_int_eq(fake_wait_open_watches(w.fake, FAKE_NODE, 1, 10000), 0);
    ck_assert_int_eq(fake_wait_open_watches(w.fake, FAKE_POD, 1, 10000), 0);
    /* Every watch request but the first after each relist resumes one:
     * those the fake counted as watches, and the 503s that hit a watch
     * request (the fake answers them before routing, so they are not in
     * watches[]; a 503 that hits a list after a 410 is followed by another
     * list, not a watch, and resumes nothing). */
    double errors = 0, restarts = 0;
    unsigned watches = 0, relisted = 0;
    for (int i = 0; i < 400; i++) {
        fake_counts(w.fake, &after);
        errors = by_resource(port, "api_errors_total", "nodes") +
                 by_resource(port, "api_errors_total", "pods");
        watches = after.watches[FAKE_NODE] - start.watches[FAKE_NODE] + after.watches[FAKE_POD] -
                  start.watches[FAKE_POD];
        relisted = after.lists[FAKE_NODE] - start.lists[FAKE_NODE] + after.lists[FAKE_POD] -
                   start.lists[FAKE_POD];
        restarts = by_resource(port, "watch_restarts_total", "nodes") +
                   by_resource(port, "watch_restarts_total", "pods");
        if (after.injected - start.injected == 3 && errors == 2 + 2 + 3 && relisted == 2 &&
            restarts == watches + (after.injected_watches - start.injected_watches) - 2)
            break;
        usleep(25000);
    }
    ck_assert_double_eq(by_resource(port, "relists_total", "nodes"), 1);
    ck_assert_double_eq(by_resource(port, "relists_total", "pods"), 1);
    ck_assert_uint_eq(after.injected - start.injected, 3);
    ck_assert_double_eq(errors, 2 + 2 + 3);
    /* lists the fake counted are answered ones: 2 relists, and each 503
     * that hit a list instead of a watch makes one more watch-less request */
    ck_assert_uint_eq(relisted, 2);
    ck_assert_uint_le(after.injected_watches - start.injected_watches, 3);
    ck_assert_double_eq(restarts, watches + (after.injected_watches - start.injected_watches) - 2);
    stop_world(&w);
}
END_TEST

/* Node metrics errors by poll, and the age of the newest sample, from the
 * sample's own timestamp. */
START_TEST(cluster_usage_polls_and_sample_age_are_exported)
{
    struct world w;
    const char *const usage[] = {"--cpu-used-source", "usage", "--metrics-interval-seconds", "1",
                                 NULL};
    prepare_world(&w, "server.pem", "server.key", "ca.pem", false);
    double t0 = clock_wall();
    set_metrics(&w, 30); /* taken 30 s ago, in whole seconds */
    start_world(&w, usage);
    free(wait_ready(w.server.port, 200));
    int port = w.server.port;
    await_free_cpu(port, "n1", 500); /* the first poll is in */
    double age = metric_now(port, "cpu_extender_usage_sample_age_seconds");
    /* the stamp is 30 s before a whole second at or after t0: the age is 30
     * plus what has passed since, less than a second more than t0 says
     * (start-up under ASan on busy cores takes seconds) */
    double passed = clock_wall() - t0;
    ck_assert_msg(age >= 29.999 && age <= 31 + passed, "age %f, %f s since the stamp", age, passed);
    ck_assert_double_eq(by_resource(port, "api_errors_total", "nodes.metrics.k8s.io"), 0);

    struct fake_counts before, now;
    fake_set_metrics_status(w.fake, 503);
    fake_counts(w.fake, &before);
    for (int i = 0; i < 200; i++) {
        fake_counts(w.fake, &now);
        if (now.metrics >= before.metrics + 2)
            break;
        usleep(50000);
    }
    fake_set_metrics_status(w.fake, 0);
    usleep(300000); /* the poll answered last is counted */
    double errors = by_resource(port, "api_errors_total", "nodes.metrics.k8s.io");
    fake_counts(w.fake, &now);
    ck_assert_msg(errors >= 2 && errors <= now.metrics - before.metrics, "%f errors, %u polls",
                  errors, now.metrics - before.metrics);
    /* the failed polls brought no sample: the age went on from 30 s */
    age = metric_now(port, "cpu_extender_usage_sample_age_seconds");
    ck_assert_msg(age >= 31, "age %f", age);
    stop_world(&w);
}
END_TEST

/* Counters named *_nodes_total count nodes: one per node of each request
 * (NodeNames, Nodes, preempt candidates), not one per request. */
START_TEST(cluster_nodes_total_counters_count_nodes)
{
    struct world w;
    standard_world(&w, NULL);
    int port = w.server.port;
    double u0 = metric_now(port, "cpu_extender_unknown_nodes_total");
    char *args = names_args("100m", "1", "\"n1\",\"x1\",\"x2\",\"n2\",\"x3\"");
    free(post(port, "filter", args, NULL));
    free(post(port, "prioritize", args, NULL));
    free(args);
    ck_assert_double_eq(metric_now(port, "cpu_extender_unknown_nodes_total"), u0 + 2 * 3);
    const char *preempt =
        "{\"Pod\":{\"metadata\":{\"name\":\"p\",\"namespace\":\"default\"},\"spec\":"
        "{\"containers\":[{\"resources\":{\"requests\":{\"cpu\":\"100m\"}}}]}},"
        "\"NodeNameToMetaVictims\":{\"y1\":{\"Pods\":[{\"UID\":\"v1\"}]},"
        "\"y2\":{\"Pods\":[{\"UID\":\"v2\"}]},\"n3\":{\"Pods\":[{\"UID\":\"v3\"}]}}}";
    free(post(port, "preempt", preempt, NULL));
    ck_assert_double_eq(metric_now(port, "cpu_extender_unknown_nodes_total"), u0 + 6 + 2);
    stop_world(&w);

    /* stale nodes: under stalePolicy pass, with usage and no sample for
     * n3 only, a request naming n1, n2, n3 twice has two stale nodes */
    const char *const pass[] = {"--cpu-used-source",
                                "usage",
                                "--metrics-interval-seconds",
                                "1",
                                "--stale-policy",
                                "pass",
                                NULL};
    prepare_world(&w, "server.pem", "server.key", "ca.pem", false);
    set_metrics(&w, 5);
    start_world(&w, pass);
    free(wait_ready(w.server.port, 200));
    port = w.server.port;
    await_free_cpu(port, "n1", 500); /* the first poll is in */
    double s0 = metric_now(port, "cpu_extender_stale_nodes_total");
    args = names_args("100m", "1", "\"n1\",\"n3\",\"n2\",\"n3\"");
    free(post(port, "prioritize", args, NULL));
    free(args);
    ck_assert_double_eq(metric_now(port, "cpu_extender_stale_nodes_total"), s0 + 2);
    stop_world(&w);
}
END_TEST

/* The families of /metrics, from its TYPE lines. */
static void families_of(const char *text, char *out, size_t n)
{
    out[0] = '\0';
    for (const char *line = strstr(text, "# TYPE "); line != NULL;
         line = strstr(line + 1, "\n# TYPE ")) {
        char name[128];
        if (sscanf(line + (line[0] == '\n' ? 8 : 7), "%127s", name) == 1) {
            size_t used = strlen(out);
            snprintf(out + used, n - used, " %s ", name);
        }
    }
}

/* Every family /metrics exposes (with a cluster and a usage source, the
 * most there are) is listed in the man page, and every family the man page
 * lists is exposed. */
START_TEST(cluster_metrics_families_are_the_man_pages)
{
    struct world w;
    const char *const usage[] = {"--cpu-used-source", "usage", "--metrics-interval-seconds", "1",
                                 NULL};
    static char families[8192], listed[8192];
    prepare_world(&w, "server.pem", "server.key", "ca.pem", false);
    set_metrics(&w, 5);
    start_world(&w, usage);
    free(wait_ready(w.server.port, 200));
    await_free_cpu(w.server.port, "n1", 500);
    char *m = metrics_get(w.server.port);
    families_of(m, families, sizeof(families));
    free(m);
    stop_world(&w);

    /* The page's /metrics entry: a .nf block of ".B family{labels}" lines. */
    size_t len;
    char *page = file_slurp("docs/cpu-extender.1", &len);
    ck_assert_ptr_nonnull(page);
    const char *entry = strstr(page, ".B GET /metrics\n");
    ck_assert_ptr_nonnull(entry);
    entry = strstr(entry, "\n.nf\n");
    ck_assert_ptr_nonnull(entry);
    const char *end = strstr(entry, "\n.fi\n");
    ck_assert_ptr_nonnull(end);
    listed[0] = '\0';
    for (const char *l = strstr(entry, "\n.B "); l != NULL && l < end; l = strstr(l + 1, "\n.B ")) {
        char name[128];
        if (sscanf(l + 4, "%127[a-z_]", name) == 1) {
            /* roff writes _ as is, but "\-" never appears in a family name */
            size_t used = strlen(listed);
            snprintf(listed + used, sizeof(listed) - used, " %s ", name);
        }
    }
    free(page);
    for (const char *f = families; (f = strchr(f, ' ')) != NULL && f[1] != '\0';) {
        char name[128];
        if (sscanf(f, " %127s", name) != 1)
            break;
        char key[132];
        snprintf(key, sizeof(key), " %s ", name);
        ck_assert_msg(strstr(listed, key) != NULL, "%s is on /metrics, not in the man page", name);
        f += strlen(key) - 1;
    }
    for (const char *f = listed; (f = strchr(f, ' ')) != NULL && f[1] != '\0';) {
        char name[128];
        if (sscanf(f, " %127s", name) != 1)
            break;
        char key[132];
        snprintf(key, sizeof(key), " %s ", name);
        ck_assert_msg(strstr(families, key) != NULL, "%s is in the man page, not on /metrics",
                      name);
        f += strlen(key) - 1;
    }
}
END_TEST

/* simulate without --nodes: the nodes and their pods from the cluster
 * (n1 3000m and 1Gi used, n2 1000m and 1Gi, n3 nothing: its pod finished,
 * the pending one is on no node), pods to place from a file:
 *   p1 500m/512Mi: n3 88 -> 9, as in the header (n1 29, n2 66);
 *   p2 3 CPU/1Gi: n3 now 3500m, 1.5Gi: (500*100/4000 = 12, 81) -> 29, 3;
 *      n2 4000m, 2Gi: (0, 75) -> 18; n1 does not fit. */
START_TEST(cluster_simulate_reads_nodes_and_pods_from_the_cluster)
{
    struct world w;
    char pods_path[128], csv_path[128], out_path[128], cmd[1024];
    prepare_world(&w, "server.pem", "server.key", "ca.pem", false);
    snprintf(pods_path, sizeof(pods_path), "%s/sim-pods-%d.json", pki.dir, getpid());
    snprintf(csv_path, sizeof(csv_path), "%s/sim-%d.csv", pki.dir, getpid());
    snprintf(out_path, sizeof(out_path), "%s/sim-out-%d", pki.dir, getpid());
    FILE *f = fopen(pods_path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("{\"kind\":\"List\",\"items\":[{\"metadata\":{\"name\":\"p1\",\"namespace\":"
          "\"default\"},\"spec\":{\"containers\":[{\"resources\":{\"requests\":{\"cpu\":"
          "\"500m\",\"memory\":\"512Mi\"}}}]}},{\"metadata\":{\"name\":\"p2\",\"namespace\":"
          "\"default\"},\"spec\":{\"containers\":[{\"resources\":{\"requests\":{\"cpu\":"
          "\"3\",\"memory\":\"1Gi\"}}}]}}]}",
          f);
    fclose(f);
    snprintf(cmd, sizeof(cmd),
             "env -u KUBECONFIG HOME=/nonexistent %s simulate --kubeconfig %s --pods %s "
             "--strategy spread --placements %s >%s 2>&1",
             server_binary(), w.kubeconfig, pods_path, csv_path, out_path);
    ck_assert_int_eq(WEXITSTATUS(system(cmd)), 0);
    size_t len;
    char *csv = file_slurp(csv_path, &len), *out = file_slurp(out_path, &len);
    ck_assert_msg(strcmp(csv, "strategy,pod,node,value,score\nspread,default/p1,n3,88,9\n"
                              "spread,default/p2,n3,29,3\n") == 0,
                  "%s\n%s", csv, out);
    ck_assert_msg(strstr(out, "3 nodes from the cluster, with 3 pods bound to them from the "
                              "cluster") != NULL,
                  "%s", out);
    free(csv);
    free(out);
    unlink(pods_path);
    unlink(csv_path);
    unlink(out_path);
    fake_stop(w.fake);
    unlink(w.kubeconfig);
    unlink(w.token_file);
}
END_TEST

Suite *cluster_suite(void)
{
    Suite *s = suite_create("cluster");
    TCase *tc = tcase_create("cluster");
    tcase_add_unchecked_fixture(tc, make_pki, remove_pki);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, cluster_names_mode_ranks_by_real_free_cpu);
    tcase_add_test(tc, cluster_nodes_mode_uses_state_for_used);
    tcase_add_test(tc, cluster_state_converges_through_faults);
    tcase_add_test(tc, cluster_not_ready_until_listed_and_says_why);
    tcase_add_test(tc, cluster_wrong_ca_is_refused);
    tcase_add_test(tc, cluster_wrong_hostname_is_refused);
    tcase_add_test(tc, cluster_insecure_skip_tls_verify_is_honoured_and_loud);
    tcase_add_test(tc, cluster_rotated_token_is_picked_up);
    tcase_add_test(tc, cluster_credential_plugin_leaves_no_process_and_no_zombie);
    tcase_add_test(tc, cluster_usage_source_and_stale_policy);
    tcase_add_test(tc, cluster_usage_window_scores_the_aggregate);
    tcase_add_test(tc, cluster_in_flight_damping_counts_new_pods);
    tcase_add_test(tc, cluster_preempt_keeps_nodes_where_victims_make_room);
    tcase_add_test(tc, cluster_preempt_outside_enforce_keeps_every_candidate);
    tcase_add_test(tc, cluster_preempt_past_its_deadline_keeps_every_candidate);
    tcase_add_test(tc, cluster_bind_creates_binding_once);
    tcase_add_test(tc, cluster_unreadable_kubeconfig_exits_with_reason);
    tcase_add_test(tc, cluster_none_bind_fails_and_preempt_keeps_all);
    tcase_add_test(tc, cluster_rank_against_live_cluster);
    tcase_add_test(tc, cluster_watch_faults_are_counted_by_resource);
    tcase_add_test(tc, cluster_usage_polls_and_sample_age_are_exported);
    tcase_add_test(tc, cluster_nodes_total_counters_count_nodes);
    tcase_add_test(tc, cluster_metrics_families_are_the_man_pages);
    tcase_add_test(tc, cluster_simulate_reads_nodes_and_pods_from_the_cluster);
    suite_add_tcase(s, tc);
    /* Usage what the in-flight estimate and the what-if tools make of it:
     * a case of its own, so CK_RUN_CASE=usage_estimates runs these alone. */
    TCase *est = tcase_create("usage_estimates");
    tcase_add_unchecked_fixture(est, make_pki, remove_pki);
    tcase_set_timeout(est, 60);
    tcase_add_test(est, cluster_in_flight_estimate_per_mode);
    tcase_add_test(est, cluster_debug_shows_the_usage_window);
    tcase_add_test(est, cluster_rank_says_which_used_source_it_used);
    tcase_add_test(est, cluster_rank_stale_pass_keeps_each_nodes_score);
    tcase_add_test(est, cluster_simulate_on_usage_adds_the_in_flight_estimate);
    suite_add_tcase(s, est);
    return s;
}

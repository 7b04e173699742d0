/*
 * The metrics listener (metrics-listen) and `cpu-extender probe` against
 * the real binary, in plain HTTP, HTTPS and mTLS: what each listener
 * serves, that the operations one never asks for a client certificate,
 * and that the probe speaks whatever the server serves, on the listener
 * it should.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/suites.h"
#include "tests/support/fixtures.h"
#include "tests/support/http_client.h"
#include "tests/support/server_proc.h"
#include "tests/support/test_certs.h"

static struct test_pki pki;

static void make_pki(void)
{
    test_pki_make(&pki);
}

static void remove_pki(void)
{
    test_pki_remove(&pki);
}

/* The port of the metrics listener in the "listening" line, 0 for none. */
static int metrics_port(const struct server_proc *s)
{
    size_t len;
    char *log = file_slurp(s->log_path, &len);
    ck_assert_ptr_nonnull(log);
    const char *a = strstr(log, "\"metricsAddr\":\"");
    int port = 0;
    if (a != NULL) {
        a += strlen("\"metricsAddr\":\"");
        const char *end = strchr(a, '"');
        const char *colon = end != NULL ? memrchr(a, ':', (size_t)(end - a)) : NULL;
        if (colon != NULL)
            port = atoi(colon + 1);
    }
    free(log);
    return port;
}

static int status_of(int port, const char *method, const char *path, const char *body)
{
    struct http_response r;
    ck_assert_int_eq(http_request(port, method, path, body, body != NULL ? strlen(body) : 0, &r),
                     0);
    int status = r.status;
    http_response_free(&r);
    return status;
}

static const char names_body[] =
    "{\"Pod\":{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{}]}},"
    "\"NodeNames\":[\"a\"]}";

START_TEST(listeners_metrics_listen_serves_only_operations)
{
    struct server_proc s;
    const char *const args[] = {"--metrics-listen", "127.0.0.1:0", "--debug-endpoints", NULL};
    server_start(&s, args);
    int mp = metrics_port(&s);
    ck_assert_int_gt(mp, 0);
    ck_assert_int_ne(mp, s.port);
    /* the operations listener: health, readiness, metrics, version */
    for (const char *const *p =
             (const char *const[]){"/healthz", "/readyz", "/metrics", "/version", NULL};
         *p != NULL; p++)
        ck_assert_msg(status_of(mp, "GET", *p, NULL) == 200, "%s", *p);
    /* and nothing else: no verbs, no /debug unless asked */
    ck_assert_int_eq(status_of(mp, "POST", "/scheduler/filter", names_body), 404);
    ck_assert_int_eq(status_of(mp, "POST", "/scheduler/prioritize", names_body), 404);
    ck_assert_int_eq(status_of(mp, "GET", "/debug", NULL), 404);
    ck_assert_int_eq(status_of(mp, "GET", "/debug/decisions", NULL), 404);
    /* the main listener keeps everything */
    ck_assert_int_eq(status_of(s.port, "POST", "/scheduler/filter", names_body), 200);
    ck_assert_int_eq(status_of(s.port, "GET", "/metrics", NULL), 200);
    ck_assert_int_eq(status_of(s.port, "GET", "/debug", NULL), 200);
    ck_assert_int_eq(server_stop(&s), 0);

    const char *const debug[] = {"--metrics-listen", "127.0.0.1:0", "--debug-endpoints",
                                 "--metrics-listen-debug", NULL};
    server_start(&s, debug);
    mp = metrics_port(&s);
    ck_assert_int_eq(status_of(mp, "GET", "/debug", NULL), 200);
    ck_assert_int_eq(status_of(mp, "GET", "/debug/decisions", NULL), 200);
    ck_assert_int_eq(status_of(mp, "POST", "/scheduler/filter", names_body), 404);
    ck_assert_int_eq(server_stop(&s), 0);
}
END_TEST

/* The same metrics page on both listeners: one set of counters. */
START_TEST(listeners_share_one_set_of_counters)
{
    struct server_proc s;
    const char *const args[] = {"--metrics-listen", "127.0.0.1:0", NULL};
    server_start(&s, args);
    int mp = metrics_port(&s);
    ck_assert_int_eq(status_of(s.port, "POST", "/scheduler/filter", names_body), 200);
    struct http_response r;
    ck_assert_int_eq(http_request(mp, "GET", "/metrics", NULL, 0, &r), 0);
    ck_assert_msg(
        strstr(r.body, "cpu_extender_requests_total{verb=\"filter\",status=\"200\"} 1\n") != NULL,
        "%s", r.body);
    http_response_free(&r);
    ck_assert_int_eq(server_stop(&s), 0);
}
END_TEST

/* Runs `cpu-extender probe` with @args; returns its exit status, and its
 * stderr in @err. */
static int run_probe(const char *args, char *err, size_t n)
{
    char cmd[2048], path[96];
    snprintf(path, sizeof(path), "/tmp/cpu-extender-probe-%d.err", (int)getpid());
    snprintf(cmd, sizeof(cmd), "%s probe %s 2>%s", server_binary(), args, path);
    int rc = system(cmd);
    size_t len;
    char *text = file_slurp(path, &len);
    snprintf(err, n, "%s", text != NULL ? text : "");
    free(text);
    unlink(path);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* A server with its TLS flags @tls on fixed ports (the probe needs a fixed
 * port, as the kubelet's does), with a metrics listener when
 * @with_metrics. */
static void start_at(struct server_proc *s, const char *tls, int with_metrics)
{
    static char listen[32], metrics[32];
    const char *args[16] = {"--metrics-listen", "127.0.0.1:0", NULL};
    int n = 0;
    /* Port 0 for both first, to learn two free ports; then those. */
    server_start(s, args);
    snprintf(listen, sizeof(listen), "127.0.0.1:%d", s->port);
    snprintf(metrics, sizeof(metrics), "127.0.0.1:%d", metrics_port(s));
    ck_assert_int_eq(server_stop(s), 0);
    char *copy = strdup(tls), *save = NULL;
    for (char *w = strtok_r(copy, " ", &save); w != NULL && n < 12; w = strtok_r(NULL, " ", &save))
        args[n++] = w;
    if (with_metrics) {
        args[n++] = "--metrics-listen";
        args[n++] = metrics;
    }
    args[n] = NULL;
    server_start_at(s, listen, args);
    free(copy); /* the child has exec'd with its own copy */
}

START_TEST(listeners_probe_follows_the_serving_configuration)
{
    char cert[128], key[128], ca[128], tls[512], mtls[640], args[1024], err[1024];
    struct server_proc s;
    snprintf(tls, sizeof(tls), "--tls-cert %s --tls-key %s",
             test_pki_path(&pki, "server.pem", cert, sizeof(cert)),
             test_pki_path(&pki, "server.key", key, sizeof(key)));
    snprintf(mtls, sizeof(mtls), "%s --client-ca %s", tls,
             test_pki_path(&pki, "ca.pem", ca, sizeof(ca)));
    static const struct {
        int tls;     /* 0 plain, 1 TLS, 2 mTLS */
        int metrics; /* with a metrics listener */
    } cases[] = {{0, 0}, {1, 0}, {2, 0}, {0, 1}, {1, 1}, {2, 1}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *flags = cases[i].tls == 0 ? "" : cases[i].tls == 1 ? tls : mtls;
        start_at(&s, flags, cases[i].metrics);
        /* the probe is given what the server was given: the same flags */
        char where[96];
        snprintf(where, sizeof(where), "--listen 127.0.0.1:%d", s.port);
        if (cases[i].metrics)
            snprintf(where + strlen(where), sizeof(where) - strlen(where),
                     " --metrics-listen 127.0.0.1:%d", metrics_port(&s));
        snprintf(args, sizeof(args), "%s %s", where, flags);
        ck_assert_msg(run_probe(args, err, sizeof(err)) == 0, "case %zu: %s", i, err);
        snprintf(args, sizeof(args), "--ready %s %s", where, flags);
        ck_assert_msg(run_probe(args, err, sizeof(err)) == 0, "case %zu --ready: %s", i, err);
        /* told the wrong protocol, it fails, and says so */
        snprintf(args, sizeof(args), "%s %s", where, cases[i].tls == 0 ? tls : "");
        ck_assert_int_eq(run_probe(args, err, sizeof(err)), 1);
        ck_assert_msg(strstr(err, "cpu-extender probe: ") != NULL, "%s", err);
        ck_assert_int_eq(server_stop(&s), 0);
    }
}
END_TEST

/* The probe asks the metrics listener when there is one: with the main
 * listener's port taken by something else, it still passes. */
START_TEST(listeners_probe_asks_the_metrics_listener)
{
    char err[512], args[256];
    struct server_proc s;
    start_at(&s, "", 1);
    snprintf(args, sizeof(args), "--listen 127.0.0.1:1 --metrics-listen 127.0.0.1:%d",
             metrics_port(&s));
    ck_assert_msg(run_probe(args, err, sizeof(err)) == 0, "%s", err);
    snprintf(args, sizeof(args), "--listen 127.0.0.1:%d --metrics-listen 127.0.0.1:1", s.port);
    ck_assert_int_eq(run_probe(args, err, sizeof(err)), 1);
    ck_assert_msg(strstr(err, "cannot connect to 127.0.0.1 port 1") != NULL, "%s", err);
    ck_assert_int_eq(server_stop(&s), 0);
}
END_TEST

/* mTLS: the verbs' listener wants a client certificate for /metrics; the
 * metrics listener never asks (Prometheus and the kubelet have none). */
START_TEST(listeners_metrics_listener_asks_no_client_certificate)
{
    char cert[128], key[128], ca[128], cmd[1024], out[64];
    const char *const args[] = {"--tls-cert",
                                test_pki_path(&pki, "server.pem", cert, sizeof(cert)),
                                "--tls-key",
                                test_pki_path(&pki, "server.key", key, sizeof(key)),
                                "--client-ca",
                                test_pki_path(&pki, "ca.pem", ca, sizeof(ca)),
                                "--metrics-listen",
                                "127.0.0.1:0",
                                NULL};
    struct server_proc s;
    server_start(&s, args);
    int ports[2] = {s.port, metrics_port(&s)};
    const char *want[2] = {"403", "200"};
    for (int i = 0; i < 2; i++) {
        snprintf(cmd, sizeof(cmd),
                 "curl -s -o /dev/null -w '%%{http_code}' --max-time 5 --cacert %s "
                 "https://127.0.0.1:%d/metrics",
                 ca, ports[i]);
        FILE *p = popen(cmd, "r");
        ck_assert_ptr_nonnull(p);
        out[fread(out, 1, sizeof(out) - 1, p)] = '\0';
        pclose(p);
        ck_assert_msg(strcmp(out, want[i]) == 0, "port %d: %s, want %s", ports[i], out, want[i]);
    }
    ck_assert_int_eq(server_stop(&s), 0);
}
END_TEST

Suite *listeners_suite(void)
{
    Suite *s = suite_create("listeners");
    TCase *tc = tcase_create("listeners");
    tcase_set_timeout(tc, 60);
    tcase_add_unchecked_fixture(tc, make_pki, remove_pki);
    tcase_add_test(tc, listeners_metrics_listen_serves_only_operations);
    tcase_add_test(tc, listeners_share_one_set_of_counters);
    tcase_add_test(tc, listeners_probe_follows_the_serving_configuration);
    tcase_add_test(tc, listeners_probe_asks_the_metrics_listener);
    tcase_add_test(tc, listeners_metrics_listener_asks_no_client_certificate);
    suite_add_tcase(s, tc);
    return s;
}

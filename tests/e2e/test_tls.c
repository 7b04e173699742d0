/*
 * HTTPS and mTLS against the real binary, with a PKI the test makes
 * (tests/e2e/make_certs.sh, openssl) and curl as the client.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/suites.h"
#include "tests/support/fixtures.h"
#include "tests/support/server_proc.h"

static char pki[64];

static void make_pki(const char *cn)
{
    char cmd[256];
    snprintf(cmd, sizeof(cmd), "tests/e2e/make_certs.sh %s %s", pki, cn);
    ck_assert_int_eq(WEXITSTATUS(system(cmd)), 0);
}

/* Runs curl with @opts against https://127.0.0.1:PORT@path; returns what
 * -w printed after the body (e.g. the status), in @out. */
static void curl(int port, const char *opts, const char *path, char *out, size_t n)
{
    char cmd[1024];
    snprintf(cmd, sizeof(cmd),
             "curl -s -o /dev/null -w '%%{http_code}' --max-time 5 %s https://127.0.0.1:%d%s", opts,
             port, path);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    size_t got = fread(out, 1, n - 1, p);
    out[got] = '\0';
    pclose(p);
}

/* The same, printing the body and then the status after a newline:
 * @out holds "BODY\nSTATUS". */
static void curl_body(int port, const char *opts, const char *path, char *out, size_t n)
{
    char cmd[1024];
    snprintf(cmd, sizeof(cmd),
             "curl -s -o - -w '\\n%%{http_code}' --max-time 5 %s https://127.0.0.1:%d%s", opts,
             port, path);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    size_t got = fread(out, 1, n - 1, p);
    out[got] = '\0';
    pclose(p);
}

static void start_tls(struct server_proc *s, int mtls)
{
    static char cert[96], key[96], ca[96];
    snprintf(cert, sizeof(cert), "%s/server.pem", pki);
    snprintf(key, sizeof(key), "%s/server.key", pki);
    snprintf(ca, sizeof(ca), "%s/ca.pem", pki);
    const char *args[] = {
        "--tls-cert", cert, "--tls-key", key, "--debug-endpoints", mtls ? "--client-ca" : NULL,
        ca,           NULL};
    server_start(s, args);
}

static void setup(void)
{
    snprintf(pki, sizeof(pki), "/tmp/cpu-extender-pki-%d", (int)getpid());
    make_pki("first-cert");
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", pki);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", pki);
}

START_TEST(tls_serves_https_tls12_and_up_only)
{
    struct server_proc s;
    char out[64], opts[256];
    start_tls(&s, 0);
    snprintf(opts, sizeof(opts), "--cacert %s/ca.pem", pki);
    curl(s.port, opts, "/healthz", out, sizeof(out));
    ck_assert_str_eq(out, "200");
    snprintf(opts, sizeof(opts), "--cacert %s/ca.pem --tls-max 1.1", pki);
    curl(s.port, opts, "/healthz", out, sizeof(out));
    ck_assert_str_eq(out, "000"); /* refused (by us or by curl's own floor: both are fine) */
    snprintf(opts, sizeof(opts), "--cacert %s/other-ca.pem", pki);
    curl(s.port, opts, "/healthz", out, sizeof(out));
    ck_assert_str_eq(out, "000"); /* the client does not trust it: our cert is really ours */
    ck_assert_int_eq(server_stop(&s), 0);
}
END_TEST

START_TEST(tls_client_certificates_are_verified)
{
    struct server_proc s;
    char out[64], opts[512];
    start_tls(&s, 1);
    snprintf(opts, sizeof(opts), "--cacert %s/ca.pem", pki);
    curl(s.port, opts, "/version", out, sizeof(out));
    ck_assert_str_eq(out, "403"); /* no client certificate */
    curl(s.port, opts, "/metrics", out, sizeof(out));
    ck_assert_str_eq(out, "403"); /* metrics and debug pages follow the verbs' rule */
    curl(s.port, opts, "/debug", out, sizeof(out));
    ck_assert_str_eq(out, "403");
    curl(s.port, opts, "/debug/decisions", out, sizeof(out));
    ck_assert_str_eq(out, "403");
    curl(s.port, opts, "/healthz", out, sizeof(out));
    ck_assert_str_eq(out, "200"); /* probes need none */
    snprintf(opts, sizeof(opts),
             "--cacert %s/ca.pem --cert %s/other-client.pem --key %s/other-client.key", pki, pki,
             pki);
    curl(s.port, opts, "/version", out, sizeof(out));
    ck_assert_str_eq(out, "403"); /* a certificate from another CA */
    snprintf(opts, sizeof(opts), "--cacert %s/ca.pem --cert %s/server.pem --key %s/server.key", pki,
             pki, pki);
    curl(s.port, opts, "/version", out, sizeof(out));
    ck_assert_str_eq(out, "403"); /* right CA, but a server certificate (no clientAuth) */
    snprintf(opts, sizeof(opts),
             "--cacert %s/ca.pem --cert %s/client.pem --key %s/client.key "
             "--data-binary @%s/cache-3nodes/raw/000002-prioritize.req.json",
             pki, pki, pki, fixture_dir());
    curl(s.port, opts, "/scheduler/prioritize", out, sizeof(out));
    ck_assert_str_eq(out, "200");
    snprintf(opts, sizeof(opts), "--cacert %s/ca.pem --cert %s/client.pem --key %s/client.key", pki,
             pki, pki);
    curl(s.port, opts, "/metrics", out, sizeof(out));
    ck_assert_str_eq(out, "200");
    curl(s.port, opts, "/debug/decisions", out, sizeof(out));
    ck_assert_str_eq(out, "200");
    curl(s.port, opts, "/debug", out, sizeof(out));
    ck_assert_str_eq(out, "200");
    /* nothing secret reaches the log */
    size_t len;
    char *log = file_slurp(s.log_path, &len);
    ck_assert_ptr_null(strstr(log, "PRIVATE KEY"));
    ck_assert_ptr_null(strstr(log, "BEGIN"));
    free(log);
    ck_assert_int_eq(server_stop(&s), 0);
}
END_TEST

/* A refused client certificate gets a 403 whose Error says why: none sent,
 * another CA, expired, not meant for client authentication. A client
 * that sent one must not be told it sent none. */
START_TEST(tls_client_certificate_refusals_say_why)
{
    static const struct {
        const char *cert; /* NULL: none */
        const char *status_and_error;
    } cases[] = {
        {NULL, "{\"Error\":\"client certificate required\"}\n\n403"},
        {"other-client", "not issued by the trusted client CA"},
        {"expired-client", "expired"},
        {"server", "not for client authentication"},
        {"client", "\n200"},
    };
    struct server_proc s;
    char out[1024], opts[512];
    start_tls(&s, 1);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (cases[i].cert == NULL)
            snprintf(opts, sizeof(opts), "--cacert %s/ca.pem", pki);
        else
            snprintf(opts, sizeof(opts), "--cacert %s/ca.pem --cert %s/%s.pem --key %s/%s.key", pki,
                     pki, cases[i].cert, pki, cases[i].cert);
        curl_body(s.port, opts, "/version", out, sizeof(out));
        ck_assert_msg(strstr(out, cases[i].status_and_error) != NULL, "%s: %s, want %s",
                      cases[i].cert ? cases[i].cert : "no certificate", out,
                      cases[i].status_and_error);
        if (cases[i].cert != NULL && strcmp(cases[i].cert, "client") != 0) {
            ck_assert_msg(strstr(out, "\n403") != NULL, "%s: %s", cases[i].cert, out);
            ck_assert_msg(strstr(out, "\"Error\":\"client certificate") != NULL, "%s: %s",
                          cases[i].cert, out);
            ck_assert_msg(strstr(out, "required") == NULL, "%s: told none was sent: %s",
                          cases[i].cert, out);
        }
    }
    /* each of the four refusals is counted once, by a fixed reason */
    static char metrics[32768];
    snprintf(opts, sizeof(opts), "--cacert %s/ca.pem --cert %s/client.pem --key %s/client.key", pki,
             pki, pki);
    curl_body(s.port, opts, "/metrics", metrics, sizeof(metrics));
    ck_assert_msg(
        strstr(metrics, "\ncpu_extender_http_refused_total{reason=\"client_certificate\"} "
                        "4\n") != NULL,
        "%.*s", 200, strstr(metrics, "http_refused") ? strstr(metrics, "http_refused") : metrics);
    ck_assert_int_eq(server_stop(&s), 0);
}
END_TEST

START_TEST(tls_certificate_is_reloaded_when_its_files_change)
{
    struct server_proc s;
    char cmd[512], out[256];
    start_tls(&s, 0);
    snprintf(cmd, sizeof(cmd),
             "curl -sv --max-time 5 --cacert %s/ca.pem https://127.0.0.1:%d/healthz 2>&1 "
             "| grep -o 'subject: CN=[a-z-]*'",
             pki, s.port);
    FILE *p = popen(cmd, "r");
    out[fread(out, 1, sizeof(out) - 1, p)] = '\0';
    pclose(p);
    ck_assert_ptr_nonnull(strstr(out, "CN=first-cert"));
    make_pki("renewed-cert");
    int renewed = 0;
    for (int i = 0; i < 40 && !renewed; i++) { /* checked once a second */
        usleep(100000);
        p = popen(cmd, "r");
        out[fread(out, 1, sizeof(out) - 1, p)] = '\0';
        pclose(p);
        renewed = strstr(out, "CN=renewed-cert") != NULL;
    }
    ck_assert_msg(renewed, "still serving: %s", out);
    ck_assert_int_eq(server_stop(&s), 0);
}
END_TEST

/* A certificate file replaced by a FIFO is refused when the handshake
 * looks for a new certificate, and the old one keeps serving: opening the
 * FIFO blocked that handshake, under the lock every other one takes
 * (issue 23, finding 8). */
START_TEST(tls_certificate_replaced_by_a_fifo_keeps_the_old_one)
{
    struct server_proc s;
    char path[128], out[64];
    start_tls(&s, 0);
    snprintf(path, sizeof(path), "%s/server.pem", pki);
    ck_assert_int_eq(unlink(path), 0);
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    usleep(1100 * 1000); /* the files are looked at once a second */
    for (int i = 0; i < 2; i++) {
        char opts[128];
        snprintf(opts, sizeof(opts), "--cacert %s/ca.pem", pki);
        curl(s.port, opts, "/healthz", out, sizeof(out));
        ck_assert_str_eq(out, "200");
    }
    size_t len;
    char *log = file_slurp(s.log_path, &len);
    ck_assert_ptr_nonnull(log);
    ck_assert_ptr_nonnull(strstr(log, "not a regular file (a FIFO)"));
    free(log);
    ck_assert_int_eq(server_stop(&s), 0);
}
END_TEST

START_TEST(tls_bad_settings_stop_the_start)
{
    char cmd[512];
    /* timeout: a setting wrongly accepted would start serving and block */
    snprintf(cmd, sizeof(cmd),
             "timeout 5 %s --listen 127.0.0.1:0 --tls-cert %s/server.pem 2>/dev/null",
             server_binary(), pki);
    ck_assert_int_eq(WEXITSTATUS(system(cmd)), 2); /* key missing */
    snprintf(cmd, sizeof(cmd),
             "timeout 5 %s --listen 127.0.0.1:0 --tls-cert %s/ca.key --tls-key %s/server.key "
             "2>/dev/null",
             server_binary(), pki, pki);
    ck_assert_int_eq(WEXITSTATUS(system(cmd)), 2); /* not a certificate */
    snprintf(cmd, sizeof(cmd),
             "timeout 5 %s --listen 127.0.0.1:0 --tls-cert %s/server.pem --tls-key %s/client.key "
             "2>/dev/null",
             server_binary(), pki, pki);
    ck_assert_int_eq(WEXITSTATUS(system(cmd)), 2); /* key of another certificate */
}
END_TEST

/* `cpu-extender probe` with the server's own TLS settings (the shipped
 * exec probes pass the same --config): HTTPS, and under mTLS no client
 * certificate for /healthz and /readyz. */
START_TEST(tls_probe_speaks_https)
{
    for (int mtls = 0; mtls < 2; mtls++) {
        struct server_proc s;
        char cmd[1024];
        start_tls(&s, mtls);
        for (int ready = 0; ready < 2; ready++) {
            snprintf(cmd, sizeof(cmd),
                     "%s probe %s --listen 127.0.0.1:%d --tls-cert %s/server.pem --tls-key "
                     "%s/server.key %s%s",
                     server_binary(), ready ? "--ready" : "", s.port, pki, pki,
                     mtls ? "--client-ca " : "", mtls ? pki : "");
            if (mtls)
                snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), "/ca.pem");
            ck_assert_msg(WEXITSTATUS(system(cmd)) == 0, "%s", cmd);
        }
        ck_assert_int_eq(server_stop(&s), 0);
    }
}
END_TEST

Suite *tls_suite(void)
{
    Suite *s = suite_create("tls");
    TCase *tc = tcase_create("tls");
    tcase_set_timeout(tc, 60);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, tls_serves_https_tls12_and_up_only);
    tcase_add_test(tc, tls_client_certificates_are_verified);
    tcase_add_test(tc, tls_client_certificate_refusals_say_why);
    tcase_add_test(tc, tls_certificate_is_reloaded_when_its_files_change);
    tcase_add_test(tc, tls_certificate_replaced_by_a_fifo_keeps_the_old_one);
    tcase_add_test(tc, tls_bad_settings_stop_the_start);
    tcase_add_test(tc, tls_probe_speaks_https);
    suite_add_tcase(s, tc);
    return s;
}

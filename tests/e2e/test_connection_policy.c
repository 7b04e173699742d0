/*
 * The connection policy against the real binary (issue 23): idle
 * keep-alive connections, clients without the client certificate mTLS
 * asks for, clients that never read their answer and uploads that stall
 * while holding the memory budget must leave kube-scheduler's request
 * (within its httpTimeout, 5 s) and the kubelet's probe (timeoutSeconds 3
 * in manifests/deployment.yaml) room; during drain every answer says
 * Connection: close; an absolute-form target is routed by its path.
 * Plain TCP and TLS (GnuTLS) clients of the test's own, loopback only.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gnutls/gnutls.h>

#include "config/config.h"
#include "server/verbs/memory.h"
#include "tests/suites.h"
#include "tests/support/bodies.h"
#include "tests/support/fixtures.h"
#include "tests/support/http_client.h"
#include "tests/support/metrics_scrape.h"
#include "tests/support/server_proc.h"
#include "tests/support/test_certs.h"

/* kube-scheduler's extender httpTimeout (the shipped config) and the
 * liveness probe's timeoutSeconds (manifests/deployment.yaml). */
#define SCHEDULER_TIMEOUT_MS 5000
#define PROBE_TIMEOUT_MS     3000

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* ---- a client connection, plain or TLS ------------------------------- */

struct peer {
    int fd;
    gnutls_session_t tls; /* NULL: plain */
    gnutls_certificate_credentials_t cred;
};

/* Connects from @from to @port; with @tls, completes a handshake
 * presenting @cert/@key when not NULL. Returns 0 or -1. */
static int peer_open(struct peer *p, const char *from, int port, bool tls, const char *cert,
                     const char *key)
{
    memset(p, 0, sizeof(*p));
    p->fd = http_connect_from(from, port);
    if (p->fd < 0 || !tls)
        return p->fd < 0 ? -1 : 0;
    ck_assert_int_eq(gnutls_certificate_allocate_credentials(&p->cred), 0);
    if (cert != NULL)
        ck_assert_int_eq(
            gnutls_certificate_set_x509_key_file(p->cred, cert, key, GNUTLS_X509_FMT_PEM), 0);
    ck_assert_int_eq(gnutls_init(&p->tls, GNUTLS_CLIENT), 0);
    ck_assert_int_eq(gnutls_set_default_priority(p->tls), 0);
    ck_assert_int_eq(gnutls_credentials_set(p->tls, GNUTLS_CRD_CERTIFICATE, p->cred), 0);
    gnutls_transport_set_int(p->tls, p->fd);
    gnutls_handshake_set_timeout(p->tls, SCHEDULER_TIMEOUT_MS);
    int rc;
    do
        rc = gnutls_handshake(p->tls);
    while (rc < 0 && gnutls_error_is_fatal(rc) == 0);
    return rc < 0 ? -1 : 0;
}

static int peer_send(struct peer *p, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t n = p->tls != NULL ? gnutls_record_send(p->tls, data, len)
                                   : send(p->fd, data, len, MSG_NOSIGNAL);
        if (p->tls != NULL && (n == GNUTLS_E_AGAIN || n == GNUTLS_E_INTERRUPTED))
            continue;
        if (n <= 0)
            return -1;
        data += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Bytes read within @ms; 0 when closed (or reset), -2 on timeout. */
static ssize_t peer_recv(struct peer *p, char *buf, size_t n, int ms)
{
    if (p->tls == NULL || gnutls_record_check_pending(p->tls) == 0) {
        struct pollfd pf = {.fd = p->fd, .events = POLLIN};
        if (poll(&pf, 1, ms) != 1)
            return -2;
    }
    ssize_t r;
    if (p->tls == NULL)
        r = recv(p->fd, buf, n, 0);
    else
        do
            r = gnutls_record_recv(p->tls, buf, n);
        while (r == GNUTLS_E_AGAIN || r == GNUTLS_E_INTERRUPTED);
    return r < 0 ? 0 : r;
}

static void peer_close(struct peer *p)
{
    if (p->tls != NULL)
        gnutls_deinit(p->tls);
    if (p->cred != NULL)
        gnutls_certificate_free_credentials(p->cred);
    if (p->fd >= 0)
        close(p->fd);
    memset(p, 0, sizeof(*p));
    p->fd = -1;
}

/* One answer: its status (0: closed first, -1: none within @ms), its head
 * in @head, and whether the server closed the connection after it (read
 * for a further 200 ms when @want_close is asked). */
struct answer {
    int status;
    char head[2048];
    bool closed;
};

static void read_answer(struct peer *p, struct answer *a, int ms, bool want_close)
{
    size_t cap = 1 << 16, got = 0, need = 0;
    char *buf = malloc(cap + 1);
    double end = now_s() + ms / 1000.0;
    ck_assert_ptr_nonnull(buf);
    memset(a, 0, sizeof(*a));
    a->status = -1;
    for (;;) {
        int left = (int)((end - now_s()) * 1000);
        if (left <= 0)
            break;
        if (got == cap) {
            cap *= 2;
            buf = realloc(buf, cap + 1);
            ck_assert_ptr_nonnull(buf);
        }
        ssize_t r = peer_recv(p, buf + got, cap - got, left);
        if (r == -2)
            break;
        if (r == 0) {
            a->closed = true;
            if (a->status < 0)
                a->status = 0;
            break;
        }
        got += (size_t)r;
        buf[got] = '\0';
        char *eoh = strstr(buf, "\r\n\r\n");
        if (a->status < 0 && eoh != NULL) {
            snprintf(a->head, sizeof(a->head), "%.*s", (int)(eoh + 4 - buf), buf);
            ck_assert_int_eq(sscanf(buf, "HTTP/1.%*d %d", &a->status), 1);
            const char *cl = strcasestr(a->head, "\r\nContent-Length:");
            need = (size_t)(eoh + 4 - buf) + (cl != NULL ? strtoul(cl + 17, NULL, 10) : 0);
        }
        if (a->status > 0 && got >= need) {
            if (want_close) {
                char b[64];
                a->closed = peer_recv(p, b, sizeof(b), 200) == 0;
            }
            break;
        }
    }
    free(buf);
}

static bool says_close(const struct answer *a)
{
    return strcasestr(a->head, "\r\nConnection: close\r\n") != NULL;
}

static const char healthz[] = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";

/* Opens @n connections from @from that each get one /healthz answer and
 * then stay, idle; returns how many did. */
static int open_idle(struct peer *ps, int n, const char *from, int port, bool tls)
{
    int idle = 0;
    for (int i = 0; i < n; i++) {
        struct answer a;
        if (peer_open(&ps[i], from, port, tls, NULL, NULL) != 0 ||
            peer_send(&ps[i], healthz, sizeof(healthz) - 1) != 0)
            continue;
        read_answer(&ps[i], &a, 2000, false);
        idle += a.status == 200;
    }
    return idle;
}

static void close_all(struct peer *ps, int n)
{
    for (int i = 0; i < n; i++)
        peer_close(&ps[i]);
}

/* kube-scheduler's captured prioritize from 127.0.0.1 (@target: the
 * request-target, NULL for the origin form) answers 200 within its
 * timeout; returns the seconds it took. */
static double scheduler_served(int port, bool tls, const char *cert, const char *key,
                               const char *target)
{
    size_t len;
    char *body = fixture_read("cache-3nodes/raw/000002-prioritize.req.json", &len);
    char head[512];
    int n = snprintf(head, sizeof(head),
                     "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: Go-http-client/1.1\r\n"
                     "Content-Length: %zu\r\nContent-Type: application/json\r\n"
                     "Accept-Encoding: gzip\r\n\r\n",
                     target != NULL ? target : "/scheduler/prioritize", len);
    struct peer p;
    struct answer a;
    double t0 = now_s();
    ck_assert_msg(peer_open(&p, "127.0.0.1", port, tls, cert, key) == 0,
                  "scheduler: connection refused or handshake failed after %.2f s", now_s() - t0);
    ck_assert_int_eq(peer_send(&p, head, (size_t)n), 0);
    ck_assert_int_eq(peer_send(&p, body, len), 0);
    read_answer(&p, &a, SCHEDULER_TIMEOUT_MS, false);
    double took = now_s() - t0;
    ck_assert_msg(a.status == 200, "scheduler: %s after %.2f s",
                  a.status == 0  ? "closed without an answer"
                  : a.status < 0 ? "no answer"
                                 : a.head,
                  took);
    ck_assert_msg(took < SCHEDULER_TIMEOUT_MS / 1000.0, "scheduler's request took %.2f s", took);
    peer_close(&p);
    free(body);
    return took;
}

/* GET /healthz from @from on @port answers 200 within the probe's
 * timeout. */
static void probe_served(int port, const char *from)
{
    struct peer p;
    struct answer a;
    double t0 = now_s();
    ck_assert_msg(peer_open(&p, from, port, false, NULL, NULL) == 0, "probe: refused");
    ck_assert_int_eq(peer_send(&p, healthz, sizeof(healthz) - 1), 0);
    read_answer(&p, &a, PROBE_TIMEOUT_MS, false);
    ck_assert_msg(a.status == 200, "probe: no 200 within %d ms (%.2f s): %s", PROBE_TIMEOUT_MS,
                  now_s() - t0, a.status == 0 ? "closed" : a.head);
    peer_close(&p);
}

static void ignore_sigpipe(void)
{
    signal(SIGPIPE, SIG_IGN);
}

/* ---- idle keep-alive connections -------------------------------------- */

#define ATTACKERS 64

/* Every slot of the verbs' listener (64, 32 per address) held by idle
 * keep-alive connections from two addresses: kube-scheduler's prioritize
 * from 127.0.0.1 is answered within its timeout (it went unanswered). */
START_TEST(policy_idle_connections_leave_room_for_the_scheduler)
{
    static struct peer ps[ATTACKERS];
    struct server_proc srv;
    server_start(&srv, NULL);
    int idle = open_idle(ps, 32, "127.0.0.2", srv.port, false);
    idle += open_idle(ps + 32, 32, "127.0.0.3", srv.port, false);
    /* all, or all but the last, which a nearly full server refuses to an
     * address holding a quarter of its slots (slots.h) */
    ck_assert_int_ge(idle, 63);
    usleep(600 * 1000); /* idle for longer than the half second that protects a new one */
    double took = scheduler_served(srv.port, false, NULL, NULL, NULL);
    fprintf(stderr, "scheduler served in %.3f s with %d idle connections held\n", took, idle);
    close_all(ps, ATTACKERS);
    ck_assert_int_eq(server_stop(&srv), 0);
}
END_TEST

/* The port of the metrics listener in the "listening" line. */
static int metrics_port(const struct server_proc *s)
{
    size_t len;
    char *log = file_slurp(s->log_path, &len);
    ck_assert_ptr_nonnull(log);
    const char *a = strstr(log, "\"metricsAddr\":\"");
    ck_assert_ptr_nonnull(a);
    a += strlen("\"metricsAddr\":\"");
    const char *end = strchr(a, '"');
    const char *colon = end != NULL ? memrchr(a, ':', (size_t)(end - a)) : NULL;
    ck_assert_ptr_nonnull(colon);
    int port = atoi(colon + 1);
    free(log);
    return port;
}

/* The metrics listener's 16 slots (8 per address) held by idle
 * keep-alive connections: the kubelet's probe is answered within its
 * timeout (it got no answer). */
START_TEST(policy_idle_connections_leave_room_for_the_probe)
{
    static struct peer ps[16];
    const char *const args[] = {"--metrics-listen", "127.0.0.1:0", NULL};
    struct server_proc srv;
    server_start(&srv, args);
    int port = metrics_port(&srv);
    int idle = open_idle(ps, 8, "127.0.0.2", port, false);
    idle += open_idle(ps + 8, 8, "127.0.0.3", port, false);
    ck_assert_int_ge(idle, 15); /* all but the last, as above */
    usleep(600 * 1000);
    probe_served(port, "127.0.0.1");
    /* and from an address already at its limit */
    probe_served(port, "127.0.0.2");
    close_all(ps, 16);
    ck_assert_int_eq(server_stop(&srv), 0);
}
END_TEST

/* ---- mTLS: clients without a certificate -------------------------------- */

static struct test_pki pki;

static void pki_setup(void)
{
    test_pki_make(&pki);
}

static void pki_teardown(void)
{
    test_pki_remove(&pki);
}

/* With --client-ca, a client without a certificate gets its /healthz and
 * the connection closes after it: 64 of them cannot hold the slots, and
 * kube-scheduler with its certificate gets through its handshake and is
 * answered (it timed out in the handshake). */
START_TEST(policy_clients_without_a_certificate_do_not_hold_slots_tls)
{
    static struct peer ps[ATTACKERS];
    char cert[128], key[128], ca[128], ccert[128], ckey[128];
    const char *const args[] = {
        "--tls-cert",  test_pki_path(&pki, "server.pem", cert, sizeof(cert)),
        "--tls-key",   test_pki_path(&pki, "server.key", key, sizeof(key)),
        "--client-ca", test_pki_path(&pki, "ca.pem", ca, sizeof(ca)),
        NULL};
    struct server_proc srv;
    server_start(&srv, args);
    int closed = 0;
    for (int i = 0; i < ATTACKERS; i++) {
        struct answer a;
        if (peer_open(&ps[i], i % 2 ? "127.0.0.2" : "127.0.0.3", srv.port, true, NULL, NULL) != 0 ||
            peer_send(&ps[i], healthz, sizeof(healthz) - 1) != 0)
            continue;
        read_answer(&ps[i], &a, 2000, true);
        ck_assert_msg(a.status == 200, "client %d without a certificate: /healthz %d", i, a.status);
        ck_assert_msg(says_close(&a), "client %d: answer without Connection: close: %s", i, a.head);
        closed += a.closed;
    }
    ck_assert_int_eq(closed, ATTACKERS);
    double took = scheduler_served(srv.port, true, test_pki_path(&pki, "client.pem", ccert, 128),
                                   test_pki_path(&pki, "client.key", ckey, 128), NULL);
    fprintf(stderr, "mTLS scheduler served in %.3f s after 64 clients without a certificate\n",
            took);
    close_all(ps, ATTACKERS);
    ck_assert_int_eq(server_stop(&srv), 0);
}
END_TEST

/* ---- clients that never read their answer ----------------------------- */

/* Every slot (16 here, 8 per address) held by clients that post a 12 MB
 * filter and never read the answer (about 8 MB, more than the kernel's
 * socket buffers take: the server is still writing it): kube-scheduler is
 * answered within its timeout (such clients held the slots: an answer
 * being written was never closed). */
START_TEST(policy_clients_that_never_read_leave_room)
{
    static struct peer ps[16];
    const char *const args[] = {"--connection-limit", "16", "--per-ip-connection-limit", "8", NULL};
    struct server_proc srv;
    size_t len;
    char *body = bodies_nodelist(bodies_nodelist_fits(12000000), 12000000, &len);
    char head[256];
    int n = snprintf(head, sizeof(head),
                     "POST /scheduler/filter HTTP/1.1\r\nHost: x\r\nContent-Length: %zu\r\n"
                     "Content-Type: application/json\r\n\r\n",
                     len);
    server_start(&srv, args);
    int sent = 0;
    for (int i = 0; i < 16; i++) {
        ck_assert_int_eq(
            peer_open(&ps[i], i % 2 ? "127.0.0.2" : "127.0.0.3", srv.port, false, NULL, NULL), 0);
        int small = 4096; /* the answer waits in the server's send queue, as over a slow link */
        setsockopt(ps[i].fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
        sent += peer_send(&ps[i], head, (size_t)n) == 0 && peer_send(&ps[i], body, len) == 0;
    }
    ck_assert_int_ge(sent, 15); /* all but the last, which may be refused (slots.h) */
    usleep(2500 * 1000);        /* decided, queued and stuck for more than half a second */
    double took = scheduler_served(srv.port, false, NULL, NULL, NULL);
    fprintf(stderr, "scheduler served in %.3f s with 16 clients not reading 12 MB filter answers\n",
            took);
    close_all(ps, 16);
    free(body);
    ck_assert_int_eq(server_stop(&srv), 0);
}
END_TEST

/* ---- the memory budget held by stalled uploads ------------------------- */

/* The memory a verb request of @len bytes is charged (default
 * configuration). */
static size_t charge(enum ops_verb verb, size_t len)
{
    struct cfg c;
    cfg_defaults(&c);
    return verb_memory_charge(verb, len, &c);
}

/* An upload that announces a 100-node NodeList (about 650 KB, charged
 * about 16 MB) and sends one byte, in a budget that holds it and not
 * kube-scheduler's prioritize besides: it held the budget until the
 * request deadline (30 s) and every verb got 503. Now the request that
 * finds no room closes the stalled upload and is served. */
START_TEST(policy_stalled_upload_does_not_hold_the_memory_budget)
{
    struct server_proc srv;
    struct peer up;
    struct answer a;
    size_t len, plen;
    char *body = bodies_nodelist(100, 0, &len);
    free(fixture_read("cache-3nodes/raw/000002-prioritize.req.json", &plen));
    char budget[32], head[256];
    snprintf(budget, sizeof(budget), "%zu",
             charge(OPS_VERB_FILTER, len) + charge(OPS_VERB_PRIORITIZE, plen) - 1);
    const char *const args[] = {"--memory-budget-bytes", budget, NULL};
    int n = snprintf(head, sizeof(head),
                     "POST /scheduler/filter HTTP/1.1\r\nHost: x\r\nContent-Length: %zu\r\n"
                     "Content-Type: application/json\r\n\r\n{",
                     len);
    server_start(&srv, args);
    ck_assert_int_eq(peer_open(&up, "127.0.0.2", srv.port, false, NULL, NULL), 0);
    ck_assert_int_eq(peer_send(&up, head, (size_t)n), 0);
    double held = 0;
    for (int i = 0; i < 200 && held == 0; i++) {
        char *m = metrics_get(srv.port);
        held = metrics_must(m, "cpu_extender_memory_reserved_bytes");
        free(m);
        if (held == 0)
            usleep(10 * 1000);
    }
    ck_assert_msg(held > 16e6, "the upload reserved %.0f bytes", held);
    usleep(700 * 1000); /* stalled for longer than half a second */
    double took = scheduler_served(srv.port, false, NULL, NULL, NULL);
    fprintf(stderr, "scheduler served in %.3f s past a stalled upload holding the budget\n", took);
    read_answer(&up, &a, 2000, false);
    ck_assert_msg(a.closed && a.status <= 0, "the stalled upload was not closed");
    peer_close(&up);
    char *m = metrics_get(srv.port);
    ck_assert_double_eq(metrics_must(m, "cpu_extender_http_refused_total{reason=\"evicted\"}"), 1);
    ck_assert_double_eq(
        metrics_must(m, "cpu_extender_memory_refused_total{reason=\"budget_exhausted\"}"), 0);
    free(m);
    free(body);
    ck_assert_int_eq(server_stop(&srv), 0);
}
END_TEST

/* ---- drain ------------------------------------------------------------- */

/* After SIGTERM, kept-alive connections that send another request get
 * its answer with Connection: close and are closed after it, so no
 * request is cut unanswered at the drain deadline; with none left the
 * server exits well before it (drainSeconds 5). */
START_TEST(policy_answers_during_drain_close_the_connection)
{
    const char *const args[] = {"--drain-seconds", "5", NULL};
    struct server_proc srv;
    struct peer hz, verb;
    struct answer a;
    server_start(&srv, args);
    ck_assert_int_eq(peer_open(&hz, "127.0.0.1", srv.port, false, NULL, NULL), 0);
    ck_assert_int_eq(peer_send(&hz, healthz, sizeof(healthz) - 1), 0);
    read_answer(&hz, &a, 2000, false);
    ck_assert_int_eq(a.status, 200);
    ck_assert(!says_close(&a));
    size_t len;
    char *body = fixture_read("cache-3nodes/raw/000002-prioritize.req.json", &len);
    char head[256];
    int n = snprintf(head, sizeof(head),
                     "POST /scheduler/prioritize HTTP/1.1\r\nHost: x\r\nContent-Length: %zu\r\n"
                     "Content-Type: application/json\r\n\r\n",
                     len);
    ck_assert_int_eq(peer_open(&verb, "127.0.0.1", srv.port, false, NULL, NULL), 0);
    ck_assert_int_eq(peer_send(&verb, head, (size_t)n), 0);
    ck_assert_int_eq(peer_send(&verb, body, len), 0);
    read_answer(&verb, &a, 2000, false);
    ck_assert_int_eq(a.status, 200);

    double t0 = now_s();
    ck_assert_int_eq(kill(srv.pid, SIGTERM), 0);
    /* The drain has begun when new connections are refused. */
    bool draining = false;
    while (!draining && now_s() - t0 < 3) {
        int fd = http_connect(srv.port);
        draining = fd < 0;
        if (fd >= 0) {
            close(fd);
            usleep(20 * 1000);
        }
    }
    ck_assert_msg(draining, "still accepting 3 s after SIGTERM");
    ck_assert_int_eq(peer_send(&hz, healthz, sizeof(healthz) - 1), 0);
    read_answer(&hz, &a, 2000, true);
    ck_assert_msg(a.status == 200 && says_close(&a) && a.closed,
                  "/healthz during drain: %d, closed %d: %s", a.status, a.closed, a.head);
    ck_assert_int_eq(peer_send(&verb, head, (size_t)n), 0);
    ck_assert_int_eq(peer_send(&verb, body, len), 0);
    read_answer(&verb, &a, 2000, true);
    ck_assert_msg(a.status == 200 && says_close(&a) && a.closed,
                  "prioritize during drain: %d, closed %d: %s", a.status, a.closed, a.head);
    peer_close(&hz);
    peer_close(&verb);
    int status = -1;
    while (now_s() - t0 < 4 && waitpid(srv.pid, &status, WNOHANG) != srv.pid)
        usleep(20 * 1000);
    double took = now_s() - t0;
    ck_assert_msg(took < 4, "still draining %.2f s after SIGTERM with no connection left", took);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "exit status %d", status);
    unlink(srv.log_path);
    free(body);
}
END_TEST

/* ---- absolute-form targets -------------------------------------------- */

/* RFC 9112 section 3.2.2: POST http://127.0.0.1:P/scheduler/prioritize is
 * routed by its path (it got 404). */
START_TEST(policy_absolute_form_target_is_routed_by_its_path)
{
    struct server_proc srv;
    char target[128];
    server_start(&srv, NULL);
    snprintf(target, sizeof(target), "http://127.0.0.1:%d/scheduler/prioritize", srv.port);
    scheduler_served(srv.port, false, NULL, NULL, target);
    ck_assert_int_eq(server_stop(&srv), 0);
}
END_TEST

Suite *connection_policy_suite(void)
{
    Suite *s = suite_create("connection_policy");
    TCase *tc = tcase_create("connection_policy");
    tcase_set_timeout(tc, 60);
    tcase_add_unchecked_fixture(tc, pki_setup, pki_teardown);
    tcase_add_checked_fixture(tc, ignore_sigpipe, NULL);
    tcase_add_test(tc, policy_idle_connections_leave_room_for_the_scheduler);
    tcase_add_test(tc, policy_idle_connections_leave_room_for_the_probe);
    tcase_add_test(tc, policy_clients_without_a_certificate_do_not_hold_slots_tls);
    tcase_add_test(tc, policy_clients_that_never_read_leave_room);
    tcase_add_test(tc, policy_stalled_upload_does_not_hold_the_memory_budget);
    tcase_add_test(tc, policy_answers_during_drain_close_the_connection);
    tcase_add_test(tc, policy_absolute_form_target_is_routed_by_its_path);
    suite_add_tcase(s, tc);
    return s;
}

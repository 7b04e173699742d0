/*
 * kube/client.c against the fake API server (tests/support/fake_apiserver.c)
 * over real TLS with a PKI made per test: CA and host-name checks, bearer
 * tokens (static, and read from a file that rotates), client certificates
 * from a kubeconfig, and streamed bodies (lines, stop flag, line limit).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "base/clock.h"
#include "kube/client.h"
#include "kube/kubeconfig.h"
#include "tests/suites.h"
#include "tests/support/fake_apiserver.h"
#include "tests/support/fixtures.h"
#include "tests/support/test_certs.h"

#define TOKEN "token-one"

static struct test_pki pki;
static struct fake_apiserver *fake;

static void start_fake(const char *cert, const char *key, const char *token, const char *client_ca)
{
    char c[128], k[128], ca[128];
    struct fake_params p = {
        .cert_file = test_pki_path(&pki, cert, c, sizeof(c)),
        .key_file = test_pki_path(&pki, key, k, sizeof(k)),
        .token = token,
        .client_ca_file = client_ca != NULL ? test_pki_path(&pki, client_ca, ca, sizeof(ca)) : NULL,
    };
    ck_assert_int_eq(fake_start(&p, &fake), 0);
}

static void setup(void)
{
    ck_assert_int_eq(kube_global_init(), 0);
    test_pki_make(&pki);
    start_fake("server.pem", "server.key", TOKEN, NULL);
}

static void teardown(void)
{
    fake_stop(fake);
    fake = NULL;
    test_pki_remove(&pki);
    kube_global_cleanup();
}

/* A target for the fake at https://@host:PORT trusting @ca (a PKI file),
 * with a static @token (NULL: none). */
static void target(struct kube_target *t, const char *host, const char *ca, const char *token)
{
    memset(t, 0, sizeof(*t));
    snprintf(t->source, sizeof(t->source), "test");
    snprintf(t->server, sizeof(t->server), "https://%s:%d", host, fake_port(fake));
    test_pki_path(&pki, ca, t->ca_file, sizeof(t->ca_file));
    if (token != NULL)
        t->token = strdup(token);
}

static struct kube_client *client_for(struct kube_target *t)
{
    struct kube_client *c = NULL;
    char err[ERR_LEN] = "";
    ck_assert_msg(kube_client_new(t, &c, err) == 0, "%s", err);
    kube_target_destroy(t);
    return c;
}

static struct kube_client *default_client(void)
{
    struct kube_target t;
    target(&t, "127.0.0.1", "ca.pem", TOKEN);
    return client_for(&t);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static const char *reason_of(const struct kube_response *r)
{
    static char reason[64];
    cJSON *j = cJSON_ParseWithLength(r->body, r->len);
    const cJSON *v = cJSON_GetObjectItem(j, "reason");
    snprintf(reason, sizeof(reason), "%s", cJSON_IsString(v) ? v->valuestring : "");
    cJSON_Delete(j);
    return reason;
}

START_TEST(client_get_with_the_cluster_ca_is_200)
{
    struct kube_response r;
    char err[ERR_LEN] = "";
    ck_assert_int_eq(fake_put(fake, FAKE_NODE, "{\"metadata\":{\"name\":\"n1\"}}", NULL), 0);
    struct kube_client *c = default_client();
    ck_assert_msg(kube_get(c, "/api/v1/nodes", 5, &r, err) == 0, "%s", err);
    ck_assert_int_eq(r.status, 200);
    ck_assert_uint_eq(r.len, strlen(r.body));
    ck_assert_ptr_nonnull(strstr(r.body, "\"kind\":\"NodeList\""));
    ck_assert_ptr_nonnull(strstr(r.body, "\"name\":\"n1\""));
    free(r.body);
    kube_client_free(c);

    /* the CA as data (certificate-authority-data), and the server by name */
    struct kube_target t;
    size_t len;
    char ca[128];
    target(&t, "localhost", "ca.pem", TOKEN);
    t.ca_file[0] = '\0';
    t.ca_pem = file_slurp(test_pki_path(&pki, "ca.pem", ca, sizeof(ca)), &len);
    c = client_for(&t);
    ck_assert_msg(kube_get(c, "/api/v1/nodes/n1", 5, &r, err) == 0, "%s", err);
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_nonnull(strstr(r.body, "\"kind\":\"Node\""));
    free(r.body);
    kube_client_free(c);
}
END_TEST

START_TEST(client_untrusted_ca_is_eproto)
{
    struct kube_response r;
    char err[ERR_LEN] = "";
    struct kube_target t;
    target(&t, "127.0.0.1", "other-ca.pem", TOKEN);
    struct kube_client *c = client_for(&t);
    ck_assert_int_eq(kube_get(c, "/api/v1/nodes", 5, &r, err), -EPROTO);
    ck_assert_ptr_null(r.body);
    ck_assert_msg(strstr(err, "certificate") != NULL, "message: %s", err);
    ck_assert_msg(strstr(err, "127.0.0.1") != NULL, "no server in: %s", err);
    kube_client_free(c);

    struct fake_counts n;
    fake_counts(fake, &n);
    ck_assert_uint_eq(n.lists[FAKE_NODE], 0); /* nothing was sent */
}
END_TEST

START_TEST(client_certificate_for_another_host_is_eproto)
{
    struct kube_response r;
    char err[ERR_LEN] = "";
    fake_stop(fake);
    start_fake("wrong-host.pem", "wrong-host.key", TOKEN, NULL);
    struct kube_client *c = default_client();
    ck_assert_int_eq(kube_get(c, "/api/v1/nodes", 5, &r, err), -EPROTO);
    /* OpenSSL through curl: "no alternative certificate subject name
     * matches target host name '127.0.0.1'" */
    ck_assert_msg(strstr(err, "host name") != NULL, "message: %s", err);
    kube_client_free(c);
    struct fake_counts n;
    fake_counts(fake, &n);
    ck_assert_uint_eq(n.lists[FAKE_NODE], 0);
}
END_TEST

START_TEST(client_token_file_follows_rotation)
{
    struct kube_response r;
    char err[ERR_LEN] = "", file[128], tmp[140];
    struct kube_target t;
    struct fake_counts n;

    test_pki_path(&pki, "token", file, sizeof(file));
    snprintf(tmp, sizeof(tmp), "%s.new", file);
    file_write(file, TOKEN "\n"); /* trailing newline trimmed, as client-go does */
    target(&t, "127.0.0.1", "ca.pem", "a-static-token-the-file-wins-over");
    snprintf(t.token_file, sizeof(t.token_file), "%s", file);
    struct kube_client *c = client_for(&t);
    ck_assert_msg(kube_get(c, "/api/v1/pods", 5, &r, err) == 0, "%s", err);
    ck_assert_int_eq(r.status, 200);
    free(r.body);

    /* kubelet's way: a new file renamed over the old one; the client sees
     * the change before it sends anything */
    fake_set_token(fake, "token-two");
    file_write(tmp, "token-two");
    ck_assert_int_eq(rename(tmp, file), 0);
    ck_assert_msg(kube_get(c, "/api/v1/pods", 5, &r, err) == 0, "%s", err);
    ck_assert_int_eq(r.status, 200);
    free(r.body);
    fake_counts(fake, &n);
    ck_assert_uint_eq(n.unauthorized, 0);

    /* rewritten in place, maybe within one timestamp tick: if the change is
     * not seen, the 401 makes the client read the file again */
    fake_set_token(fake, "token-333");
    file_write(file, "token-333");
    ck_assert_msg(kube_get(c, "/api/v1/pods", 5, &r, err) == 0, "%s", err);
    ck_assert_int_eq(r.status, 200);
    free(r.body);

    /* the server moved on and the file did not: the 401 is the answer */
    fake_set_token(fake, "token-four");
    ck_assert_msg(kube_get(c, "/api/v1/pods", 5, &r, err) == 0, "%s", err);
    ck_assert_int_eq(r.status, 401);
    ck_assert_str_eq(reason_of(&r), "Unauthorized");
    free(r.body);
    fake_counts(fake, &n);
    ck_assert_uint_le(n.unauthorized, 3); /* at most one retry per request */
    kube_client_free(c);
}
END_TEST

START_TEST(client_stale_static_token_answers_401)
{
    struct kube_response r;
    char err[ERR_LEN] = "";
    struct kube_client *c = default_client();
    fake_set_token(fake, "rotated");
    ck_assert_msg(kube_get(c, "/api/v1/nodes", 5, &r, err) == 0, "%s", err);
    ck_assert_int_eq(r.status, 401);
    ck_assert_str_eq(reason_of(&r), "Unauthorized");
    free(r.body);
    struct fake_counts n;
    fake_counts(fake, &n);
    ck_assert_uint_eq(n.unauthorized, 1); /* no file to re-read: no retry */
    kube_client_free(c);
}
END_TEST

START_TEST(client_certificate_from_a_kubeconfig_is_accepted)
{
    struct kube_response r;
    char err[ERR_LEN] = "", path[128], doc[1024];
    struct kube_target t;
    fake_stop(fake);
    start_fake("server.pem", "server.key", NULL, "ca.pem");

    /* file references relative to the kubeconfig's directory */
    snprintf(doc, sizeof(doc),
             "apiVersion: v1\nkind: Config\ncurrent-context: test\n"
             "clusters:\n- name: fake\n  cluster:\n    server: https://127.0.0.1:%d\n"
             "    certificate-authority: ca.pem\n"
             "users:\n- name: sched\n  user:\n    client-certificate: client.pem\n"
             "    client-key: client.key\n"
             "contexts:\n- name: test\n  context:\n    cluster: fake\n    user: sched\n",
             fake_port(fake));
    file_write(test_pki_path(&pki, "kubeconfig", path, sizeof(path)), doc);
    ck_assert_msg(kube_load_kubeconfig(path, NULL, &t, err) == 0, "%s", err);
    struct kube_client *c = client_for(&t);
    ck_assert_msg(kube_get(c, "/api/v1/nodes", 5, &r, err) == 0, "%s", err);
    ck_assert_int_eq(r.status, 200);
    free(r.body);
    kube_client_free(c);

    /* a certificate of a CA the server does not trust: not let in */
    target(&t, "127.0.0.1", "ca.pem", NULL);
    test_pki_path(&pki, "other-client.pem", t.cert_file, sizeof(t.cert_file));
    test_pki_path(&pki, "other-client.key", t.key_file, sizeof(t.key_file));
    c = client_for(&t);
    int rc = kube_get(c, "/api/v1/nodes", 5, &r, err);
    ck_assert_msg(rc == -EPROTO || (rc == 0 && r.status == 401), "rc %d status %ld: %s", rc,
                  r.status, err);
    free(r.body);
    kube_client_free(c);
}
END_TEST

START_TEST(client_post_returns_status_and_body)
{
    struct kube_response r;
    char err[ERR_LEN] = "";
    static const char body[] =
        "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{\"name\":\"p\",\"namespace\":"
        "\"default\"},\"target\":{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":\"n1\"}}";
    ck_assert_int_eq(fake_put(fake, FAKE_POD, "{\"metadata\":{\"name\":\"p\"}}", NULL), 0);
    struct kube_client *c = default_client();
    ck_assert_msg(kube_post_bounded(c, "/api/v1/namespaces/default/pods/p/binding", body,
                                    sizeof(body) - 1, 5, NULL, &r, err) == 0,
                  "%s", err);
    ck_assert_int_eq(r.status, 201);
    free(r.body);
    ck_assert_msg(kube_post_bounded(c, "/api/v1/namespaces/default/pods/p/binding", body,
                                    sizeof(body) - 1, 5, NULL, &r, err) == 0,
                  "%s", err);
    ck_assert_int_eq(r.status, 409);
    ck_assert_ptr_nonnull(strstr(r.body, "is already assigned to node"));
    free(r.body);
    char *got = fake_binding_body(fake, 0);
    ck_assert_str_eq(got, body);
    free(got);
    kube_client_free(c);
}
END_TEST

START_TEST(client_transport_failures_map_to_errno)
{
    struct kube_response r;
    char err[ERR_LEN] = "";
    struct kube_client *c = default_client();
    /* a watch that sends nothing, read as a plain GET: the total timeout */
    double t0 = now_s();
    ck_assert_int_eq(kube_get(c, "/api/v1/nodes?watch=1", 1, &r, err), -ETIMEDOUT);
    ck_assert_msg(now_s() - t0 < 3, "timeout took %.1f s", now_s() - t0);
    ck_assert_int_eq(kube_get(c, "api/v1/nodes", 1, &r, err), -EINVAL);
    kube_client_free(c);

    /* nobody listens any more on the fake's port */
    struct kube_target t;
    target(&t, "127.0.0.1", "ca.pem", TOKEN);
    fake_stop(fake);
    fake = NULL;
    c = client_for(&t);
    ck_assert_int_eq(kube_get(c, "/api/v1/nodes", 2, &r, err), -ECONNREFUSED);
    kube_client_free(c);
}
END_TEST

/* What a stream callback saw. */
struct seen {
    int lines;
    size_t total;
    bool all_x;
    char first[256];
    int stop_after; /* return 1 after this many lines, 0: never */
    int opened;     /* NULL lines: the stream said it was open */
};

/* A stream stopped by *@stop alone. */
static int stream(struct kube_client *c, const char *path, int idle, const atomic_bool *stop,
                  kube_line_fn fn, void *ctx, struct kube_response *out, char *err)
{
    const struct kube_bounds b = {.stop = stop};
    return kube_stream_bounded(c, path, idle, &b, fn, ctx, out, err);
}

static int on_line(void *ctx, char *line, size_t len)
{
    struct seen *s = ctx;
    if (line == NULL) {
        s->opened++;
        return 0;
    }
    if (s->lines == 0)
        snprintf(s->first, sizeof(s->first), "%s", line);
    s->lines++;
    s->total += len;
    if (strlen(line) != len)
        s->all_x = false;
    for (size_t i = 0; i < len && i < 64; i++)
        if (line[i] != 'x')
            s->all_x = false;
    return s->stop_after > 0 && s->lines >= s->stop_after ? 42 : 0;
}

START_TEST(client_stream_delivers_whole_lines)
{
    struct kube_response r;
    char err[ERR_LEN] = "";
    atomic_bool stop = false;
    struct seen s = {.all_x = true};
    struct kube_client *c = default_client();
    ck_assert_msg(stream(c, "/fake/stream?line=5&count=3&tail=2", 5, &stop, on_line, &s, &r, err) ==
                      0,
                  "%s", err);
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_null(r.body);
    ck_assert_int_eq(s.lines, 3); /* the partial last line is dropped */
    ck_assert_uint_eq(s.total, 15);
    ck_assert(s.all_x);
    ck_assert_int_eq(s.opened, 1); /* told once that the 2xx stream was open */

    /* empty lines are lines too, with no terminator */
    memset(&s, 0, sizeof(s));
    s.all_x = true;
    ck_assert_int_eq(stream(c, "/fake/stream?line=0&count=4", 5, &stop, on_line, &s, &r, err), 0);
    ck_assert_int_eq(s.lines, 4);

    /* a non-zero return of the callback ends the stream with that value */
    memset(&s, 0, sizeof(s));
    s.all_x = true;
    s.stop_after = 2;
    ck_assert_int_eq(stream(c, "/fake/stream?line=5&count=100", 5, &stop, on_line, &s, &r, err),
                     42);
    ck_assert_int_eq(s.lines, 2);

    /* watch events as lines */
    uint64_t rv;
    ck_assert_int_eq(fake_put(fake, FAKE_POD, "{\"metadata\":{\"name\":\"a\"}}", &rv), 0);
    ck_assert_int_eq(fake_put(fake, FAKE_POD, "{\"metadata\":{\"name\":\"b\"}}", NULL), 0);
    char path[128];
    snprintf(path, sizeof(path), "/api/v1/pods?watch=1&resourceVersion=%llu&timeoutSeconds=1",
             (unsigned long long)rv);
    memset(&s, 0, sizeof(s));
    ck_assert_int_eq(stream(c, path, 5, &stop, on_line, &s, &r, err), 0);
    ck_assert_int_eq(s.lines, 1);
    ck_assert_ptr_nonnull(strstr(s.first, "\"type\":\"ADDED\""));
    ck_assert_ptr_nonnull(strstr(s.first, "\"name\":\"b\""));
    kube_client_free(c);
}
END_TEST

START_TEST(client_stream_error_status_returns_the_body)
{
    struct kube_response r;
    char err[ERR_LEN] = "";
    atomic_bool stop = false;
    struct seen s = {0};
    struct kube_client *c = default_client();
    fake_set_token(fake, "other");
    ck_assert_int_eq(stream(c, "/api/v1/pods?watch=1", 5, &stop, on_line, &s, &r, err), 0);
    ck_assert_int_eq(r.status, 401);
    ck_assert_int_eq(s.lines, 0);
    ck_assert_int_eq(s.opened, 0); /* an error status never opens the stream */
    ck_assert_ptr_nonnull(r.body);
    ck_assert_str_eq(reason_of(&r), "Unauthorized");
    free(r.body);
    kube_client_free(c);
}
END_TEST

struct stopper {
    atomic_bool *stop;
    double at;
};

static void *set_stop(void *arg)
{
    struct stopper *s = arg;
    usleep(300 * 1000);
    s->at = now_s();
    atomic_store(s->stop, true);
    return NULL;
}

START_TEST(client_stream_stop_flag_is_honoured_within_a_second)
{
    struct kube_response r;
    char err[ERR_LEN] = "";
    atomic_bool stop = false;
    struct seen s = {0};
    struct stopper st = {.stop = &stop};
    pthread_t t;
    struct kube_client *c = default_client();
    ck_assert_int_eq(pthread_create(&t, NULL, set_stop, &st), 0);
    int rc = stream(c, "/api/v1/pods?watch=1", 30, &stop, on_line, &s, &r, err);
    double done = now_s();
    pthread_join(t, NULL);
    ck_assert_int_eq(rc, -ECANCELED);
    ck_assert_msg(done - st.at < 2.0, "stopped after %.2f s", done - st.at);

    /* and before the first byte: a list that hangs */
    stop = false;
    ck_assert_int_eq(pthread_create(&t, NULL, set_stop, &st), 0);
    const struct kube_bounds b = {.stop = &stop};
    rc = kube_get_bounded(c, "/api/v1/pods?watch=1", 30, &b, &r, err);
    done = now_s();
    pthread_join(t, NULL);
    ck_assert_int_eq(rc, -ECANCELED);
    ck_assert_msg(done - st.at < 2.0, "stopped after %.2f s", done - st.at);
    kube_client_free(c);
}
END_TEST

START_TEST(client_stream_idle_timeout)
{
    struct kube_response r;
    char err[ERR_LEN] = "";
    atomic_bool stop = false;
    struct seen s = {0};
    struct kube_client *c = default_client();
    double t0 = now_s();
    ck_assert_int_eq(stream(c, "/api/v1/pods?watch=1", 1, &stop, on_line, &s, &r, err), -ETIMEDOUT);
    ck_assert_msg(now_s() - t0 < 4, "took %.1f s", now_s() - t0);
    kube_client_free(c);
}
END_TEST

START_TEST(client_stream_line_over_the_limit_is_e2big)
{
    struct kube_response r;
    char err[ERR_LEN] = "", path[128];
    atomic_bool stop = false;
    struct seen s = {.all_x = true};
    struct kube_client *c = default_client();

    snprintf(path, sizeof(path), "/fake/stream?line=%u&count=1", KUBE_LINE_MAX);
    ck_assert_msg(stream(c, path, 10, &stop, on_line, &s, &r, err) == 0, "%s", err);
    ck_assert_int_eq(s.lines, 1); /* the longest allowed */
    ck_assert_uint_eq(s.total, KUBE_LINE_MAX);

    memset(&s, 0, sizeof(s));
    snprintf(path, sizeof(path), "/fake/stream?line=%u&count=1", KUBE_LINE_MAX + 1);
    ck_assert_int_eq(stream(c, path, 10, &stop, on_line, &s, &r, err), -E2BIG);
    ck_assert_int_eq(s.lines, 0);
    ck_assert_ptr_nonnull(strstr(err, "line"));

    /* no newline at all: caught before the whole body is held */
    memset(&s, 0, sizeof(s));
    snprintf(path, sizeof(path), "/fake/stream?tail=%u", KUBE_LINE_MAX + 1);
    ck_assert_int_eq(stream(c, path, 10, &stop, on_line, &s, &r, err), -E2BIG);

    /* a watch's own bound (one object), below KUBE_LINE_MAX */
    const struct kube_bounds b = {.line_max = 4096, .stop = &stop};
    memset(&s, 0, sizeof(s));
    ck_assert_int_eq(
        kube_stream_bounded(c, "/fake/stream?line=4096&count=2", 10, &b, on_line, &s, &r, err), 0);
    ck_assert_int_eq(s.lines, 2);
    memset(&s, 0, sizeof(s));
    ck_assert_int_eq(
        kube_stream_bounded(c, "/fake/stream?line=4097&count=2", 10, &b, on_line, &s, &r, err),
        -E2BIG);
    ck_assert_int_eq(s.lines, 0);
    ck_assert_msg(strstr(err, "line over 4096 bytes") != NULL, "%s", err);
    kube_client_free(c);
}
END_TEST

/* A bind POST against a hung server ends at its deadline, the repeat after
 * a 401 included; kube_client_cancel ends one in progress and every later
 * one. */
struct canceller {
    struct kube_client *c;
    double at;
};

static void *cancel_later(void *arg)
{
    struct canceller *k = arg;
    usleep(300 * 1000);
    k->at = now_s();
    kube_client_cancel(k->c);
    return NULL;
}

START_TEST(client_deadline_and_cancel_end_a_hung_request)
{
    struct kube_response r;
    char err[ERR_LEN] = "";
    const char *path = "/api/v1/namespaces/default/pods/p/binding";
    struct kube_client *c = default_client();
    fake_hang_bindings(fake, true);

    double t0 = now_s();
    struct kube_bounds b = {.deadline_ns = clock_mono_ns() + 400 * CLOCK_NS_PER_MS};
    ck_assert_int_eq(kube_post_bounded(c, path, "{}", 2, 30, &b, &r, err), -ETIMEDOUT);
    double took = now_s() - t0;
    ck_assert_msg(took > 0.3 && took < 2.0, "deadline of 0.4 s ended after %.2f s", took);
    ck_assert_ptr_null(r.body);
    /* a deadline already passed sends nothing */
    struct fake_counts before, after;
    fake_counts(fake, &before);
    b.deadline_ns = clock_mono_ns() - 1;
    ck_assert_int_eq(kube_post_bounded(c, path, "{}", 2, 30, &b, &r, err), -ETIMEDOUT);
    ck_assert_ptr_nonnull(strstr(err, "deadline passed"));
    fake_counts(fake, &after);
    ck_assert_uint_eq(after.bindings, before.bindings);

    struct canceller k = {.c = c};
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, cancel_later, &k), 0);
    int rc = kube_post_bounded(c, path, "{}", 2, 30, NULL, &r, err);
    double done = now_s();
    pthread_join(t, NULL);
    ck_assert_int_eq(rc, -ECANCELED);
    ck_assert_msg(done - k.at < 2.0, "cancelled after %.2f s", done - k.at);
    /* for good: the next request does not start */
    fake_hang_bindings(fake, false);
    ck_assert_int_eq(kube_get(c, "/api/v1/nodes", 10, &r, err), -ECANCELED);
    kube_client_free(c);
}
END_TEST

/* A body over the bound asked for is -E2BIG, whatever KUBE_BODY_MAX
 * allows, with the bound in the message. */
START_TEST(client_body_over_its_bound_is_e2big)
{
    struct kube_response r;
    char err[ERR_LEN] = "";
    struct kube_client *c = default_client();
    const struct kube_bounds b = {.body_max = 4096};
    ck_assert_int_eq(kube_get_bounded(c, "/fake/stream?line=100&count=100&tail=0", 10, &b, &r, err),
                     -E2BIG);
    ck_assert_msg(strstr(err, "body over 4096 bytes") != NULL, "%s", err);
    ck_assert_ptr_null(r.body);
    ck_assert_int_eq(kube_get_bounded(c, "/fake/stream?line=100&count=10&tail=0", 10, &b, &r, err),
                     0);
    ck_assert_uint_eq(r.len, 1010);
    free(r.body);
    kube_client_free(c);
}
END_TEST

Suite *client_suite(void)
{
    Suite *s = suite_create("client");
    TCase *tc = tcase_create("client");
    tcase_set_timeout(tc, 30);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, client_get_with_the_cluster_ca_is_200);
    tcase_add_test(tc, client_untrusted_ca_is_eproto);
    tcase_add_test(tc, client_certificate_for_another_host_is_eproto);
    tcase_add_test(tc, client_token_file_follows_rotation);
    tcase_add_test(tc, client_stale_static_token_answers_401);
    tcase_add_test(tc, client_certificate_from_a_kubeconfig_is_accepted);
    tcase_add_test(tc, client_post_returns_status_and_body);
    tcase_add_test(tc, client_transport_failures_map_to_errno);
    tcase_add_test(tc, client_stream_delivers_whole_lines);
    tcase_add_test(tc, client_stream_error_status_returns_the_body);
    tcase_add_test(tc, client_stream_stop_flag_is_honoured_within_a_second);
    tcase_add_test(tc, client_stream_idle_timeout);
    tcase_add_test(tc, client_stream_line_over_the_limit_is_e2big);
    tcase_add_test(tc, client_deadline_and_cancel_end_a_hung_request);
    tcase_add_test(tc, client_body_over_its_bound_is_e2big);
    suite_add_tcase(s, tc);
    return s;
}

/*
 * Deadlines on the waits for the API server (issue 23, findings 4 and 5):
 * the real binary, in cluster mode, against the fake API server of
 * tests/support/fake_apiserver.c with its bindings hung (read, never
 * answered).
 *
 * - A bind ends near kube-scheduler's httpTimeout (schedulerTimeoutMs),
 *   not after the client's 30 s, so that binds kube-scheduler gave up on
 *   do not hold 127.0.0.1's connection slots.
 * - SIGTERM with a bind in flight ends within drainSeconds plus the stated
 *   grace (cli/stop_watchdog.h), not when the API server lets go.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "cli/stop_watchdog.h"
#include "tests/suites.h"
#include "tests/support/fake_world.h"
#include "tests/support/http_client.h"

#define BIND                                                                                       \
    "{\"PodName\":\"pending\",\"PodNamespace\":\"default\",\"PodUID\":\"uid-pending\","            \
    "\"Node\":\"n1\"}"

static struct test_pki pki;

static void make_pki(void)
{
    test_pki_make(&pki);
}

static void remove_pki(void)
{
    test_pki_remove(&pki);
}

/* The fake with one node and one pending pod, bindings hung, and the
 * binary started with @flags and ready. */
static void start_world(struct fake_world *w, const char *const *flags)
{
    fake_world_prepare(w, &pki);
    ck_assert_int_eq(fake_put(w->fake, FAKE_NODE,
                              "{\"metadata\":{\"name\":\"n1\"},\"status\":{\"allocatable\":"
                              "{\"cpu\":\"4\",\"memory\":\"8Gi\",\"pods\":\"110\"}}}",
                              NULL),
                     0);
    ck_assert_int_eq(fake_put(w->fake, FAKE_POD,
                              "{\"metadata\":{\"name\":\"pending\",\"namespace\":\"default\","
                              "\"uid\":\"uid-pending\"},\"spec\":{\"containers\":[{\"name\":"
                              "\"c\"}]},\"status\":{\"phase\":\"Pending\"}}",
                              NULL),
                     0);
    fake_hang_bindings(w->fake, true);
    fake_world_start(w, flags);
    fake_world_await_ready(w);
}

/* Waits (10 s at most) until the fake has received @n binding POSTs. */
static void await_bindings(struct fake_world *w, unsigned n)
{
    struct fake_counts c;
    for (int i = 0; i < 1000; i++) {
        fake_counts(w->fake, &c);
        if (c.bindings >= n)
            return;
        usleep(10000);
    }
    ck_abort_msg("%u binding POSTs reached the fake, want %u", c.bindings, n);
}

#define SLOTS 32 /* binds at once: more than one address's connection slots */

/* 32 binds at once, each given up on by kube-scheduler: every one is
 * answered (an error) soon after schedulerTimeoutMs, and then a verb from
 * the same address gets through. The old client waited 30 s per bind and
 * kept the slots. */
START_TEST(deadlines_bind_ends_near_scheduler_timeout)
{
    struct fake_world w;
    int fds[SLOTS];
    start_world(&w, (const char *const[]){"--scheduler-timeout-ms", "1000", NULL});

    uint64_t start = clock_mono_ns();
    for (int i = 0; i < SLOTS; i++) {
        fds[i] = http_connect(w.server.port);
        ck_assert_int_ge(fds[i], 0);
        ck_assert_int_eq(http_send(fds[i], "POST", "/scheduler/bind", BIND, strlen(BIND)), 0);
    }
    for (int i = 0; i < SLOTS; i++) {
        struct http_response r;
        /* 800 ms deadline, plus room for a loaded machine; far from 30 s. */
        ck_assert_msg(http_read(fds[i], &r, 5000) == 0, "bind %d unanswered after 5 s", i);
        ck_assert_int_eq(r.status, 200);
        ck_assert_msg(strstr(r.body, "\"Error\":\"\"") == NULL, "bind %d succeeded: %s", i, r.body);
        http_response_free(&r);
        close(fds[i]);
    }
    double took = (double)(clock_mono_ns() - start) / 1e9;
    ck_assert_msg(took < 5.0, "32 binds took %.1f s", took);

    struct http_response r;
    const char *args = "{\"Pod\":{\"metadata\":{\"name\":\"p\",\"namespace\":\"default\"},"
                       "\"spec\":{\"containers\":[{\"name\":\"c\"}]}},\"NodeNames\":[\"n1\"]}";
    ck_assert_int_eq(
        http_request(w.server.port, "POST", "/scheduler/prioritize", args, strlen(args), &r), 0);
    ck_assert_int_eq(r.status, 200);
    http_response_free(&r);
    ck_assert_int_eq(server_stop(&w.server), 0);
    fake_world_end(&w);
}
END_TEST

/* Without a scheduler deadline the bind waits the client's 30 s; SIGTERM
 * still ends the process within drainSeconds and the grace. */
START_TEST(deadlines_sigterm_with_bind_in_flight_is_bounded)
{
    struct fake_world w;
    start_world(&w,
                (const char *const[]){"--scheduler-timeout-ms", "0", "--drain-seconds", "1", NULL});
    int fd = http_connect(w.server.port);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(http_send(fd, "POST", "/scheduler/bind", BIND, strlen(BIND)), 0);
    await_bindings(&w, 1);

    uint64_t start = clock_mono_ns();
    int status = server_stop(&w.server);
    double took = (double)(clock_mono_ns() - start) / 1e9;
    /* The bind is cancelled when the drain ends and the process stops
     * cleanly; the watchdog's exit is the backstop (status 1). */
    ck_assert_msg(status == 0, "exit status %d after %.1f s", status, took);
    ck_assert_msg(took < 1 + CLI_STOP_GRACE_SECONDS, "SIGTERM took %.1f s", took);
    close(fd);
    fake_world_end(&w);
}
END_TEST

/* A credential plugin that never answers (it sleeps): the informers wait
 * in it, and nothing can cancel that wait. SIGTERM still ends the process
 * at drainSeconds plus the grace, with the late status and a log line
 * saying why. The old stop waited for the plugin's 60 s timeout. */
START_TEST(deadlines_sigterm_with_hung_credential_plugin_is_bounded)
{
    struct fake_world w;
    char ca[256];
    fake_world_prepare(&w, &pki);
    FILE *f = fopen(w.kubeconfig, "w");
    ck_assert_ptr_nonnull(f);
    /* 12 s: past the bound the test checks, and gone soon after the test
     * (the process that started it is gone; it is not ours to kill). */
    fprintf(f,
            "apiVersion: v1\nkind: Config\ncurrent-context: t\n"
            "clusters:\n- name: fake\n  cluster:\n    server: https://127.0.0.1:%d\n"
            "    certificate-authority: %s\n"
            "users:\n- name: u\n  user:\n    exec:\n"
            "      apiVersion: client.authentication.k8s.io/v1\n"
            "      interactiveMode: Never\n"
            "      command: /bin/sleep\n"
            "      args: [\"12\"]\n"
            "contexts:\n- name: t\n  context:\n    cluster: fake\n    user: u\n",
            fake_port(w.fake), test_pki_path(&pki, "ca.pem", ca, sizeof(ca)));
    ck_assert_int_eq(fclose(f), 0);
    fake_world_start(&w, (const char *const[]){"--drain-seconds", "1", NULL});

    uint64_t start = clock_mono_ns();
    int status = server_stop(&w.server);
    double took = (double)(clock_mono_ns() - start) / 1e9;
    ck_assert_msg(status == CLI_STOP_LATE_STATUS, "exit status %d after %.1f s", status, took);
    ck_assert_msg(took < 1 + CLI_STOP_GRACE_SECONDS + 1.5, "SIGTERM took %.1f s", took);
    fake_world_end(&w);
}
END_TEST

Suite *deadlines_suite(void)
{
    Suite *s = suite_create("deadlines");
    TCase *tc = tcase_create("deadlines");
    tcase_add_unchecked_fixture(tc, make_pki, remove_pki);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, deadlines_bind_ends_near_scheduler_timeout);
    tcase_add_test(tc, deadlines_sigterm_with_bind_in_flight_is_bounded);
    tcase_add_test(tc, deadlines_sigterm_with_hung_credential_plugin_is_bounded);
    suite_add_tcase(s, tc);
    return s;
}

/*
 * The real binary in cluster mode against the fake API server
 * (fake_apiserver.h) over TLS, with a kubeconfig naming it: the set-up the
 * tests of the API-facing bounds share (tests/e2e/test_deadlines.c,
 * tests/e2e/test_api_bounds.c).
 */
#ifndef TESTS_SUPPORT_FAKE_WORLD_H
#define TESTS_SUPPORT_FAKE_WORLD_H

#include <sys/types.h>

#include "tests/support/fake_apiserver.h"
#include "tests/support/server_proc.h"
#include "tests/support/test_certs.h"

struct fake_world {
    struct fake_apiserver *fake;
    char kubeconfig[160];
    struct server_proc server;
};

/* Starts the fake (empty; TLS with @pki's server.pem, a bearer token) and
 * writes a kubeconfig for it trusting @pki's ca.pem. Fails the test when
 * either cannot be done. */
void fake_world_prepare(struct fake_world *w, const struct test_pki *pki);

/* Starts the binary with --kubeconfig and the NULL-terminated @flags. */
void fake_world_start(struct fake_world *w, const char *const *flags);

/* Waits (10 s at most) until /readyz answers 200; fails the test if not. */
void fake_world_await_ready(struct fake_world *w);

/* Stops the fake and removes the kubeconfig (the binary is the caller's:
 * its exit status is what some tests check). */
void fake_world_end(struct fake_world *w);

/* A field of /proc/@pid/status in KiB (VmRSS, VmHWM), -1 when unreadable. */
long fake_world_proc_kib(pid_t pid, const char *key);

#endif

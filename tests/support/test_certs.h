/*
 * A throw-away PKI for tests, made by tests/e2e/make_certs.sh (openssl) in
 * a fresh temporary directory: see that script for the files (ca.pem,
 * server.pem/.key for 127.0.0.1 and localhost, client.pem/.key, other-ca.pem,
 * other-client.pem/.key, wrong-host.pem/.key).
 */
#ifndef TESTS_SUPPORT_TEST_CERTS_H
#define TESTS_SUPPORT_TEST_CERTS_H

#include <stddef.h>

struct test_pki {
    char dir[64];
};

/* Makes the PKI in a new directory under /tmp. Fails the test (Check)
 * when the script or openssl fails. Run it from the repository root, as the
 * test runner is. */
void test_pki_make(struct test_pki *p);

/* Writes "@dir/@name" into @out (@n bytes) and returns @out. */
const char *test_pki_path(const struct test_pki *p, const char *name, char *out, size_t n);

/* Removes the directory and everything in it. */
void test_pki_remove(struct test_pki *p);

#endif

/*
 * libFuzzer target: kube_parse_kubeconfig_text on arbitrary documents (the
 * YAML walk, base64 decoding, merging rules and context resolution of
 * kube/kubeconfig.c; libyaml itself is not instrumented).
 *
 * Properties, besides ASan, UBSan and LSan (no leak on any error path):
 *  - the result is 0, -EINVAL or -ENOMEM, with a message on failure and a
 *    zeroed target;
 *  - an accepted document gives an http(s) server without a trailing
 *    slash, and PEM data that is NUL-free text.
 *
 * Relative file references resolve against a directory that does not
 * exist, so that the result does not depend on the working directory.
 */
#ifdef FUZZ_TARGET
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "kube/kubeconfig.h"
#include "tests/fuzz/fuzz.h"

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_kubeconfig: %s\n%s\n", what, detail);
    abort();
}

static bool is_zero(const struct kube_target *t)
{
    static const struct kube_target zero;
    return memcmp(t, &zero, sizeof(zero)) == 0;
}

static void check(const uint8_t *data, size_t size, const char *context)
{
    char err[ERR_LEN];
    struct kube_target t;

    err[0] = '\0';
    int rc = kube_parse_kubeconfig_text((const char *)data, size, "fuzz", "/nonexistent-fuzz-dir",
                                        context, &t, err);
    if (rc != 0) {
        if (rc != -EINVAL && rc != -ENOMEM)
            fail("unexpected return code", err);
        if (err[0] == '\0' || memchr(err, '\0', sizeof(err)) == NULL)
            fail("failure without a message", "");
        if (!is_zero(&t))
            fail("failure left the target filled", err);
        return;
    }
    size_t l = strlen(t.server);
    if ((strncmp(t.server, "https://", 8) != 0 && strncmp(t.server, "http://", 7) != 0) ||
        t.server[l - 1] == '/')
        fail("bad server accepted", t.server);
    if (t.ca_pem != NULL && strstr(t.ca_pem, "-----BEGIN ") == NULL)
        fail("CA data is not PEM", t.ca_pem);
    kube_target_destroy(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check(data, size, NULL);
    check(data, size, "a"); /* the corpus's second context */
    return 0;
}
#endif

/*
 * libFuzzer target: kube_parse_kubeconfig_text on arbitrary documents (the
 * YAML walk, base64 decoding, merging rules and context resolution of
 * kube/kubeconfig.c; libyaml itself is not instrumented), and the same
 * bytes as what an exec credential plugin printed (kube_exec_read_output:
 * JSON is YAML, so one corpus serves both).
 *
 * Properties, besides ASan, UBSan and LSan (no leak on any error path):
 *  - the result is 0, -EINVAL or -ENOMEM, with a message on failure and a
 *    zeroed target;
 *  - an accepted document gives an http(s) server without a trailing
 *    slash, and PEM data that is NUL-free text;
 *  - an accepted exec stanza has a command, a supported apiVersion and
 *    env entries NAME=value with a name (the plugin is never run here).
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
#include "kube/exec.h"
#include "kube/exec_output.h"
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
    const struct kube_exec_config *e = t.exec;
    if (e != NULL) {
        if (e->command == NULL || e->command[0] == '\0')
            fail("exec without a command", e->where);
        if (strcmp(e->api_version, KUBE_EXEC_V1) != 0 &&
            strcmp(e->api_version, KUBE_EXEC_V1BETA1) != 0)
            fail("exec apiVersion accepted", e->api_version);
        if (strncmp(e->where, "kubeconfig fuzz: users[", 23) != 0)
            fail("exec messages do not name the file", e->where);
        for (size_t i = 0; i < e->n_env; i++)
            if (e->env[i][0] == '=' || strchr(e->env[i], '=') == NULL)
                fail("exec env entry without a name", e->env[i]);
        for (size_t i = 0; i < e->n_args; i++)
            if (e->args[i] == NULL)
                fail("exec argument missing", e->where);
    }
    kube_target_destroy(&t);
}

/* Properties of the ExecCredential reader: 0, -EACCES or -ENOMEM; a
 * message naming the user on failure; on success a token fit for a header
 * or a certificate with its key, and an expiry in the future. */
static void check_output(const uint8_t *data, size_t size)
{
    static const char where[] = "kubeconfig fuzz: users[u].user.exec";
    struct kube_exec_status st;
    char err[ERR_LEN] = "";
    const double now = 1.7e9; /* 2023-11: fixed, so that runs repeat */

    int rc = kube_exec_read_output(where, KUBE_EXEC_V1, (const char *)data, size, now, &st, err);
    if (rc != 0) {
        if (rc != -EACCES && rc != -ENOMEM)
            fail("exec output: unexpected return code", err);
        if (strncmp(err, where, sizeof(where) - 1) != 0)
            fail("exec output: message does not name the user", err);
        if (st.token != NULL || st.cert_pem != NULL || st.key_pem != NULL || st.has_expiry)
            fail("exec output: failure left a credential", err);
        return;
    }
    if (st.token == NULL && st.cert_pem == NULL)
        fail("exec output: accepted without a credential", "");
    if ((st.cert_pem == NULL) != (st.key_pem == NULL))
        fail("exec output: certificate without key accepted", "");
    for (const char *c = st.token; c != NULL && *c != '\0'; c++)
        if ((unsigned char)*c < 0x21 || (unsigned char)*c > 0x7e)
            fail("exec output: token unfit for a header", st.token);
    if (st.has_expiry && !(st.expiry > now))
        fail("exec output: expired credential accepted", "");
    kube_exec_status_wipe(&st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check(data, size, NULL);
    check(data, size, "a"); /* the corpus's second context */
    check_output(data, size);
    return 0;
}
#endif

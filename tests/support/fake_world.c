#include "tests/support/fake_world.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/support/http_client.h"

#define WORLD_TOKEN "token-fake-world"

void fake_world_prepare(struct fake_world *w, const struct test_pki *pki)
{
    char cert[256], key[256], ca[256];
    struct fake_params p = {
        .cert_file = test_pki_path(pki, "server.pem", cert, sizeof(cert)),
        .key_file = test_pki_path(pki, "server.key", key, sizeof(key)),
        .token = WORLD_TOKEN,
    };
    ck_assert_int_eq(fake_start(&p, &w->fake), 0);
    snprintf(w->kubeconfig, sizeof(w->kubeconfig), "%s/kubeconfig-world-%d", pki->dir, getpid());
    FILE *f = fopen(w->kubeconfig, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f,
            "apiVersion: v1\nkind: Config\ncurrent-context: t\n"
            "clusters:\n- name: fake\n  cluster:\n    server: https://127.0.0.1:%d\n"
            "    certificate-authority: %s\n"
            "users:\n- name: u\n  user:\n    token: " WORLD_TOKEN "\n"
            "contexts:\n- name: t\n  context:\n    cluster: fake\n    user: u\n",
            fake_port(w->fake), test_pki_path(pki, "ca.pem", ca, sizeof(ca)));
    ck_assert_int_eq(fclose(f), 0);
}

void fake_world_start(struct fake_world *w, const char *const *flags)
{
    const char *args[24] = {"--kubeconfig", w->kubeconfig};
    size_t n = 2;
    for (; flags != NULL && *flags != NULL; flags++) {
        ck_assert_uint_lt(n, 23);
        args[n++] = *flags;
    }
    args[n] = NULL;
    server_start(&w->server, args);
}

void fake_world_await_ready(struct fake_world *w)
{
    for (int i = 0; i < 200; i++) {
        struct http_response r;
        int rc = http_request(w->server.port, "GET", "/readyz", NULL, 0, &r);
        int status = r.status;
        http_response_free(&r);
        if (rc == 0 && status == 200)
            return;
        usleep(50000);
    }
    ck_abort_msg("the cluster never became ready");
}

void fake_world_end(struct fake_world *w)
{
    fake_stop(w->fake);
    w->fake = NULL;
    unlink(w->kubeconfig);
}

long fake_world_proc_kib(pid_t pid, const char *key)
{
    char path[64], line[256];
    long v = -1;
    snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    while (fgets(line, sizeof(line), f) != NULL)
        if (strncmp(line, key, strlen(key)) == 0 && line[strlen(key)] == ':')
            v = atol(line + strlen(key) + 1);
    fclose(f);
    return v;
}

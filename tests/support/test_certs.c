#include "tests/support/test_certs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <check.h>

void test_pki_make(struct test_pki *p)
{
    char cmd[256];
    int rc;

    snprintf(p->dir, sizeof(p->dir), "/tmp/cpu-extender-pki-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(p->dir));
    /* mkdtemp names hold no shell metacharacters: no quoting needed. */
    snprintf(cmd, sizeof(cmd), "tests/e2e/make_certs.sh %s", p->dir);
    rc = system(cmd);
    ck_assert_msg(rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 0, "%s failed", cmd);
}

const char *test_pki_path(const struct test_pki *p, const char *name, char *out, size_t n)
{
    snprintf(out, n, "%s/%s", p->dir, name);
    return out;
}

void test_pki_remove(struct test_pki *p)
{
    char cmd[128];
    if (p->dir[0] == '\0')
        return;
    snprintf(cmd, sizeof(cmd), "rm -rf %s", p->dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", p->dir);
    p->dir[0] = '\0';
}

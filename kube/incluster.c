#include "kube/incluster.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/env.h"
#include "base/err.h"

/* A service host goes into a URL: host name, IPv4 or IPv6 characters only. */
static bool is_valid_host(const char *h)
{
    if (*h == '\0')
        return false;
    for (; *h != '\0'; h++)
        if (!(*h >= 'a' && *h <= 'z') && !(*h >= 'A' && *h <= 'Z') && !(*h >= '0' && *h <= '9') &&
            *h != '.' && *h != '-' && *h != ':')
            return false;
    return true;
}

/* Checks that @path is a readable file; errors name it. */
static int check_readable(const char *what, const char *path, char *err)
{
    struct stat st;
    if (stat(path, &st) == -1 || access(path, R_OK) == -1)
        return err_fail(err, -EINVAL, "in-cluster: %s %s: %s", what, path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return err_fail(err, -EINVAL, "in-cluster: %s %s: not a regular file", what, path);
    return 0;
}

int kube_load_incluster(char **envp, const char *dir, struct kube_target *t, char *err)
{
    const char *host = env_get(envp, "KUBERNETES_SERVICE_HOST");
    const char *port = env_get(envp, "KUBERNETES_SERVICE_PORT");
    char *end;
    int rc;

    memset(t, 0, sizeof(*t));
    if (host == NULL || host[0] == '\0')
        return err_fail(err, -ENOENT, "in-cluster: KUBERNETES_SERVICE_HOST is not set");
    if (!is_valid_host(host))
        return err_fail(err, -EINVAL, "in-cluster: KUBERNETES_SERVICE_HOST=%s: not a host", host);
    if (port == NULL || port[0] == '\0')
        return err_fail(err, -EINVAL, "in-cluster: KUBERNETES_SERVICE_PORT is not set");
    errno = 0;
    long p = strtol(port, &end, 10);
    if (errno != 0 || *end != '\0' || p < 1 || p > 65535)
        return err_fail(err, -EINVAL, "in-cluster: KUBERNETES_SERVICE_PORT=%s: not a port", port);
    /* An IPv6 literal needs brackets in a URL. */
    bool v6 = strchr(host, ':') != NULL;
    int n = snprintf(t->server, sizeof(t->server), "https://%s%s%s:%ld", v6 ? "[" : "", host,
                     v6 ? "]" : "", p);
    if (n < 0 || (size_t)n >= sizeof(t->server)) {
        rc = err_fail(err, -EINVAL, "in-cluster: KUBERNETES_SERVICE_HOST too long");
        goto out_destroy;
    }
    snprintf(t->source, sizeof(t->source), "in-cluster");
    n = snprintf(t->token_file, sizeof(t->token_file), "%s/token", dir);
    if (n < 0 || (size_t)n >= sizeof(t->token_file) - 4) {
        rc = err_fail(err, -EINVAL, "in-cluster: %s...: path too long", dir);
        goto out_destroy;
    }
    snprintf(t->ca_file, sizeof(t->ca_file), "%s/ca.crt", dir);
    rc = check_readable("token", t->token_file, err);
    if (rc == 0)
        rc = check_readable("CA", t->ca_file, err);
    if (rc == 0)
        return 0;

out_destroy:
    kube_target_destroy(t);
    return rc;
}

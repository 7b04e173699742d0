/*
 * kubeconfig files as client-go reads them: the files of a list read and
 * merged (kubeconfig_parse.c), then the chosen context resolved into a
 * struct kube_target. What only matters for the entry in use (a missing
 * server, exec credentials, files that do not exist) fails only when that
 * entry is chosen.
 */
#include "kube/kubeconfig.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/file.h"
#include "kube/exec.h"
#include "kube/kubeconfig_parse.h"
#include "kube/token.h"

/* ---- resolution ---- */

/* Copies @path (NULL: none), which must name a regular file, into @dst;
 * errors name the field: "clusters[NAME].cluster.FIELD" for @kind
 * "cluster". */
static int file_field(const char *file, const char *kind, const char *name, const char *field,
                      const char *path, char dst[KUBE_PATH_LEN], char *err)
{
    char why[ERR_LEN / 2];
    struct stat st;

    if (path == NULL)
        return 0;
    if (stat(path, &st) == -1)
        snprintf(why, sizeof(why), "%s: %s", path, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        snprintf(why, sizeof(why), "%s: not a regular file", path);
    else if (strlen(path) >= KUBE_PATH_LEN)
        snprintf(why, sizeof(why), "path too long");
    else {
        memcpy(dst, path, strlen(path) + 1);
        return 0;
    }
    return err_fail(err, -EINVAL, "kubeconfig %s: %ss[%s].%s.%s: %s", file, kind, name, kind, field,
                    why);
}

/* Server URL: http(s)://, no trailing slash. */
static int check_server(const char *server, char *out, size_t cap)
{
    if (strncmp(server, "https://", 8) != 0 && strncmp(server, "http://", 7) != 0)
        return -EINVAL;
    const char *host = strstr(server, "://") + 3;
    if (*host == '\0' || *host == '/')
        return -EINVAL;
    for (const char *s = server; *s != '\0'; s++)
        if ((unsigned char)*s <= ' ' || *s == 0x7f)
            return -EINVAL;
    size_t l = strlen(server);
    while (l > 0 && server[l - 1] == '/')
        l--;
    if (l >= cap)
        return -EINVAL;
    memcpy(out, server, l);
    out[l] = '\0';
    return 0;
}

static int resolve_cluster(const struct kc_cluster *c, struct kube_target *t, char *err)
{
    const char *f = c->e.file;
    const char *n = c->e.name;

    if (c->unsupported != NULL)
        return err_fail(err, -EINVAL, "kubeconfig %s: clusters[%s].cluster.%s: not supported", f, n,
                        c->unsupported);
    if (c->server == NULL || c->server[0] == '\0')
        return err_fail(err, -EINVAL, "kubeconfig %s: clusters[%s].cluster.server: missing", f, n);
    if (check_server(c->server, t->server, sizeof(t->server)) != 0)
        return err_fail(err, -EINVAL,
                        "kubeconfig %s: clusters[%s].cluster.server: want an https:// URL, not "
                        "\"%s\"",
                        f, n, c->server);
    if (c->ca_file != NULL && c->ca_pem != NULL)
        return err_fail(err, -EINVAL,
                        "kubeconfig %s: clusters[%s].cluster: both certificate-authority and "
                        "certificate-authority-data are set",
                        f, n);
    if (c->insecure && (c->ca_file != NULL || c->ca_pem != NULL))
        return err_fail(err, -EINVAL,
                        "kubeconfig %s: clusters[%s].cluster: insecure-skip-tls-verify with a "
                        "certificate authority is not allowed",
                        f, n);
    int rc = file_field(f, "cluster", n, "certificate-authority", c->ca_file, t->ca_file, err);
    if (rc != 0)
        return rc;
    if (c->ca_pem != NULL && (t->ca_pem = strdup(c->ca_pem)) == NULL)
        return err_fail(err, -ENOMEM, "kubeconfig %s: out of memory", f);
    t->insecure_skip_tls_verify = c->insecure;
    return 0;
}

/* ---- exec credential plugins ---- */

/* The checked stanza @e of user @u as a struct kube_exec_config. */
static int exec_config_new(const struct kc_user *u, const struct kc_exec *e,
                           struct kube_exec_config **out)
{
    bool hint = e->install_hint != NULL && e->install_hint[0] != '\0';
    struct kube_exec_config *x = *out = calloc(1, sizeof(*x));
    if (x == NULL)
        return -ENOMEM;
    if (asprintf(&x->where, "kubeconfig %s: users[%s].user.exec", u->e.file, u->e.name) == -1)
        x->where = NULL;
    x->command = strdup(e->command);
    x->api_version = strdup(e->api_version);
    x->install_hint = hint ? strdup(e->install_hint) : NULL;
    x->provide_cluster_info = e->provide_cluster_info;
    x->timeout_ms = KUBE_EXEC_TIMEOUT_MS;
    x->args = calloc(e->n_args + 1, sizeof(*x->args));
    x->env = calloc(e->n_env + 1, sizeof(*x->env));
    if (x->where == NULL || x->command == NULL || x->api_version == NULL || x->args == NULL ||
        x->env == NULL || (hint && x->install_hint == NULL))
        return -ENOMEM;
    /* An install hint goes into a one-line message: no escapes or breaks
     * (client-go strips ANSI escape codes from it for the same reason). */
    for (char *c = x->install_hint; c != NULL && *c != '\0'; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = ' ';
    for (; x->n_args < e->n_args; x->n_args++)
        if ((x->args[x->n_args] = strdup(e->args[x->n_args])) == NULL)
            return -ENOMEM;
    for (; x->n_env < e->n_env; x->n_env++) {
        const char *v = e->env_value[x->n_env] != NULL ? e->env_value[x->n_env] : "";
        if (asprintf(&x->env[x->n_env], "%s=%s", e->env_name[x->n_env], v) == -1) {
            x->env[x->n_env] = NULL;
            return -ENOMEM;
        }
    }
    return 0;
}

/* Checks users[].user.exec as client-go's validation and exec
 * authenticator do, and adds it to @t unless @use is false. */
static int resolve_exec(const struct kc_user *u, bool use, struct kube_target *t, char *err)
{
    const struct kc_exec *e = u->exec;
    const char *v = e->api_version != NULL ? e->api_version : "";
    const char *mode = e->interactive_mode != NULL ? e->interactive_mode : "";
    char w[ERR_LEN / 2];

    snprintf(w, sizeof(w), "kubeconfig %s: users[%s].user.exec", u->e.file, u->e.name);
    if (e->command == NULL || e->command[0] == '\0')
        return err_fail(err, -EINVAL, "%s.command: missing", w);
    if (v[0] == '\0')
        return err_fail(err, -EINVAL, "%s.apiVersion: missing (%s or %s)", w, KUBE_EXEC_V1,
                        KUBE_EXEC_V1BETA1);
    if (strcmp(v, KUBE_EXEC_V1) != 0 && strcmp(v, KUBE_EXEC_V1BETA1) != 0)
        return err_fail(err, -EINVAL, "%s.apiVersion: \"%s\" is not supported%s; use %s or %s", w,
                        v,
                        strcmp(v, "client.authentication.k8s.io/v1alpha1") == 0
                            ? " (client-go dropped it in Kubernetes 1.24)"
                            : "",
                        KUBE_EXEC_V1, KUBE_EXEC_V1BETA1);
    /* client-go defaults it to IfAvailable for v1beta1 and requires it
     * with v1. The service never has a terminal to give the plugin, so
     * IfAvailable means not interactive, and Always cannot be met. */
    if (mode[0] == '\0' && strcmp(v, KUBE_EXEC_V1BETA1) != 0)
        return err_fail(err, -EINVAL,
                        "%s.interactiveMode: missing (Never or IfAvailable; %s requires it)", w, v);
    if (strcmp(mode, "Always") == 0)
        return err_fail(err, -EINVAL,
                        "%s.interactiveMode: Always needs a terminal on standard input, which "
                        "cpu-extender never gives a plugin (client-go refuses it without one too)",
                        w);
    if (mode[0] != '\0' && strcmp(mode, "Never") != 0 && strcmp(mode, "IfAvailable") != 0)
        return err_fail(err, -EINVAL,
                        "%s.interactiveMode: \"%s\" is not Never, IfAvailable or Always", w, mode);
    for (size_t i = 0; i < e->n_env; i++) {
        const char *name = e->env_name[i];
        if (name == NULL || name[0] == '\0' || strchr(name, '=') != NULL)
            return err_fail(err, -EINVAL, "%s.env[%zu].name: %s", w, i,
                            name == NULL || name[0] == '\0' ? "missing" : "contains '='");
    }
    if (!use)
        return 0;
    int rc = exec_config_new(u, e, &t->exec);
    if (rc != 0)
        err_set(err, "kubeconfig %s: out of memory", u->e.file);
    return rc;
}

static int resolve_user(const struct kc_user *u, struct kube_target *t, char *err)
{
    const char *f = u->e.file;
    const char *n = u->e.name;
    int rc;

    if (u->unsupported != NULL)
        return err_fail(err, -EINVAL, "kubeconfig %s: users[%s].user.%s: %s (user \"%s\")", f, n,
                        u->unsupported, u->why, n);
    if (u->cert_file != NULL && u->cert_pem != NULL)
        return err_fail(err, -EINVAL,
                        "kubeconfig %s: users[%s].user: both client-certificate and "
                        "client-certificate-data are set",
                        f, n);
    if (u->key_file != NULL && u->key_pem != NULL)
        return err_fail(
            err, -EINVAL,
            "kubeconfig %s: users[%s].user: both client-key and client-key-data are set", f, n);
    bool has_cert = u->cert_file != NULL || u->cert_pem != NULL;
    bool has_key = u->key_file != NULL || u->key_pem != NULL;
    if (has_cert != has_key)
        return err_fail(err, -EINVAL, "kubeconfig %s: users[%s].user: %s without %s", f, n,
                        has_cert ? "a client certificate" : "a client key",
                        has_cert ? "a client key" : "a client certificate");
    /* client-go: a tokenFile is read (and re-read) when no token is set;
     * with both, the file still refreshes the token. Keep just the file. */
    if (u->token_file != NULL) {
        rc = file_field(f, "user", n, "tokenFile", u->token_file, t->token_file, err);
        if (rc != 0)
            return rc;
    } else if (u->token != NULL && u->token[0] != '\0') {
        if (!kube_token_is_valid(u->token, strlen(u->token)))
            return err_fail(err, -EINVAL,
                            "kubeconfig %s: users[%s].user.token: spaces or control characters", f,
                            n);
        if ((t->token = strdup(u->token)) == NULL)
            goto out_nomem;
    }
    rc = file_field(f, "user", n, "client-certificate", u->cert_file, t->cert_file, err);
    if (rc == 0)
        rc = file_field(f, "user", n, "client-key", u->key_file, t->key_file, err);
    if (rc != 0)
        return rc;
    if ((u->cert_pem != NULL && (t->cert_pem = strdup(u->cert_pem)) == NULL) ||
        (u->key_pem != NULL && (t->key_pem = strdup(u->key_pem)) == NULL))
        goto out_nomem;
    /* client-go runs the plugin only when the user has no token, token
     * file or client certificate of its own (exec.go
     * UpdateTransportConfig); the stanza is still validated. */
    if (u->exec != NULL)
        return resolve_exec(u, !has_cert && u->token_file == NULL && t->token == NULL, t, err);
    return 0;

out_nomem:
    return err_fail(err, -ENOMEM, "kubeconfig %s: out of memory", f);
}

/* Resolves @context (or the current context) of @m into *@t; @src names
 * the file list in messages. On failure *@t is destroyed. */
static int kc_resolve(const struct kc_config *m, const char *src, const char *context,
                      struct kube_target *t, char *err)
{
    const struct kc_user *u = NULL;
    int rc;

    const char *name = context != NULL && context[0] != '\0' ? context : m->current_context;
    if (name == NULL)
        return err_fail(err, -EINVAL, "kubeconfig %s: current-context is not set", src);
    const struct kc_context *x = (const void *)kube_kc_find(m, KC_CONTEXT, name);
    if (x == NULL)
        return err_fail(err, -EINVAL, "kubeconfig %s: context \"%s\" not found", src, name);
    if (x->cluster == NULL || x->cluster[0] == '\0')
        return err_fail(err, -EINVAL, "kubeconfig %s: contexts[%s].context.cluster: missing",
                        x->e.file, x->e.name);
    const struct kc_cluster *c = (const void *)kube_kc_find(m, KC_CLUSTER, x->cluster);
    if (c == NULL)
        return err_fail(err, -EINVAL, "kubeconfig %s: cluster \"%s\" (of context \"%s\") not found",
                        src, x->cluster, x->e.name);
    /* No user is anonymous access, as in client-go. */
    if (x->user != NULL && x->user[0] != '\0' &&
        (u = (const void *)kube_kc_find(m, KC_USER, x->user)) == NULL)
        return err_fail(err, -EINVAL, "kubeconfig %s: user \"%s\" (of context \"%s\") not found",
                        src, x->user, x->e.name);

    memset(t, 0, sizeof(*t));
    snprintf(t->source, sizeof(t->source), "kubeconfig %.3900s (context %.64s)", src, x->e.name);
    rc = resolve_cluster(c, t, err);
    if (rc == 0 && u != NULL)
        rc = resolve_user(u, t, err);
    if (rc != 0)
        kube_target_destroy(t);
    return rc;
}

int kube_parse_kubeconfig_text(const char *text, size_t len, const char *name, const char *dir,
                               const char *context, struct kube_target *t, char *err)
{
    struct kc_config m = {0};

    memset(t, 0, sizeof(*t));
    int rc = kube_kc_parse(&m, text, len, name, dir, err);
    if (rc == 0)
        rc = kc_resolve(&m, name, context, t, err);
    kube_kc_free(&m);
    return rc;
}

/* Reads @path whole (at most KUBE_KUBECONFIG_MAX bytes). Returns 0, -ENOENT
 * when it does not exist, or -EINVAL / -ENOMEM with @err. */
static int read_file(const char *path, char **out, size_t *len, char *err)
{
    int rc = file_read(path, KUBE_KUBECONFIG_MAX, FILE_REGULAR, out, len, err);
    if (rc == -EFBIG)
        err_set(err, "kubeconfig %s: larger than %u MiB", path, KUBE_KUBECONFIG_MAX >> 20);
    else if (rc != 0 && rc != -ENOENT)
        err_prefix(err, "kubeconfig ");
    return rc == 0 || rc == -ENOENT || rc == -ENOMEM ? rc : -EINVAL;
}

/* The absolute directory of @path into @dir. */
static int dir_of(const char *path, char dir[KUBE_PATH_LEN])
{
    const char *slash = strrchr(path, '/');
    char cwd[KUBE_PATH_LEN];
    size_t dl = slash == NULL ? 0 : slash == path ? 1 : (size_t)(slash - path);

    if (path[0] == '/') {
        memcpy(dir, path, dl);
        dir[dl] = '\0';
        return 0;
    }
    if (getcwd(cwd, sizeof(cwd)) == NULL)
        return -errno;
    int n = slash == NULL ? snprintf(dir, KUBE_PATH_LEN, "%s", cwd)
                          : snprintf(dir, KUBE_PATH_LEN, "%s/%.*s", cwd, (int)dl, path);
    return n < 0 || n >= KUBE_PATH_LEN ? -ENAMETOOLONG : 0;
}

int kube_load_kubeconfig(const char *path, const char *context, struct kube_target *t, char *err)
{
    struct kc_config m = {0};
    size_t loaded = 0;
    int rc = 0;

    memset(t, 0, sizeof(*t));
    err[0] = '\0';
    for (const char *p = path; rc == 0 && *p != '\0';) {
        const char *colon = strchr(p, ':');
        size_t l = colon != NULL ? (size_t)(colon - p) : strlen(p);
        char file[KUBE_PATH_LEN], dir[KUBE_PATH_LEN];
        char *text = NULL;
        size_t len;

        const char *next = colon != NULL ? colon + 1 : p + l;
        if (l == 0) {
            p = next;
            continue;
        }
        if (l >= sizeof(file)) {
            rc = err_fail(err, -EINVAL, "kubeconfig %.*s...: path too long", 64, p);
            break;
        }
        memcpy(file, p, l);
        file[l] = '\0';
        p = next;
        rc = read_file(file, &text, &len, err);
        if (rc == -ENOENT) {
            rc = 0; /* missing files in the list are skipped, as in client-go */
            continue;
        }
        if (rc != 0)
            break;
        rc = dir_of(file, dir);
        if (rc != 0)
            err_set(err, "kubeconfig %s: directory: %s", file, strerror(-rc));
        else
            rc = kube_kc_parse(&m, text, len, file, dir, err);
        free(text);
        loaded++;
    }
    if (rc == 0 && loaded == 0)
        rc = err_fail(err, -ENOENT, "kubeconfig %s: no such file", path);
    if (rc == 0 && m.lists[KC_CLUSTER].n == 0 && m.lists[KC_USER].n == 0 &&
        m.lists[KC_CONTEXT].n == 0 && m.current_context == NULL) {
        rc = err_fail(err, -ENOENT, "kubeconfig %s: defines no cluster, user or context", path);
    }
    if (rc == 0)
        rc = kc_resolve(&m, path, context, t, err);
    kube_kc_free(&m);
    return rc;
}

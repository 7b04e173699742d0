/*
 * exec credential plugins: running one (kube/spawn.c), reading its
 * ExecCredential, and the cache in front of it. client-go's
 * plugin/pkg/client/auth/exec/exec.go is the reference: refreshCredsLocked
 * for a run, getCreds / maybeRefreshCreds for the cache and the 401.
 */
#include "kube/exec.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "base/base64.h"
#include "base/clock.h"
#include "base/err.h"
#include "base/file.h"
#include "kube/exec_output.h"
#include "kube/spawn.h"

#define EXEC_INFO_ENV "KUBERNETES_EXEC_INFO"

extern char **environ;

/* A credential as the plugin gave it, and when to run it again. */
struct cred {
    struct kube_exec_status st;
    double refresh_at; /* with an expiry: run again from this time on */
    uint64_t generation;
};

struct kube_exec {
    struct kube_exec_config *cfg; /* shared with the target it came from */
    char **argv;                  /* command, args, NULL; borrowed from cfg */
    char *info;                   /* "KUBERNETES_EXEC_INFO=..." */
    pthread_mutex_t lock;
    pthread_cond_t finished; /* a run ended */
    /* guarded by lock: */
    bool running;
    uint64_t runs; /* started so far; a run's number is its generation */
    int last_rc;   /* of the latest run to end */
    char last_err[ERR_LEN];
    struct cred cur; /* generation 0: none yet */
};

static void cred_wipe(struct cred *c)
{
    kube_exec_status_wipe(&c->st);
    memset(c, 0, sizeof(*c));
}

void kube_exec_cred_wipe(struct kube_exec_cred *c)
{
    kube_free_secret(c->header);
    free(c->cert_pem);
    kube_free_secret(c->key_pem);
    memset(c, 0, sizeof(*c));
}

/* ---- setting up ---- */

/* spec.cluster (clientauthentication Cluster, as rest.ConfigToExecCluster
 * fills it): the server, the CA as data (a CA file is read), and
 * insecure-skip-tls-verify. */
static int add_cluster(cJSON *spec, const struct kube_target *t, char *err)
{
    cJSON *cl = cJSON_AddObjectToObject(spec, "cluster");
    char *file_pem = NULL, *b64 = NULL;
    size_t len = 0;
    int rc = 0;

    if (cl == NULL || cJSON_AddStringToObject(cl, "server", t->server) == NULL)
        return -ENOMEM;
    if (t->ca_pem == NULL && t->ca_file[0] != '\0') {
        rc = file_read(t->ca_file, KUBE_EXEC_CA_MAX, FILE_REGULAR, &file_pem, &len, err);
        if (rc != 0) {
            err_prefix(err, "%s: provideClusterInfo: certificate-authority ", t->exec->where);
            return rc == -ENOMEM ? rc : -EINVAL;
        }
    }
    const char *pem = t->ca_pem != NULL ? t->ca_pem : file_pem;
    if (pem != NULL) {
        b64 = base64_encode(pem, t->ca_pem != NULL ? strlen(pem) : len);
        if (b64 == NULL || cJSON_AddStringToObject(cl, "certificate-authority-data", b64) == NULL)
            rc = -ENOMEM;
    }
    if (rc == 0 && t->insecure_skip_tls_verify &&
        cJSON_AddTrueToObject(cl, "insecure-skip-tls-verify") == NULL)
        rc = -ENOMEM;
    free(b64);
    free(file_pem);
    return rc;
}

/* "KUBERNETES_EXEC_INFO=<ExecCredential>": what client-go encodes in
 * refreshCredsLocked. It does not change between runs. */
static int make_info(struct kube_exec *x, const struct kube_target *t, char *err)
{
    cJSON *j = cJSON_CreateObject();
    cJSON *spec = NULL;
    char *text = NULL;
    int rc = -ENOMEM;

    if (j != NULL && cJSON_AddStringToObject(j, "kind", "ExecCredential") != NULL &&
        cJSON_AddStringToObject(j, "apiVersion", x->cfg->api_version) != NULL &&
        (spec = cJSON_AddObjectToObject(j, "spec")) != NULL)
        rc = x->cfg->provide_cluster_info ? add_cluster(spec, t, err) : 0;
    if (rc == 0 && (cJSON_AddFalseToObject(spec, "interactive") == NULL ||
                    (text = cJSON_PrintUnformatted(j)) == NULL ||
                    asprintf(&x->info, "%s=%s", EXEC_INFO_ENV, text) == -1))
        rc = -ENOMEM;
    free(text);
    cJSON_Delete(j);
    if (rc == -ENOMEM) {
        x->info = NULL; /* asprintf leaves it undefined when it fails */
        err_set(err, "%s: out of memory", t->exec->where);
    }
    return rc;
}

int kube_exec_new(const struct kube_target *t, struct kube_exec **out, char *err)
{
    *out = NULL;
    struct kube_exec *x = calloc(1, sizeof(*x));
    if (x == NULL)
        return err_fail(err, -ENOMEM, "%s: out of memory", t->exec->where);
    x->cfg = t->exec;
    atomic_fetch_add(&x->cfg->shares, 1);
    x->argv = calloc(x->cfg->n_args + 2, sizeof(*x->argv));
    int rc = x->argv == NULL ? err_fail(err, -ENOMEM, "%s: out of memory", t->exec->where)
                             : make_info(x, t, err);
    if (rc != 0)
        goto out_free;
    x->argv[0] = x->cfg->command;
    for (size_t i = 0; i < x->cfg->n_args; i++)
        x->argv[i + 1] = x->cfg->args[i];
    rc = -pthread_mutex_init(&x->lock, NULL);
    if (rc == 0 && (rc = clock_cond_init(&x->finished)) != 0)
        pthread_mutex_destroy(&x->lock);
    if (rc != 0) {
        err_set(err, "%s: %s", t->exec->where, strerror(-rc));
        goto out_free;
    }
    *out = x;
    return 0;

out_free:
    free(x->info);
    free(x->argv);
    kube_exec_config_free(x->cfg);
    free(x);
    return rc;
}

void kube_exec_free(struct kube_exec *x)
{
    if (x == NULL)
        return;
    cred_wipe(&x->cur);
    pthread_cond_destroy(&x->finished);
    pthread_mutex_destroy(&x->lock);
    /* With provideClusterInfo, the CA only; but wipe it all the same. */
    kube_free_secret(x->info);
    free(x->argv);
    kube_exec_config_free(x->cfg);
    free(x);
}

/* ---- one run ---- */

/* Whether "NAME=..." @a names @name (up to its '='). */
static bool is_same_name(const char *a, const char *b)
{
    const char *ea = strchr(a, '='), *eb = strchr(b, '=');
    size_t la = ea != NULL ? (size_t)(ea - a) : strlen(a);
    size_t lb = eb != NULL ? (size_t)(eb - b) : strlen(b);
    return la == lb && memcmp(a, b, la) == 0;
}

/* The plugin's environment: ours, then the configured env, then
 * KUBERNETES_EXEC_INFO, a later entry replacing an earlier one of the same
 * name (as Go's exec.Cmd does with client-go's appended list). The
 * strings are borrowed. */
static char **make_env(const struct kube_exec *x)
{
    size_t n_own = 0;
    while (environ != NULL && environ[n_own] != NULL)
        n_own++;
    size_t n = n_own + x->cfg->n_env + 1;
    char **all = calloc(n, sizeof(*all));
    char **env = calloc(n + 1, sizeof(*env));
    if (all == NULL || env == NULL) {
        free(all);
        free(env);
        return NULL;
    }
    memcpy(all, environ, n_own * sizeof(*all));
    memcpy(all + n_own, x->cfg->env, x->cfg->n_env * sizeof(*all));
    all[n - 1] = x->info;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        bool later = false;
        for (size_t j = i + 1; j < n && !later; j++)
            later = is_same_name(all[i], all[j]);
        if (!later)
            env[k++] = all[i];
    }
    free(all);
    return env;
}

/* The first line of what the plugin said on standard error, for a
 * message: ": line", or "" when it said nothing. */
static void first_line(const char *text, char *out, size_t cap)
{
    while (*text == '\n' || *text == '\r' || *text == ' ')
        text++;
    size_t n = strcspn(text, "\r\n");
    if (n > 200)
        n = 200;
    if (n == 0 || cap < 3) {
        out[0] = '\0';
        return;
    }
    int w = snprintf(out, cap, ": %.*s", (int)n, text);
    for (char *c = out; w > 0 && *c != '\0'; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = ' ';
    err_utf8_trim(out);
}

/* Why the run of @res failed, into @err; 0 when it did not. */
static int run_failure(const struct kube_exec *x, int rc, int timeout_ms,
                       const struct kube_spawn_out *res, char *err)
{
    const struct kube_exec_config *c = x->cfg;
    char said[256];

    if (rc == -ENOENT) {
        /* client-go: "exec: executable %s not found", and the install hint */
        return err_fail(err, -EACCES, "%s: executable %s not found%s%s", c->where, c->command,
                        c->install_hint != NULL ? ": " : "",
                        c->install_hint != NULL ? c->install_hint : "");
    }
    if (rc == -E2BIG)
        return err_fail(
            err, -EACCES,
            "%s: executable %s: arguments and environment over the kernel's limit (%s is %zu "
            "bytes)",
            c->where, c->command, EXEC_INFO_ENV, strlen(x->info));
    if (rc == -ENOMEM)
        return err_fail(err, rc, "%s: out of memory", c->where);
    if (rc != 0)
        return err_fail(err, -EACCES, "%s: executable %s cannot be run: %s", c->where, c->command,
                        strerror(-rc));
    first_line(res->err_text, said, sizeof(said));
    if (res->timed_out) {
        err_set(err, "%s: executable %s did not finish within %g s%s and was killed%s", c->where,
                c->command, timeout_ms / 1000.0,
                timeout_ms < c->timeout_ms ? " (the caller's deadline)" : "", said);
        return timeout_ms < c->timeout_ms ? -ETIMEDOUT : -EACCES;
    }
    if (res->out_too_big)
        return err_fail(err, -EACCES, "%s: executable %s wrote more than %u KiB to standard output",
                        c->where, c->command, KUBE_EXEC_OUTPUT_MAX >> 10);
    if (WIFSIGNALED(res->status))
        return err_fail(err, -EACCES, "%s: executable %s was killed by signal %d%s", c->where,
                        c->command, WTERMSIG(res->status), said);
    if (!WIFEXITED(res->status) || WEXITSTATUS(res->status) != 0) {
        /* client-go: "exec: executable %s failed with exit code %d" */
        return err_fail(err, -EACCES, "%s: executable %s failed with exit code %d%s", c->where,
                        c->command, WIFEXITED(res->status) ? WEXITSTATUS(res->status) : -1, said);
    }
    return 0;
}

/* Milliseconds from now to @deadline, at most @cap; 0 when it has come. */
static int ms_until(uint64_t deadline, int cap)
{
    uint64_t now = clock_mono_ns();
    if (deadline <= now)
        return 0;
    uint64_t ms = (deadline - now + CLOCK_NS_PER_MS - 1) / CLOCK_NS_PER_MS;
    return ms < (uint64_t)cap ? (int)ms : cap;
}

/* Runs the plugin once, until @deadline at the latest: 0 with a fresh
 * credential in @c, or the reason. */
static int run_plugin(const struct kube_exec *x, uint64_t deadline, struct cred *c, char *err)
{
    struct kube_spawn_out res;
    int timeout_ms = ms_until(deadline, x->cfg->timeout_ms);
    if (timeout_ms == 0)
        return err_fail(err, -ETIMEDOUT,
                        "%s: executable %s not run: the caller's deadline has passed",
                        x->cfg->where, x->cfg->command);
    char **env = make_env(x);
    if (env == NULL)
        return err_fail(err, -ENOMEM, "%s: out of memory", x->cfg->where);
    int rc = kube_spawn_run(x->cfg->command, x->argv, env, timeout_ms, KUBE_EXEC_OUTPUT_MAX, &res);
    free(env);
    rc = run_failure(x, rc, timeout_ms, &res, err);
    double now = clock_wall();
    if (rc == 0)
        rc = kube_exec_read_output(x->cfg->where, x->cfg->api_version, res.out, res.out_len, now,
                                   &c->st, err);
    kube_spawn_out_wipe(&res);
    if (rc == 0 && c->st.has_expiry) {
        /* Early enough that a request started now still carries a valid
         * credential, but not so early that a short-lived one (a plugin
         * that hands out its own cached token near its end) runs the
         * plugin at every request: half the time left, at most
         * KUBE_EXEC_EARLY_MAX. */
        double early = (c->st.expiry - now) / 2;
        c->refresh_at = c->st.expiry - (early < KUBE_EXEC_EARLY_MAX ? early : KUBE_EXEC_EARLY_MAX);
    }
    return rc;
}

/* ---- the cache ---- */

/* With the lock held: whether the cached credential serves a request now
 * without a run (before its refresh time), or (@until_expiry) at all. */
static bool is_usable(const struct kube_exec *x, uint64_t refused, bool until_expiry)
{
    const struct cred *c = &x->cur;
    if (c->generation == 0 || c->generation == refused)
        return false;
    return !c->st.has_expiry || clock_wall() < (until_expiry ? c->st.expiry : c->refresh_at);
}

/* With the lock held: copies of the cached credential for one request. */
static int copy_out(const struct kube_exec *x, struct kube_exec_cred *out, char *err)
{
    const struct kube_exec_status *c = &x->cur.st;
    out->generation = x->cur.generation;
    if (c->token != NULL && asprintf(&out->header, "Authorization: Bearer %s", c->token) == -1)
        out->header = NULL;
    out->cert_pem = c->cert_pem != NULL ? strdup(c->cert_pem) : NULL;
    out->key_pem = c->key_pem != NULL ? strdup(c->key_pem) : NULL;
    if ((c->token != NULL && out->header == NULL) ||
        (c->cert_pem != NULL && out->cert_pem == NULL) ||
        (c->key_pem != NULL && out->key_pem == NULL)) {
        kube_exec_cred_wipe(out);
        return err_fail(err, -ENOMEM, "%s: out of memory", x->cfg->where);
    }
    return 0;
}

/* With the lock held, after a failed run: the cached credential while it
 * has not expired (a refresh ahead of time failed), else the run's error. */
static int after_failure(const struct kube_exec *x, uint64_t refused, struct kube_exec_cred *out,
                         char *err)
{
    if (is_usable(x, refused, true))
        return copy_out(x, out, err);
    memcpy(err, x->last_err, ERR_LEN);
    return x->last_rc;
}

/* With the lock held: waits for the run under way to end, until
 * @deadline. Returns 0, or -ETIMEDOUT with the reason in @err. */
static int await_run(struct kube_exec *x, uint64_t deadline, char *err)
{
    const struct timespec until = clock_timespec_of(deadline);
    uint64_t run = x->runs;
    while (x->running && x->runs == run) {
        if (deadline == KUBE_EXEC_NO_DEADLINE) {
            pthread_cond_wait(&x->finished, &x->lock);
        } else if (pthread_cond_timedwait(&x->finished, &x->lock, &until) == ETIMEDOUT) {
            return err_fail(err, -ETIMEDOUT,
                            "%s: executable %s still running at the caller's deadline",
                            x->cfg->where, x->cfg->command);
        }
    }
    return 0;
}

int kube_exec_get(struct kube_exec *x, uint64_t refused, uint64_t deadline,
                  struct kube_exec_cred *out, char *err)
{
    struct cred fresh = {0};
    int rc;

    memset(out, 0, sizeof(*out));
    pthread_mutex_lock(&x->lock);
    for (;;) {
        if (is_usable(x, refused, false)) {
            rc = copy_out(x, out, err);
            goto out_unlock;
        }
        if (!x->running)
            break;
        /* client-go holds its mutex over the run for the same end: one run
         * at a time, and its result for everyone who waited. */
        rc = await_run(x, deadline, err);
        if (rc != 0)
            goto out_unlock;
        if (x->last_rc != 0) {
            rc = after_failure(x, refused, out, err);
            goto out_unlock;
        }
    }
    uint64_t run = ++x->runs;
    x->running = true;
    pthread_mutex_unlock(&x->lock);

    rc = run_plugin(x, deadline, &fresh, err);

    pthread_mutex_lock(&x->lock);
    x->running = false;
    x->last_rc = rc;
    if (rc == 0) {
        cred_wipe(&x->cur);
        x->cur = fresh;
        x->cur.generation = run;
        rc = copy_out(x, out, err);
    } else {
        memcpy(x->last_err, err, ERR_LEN);
        rc = after_failure(x, refused, out, err);
    }
    pthread_cond_broadcast(&x->finished);
out_unlock:
    pthread_mutex_unlock(&x->lock);
    return rc;
}

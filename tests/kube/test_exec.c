/*
 * exec credential plugins (kube/exec.c, kube/spawn.c, kube/exec_output.c)
 * through the client against the fake API server: a small sh plugin,
 * written per test into a temporary directory, prints an ExecCredential
 * and records every run (its arguments, environment, KUBERNETES_EXEC_INFO
 * and standard input); files next to it tell it what token to print, what
 * expiry, and whether to fail, sleep, print garbage or another apiVersion.
 */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "base/base64.h"
#include "base/clock.h"
#include "kube/client.h"
#include "kube/exec.h"
#include "kube/kubeconfig.h"
#include "kube/spawn.h"
#include "tests/suites.h"
#include "tests/support/fake_apiserver.h"
#include "tests/support/fixtures.h"
#include "tests/support/test_certs.h"

#define TOKEN "exec-token-1"

/* The plugin. It counts its runs in "count" and appends one block per run
 * to "record"; "mode" makes it misbehave ("litter": it leaves a sleep in
 * its process group, one that left it with setsid, and a short one). */
static const char plugin_sh[] =
    "#!/bin/sh\n"
    "d=$PLUGIN_DIR\n"
    "n=$(cat \"$d/count\" 2>/dev/null || echo 0)\n"
    "n=$((n + 1))\n"
    "echo $n >\"$d/count\"\n"
    "{\n"
    "  echo \"run $n\"\n"
    "  printf 'args'; for a in \"$@\"; do printf ' [%s]' \"$a\"; done; echo\n"
    "  echo \"var $PLUGIN_VAR\"\n"
    "  echo \"stdin $(wc -c)\"\n"
    "  echo \"info $KUBERNETES_EXEC_INFO\"\n"
    "} >>\"$d/record\"\n"
    "mode=$(cat \"$d/mode\" 2>/dev/null)\n"
    "version=$(cat \"$d/version\" 2>/dev/null || echo client.authentication.k8s.io/v1)\n"
    "token=$(cat \"$d/token\")\n"
    "case \"$mode\" in\n"
    "fail) echo 'plugin: the SSO session expired; run aws sso login' >&2; exit 3 ;;\n"
    "sleep) sleep 30 & echo $! >\"$d/sleep.pid\"; wait ;;\n"
    "litter) sleep 300 & echo $! >>\"$d/litter.pids\"\n"
    "        setsid sleep 0.2 & echo $! >>\"$d/escaped.pids\"\n"
    "        (sleep 0.05) & ;;\n"
    "closes) printf '{\"apiVersion\":\"%s\",\"kind\":\"ExecCredential\",\"status\":"
    "{\"token\":\"%s\"}}\\n' \"$version\" \"$token\"\n"
    "        exec >&- 2>&-; sleep 0.3; exit 0 ;;\n"
    "slow) sleep 0.5 ;;\n"
    "slowfail) sleep 0.5; echo 'plugin: no network' >&2; exit 4 ;;\n"
    "garbage) echo \"$token is not JSON\"; exit 0 ;;\n"
    "notoken) printf '{\"apiVersion\":\"%s\",\"kind\":\"ExecCredential\",\"status\":{}}\\n' "
    "\"$version\"; exit 0 ;;\n"
    "cert) c=$(awk '{printf \"%s\\\\n\", $0}' \"$d/client.pem\")\n"
    "      k=$(awk '{printf \"%s\\\\n\", $0}' \"$d/client.key\")\n"
    "      printf '{\"apiVersion\":\"%s\",\"kind\":\"ExecCredential\",\"status\":"
    "{\"clientCertificateData\":\"%s\",\"clientKeyData\":\"%s\"}}\\n' \"$version\" \"$c\" \"$k\"\n"
    "      exit 0 ;;\n"
    "esac\n"
    "exp=$(cat \"$d/expiry\" 2>/dev/null)\n"
    "e=''\n"
    "[ -n \"$exp\" ] && e=\",\\\"expirationTimestamp\\\":\\\"$exp\\\"\"\n"
    "printf '{\"apiVersion\":\"%s\",\"kind\":\"ExecCredential\",\"status\":"
    "{\"token\":\"%s\"%s}}\\n' \"$version\" \"$token\" \"$e\"\n";

static struct test_pki pki;
static struct fake_apiserver *fake;
static char dir[64];

static void setup(void)
{
    char c[128], k[128];
    ck_assert_int_eq(kube_global_init(), 0);
    test_pki_make(&pki);
    struct fake_params p = {
        .cert_file = test_pki_path(&pki, "server.pem", c, sizeof(c)),
        .key_file = test_pki_path(&pki, "server.key", k, sizeof(k)),
        .token = TOKEN,
    };
    ck_assert_int_eq(fake_start(&p, &fake), 0);
    snprintf(dir, sizeof(dir), "/tmp/exec-test-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void teardown(void)
{
    fake_stop(fake);
    fake = NULL;
    test_pki_remove(&pki);
    nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    kube_global_cleanup();
}

/* dir/@name in a static buffer of its own per slot. */
static const char *at(int slot, const char *name)
{
    static char paths[4][128];
    snprintf(paths[slot], sizeof(paths[slot]), "%s/%s", dir, name);
    return paths[slot];
}

static void put(const char *name, const char *text)
{
    file_write(at(0, name), text);
}

/* The plugin as dir/@name, executable. */
static void write_plugin(const char *name)
{
    put(name, plugin_sh);
    ck_assert_int_eq(chmod(at(0, name), 0755), 0);
}

/* How many times the plugin ran. */
static int runs(void)
{
    size_t len;
    char *s = file_slurp(at(1, "count"), &len);
    int n = s != NULL ? atoi(s) : 0;
    free(s);
    return n;
}

/* A kubeconfig in dir whose user "sso" runs @command with @extra lines
 * under exec (each "      key: value\n"); loaded into @t. */
static void load(const char *command, const char *extra, struct kube_target *t)
{
    char doc[2048], err[ERR_LEN] = "", ca[128];
    snprintf(doc, sizeof(doc),
             "current-context: c\n"
             "clusters:\n- name: fake\n  cluster:\n    server: https://127.0.0.1:%d\n"
             "    certificate-authority: %s\n"
             "users:\n- name: sso\n  user:\n    exec:\n"
             "      apiVersion: client.authentication.k8s.io/v1\n"
             "      interactiveMode: Never\n"
             "      command: %s\n"
             "      args: [get-token, --cluster, \"a b\"]\n"
             "      env:\n      - {name: PLUGIN_DIR, value: %s}\n%s"
             "contexts:\n- name: c\n  context: {cluster: fake, user: sso}\n",
             fake_port(fake), test_pki_path(&pki, "ca.pem", ca, sizeof(ca)), command, dir,
             extra != NULL ? extra : "");
    put("kubeconfig", doc);
    ck_assert_msg(kube_load_kubeconfig(at(0, "kubeconfig"), NULL, t, err) == 0, "%s", err);
    ck_assert_ptr_nonnull(t->exec);
}

static struct kube_client *client_of(struct kube_target *t)
{
    struct kube_client *c = NULL;
    char err[ERR_LEN] = "";
    ck_assert_msg(kube_client_new(t, &c, err) == 0, "%s", err);
    kube_target_destroy(t);
    return c;
}

/* The default: the plugin at dir/plugin, printing TOKEN, no expiry. */
static struct kube_client *plugin_client(const char *extra)
{
    struct kube_target t;
    write_plugin("plugin");
    put("token", TOKEN "\n");
    load(at(2, "plugin"), extra, &t);
    return client_of(&t);
}

/* GET /api/v1/nodes: the HTTP status, or the negative errno. */
static long get(struct kube_client *c, char *err)
{
    struct kube_response r;
    int rc = kube_get(c, "/api/v1/nodes", 10, &r, err);
    free(r.body);
    return rc != 0 ? rc : r.status;
}

/* RFC 3339 for now + @seconds, with milliseconds. */
static const char *stamp(double seconds)
{
    static char out[64];
    double t = clock_wall() + seconds;
    time_t whole = (time_t)t;
    struct tm tm;
    gmtime_r(&whole, &tm);
    size_t n = strftime(out, sizeof(out), "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out + n, sizeof(out) - n, ".%03dZ", (int)((t - (double)whole) * 1000));
    return out;
}

START_TEST(exec_first_request_runs_plugin_then_token_is_cached)
{
    char err[ERR_LEN] = "";
    struct kube_client *c = plugin_client(NULL);
    ck_assert_int_eq(runs(), 0); /* nothing runs before a request */
    for (int i = 0; i < 3; i++)
        ck_assert_msg(get(c, err) == 200, "request %d: %s", i, err);
    ck_assert_int_eq(runs(), 1); /* no expiry: kept for the process's lifetime */
    struct fake_counts n;
    fake_counts(fake, &n);
    ck_assert_uint_eq(n.unauthorized, 0);
    kube_client_free(c);

    /* what it was given: args in order, the configured env, no input,
     * and the ExecCredential of its apiVersion without cluster */
    size_t len;
    char *rec = file_slurp(at(0, "record"), &len);
    ck_assert_str_eq(rec,
                     "run 1\n"
                     "args [get-token] [--cluster] [a b]\n"
                     "var \n"
                     "stdin 0\n"
                     "info {\"kind\":\"ExecCredential\",\"apiVersion\":"
                     "\"client.authentication.k8s.io/v1\",\"spec\":{\"interactive\":false}}\n");
    free(rec);
}
END_TEST

START_TEST(exec_provide_cluster_info_passes_server_and_ca)
{
    char err[ERR_LEN] = "", want[64], ca_path[128];
    struct kube_client *c = plugin_client("      provideClusterInfo: true\n");
    ck_assert_msg(get(c, err) == 200, "%s", err);
    kube_client_free(c);

    size_t len, ca_len, got_len;
    char *rec = file_slurp(at(0, "record"), &len);
    char *info = strstr(rec, "info ");
    ck_assert_ptr_nonnull(info);
    info += 5;
    info[strcspn(info, "\n")] = '\0';
    cJSON *j = cJSON_Parse(info);
    const cJSON *spec = cJSON_GetObjectItem(j, "spec");
    const cJSON *cl = cJSON_GetObjectItem(spec, "cluster");
    snprintf(want, sizeof(want), "https://127.0.0.1:%d", fake_port(fake));
    ck_assert_str_eq(cJSON_GetObjectItem(cl, "server")->valuestring, want);
    ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(spec, "interactive")));
    ck_assert_ptr_null(cJSON_GetObjectItem(cl, "insecure-skip-tls-verify")); /* omitempty */
    /* certificate-authority-data is the CA file's bytes, base64 ([]byte) */
    const char *b64 = cJSON_GetObjectItem(cl, "certificate-authority-data")->valuestring;
    char *got = NULL;
    ck_assert_int_eq(base64_decode(b64, strlen(b64), &got, &got_len), 0);
    char *ca = file_slurp(test_pki_path(&pki, "ca.pem", ca_path, sizeof(ca_path)), &ca_len);
    ck_assert_uint_eq(got_len, ca_len);
    ck_assert_mem_eq(got, ca, ca_len);
    free(ca);
    free(got);
    cJSON_Delete(j);
    free(rec);
}
END_TEST

START_TEST(exec_near_expiry_is_refreshed_before_it_expires)
{
    char err[ERR_LEN] = "";
    struct kube_client *c = plugin_client(NULL);
    /* 3 s to live: used for the first half, refreshed in the second */
    put("expiry", stamp(3.0));
    ck_assert_msg(get(c, err) == 200, "%s", err);
    ck_assert_msg(get(c, err) == 200, "%s", err);
    ck_assert_int_eq(runs(), 1);

    usleep(2000 * 1000); /* 1 s before the expiry */
    fake_set_token(fake, "exec-token-2");
    put("token", "exec-token-2\n");
    put("expiry", stamp(600));
    ck_assert_msg(get(c, err) == 200, "%s", err);
    ck_assert_int_eq(runs(), 2);
    struct fake_counts n;
    fake_counts(fake, &n);
    ck_assert_uint_eq(n.unauthorized, 0); /* the new token went out at once */
    /* 600 s to live: cached for 570 of them */
    ck_assert_msg(get(c, err) == 200, "%s", err);
    ck_assert_int_eq(runs(), 2);
    kube_client_free(c);
}
END_TEST

START_TEST(exec_failed_refresh_keeps_the_unexpired_token)
{
    char err[ERR_LEN] = "";
    struct kube_client *c = plugin_client(NULL);
    put("expiry", stamp(3.0));
    ck_assert_msg(get(c, err) == 200, "%s", err);
    usleep(2000 * 1000);
    put("mode", "fail");
    ck_assert_msg(get(c, err) == 200, "%s", err); /* the refresh failed; 1 s left */
    ck_assert_int_eq(runs(), 2);
    usleep(1200 * 1000); /* now it has expired: the failure is the answer */
    ck_assert_int_eq(get(c, err), -EACCES);
    ck_assert_ptr_nonnull(strstr(err, "failed with exit code 3"));
    ck_assert_int_eq(runs(), 3);
    kube_client_free(c);
}
END_TEST

START_TEST(exec_expired_credential_is_refused)
{
    char err[ERR_LEN] = "", want[300];
    struct kube_client *c = plugin_client(NULL);
    put("expiry", "2020-01-01T00:00:00Z");
    ck_assert_int_eq(get(c, err), -EACCES);
    snprintf(want, sizeof(want),
             "kubeconfig %s: users[sso].user.exec: the plugin returned a credential that "
             "expired at 2020-01-01T00:00:00Z",
             at(0, "kubeconfig"));
    ck_assert_str_eq(err, want);
    struct fake_counts n;
    fake_counts(fake, &n);
    ck_assert_uint_eq(n.lists[FAKE_NODE], 0); /* nothing was sent */
    /* each request tries again */
    ck_assert_int_eq(get(c, err), -EACCES);
    ck_assert_int_eq(runs(), 2);
    kube_client_free(c);
}
END_TEST

START_TEST(exec_401_runs_the_plugin_again)
{
    char err[ERR_LEN] = "";
    struct fake_counts n;
    struct kube_client *c = plugin_client(NULL);
    ck_assert_msg(get(c, err) == 200, "%s", err);

    /* revoked early, far from any expiry: the 401 makes it run again, and
     * the request is repeated with the new token */
    fake_set_token(fake, "exec-token-2");
    put("token", "exec-token-2\n");
    ck_assert_msg(get(c, err) == 200, "%s", err);
    ck_assert_int_eq(runs(), 2);
    fake_counts(fake, &n);
    ck_assert_uint_eq(n.unauthorized, 1);

    /* a plugin that keeps handing out a refused token: one run and one
     * repeat per request, then the 401 is the answer */
    fake_set_token(fake, "exec-token-3");
    ck_assert_msg(get(c, err) == 401, "%s", err);
    ck_assert_int_eq(runs(), 3);
    fake_counts(fake, &n);
    ck_assert_uint_eq(n.unauthorized, 3);
    kube_client_free(c);
}
END_TEST

struct racer {
    struct kube_client *c;
    long status;
    char err[ERR_LEN];
};

static void *race(void *arg)
{
    struct racer *r = arg;
    r->status = get(r->c, r->err);
    return NULL;
}

START_TEST(exec_concurrent_requests_run_it_once)
{
    struct racer r[8];
    pthread_t th[8];
    struct kube_client *c = plugin_client(NULL);
    put("mode", "slow"); /* 0.5 s: every request arrives during the run */
    for (int i = 0; i < 8; i++) {
        r[i] = (struct racer){.c = c};
        ck_assert_int_eq(pthread_create(&th[i], NULL, race, &r[i]), 0);
    }
    for (int i = 0; i < 8; i++) {
        pthread_join(th[i], NULL);
        ck_assert_msg(r[i].status == 200, "thread %d: %ld %s", i, r[i].status, r[i].err);
    }
    ck_assert_int_eq(runs(), 1);

    /* a failing run: its error goes to everyone who waited for it */
    kube_client_free(c);
    unlink(at(0, "count"));
    c = plugin_client(NULL);
    put("mode", "slowfail");
    for (int i = 0; i < 8; i++) {
        r[i] = (struct racer){.c = c};
        ck_assert_int_eq(pthread_create(&th[i], NULL, race, &r[i]), 0);
    }
    for (int i = 0; i < 8; i++) {
        pthread_join(th[i], NULL);
        ck_assert_int_eq(r[i].status, -EACCES);
        ck_assert_ptr_nonnull(strstr(r[i].err, "failed with exit code 4: plugin: no network"));
    }
    ck_assert_int_eq(runs(), 1);
    kube_client_free(c);
}
END_TEST

/* A failing plugin: the error of a request, checked to name the file and
 * the user and never to carry the token. */
static void expect_failure(struct kube_client *c, const char *what)
{
    char err[ERR_LEN] = "", head[300];
    ck_assert_int_eq(get(c, err), -EACCES);
    snprintf(head, sizeof(head), "kubeconfig %s: users[sso].user.exec: ", at(0, "kubeconfig"));
    ck_assert_msg(strncmp(err, head, strlen(head)) == 0, "%s", err);
    ck_assert_msg(strstr(err, what) != NULL, "want \"%s\" in: %s", what, err);
    ck_assert_msg(strstr(err, TOKEN) == NULL, "token in: %s", err);
}

START_TEST(exec_failures_name_the_user_and_the_cause)
{
    static const struct {
        const char *mode, *version, *what;
    } cases[] = {
        {"fail", NULL,
         "failed with exit code 3: plugin: the SSO session expired; run aws sso login"},
        {"garbage", NULL, "decoding stdout: not a JSON object"},
        {"notoken", NULL, "exec plugin didn't return a token or cert/key pair"},
        {NULL, "client.authentication.k8s.io/v1beta1",
         "exec plugin is configured to use API version client.authentication.k8s.io/v1, plugin "
         "returned version \"client.authentication.k8s.io/v1beta1\""},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct kube_client *c = plugin_client(NULL);
        put("mode", cases[i].mode != NULL ? cases[i].mode : "");
        if (cases[i].version != NULL)
            put("version", cases[i].version);
        expect_failure(c, cases[i].what);
        kube_client_free(c);
        unlink(at(0, "version"));
    }
    struct fake_counts n;
    fake_counts(fake, &n);
    ck_assert_uint_eq(n.lists[FAKE_NODE], 0);
}
END_TEST

START_TEST(exec_missing_command_shows_the_install_hint)
{
    struct kube_target t;
    write_plugin("plugin");
    load("no-such-credential-plugin-xyz", "      installHint: \"brew install\\n  xyz\"\n", &t);
    struct kube_client *c = client_of(&t);
    expect_failure(c, "executable no-such-credential-plugin-xyz not found: brew install   xyz");
    kube_client_free(c);

    load(at(2, "missing/plugin"), NULL, &t);
    c = client_of(&t);
    expect_failure(c, "not found");
    kube_client_free(c);

    /* there, but not executable */
    put("not-executable", "#!/bin/sh\n");
    load(at(2, "not-executable"), NULL, &t);
    c = client_of(&t);
    expect_failure(c, "cannot be run: Permission denied");
    kube_client_free(c);
}
END_TEST

/* Whether process @pid is gone (or a zombie nobody reaped yet). */
static bool is_gone(int pid)
{
    char path[64], stat[256] = "";
    snprintf(path, sizeof(path), "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return true;
    size_t n = fread(stat, 1, sizeof(stat) - 1, f);
    fclose(f);
    stat[n] = '\0';
    const char *close_paren = strrchr(stat, ')');
    return close_paren != NULL && close_paren[1] == ' ' && close_paren[2] == 'Z';
}

START_TEST(exec_plugin_past_the_timeout_is_killed)
{
    struct kube_target t;
    write_plugin("plugin");
    put("token", TOKEN);
    put("mode", "sleep"); /* sh waits for a "sleep 30" of its own */
    load(at(2, "plugin"), NULL, &t);
    t.exec->timeout_ms = 500;
    struct kube_client *c = client_of(&t);
    struct timespec t0 = clock_mono();
    expect_failure(c, "did not finish within 0.5 s and was killed");
    ck_assert_msg(clock_since(&t0) < 3.0, "took %.1f s", clock_since(&t0));
    /* the whole process group was killed, not only the shell */
    size_t len;
    char *pid = file_slurp(at(0, "sleep.pid"), &len);
    ck_assert_ptr_nonnull(pid);
    bool gone = false;
    for (int i = 0; i < 100 && !gone; i++) {
        gone = is_gone(atoi(pid));
        if (!gone)
            usleep(10 * 1000);
    }
    ck_assert_msg(gone, "the plugin's sleep (pid %s) still runs", pid);
    free(pid);
    kube_client_free(c);
}
END_TEST

/* Whether process @pid does not exist at all: exited and reaped. */
static bool is_reaped(int pid)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d", pid);
    return access(path, F_OK) != 0;
}

/* Whether every pid listed in dir/@name (one a line) is reaped; the first
 * that is not into *@left. */
static bool all_reaped(const char *name, int *left)
{
    size_t len;
    char *text = file_slurp(at(3, name), &len);
    ck_assert_ptr_nonnull(text);
    bool all = true;
    for (char *line = strtok(text, "\n"); all && line != NULL; line = strtok(NULL, "\n"))
        if (!is_reaped(atoi(line))) {
            *left = atoi(line);
            all = false;
        }
    free(text);
    return all;
}

/* How many children of this process are zombies. */
static int zombie_children(void)
{
    DIR *d = opendir("/proc");
    int n = 0;
    ck_assert_ptr_nonnull(d);
    for (const struct dirent *e; (e = readdir(d)) != NULL;) {
        char path[300], stat[512] = "";
        snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
        FILE *f = atoi(e->d_name) > 0 ? fopen(path, "r") : NULL;
        if (f == NULL)
            continue;
        size_t got = fread(stat, 1, sizeof(stat) - 1, f);
        fclose(f);
        stat[got] = '\0';
        const char *after = strrchr(stat, ')');
        char state;
        long ppid;
        if (after != NULL && sscanf(after + 1, " %c %ld", &state, &ppid) == 2 && state == 'Z' &&
            ppid == (long)getpid())
            n++;
    }
    closedir(d);
    return n;
}

/* What a plugin leaves running is ended with it and reaped, and what
 * escaped its process group is reaped when it exits: the image runs us as
 * PID 1, and ten runs in a 401 loop used to leave ten zombies and the
 * plugins' children running (issue 23, finding 7). This process stands in
 * for PID 1 as a subreaper, as the service makes itself. */
START_TEST(exec_plugin_leaves_nothing_running_and_no_zombie)
{
    char err[ERR_LEN] = "";
    int left = 0;
    ck_assert_int_eq(kube_spawn_adopt_orphans(), 0);
    struct kube_client *c = plugin_client(NULL);
    put("mode", "litter");
    fake_set_token(fake, "a-token-the-plugin-never-gives");
    for (int i = 0; i < 5; i++)
        ck_assert_msg(get(c, err) == 401, "%s", err);
    ck_assert_int_ge(runs(), 5);
    /* the sleeps left in the groups were killed and reaped with their runs */
    ck_assert_msg(all_reaped("litter.pids", &left), "a plugin's sleep (pid %d) is left", left);
    /* the ones that left the group end by themselves; the reaper takes them */
    bool clean = false;
    for (int i = 0; i < 100 && !clean; i++) {
        kube_spawn_reap_orphans();
        clean = zombie_children() == 0 && all_reaped("escaped.pids", &left);
        if (!clean)
            usleep(50 * 1000);
    }
    ck_assert_msg(clean, "%d zombie(s) left; pid %d not reaped", zombie_children(), left);
    kube_client_free(c);
}
END_TEST

/* A plugin that closes its output and only then exits is waited for, not
 * killed as one that left something behind. */
START_TEST(exec_plugin_that_closes_its_output_first_is_waited_for)
{
    char err[ERR_LEN] = "";
    struct kube_client *c = plugin_client(NULL);
    put("mode", "closes");
    ck_assert_msg(get(c, err) == 200, "%s", err);
    ck_assert_int_eq(runs(), 1);
    kube_client_free(c);
}
END_TEST

static void *get_without_deadline(void *arg)
{
    struct kube_exec *x = arg;
    struct kube_exec_cred cred;
    char err[ERR_LEN];
    if (kube_exec_get(x, 0, KUBE_EXEC_NO_DEADLINE, &cred, err) == 0)
        kube_exec_cred_wipe(&cred);
    return NULL;
}

/* The caller's deadline bounds a run it starts (sooner than the plugin's
 * timeout), a wait for another caller's run, and starts nothing once past:
 * bind needs its credential within its own deadline (issue 23, finding 4). */
START_TEST(exec_caller_deadline_bounds_the_run_and_the_wait)
{
    struct kube_target t;
    struct kube_exec *x;
    struct kube_exec_cred cred;
    char err[ERR_LEN] = "";
    write_plugin("plugin");
    put("token", TOKEN);
    put("mode", "sleep"); /* sh waits for a "sleep 30" of its own */
    load(at(2, "plugin"), NULL, &t);
    t.exec->timeout_ms = 2000;
    ck_assert_msg(kube_exec_new(&t, &x, err) == 0, "%s", err);
    kube_target_destroy(&t);

    struct timespec t0 = clock_mono();
    int rc = kube_exec_get(x, 0, clock_mono_ns() + 300 * CLOCK_NS_PER_MS, &cred, err);
    ck_assert_int_eq(rc, -ETIMEDOUT);
    ck_assert_msg(strstr(err, "within 0.3 s (the caller's deadline) and was killed") != NULL, "%s",
                  err);
    ck_assert_msg(clock_since(&t0) < 1.5, "took %.1f s", clock_since(&t0));
    ck_assert_int_eq(runs(), 1);

    rc = kube_exec_get(x, 0, clock_mono_ns(), &cred, err);
    ck_assert_int_eq(rc, -ETIMEDOUT);
    ck_assert_msg(strstr(err, "the caller's deadline has passed") != NULL, "%s", err);
    ck_assert_int_eq(runs(), 1);

    pthread_t other;
    ck_assert_int_eq(pthread_create(&other, NULL, get_without_deadline, x), 0);
    while (runs() < 2)
        usleep(10 * 1000);
    t0 = clock_mono();
    rc = kube_exec_get(x, 0, clock_mono_ns() + 200 * CLOCK_NS_PER_MS, &cred, err);
    ck_assert_int_eq(rc, -ETIMEDOUT);
    ck_assert_msg(strstr(err, "still running at the caller's deadline") != NULL, "%s", err);
    ck_assert_msg(clock_since(&t0) < 1.0, "took %.1f s", clock_since(&t0));
    pthread_join(other, NULL);
    kube_exec_free(x);
}
END_TEST

START_TEST(exec_command_is_found_by_path_or_beside_the_kubeconfig)
{
    char err[ERR_LEN] = "", path[512];
    struct kube_target t;
    mkdir(at(0, "bin"), 0700);
    write_plugin("bin/my-plugin");
    put("token", TOKEN);

    /* a bare name: looked up in PATH */
    snprintf(path, sizeof(path), "%s:%s", at(0, "bin"), getenv("PATH"));
    setenv("PATH", path, 1);
    load("my-plugin", NULL, &t);
    ck_assert_str_eq(t.exec->command, "my-plugin");
    struct kube_client *c = client_of(&t);
    ck_assert_msg(get(c, err) == 200, "%s", err);
    kube_client_free(c);

    /* relative with a '/': against the kubeconfig's directory, from any
     * working directory */
    setenv("PATH", "/usr/bin:/bin", 1);
    ck_assert_int_eq(chdir("/"), 0);
    load("./bin/my-plugin", NULL, &t);
    snprintf(path, sizeof(path), "%s/./bin/my-plugin", dir);
    ck_assert_str_eq(t.exec->command, path);
    c = client_of(&t);
    ck_assert_msg(get(c, err) == 200, "%s", err);
    kube_client_free(c);
    ck_assert_int_eq(runs(), 2);
}
END_TEST

START_TEST(exec_environment_is_ours_plus_env_plus_exec_info)
{
    char err[ERR_LEN] = "";
    setenv("PLUGIN_VAR", "from-the-process", 1);
    setenv("KUBERNETES_EXEC_INFO", "stale", 1);
    struct kube_client *c = plugin_client(NULL);
    ck_assert_msg(get(c, err) == 200, "%s", err); /* PLUGIN_DIR came from env */
    kube_client_free(c);
    size_t len;
    char *rec = file_slurp(at(0, "record"), &len);
    ck_assert_ptr_nonnull(strstr(rec, "var from-the-process\n"));
    ck_assert_ptr_null(strstr(rec, "stale"));
    free(rec);

    /* the configured env wins over the process's */
    unlink(at(0, "record"));
    c = plugin_client("      - {name: PLUGIN_VAR, value: from-the-kubeconfig}\n");
    ck_assert_msg(get(c, err) == 200, "%s", err);
    kube_client_free(c);
    rec = file_slurp(at(0, "record"), &len);
    ck_assert_ptr_nonnull(strstr(rec, "var from-the-kubeconfig\n"));
    free(rec);
}
END_TEST

START_TEST(exec_client_certificate_from_the_plugin_is_accepted)
{
    char err[ERR_LEN] = "", c_path[128], k_path[128], ca_path[128];
    fake_stop(fake);
    struct fake_params p = {
        .cert_file = test_pki_path(&pki, "server.pem", c_path, sizeof(c_path)),
        .key_file = test_pki_path(&pki, "server.key", k_path, sizeof(k_path)),
        .client_ca_file = test_pki_path(&pki, "ca.pem", ca_path, sizeof(ca_path)),
    };
    ck_assert_int_eq(fake_start(&p, &fake), 0);
    size_t len;
    char *pem = file_slurp(test_pki_path(&pki, "client.pem", c_path, sizeof(c_path)), &len);
    put("client.pem", pem);
    free(pem);
    pem = file_slurp(test_pki_path(&pki, "client.key", k_path, sizeof(k_path)), &len);
    put("client.key", pem);
    free(pem);
    struct kube_client *c = plugin_client(NULL);
    put("mode", "cert");
    ck_assert_msg(get(c, err) == 200, "%s", err);
    ck_assert_msg(get(c, err) == 200, "%s", err);
    ck_assert_int_eq(runs(), 1);
    kube_client_free(c);
}
END_TEST

Suite *exec_suite(void)
{
    Suite *s = suite_create("exec");
    TCase *tc = tcase_create("exec");
    tcase_set_timeout(tc, 30);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, exec_first_request_runs_plugin_then_token_is_cached);
    tcase_add_test(tc, exec_provide_cluster_info_passes_server_and_ca);
    tcase_add_test(tc, exec_near_expiry_is_refreshed_before_it_expires);
    tcase_add_test(tc, exec_failed_refresh_keeps_the_unexpired_token);
    tcase_add_test(tc, exec_expired_credential_is_refused);
    tcase_add_test(tc, exec_401_runs_the_plugin_again);
    tcase_add_test(tc, exec_concurrent_requests_run_it_once);
    tcase_add_test(tc, exec_failures_name_the_user_and_the_cause);
    tcase_add_test(tc, exec_missing_command_shows_the_install_hint);
    tcase_add_test(tc, exec_plugin_past_the_timeout_is_killed);
    tcase_add_test(tc, exec_plugin_leaves_nothing_running_and_no_zombie);
    tcase_add_test(tc, exec_caller_deadline_bounds_the_run_and_the_wait);
    tcase_add_test(tc, exec_plugin_that_closes_its_output_first_is_waited_for);
    tcase_add_test(tc, exec_command_is_found_by_path_or_beside_the_kubeconfig);
    tcase_add_test(tc, exec_environment_is_ours_plus_env_plus_exec_info);
    tcase_add_test(tc, exec_client_certificate_from_the_plugin_is_accepted);
    suite_add_tcase(s, tc);
    return s;
}

/*
 * cpu-extender: command dispatch and the serve loop.
 *
 *   cpu-extender [serve] [options]         serve the extender (default)
 *   cpu-extender probe [--ready] [options] exec probe for kubelet
 *   cpu-extender config check FILE         validate a config file
 *   cpu-extender rank --pod F [--nodes F]   rank nodes (a file or the cluster) for a pod
 *
 * Exit codes: 0 success, 1 failure at run time, 2 bad usage or config.
 */
#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "config/config.h"
#include "kube/client.h"
#include "server/arena.h"
#include "server/cluster.h"
#include "server/http.h"
#include "server/log.h"
#include "server/probe.h"
#include "server/rank.h"
#include "server/tls.h"
#include "version.h"

#define MAX_POSITIONAL 4

extern char **environ;

static void usage(FILE *out)
{
    fprintf(
        out,
        "cpu-extender %s: a Kubernetes scheduler extender that places pods on the nodes\n"
        "with the most free CPU.\n\n"
        "Usage:\n"
        "  cpu-extender [serve] [options]          serve the extender verbs under <prefix>\n"
        "  cpu-extender probe [--ready] [options]  exit 0 if the local listener is healthy\n"
        "                                          (or ready); for kubelet exec probes\n"
        "  cpu-extender config check FILE          validate FILE, print the effective config\n"
        "  cpu-extender rank --pod FILE [--nodes FILE] [options]\n"
        "                                          rank nodes (kubectl get nodes -o json, or\n"
        "                                          without --nodes the cluster of --kubeconfig,\n"
        "                                          KUBECONFIG or ~/.kube/config) for a pod\n"
        "                                          (kubectl get pod -o json); table on stderr,\n"
        "                                          pinned pod manifest on stdout\n"
        "  cpu-extender --help | --version\n\n",
        CPU_EXTENDER_VERSION);
    cfg_print_help(out);
}

/* Loads the configuration from the command's arguments; prints the error. */
static int load_config(struct cfg *c, int argc, char **argv, int max_positional)
{
    char err[CFG_ERR_LEN];
    int positional[MAX_POSITIONAL], n = 0;
    if (cfg_load(c, argc, argv, environ, positional, max_positional, &n, err) != 0) {
        fprintf(stderr, "cpu-extender: %s\n", err);
        return -EINVAL;
    }
    return 0;
}

/* What identifies a version of the config file: a ConfigMap update swaps a
 * symlink (another inode), an editor may keep the inode but not the time
 * (nanoseconds) or the size. All zero when the file cannot be read. */
struct file_stamp {
    ino_t ino;
    off_t size;
    struct timespec mtime;
};

static struct file_stamp stamp_of(const char *path)
{
    struct stat st;
    struct file_stamp f = {0};
    if (path[0] != '\0' && stat(path, &st) == 0) {
        f.ino = st.st_ino;
        f.size = st.st_size;
        f.mtime = st.st_mtim;
    }
    return f;
}

static bool stamp_eq(struct file_stamp a, struct file_stamp b)
{
    return a.ino == b.ino && a.size == b.size && a.mtime.tv_sec == b.mtime.tv_sec &&
           a.mtime.tv_nsec == b.mtime.tv_nsec;
}

/* Builds the configuration again from the same file, environment and flags;
 * an invalid one is refused and the last good one keeps serving. */
static void reload(struct srv *s, struct srv_cluster *cl, struct cfg *c, int argc, char **argv,
                   const char *why)
{
    struct cfg next;
    char err[CFG_ERR_LEN];
    int positional[1], n = 0;

    if (cfg_load(&next, argc, argv, environ, positional, 0, &n, err) != 0) {
        log_unquote(err);
        log_msg(CFG_LOG_ERROR, "config reload rejected, keeping the last good one",
                "trigger=%s error=\"%s\" hash=%s", why, err, c->hash);
        srv_note_reload(s, false);
        return;
    }
    if (strcmp(next.hash, c->hash) == 0) {
        log_msg(CFG_LOG_INFO, "config unchanged", "trigger=%s hash=%s", why, c->hash);
        return;
    }
    if (strcmp(next.kubeconfig, c->kubeconfig) != 0)
        log_msg(CFG_LOG_WARN, "kubeconfig changes take effect at the next restart", "trigger=%s",
                why);
    if (srv_reload(s, &next) != 0 || (cl != NULL && srv_cluster_reload(cl, &next) != 0)) {
        log_msg(CFG_LOG_ERROR, "config reload failed: out of memory", "trigger=%s", why);
        return;
    }
    srv_note_reload(s, true);
    log_set_level(next.log_level);
    log_msg(CFG_LOG_INFO, "config reloaded", "trigger=%s hash=%s strategy=%s", why, next.hash,
            score_strategy_name(next.score.strategy));
    *c = next;
}

static int cmd_serve(int argc, char **argv)
{
    struct cfg c;
    struct srv *s = NULL;
    struct srv_cluster *cl = NULL;
    char err[CFG_ERR_LEN], host[CFG_STR_LEN], kerr[KUBE_ERR_LEN];
    sigset_t sigs;
    int sig = 0, port;

    if (load_config(&c, argc, argv, 0) != 0)
        return 2;
    log_set_level(c.log_level);
    arena_install_hooks();
    /* Block the signals before MHD starts its threads, so that they inherit
     * the mask and only sigtimedwait() below sees them. */
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    signal(SIGPIPE, SIG_IGN);

    if (c.tls_cert[0] != '\0' && srv_tls_init(&c, err) != 0) {
        log_msg(CFG_LOG_ERROR, "cannot start: TLS", "error=\"%s\"", err);
        return 2;
    }
    if (kube_global_init() != 0) {
        log_msg(CFG_LOG_ERROR, "cannot start: libcurl initialisation failed", "%s", "");
        srv_tls_destroy();
        return 1;
    }
    /* A cluster named but unusable is a configuration error: exit rather
     * than serve scores that silently ignore it. */
    if (srv_cluster_start(&c, environ, KUBE_INCLUSTER_DIR, false, &cl, kerr) != 0) {
        log_msg(CFG_LOG_ERROR, "cannot start: cluster configuration", "error=\"%s\"", kerr);
        srv_tls_destroy();
        kube_global_cleanup();
        return 2;
    }
    if (srv_start(&c, cl, &s, err) != 0) {
        log_msg(CFG_LOG_ERROR, "cannot start", "error=\"%s\"", err);
        srv_cluster_stop(cl);
        srv_tls_destroy();
        kube_global_cleanup();
        return 1;
    }
    cfg_listen_split(c.listen, host, &port);
    log_msg(CFG_LOG_INFO, "listening", "addr=%s%s%s:%d prefix=%s version=%s tls=%s",
            strchr(host, ':') ? "[" : "", host, strchr(host, ':') ? "]" : "", srv_port(s),
            c.prefix[0] ? c.prefix : "/", CPU_EXTENDER_VERSION,
            c.client_ca[0]  ? "mtls"
            : c.tls_cert[0] ? "on"
                            : "off");
    if (cl == NULL)
        log_msg(CFG_LOG_INFO, "request-only mode: no cluster connection",
                "strategy=%s cpu_weight=%d memory_weight=%d used=\"node annotations %s, %s\" "
                "config=\"%s\" hash=%s",
                score_strategy_name(c.score.strategy), c.score.weight[SCORE_CPU],
                c.score.weight[SCORE_MEMORY], c.used_annotation[SCORE_CPU],
                c.used_annotation[SCORE_MEMORY], c.config_file[0] ? c.config_file : "built-in",
                c.hash);
    else
        log_msg(CFG_LOG_INFO, "cluster mode: scoring from cluster state",
                "strategy=%s cpu_used=%s memory_used=%s stale_policy=%s config=\"%s\" hash=%s",
                score_strategy_name(c.score.strategy),
                score_used_source_name(c.used_source[SCORE_CPU]),
                score_used_source_name(c.used_source[SCORE_MEMORY]),
                score_stale_policy_name(c.stale_policy),
                c.config_file[0] ? c.config_file : "built-in", c.hash);

    /* SIGHUP, or a config file whose modification time changed (checked
     * every second: a ConfigMap update arrives as a new file), reloads. */
    struct file_stamp seen = stamp_of(c.config_file);
    const struct timespec tick = {1, 0};
    for (;;) {
        sig = sigtimedwait(&sigs, NULL, &tick);
        if (sig == SIGTERM || sig == SIGINT)
            break;
        if (sig == SIGHUP) {
            reload(s, cl, &c, argc, argv, "SIGHUP");
            seen = stamp_of(c.config_file);
        } else if (c.config_file[0] != '\0' && !stamp_eq(stamp_of(c.config_file), seen)) {
            seen = stamp_of(c.config_file);
            reload(s, cl, &c, argc, argv, "file");
        }
    }
    log_msg(CFG_LOG_INFO, "stopping", "signal=%s", sig == SIGTERM ? "SIGTERM" : "SIGINT");
    srv_set_unready(s);
    srv_stop(s, c.drain_seconds);
    srv_cluster_stop(cl);
    kube_global_cleanup();
    srv_tls_destroy();
    log_msg(CFG_LOG_INFO, "stopped", "%s", "");
    arena_pool_drain();
    return 0;
}

static int cmd_probe(int argc, char **argv)
{
    struct cfg c;
    char err[CFG_ERR_LEN];
    bool ready = false;
    char *rest[64];
    int n = 0;

    for (int i = 0; i < argc && n < 64; i++) {
        if (strcmp(argv[i], "--ready") == 0)
            ready = true;
        else
            rest[n++] = argv[i];
    }
    if (load_config(&c, n, rest, 0) != 0)
        return 2;
    if (srv_probe(&c, ready, err) != 0) {
        fprintf(stderr, "cpu-extender probe: %s\n", err);
        return 1;
    }
    return 0;
}

static int cmd_config(int argc, char **argv)
{
    struct cfg c;
    char err[CFG_ERR_LEN];

    if (argc != 2 || strcmp(argv[0], "check") != 0) {
        fprintf(stderr, "usage: cpu-extender config check FILE\n");
        return 2;
    }
    if (cfg_load_file_only(&c, argv[1], err) != 0) {
        fprintf(stderr, "cpu-extender: %s\n", err);
        return 2;
    }
    fprintf(stderr, "%s: ok\n", argv[1]);
    cfg_print_json(&c, stdout);
    return 0;
}

static int cmd_rank(int argc, char **argv)
{
    const char *nodes = NULL, *pod = NULL;
    char *rest[64], err[CFG_ERR_LEN];
    struct srv_cluster *cl = NULL;
    struct cfg c;
    int n = 0;

    for (int i = 0; i < argc && n < 64; i++) {
        if (strcmp(argv[i], "--nodes") == 0 && i + 1 < argc)
            nodes = argv[++i];
        else if (strcmp(argv[i], "--pod") == 0 && i + 1 < argc)
            pod = argv[++i];
        else
            rest[n++] = argv[i];
    }
    if (pod == NULL) {
        fprintf(stderr, "usage: cpu-extender rank --pod pod.json [--nodes nodes.json | "
                        "--kubeconfig FILE] [options]\n");
        return 2;
    }
    if (load_config(&c, n, rest, 0) != 0)
        return 2;
    log_set_level(c.log_level > CFG_LOG_WARN ? c.log_level : CFG_LOG_WARN);
    arena_install_hooks();
    if (nodes == NULL) {
        /* The seed workflow against a live cluster: kubectl's rules for
         * finding it, ~/.kube/config included. */
        char kerr[KUBE_ERR_LEN];
        if (kube_global_init() != 0) {
            fprintf(stderr, "cpu-extender rank: libcurl initialisation failed\n");
            return 1;
        }
        int rc = srv_cluster_start(&c, environ, KUBE_INCLUSTER_DIR, true, &cl, kerr);
        if (rc == 0 && cl == NULL)
            snprintf(kerr, sizeof(kerr),
                     "no cluster: give --nodes FILE, or --kubeconfig FILE (or KUBECONFIG, or "
                     "~/.kube/config)");
        if (cl == NULL) {
            fprintf(stderr, "cpu-extender rank: %s\n", kerr);
            kube_global_cleanup();
            return 2;
        }
    }
    int rc = srv_rank(&c, cl, nodes, pod, stderr, stdout, err);
    srv_cluster_stop(cl);
    if (nodes == NULL)
        kube_global_cleanup();
    arena_pool_drain();
    if (rc != 0 && rc != -ENOENT)
        fprintf(stderr, "cpu-extender rank: %s\n", err);
    return rc == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : "serve";

    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("cpu-extender %s\n", CPU_EXTENDER_VERSION);
        return 0;
    }
    if (strcmp(cmd, "serve") == 0)
        return cmd_serve(argc - 2 < 0 ? 0 : argc - 2, argv + 2);
    if (strcmp(cmd, "probe") == 0)
        return cmd_probe(argc - 2, argv + 2);
    if (strcmp(cmd, "config") == 0)
        return cmd_config(argc - 2, argv + 2);
    if (strcmp(cmd, "rank") == 0)
        return cmd_rank(argc - 2, argv + 2);
    if (strncmp(cmd, "--", 2) == 0)
        return cmd_serve(argc - 1, argv + 1);
    fprintf(stderr, "cpu-extender: unknown command \"%s\" (see --help)\n", cmd);
    return 2;
}

#include "cli/serve.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "base/heap.h"
#include "base/arena.h"
#include "base/log.h"
#include "cli/stop_watchdog.h"
#include "config/advice.h"
#include "config/config.h"
#include "config/filter_need.h"
#include "kube/client.h"
#include "kube/discover.h"
#include "kube/spawn.h"
#include "config/load.h"
#include "server/cluster/cluster.h"
#include "server/http/daemon.h"
#include "server/http/tls.h"
#include "version.h"

extern char **environ;

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
    if (path[0] != '\0' && strcmp(path, "-") != 0 && stat(path, &st) == 0) {
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

/* Whether kube-scheduler needs the filter verb under @c (filter_need.h):
 * said once at start and after a reload. */
static void log_filter_need(const struct cfg *c, bool with_cluster)
{
    const char *need = cfg_filter_need(c, with_cluster);
    if (need != NULL)
        LOG(LOG_INFO, "filter verb: needed", LOG_STR("because", need));
    else
        LOG(LOG_INFO, "filter verb: redundant, register prioritize only",
            LOG_STR("because", "used = requests, thresholds 100 %: kube-scheduler's "
                               "NodeResourcesFit rejects the same nodes"),
            LOG_STR("see", "docs/operations.md#one-call-per-pod"));
}

/* Builds the configuration again from the same file, environment and flags;
 * an invalid one is refused and the last good one keeps serving. @started
 * is what the listeners and the cluster connection were set up with. */
static void reload(struct http_server *s, struct cluster *cl, struct cfg *c,
                   const struct cfg *started, int argc, char **argv, const char *why)
{
    struct cfg next;
    char err[ERR_LEN], changed[1024], restart[1024], ignored[1024];

    if (strcmp(c->config_file, "-") == 0) {
        /* Standard input was read at start and is gone. */
        LOG(LOG_WARN,
            "config reload skipped: the config file was standard input, which cannot be "
            "read again; restart to change it",
            LOG_STR("trigger", why), LOG_STR("hash", c->hash));
        return;
    }
    if (cfg_build_config(&next, argc, argv, started, err) != 0) {
        LOG(LOG_ERROR, "config reload rejected, keeping the last good one", LOG_STR("trigger", why),
            LOG_STR("error", err), LOG_STR("hash", c->hash));
        http_note_reload(s, false, false);
        return;
    }
    if (strcmp(next.hash, c->hash) == 0) {
        LOG(LOG_INFO, "config unchanged", LOG_STR("trigger", why), LOG_STR("hash", c->hash));
        http_note_reload(s, true, false);
        return;
    }
    cfg_diff(c, &next, changed, ignored, sizeof(changed));
    if (http_reload(s, &next) != 0 || (cl != NULL && cluster_reload(cl, &next) != 0)) {
        LOG(LOG_ERROR, "config reload failed: out of memory", LOG_STR("trigger", why));
        http_note_reload(s, false, false);
        return;
    }
    http_note_reload(s, true, true);
    log_set_level(next.log_level);
    LOG(LOG_INFO, "config reloaded", LOG_STR("trigger", why), LOG_STR("changed", changed),
        LOG_STR("mode", cfg_mode_name(next.mode)),
        LOG_STR("strategy", score_strategy_name(next.score.strategy)), LOG_STR("hash", next.hash));
    /* Against the start, not the last reload: still pending after later
     * reloads that did not touch them. */
    cfg_diff(started, &next, ignored, restart, sizeof(restart));
    if (restart[0] != '\0')
        LOG(LOG_WARN, "these settings take effect at the next restart", LOG_STR("keys", restart),
            LOG_STR("trigger", why));
    if ((cfg_filter_need(&next, cl != NULL) == NULL) != (cfg_filter_need(c, cl != NULL) == NULL))
        log_filter_need(&next, cl != NULL);
    *c = next;
}

/* HOST:PORT of a listener started on @listen, with the port it got. */
static void bound_addr(const char *listen, int port, char *addr, size_t n)
{
    char host[CFG_STR_LEN];
    int ignored;
    cfg_listen_split(listen, host, &ignored);
    bool v6 = strchr(host, ':') != NULL;
    snprintf(addr, n, "%s%s%s:%d", v6 ? "[" : "", host, v6 ? "]" : "", port);
}

/* The start-up lines: where it listens, in which mode, and what it scores
 * from. */
static void log_started(const struct cfg *c, const struct http_server *s, bool with_cluster)
{
    char addr[CFG_STR_LEN + 16], metrics_addr[CFG_STR_LEN + 16] = "";

    bound_addr(c->listen, http_port(s), addr, sizeof(addr));
    if (c->metrics_listen[0] != '\0')
        bound_addr(c->metrics_listen, http_metrics_port(s), metrics_addr, sizeof(metrics_addr));
    LOG(LOG_INFO, "listening", LOG_STR("addr", addr), LOG_STR("metricsAddr", metrics_addr),
        LOG_STR("prefix", c->prefix[0] ? c->prefix : "/"), LOG_STR("version", CPU_EXTENDER_VERSION),
        LOG_STR("tls", c->client_ca[0]  ? "mtls"
                       : c->tls_cert[0] ? "on"
                                        : "off"));
    const char *file = c->config_file[0] ? c->config_file : "built-in";
    char used[2 * CFG_STR_LEN + 32];
    snprintf(used, sizeof(used), "node annotations %s, %s", c->used_annotation[SCORE_CPU],
             c->used_annotation[SCORE_MEMORY]);
    if (!with_cluster)
        LOG(LOG_INFO, "request-only mode: no cluster connection",
            LOG_STR("mode", cfg_mode_name(c->mode)),
            LOG_STR("strategy", score_strategy_name(c->score.strategy)),
            LOG_INT("cpuWeight", c->score.weight[SCORE_CPU]),
            LOG_INT("memoryWeight", c->score.weight[SCORE_MEMORY]), LOG_STR("used", used),
            LOG_STR("config", file), LOG_STR("hash", c->hash));
    else
        LOG(LOG_INFO, "cluster mode: scoring from cluster state",
            LOG_STR("mode", cfg_mode_name(c->mode)),
            LOG_STR("strategy", score_strategy_name(c->score.strategy)),
            LOG_INT("cpuWeight", c->score.weight[SCORE_CPU]),
            LOG_INT("memoryWeight", c->score.weight[SCORE_MEMORY]),
            LOG_STR("cpuUsedSource", score_used_source_name(c->used_source[SCORE_CPU])),
            LOG_STR("memoryUsedSource", score_used_source_name(c->used_source[SCORE_MEMORY])),
            LOG_STR("stalePolicy", score_stale_policy_name(c->stale_policy)),
            LOG_STR("config", file), LOG_STR("hash", c->hash));
    log_filter_need(c, with_cluster);
}

static void log_advice(void *ctx, const char *key, const char *text)
{
    (void)ctx;
    LOG(LOG_WARN, "config advice", LOG_STR("key", key), LOG_STR("advice", text));
}

/* Blocks SIGTERM, SIGINT, SIGHUP and SIGCHLD before any thread starts, so
 * that the threads inherit the mask and only sigtimedwait() in the loop
 * sees them. */
static void block_signals(sigset_t *sigs)
{
    sigemptyset(sigs);
    sigaddset(sigs, SIGTERM);
    sigaddset(sigs, SIGINT);
    sigaddset(sigs, SIGHUP);
    sigaddset(sigs, SIGCHLD);
    pthread_sigmask(SIG_BLOCK, sigs, NULL);
    signal(SIGPIPE, SIG_IGN);
}

/* Allocations of this size or more are mapped and unmapped: an API
 * answer's body or a large request gives its memory back when freed. */
#define SERVE_MMAP_THRESHOLD (1u << 20)

/* glibc raises its mmap threshold to the largest block freed (up to
 * 32 MiB), after which a list page's megabytes come from a thread's heap
 * and stay in the process after it is freed: idle RSS would keep the peak
 * of the largest answer. A fixed threshold keeps large blocks mapped. */
static void keep_large_blocks_mapped(void)
{
    if (!heap_map_large_blocks(SERVE_MMAP_THRESHOLD))
        LOG(LOG_WARN, "mallopt(M_MMAP_THRESHOLD) refused: idle memory may stay at its peak");
}

/* Until SIGTERM or SIGINT: SIGHUP, or a config file that changed (checked
 * every second: a ConfigMap update arrives as a new file), reloads. What a
 * credential plugin left behind is reaped on SIGCHLD and every second (as
 * PID 1 of the image, or as a subreaper, its orphans are ours). */
static int serve_loop(struct http_server *s, struct cluster *cl, struct cfg *c, int argc,
                      char **argv, const sigset_t *sigs)
{
    const struct cfg started = *c;
    struct file_stamp seen = stamp_of(c->config_file);
    const struct timespec tick = {1, 0};
    for (;;) {
        int sig = sigtimedwait(sigs, NULL, &tick);
        if (sig == SIGTERM || sig == SIGINT)
            return sig;
        kube_spawn_reap_orphans();
        if (sig == SIGHUP) {
            reload(s, cl, c, &started, argc, argv, "SIGHUP");
            seen = stamp_of(c->config_file);
        } else if (c->config_file[0] != '\0' && !stamp_eq(stamp_of(c->config_file), seen)) {
            seen = stamp_of(c->config_file);
            reload(s, cl, c, &started, argc, argv, "file");
        }
    }
}

/* The cluster named by @c (none: request-only, *@out NULL). A cluster named
 * but unusable is a configuration error: better to exit than to serve
 * scores that silently ignore it. */
static int start_cluster(const struct cfg *c, struct cluster **out)
{
    char err[ERR_LEN];
    struct kube_target t;

    *out = NULL;
    int rc = kube_discover(c->kubeconfig, environ, KUBE_INCLUSTER_DIR, &t, err);
    if (rc == 0) {
        rc = cluster_start(c, &t, out, err);
        kube_target_destroy(&t);
    }
    if (rc != 0 && rc != -ENOENT) {
        LOG(LOG_ERROR, "cannot start: cluster configuration", LOG_STR("error", err));
        return rc;
    }
    return 0;
}

int cli_serve(int argc, char **argv)
{
    struct cfg c;
    struct http_server *s = NULL;
    struct cluster *cl = NULL;
    char err[ERR_LEN];
    sigset_t sigs;
    int status = 2;

    if (cfg_load_config(&c, argc, argv) != 0)
        return 2;
    log_set_level(c.log_level);
    keep_large_blocks_mapped();
    block_signals(&sigs);
    int adopt = kube_spawn_adopt_orphans();
    if (adopt != 0)
        LOG(LOG_WARN, "cannot become the reaper of orphaned plugin processes",
            LOG_STR("error", strerror(-adopt)));
    if (c.tls_cert[0] != '\0' && http_tls_init(&c, err) != 0) {
        LOG(LOG_ERROR, "cannot start: TLS", LOG_STR("error", err));
        return 2;
    }
    if (kube_global_init() != 0) {
        LOG(LOG_ERROR, "cannot start: libcurl initialisation failed");
        status = 1;
        goto out_tls;
    }
    if (start_cluster(&c, &cl) != 0)
        goto out_curl;
    if (http_start(&c, cl, &s, err) != 0) {
        LOG(LOG_ERROR, "cannot start", LOG_STR("error", err));
        status = 1;
        goto out_cluster;
    }
    log_started(&c, s, cl != NULL);
    cfg_advice(&c, log_advice, NULL);
    int sig = serve_loop(s, cl, &c, argc, argv, &sigs);
    LOG(LOG_INFO, "stopping", LOG_STR("signal", sig == SIGTERM ? "SIGTERM" : "SIGINT"),
        LOG_INT("drainSeconds", c.drain_seconds), LOG_INT("graceSeconds", CLI_STOP_GRACE_SECONDS));
    struct cli_stop_watchdog watchdog;
    bool watched =
        cli_stop_watchdog_start(&watchdog, c.drain_seconds, cl ? cluster_client(cl) : NULL) == 0;
    if (!watched)
        LOG(LOG_WARN, "shutdown watchdog not started: the stop waits for what is in flight");
    http_set_unready(s);
    http_stop(s, c.drain_seconds);
    if (watched)
        cli_stop_watchdog_forget_client(&watchdog);
    cluster_stop(cl);
    if (watched)
        cli_stop_watchdog_end(&watchdog);
    cl = NULL;
    status = 0;
out_cluster:
    cluster_stop(cl);
out_curl:
    kube_global_cleanup();
out_tls:
    http_tls_destroy();
    if (status == 0)
        LOG(LOG_INFO, "stopped");
    arena_pool_drain();
    return status;
}

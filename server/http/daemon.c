#include "server/http/daemon.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "server/http/budget.h"
#include "server/http/guard.h"
#include "server/http/request.h"
#include "server/http/server.h"
#include "server/http/tls.h"
#include "server/ops/shadow.h"

/* Headers and MHD's own buffers per connection; 128 KiB also makes MHD hand
 * over the body in 64 KiB chunks (fewer callbacks than the 32 KiB default). */
#define CONNECTION_MEMORY (128 * 1024)

/* The operations listener's own slots: the kubelet's probes and a few
 * scrapers, which must never take the verbs' connections (nor the verbs
 * theirs). */
#define OPS_CONNECTION_LIMIT 16
#define OPS_PER_IP_LIMIT     8

/* Resolves @listen (host:port; names like localhost too) into @ss. */
static int resolve(const char *listen, struct sockaddr_storage *ss, char *err)
{
    char host[CFG_STR_LEN], port_text[16];
    struct addrinfo hints = {.ai_family = AF_UNSPEC,
                             .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
    struct addrinfo *res = NULL;
    int port, rc;

    if (cfg_listen_split(listen, host, &port) != 0)
        return err_fail(err, -EINVAL, "listen: bad address %s", listen);
    snprintf(port_text, sizeof(port_text), "%d", port);
    rc = getaddrinfo(host, port_text, &hints, &res);
    if (rc != 0)
        return err_fail(err, -EINVAL, "listen: cannot resolve %s: %s", host, gai_strerror(rc));
    memcpy(ss, res->ai_addr, res->ai_addrlen);
    freeaddrinfo(res);
    return 0;
}

/* The memory budget @cfg asks for: memoryBudgetBytes, or (0) derived from
 * the cgroup's memory limit, or (-1) none; said in the log when it
 * differs from @was (UINT64_MAX at start). */
static uint64_t budget_of(const struct cfg *cfg, uint64_t was)
{
    char source[512] = "memoryBudgetBytes";
    uint64_t limit = UINT64_MAX, bytes = 0;

    if (cfg->memory_budget_bytes > 0) {
        bytes = (uint64_t)cfg->memory_budget_bytes;
    } else if (cfg->memory_budget_bytes == 0) {
        if (http_budget_cgroup_limit("/proc/self/cgroup", "/sys/fs/cgroup", &limit, source,
                                     sizeof(source)) != 0 ||
            limit == UINT64_MAX)
            snprintf(source, sizeof(source), "no cgroup memory limit");
        bytes = http_budget_derive(limit);
    } else {
        snprintf(source, sizeof(source), "memoryBudgetBytes -1");
    }
    if (bytes != was)
        LOG(LOG_INFO, bytes != 0 ? "memory budget" : "memory budget: none",
            LOG_UINT("budgetBytes", bytes), LOG_STR("from", source),
            LOG_UINT("limitBytes", limit != UINT64_MAX ? limit : 0));
    return bytes;
}

static void server_free(struct http_server *s)
{
    if (s->cluster != NULL)
        cluster_on_bound(s->cluster, NULL); /* no binding reaches @s from here on */
    /* after MHD_stop_daemon: no connection left */
    http_guard_stop(s->main.guard);
    http_guard_stop(s->ops.guard);
    http_budget_free(s->budget); /* and no answer: every reservation is back */
    ops_ring_destroy(&s->decisions);
    cfg_live_destroy(&s->live);
    free(s);
}

/* The server's own state for @cfg, before any daemon. */
static int server_new(const struct cfg *cfg, struct cluster *cluster, struct http_server **out,
                      char *err)
{
    struct http_server *s = calloc(1, sizeof(*s));

    if (s == NULL)
        return err_fail(err, -ENOMEM, "out of memory");
    s->mtls = cfg->client_ca[0] != '\0';
    atomic_init(&s->ready, true);
    atomic_init(&s->draining, false);
    s->cluster = cluster;
    s->main = (struct http_listener){.server = s};
    s->ops = (struct http_listener){.server = s, .ops_only = true};
    ops_metrics_init(&s->metrics);
    if (cfg_live_init(&s->live, cfg) != 0 ||
        ops_ring_init(&s->decisions, ops_shadow_kept(cfg), cfg->decisions_max_bytes) != 0 ||
        http_budget_new(budget_of(cfg, UINT64_MAX), &s->metrics, &s->budget) != 0) {
        /* What did not start is NULL or zeroed (calloc), which each part of
         * server_free() accepts: glibc's zeroed mutex is its static
         * initializer. The cluster only loses its bound callback, which
         * nothing set yet. */
        server_free(s);
        return err_fail(err, -ENOMEM, "out of memory");
    }
    *out = s;
    return 0;
}

/* Why @ss cannot be bound, when it cannot: libmicrohttpd says so only in
 * its log, so a socket of our own binds it the way it does (address reuse
 * on, IPv6 only), to name the errno. Returns whether it failed, the text
 * in @why ("address already in use"). */
static bool bind_error(const struct sockaddr_storage *ss, char *why, size_t n)
{
    int one = 1, err = 0;
    int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd == -1)
        return false;
    (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (ss->ss_family == AF_INET6)
        (void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
    socklen_t len =
        ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
    if (bind(fd, (const struct sockaddr *)ss, len) == -1)
        err = errno;
    close(fd);
    if (err == 0)
        return false;
    snprintf(why, n, "%s", strerror(err));
    why[0] = (char)tolower((unsigned char)why[0]); /* mid-sentence */
    return true;
}

/* Starts libmicrohttpd for @l on @listen with @cfg's TLS, the verbs'
 * limits or, for the operations listener, its own and no client
 * certificates (the kubelet and Prometheus have none to give). */
static int start_listener(struct http_listener *l, const struct cfg *cfg, const char *listen,
                          char *err)
{
    struct sockaddr_storage ss;
    struct MHD_OptionItem opts[24];
    size_t n = 0;
    char *trust = NULL;
    int limit = l->ops_only ? OPS_CONNECTION_LIMIT : cfg->connection_limit;
    int per_ip = l->ops_only ? OPS_PER_IP_LIMIT : cfg->per_ip_connection_limit;
    int rc;

    memset(&ss, 0, sizeof(ss));
    if ((rc = resolve(listen, &ss, err)) != 0)
        return rc;
    /* The per-IP limit is the guard's, not libmicrohttpd's: it can make
     * room where libmicrohttpd would refuse (http_guard_accept). */
    if (http_guard_start(limit, per_ip, cfg->request_timeout_seconds, &l->server->metrics,
                         &l->guard) != 0)
        return err_fail(err, -ENOMEM, "out of memory");
    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC |
                     MHD_USE_ERROR_LOG | (ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0);
#define OPT(o, v, p) (opts[n++] = (struct MHD_OptionItem){(o), (intptr_t)(v), (p)})
    OPT(MHD_OPTION_SOCK_ADDR, 0, (void *)&ss);
    OPT(MHD_OPTION_CONNECTION_LIMIT, limit, NULL);
    OPT(MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)http_guard_notify, l->guard);
    OPT(MHD_OPTION_CONNECTION_TIMEOUT, cfg->idle_timeout_seconds, NULL);
    OPT(MHD_OPTION_CONNECTION_MEMORY_LIMIT, CONNECTION_MEMORY, NULL);
    OPT(MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)http_on_completed, l);
    OPT(MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)http_on_uri, l);
    if (cfg->tls_cert[0] != '\0') {
        flags |= MHD_USE_TLS;
        /* One-argument options take their argument from ptr_value. */
        OPT(MHD_OPTION_HTTPS_CERT_CALLBACK, 0, (void *)http_tls_cert_callback);
        OPT(MHD_OPTION_HTTPS_PRIORITIES, 0, HTTP_TLS_PRIORITIES);
        if (cfg->client_ca[0] != '\0' && !l->ops_only) {
            trust = http_tls_read_pem(cfg->client_ca, err);
            if (trust == NULL)
                return -EINVAL;
            /* MHD only asks for a client certificate; the request checks it. */
            OPT(MHD_OPTION_HTTPS_MEM_TRUST, 0, trust);
        }
    }
    OPT(MHD_OPTION_END, 0, NULL);
#undef OPT
    l->daemon = MHD_start_daemon(flags, 0, http_guard_accept, l->guard, http_on_request, l,
                                 MHD_OPTION_EXTERNAL_LOGGER, http_on_mhd_log, NULL,
                                 MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
    free(trust);
    if (l->daemon == NULL) {
        char why[128];
        if (bind_error(&ss, why, sizeof(why)))
            err_set(err, "cannot serve on %s: %s", listen, why);
        else
            err_set(err,
                    "cannot serve on %s: address in use or not available, or TLS setup failed "
                    "(details at --log-level debug)",
                    listen);
        return -EINVAL;
    }
    return 0;
}

/* A binding the pod watch saw (the informer's thread): the shadow report
 * compares it with the pod's decision. */
static void on_bound(void *ctx, const char *uid, const char *node)
{
    struct http_server *s = ctx;
    ops_shadow_bound(&s->decisions, &s->metrics, uid, node);
}

int http_start(const struct cfg *cfg, struct cluster *cluster, struct http_server **out, char *err)
{
    struct http_server *s = NULL;
    int rc;

    if ((rc = server_new(cfg, cluster, &s, err)) != 0)
        return rc;
    if ((rc = start_listener(&s->main, cfg, cfg->listen, err)) != 0)
        goto out_free;
    if (cfg->metrics_listen[0] != '\0' &&
        (rc = start_listener(&s->ops, cfg, cfg->metrics_listen, err)) != 0) {
        err_prefix(err, "metrics-listen: ");
        MHD_stop_daemon(s->main.daemon);
        goto out_free;
    }
    if (cluster != NULL)
        cluster_on_bound(cluster, &(struct cluster_bound_hook){.fn = on_bound, .ctx = s});
    *out = s;
    return 0;

out_free:
    server_free(s);
    return rc;
}

static int port_of(const struct http_listener *l)
{
    if (l->daemon == NULL)
        return -1;
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(l->daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info != NULL ? info->port : -1;
}

int http_metrics_port(const struct http_server *s)
{
    return port_of(&s->ops);
}

int http_port(const struct http_server *s)
{
    return port_of(&s->main);
}

void http_set_unready(struct http_server *s)
{
    atomic_store(&s->ready, false);
}

static unsigned connections(const struct http_listener *l)
{
    if (l->daemon == NULL)
        return 0;
    const union MHD_DaemonInfo *info =
        MHD_get_daemon_info(l->daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info != NULL ? info->num_connections : 0;
}

/* Quiesce keeps the connections but hands the listening socket back. It
 * may not be closed before MHD_stop_daemon (its polling thread may still
 * look at the descriptor), but shutting it down stops listening at once:
 * new connections are refused instead of waiting in the backlog until
 * they are reset. Returns the socket, for close after the stop. */
static MHD_socket quiesce(struct http_listener *l)
{
    if (l->daemon == NULL)
        return MHD_INVALID_SOCKET;
    MHD_socket listener = MHD_quiesce_daemon(l->daemon);
    if (listener != MHD_INVALID_SOCKET)
        shutdown(listener, SHUT_RDWR);
    return listener;
}

static void stop_listener(struct http_listener *l, MHD_socket listener)
{
    if (l->daemon != NULL)
        MHD_stop_daemon(l->daemon);
    l->daemon = NULL;
    if (listener != MHD_INVALID_SOCKET)
        close(listener);
}

void http_stop(struct http_server *s, int drain_seconds)
{
    if (s == NULL)
        return;
    /* From now on every answer closes its connection (request.c), so a
     * kept-alive client learns it before the deadline cuts it. */
    atomic_store(&s->draining, true);
    MHD_socket main_socket = quiesce(&s->main), ops_socket = quiesce(&s->ops);
    uint64_t deadline = clock_add_ns(clock_mono_ns(), (uint64_t)drain_seconds * CLOCK_NS_PER_SEC);
    const struct timespec tick = clock_timespec_of(20 * CLOCK_NS_PER_MS);
    while (connections(&s->main) + connections(&s->ops) > 0 && clock_mono_ns() < deadline)
        nanosleep(&tick, NULL);
    stop_listener(&s->main, main_socket);
    stop_listener(&s->ops, ops_socket);
    server_free(s);
}

int http_reload(struct http_server *s, const struct cfg *next)
{
    /* The daemons' sockets, limits and TLS were set at start: the caller
     * says which of those a reload leaves for the next start (cfg_diff). */
    if (cfg_live_swap(&s->live, next) != 0)
        return -ENOMEM;
    http_guard_set_request_timeout(s->main.guard, next->request_timeout_seconds);
    if (s->ops.guard != NULL)
        http_guard_set_request_timeout(s->ops.guard, next->request_timeout_seconds);
    http_budget_resize(s->budget, budget_of(next, http_budget_size(s->budget)));
    /* With the debug endpoints off and no shadow report nothing is
     * recorded: keep nothing. */
    int kept = ops_shadow_kept(next);
    if (ops_ring_configure(&s->decisions, kept, next->decisions_max_bytes) != 0)
        LOG(LOG_ERROR, "decisions ring not resized: out of memory", LOG_INT("kept", kept));
    return 0;
}

void http_note_reload(struct http_server *s, bool valid, bool changed)
{
    ops_metrics_reload(&s->metrics, valid, changed);
}

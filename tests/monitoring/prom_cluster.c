/*
 * prom-cluster: the cluster of tests/monitoring/test_usage_prometheus.sh.
 *
 *   prom-cluster CERT KEY TOKEN NODES DIR [LIFETIME_SECONDS]
 *
 * Starts, all on loopback:
 *   - the fake kube-apiserver (tests/support/fake_apiserver.c, HTTPS with
 *     CERT/KEY, bearer TOKEN) holding NODES nodes node-0, node-1, ... with
 *     4 CPUs, 16 GiB and the InternalIP 127.0.0.(2 + i);
 *   - for each node an exporter on 127.0.0.(2 + i), a free port, serving
 *     GET /metrics as node-exporter does for these series:
 *     node_cpu_seconds_total{cpu,mode} (4 CPUs; idle, iowait, system, user),
 *     node_memory_MemTotal_bytes and node_memory_MemAvailable_bytes. Its
 *     busy cores (user + system) are the decimal number in DIR/cpu-i, read
 *     at every scrape and integrated over time, so rate() over any window
 *     gives them back; iowait is a steady 0.25 cores (a default query must
 *     leave it out); memory in use is DIR/mem-i bytes (default (i+1) GiB);
 *     while DIR/down-i holds a non-zero number its scrapes fail (503);
 *   - a stand-in that never answers: a socket listening on 127.0.0.1 that
 *     accepts nothing (the kernel completes the handshake; no byte ever
 *     comes back), for a Prometheus that hangs.
 * Prints "port=N", "exporter=I ADDR:PORT" for each node and "silent=PORT"
 * on stdout once all serve, then serves until SIGTERM, SIGINT or SIGHUP,
 * the death of its parent, or LIFETIME_SECONDS (default 600).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "tests/support/fake_apiserver.h"

#define MAX_NODES 200
#define NCPU      4
#define IOWAIT    0.25
#define MEM_TOTAL (16.0 * 1024 * 1024 * 1024)

struct exporter {
    int index;
    const char *dir;
    struct MHD_Daemon *d;
    pthread_mutex_t lock;
    double last;   /* when the counters were last advanced */
    double busy;   /* cores busy since last (from the file at the last scrape) */
    double cpu[4]; /* per mode, seconds: idle, iowait, system, user, summed over CPUs */
};

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The number in DIR/NAME-I, or @dflt when the file is absent or unreadable. */
static double read_number(const char *dir, const char *name, int i, double dflt)
{
    char path[4096];
    double v = dflt;
    snprintf(path, sizeof(path), "%s/%s-%d", dir, name, i);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return dflt;
    if (fscanf(f, "%lf", &v) != 1)
        v = dflt;
    fclose(f);
    return v;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_len, void **state)
{
    (void)version;
    (void)upload;
    (void)upload_len;
    (void)state;
    struct exporter *x = cls;
    static const char *const modes[4] = {"idle", "iowait", "system", "user"};
    char text[4096];
    size_t n = 0;

    /* DIR/down-I: the exporter fails its scrapes (503), so Prometheus
     * marks its series stale and the node drops out of every answer. */
    bool down = read_number(x->dir, "down", x->index, 0) != 0;
    if (strcmp(method, "GET") != 0 || strcmp(url, "/metrics") != 0 || down) {
        struct MHD_Response *r =
            MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
        enum MHD_Result rc = MHD_queue_response(conn, down ? 503 : 404, r);
        MHD_destroy_response(r);
        return rc;
    }
    pthread_mutex_lock(&x->lock);
    double t = now_s(), dt = t - x->last;
    double busy = x->busy < 0 ? 0 : x->busy > NCPU - IOWAIT ? NCPU - IOWAIT : x->busy;
    x->cpu[0] += dt * (NCPU - IOWAIT - busy);
    x->cpu[1] += dt * IOWAIT;
    x->cpu[2] += dt * busy * 0.3;
    x->cpu[3] += dt * busy * 0.7;
    x->last = t;
    x->busy = read_number(x->dir, "cpu", x->index, 1.0);
    double used = read_number(x->dir, "mem", x->index, (x->index + 1) * 1073741824.0);
    n += (size_t)snprintf(text + n, sizeof(text) - n,
                          "# HELP node_cpu_seconds_total Seconds the CPUs spent in each mode.\n"
                          "# TYPE node_cpu_seconds_total counter\n");
    for (int c = 0; c < NCPU; c++)
        for (int m = 0; m < 4; m++)
            n += (size_t)snprintf(text + n, sizeof(text) - n,
                                  "node_cpu_seconds_total{cpu=\"%d\",mode=\"%s\"} %.9f\n", c,
                                  modes[m], x->cpu[m] / NCPU);
    pthread_mutex_unlock(&x->lock);
    n += (size_t)snprintf(
        text + n, sizeof(text) - n,
        "# HELP node_memory_MemTotal_bytes Memory information field MemTotal_bytes.\n"
        "# TYPE node_memory_MemTotal_bytes gauge\n"
        "node_memory_MemTotal_bytes %.0f\n"
        "# HELP node_memory_MemAvailable_bytes Memory information field "
        "MemAvailable_bytes.\n"
        "# TYPE node_memory_MemAvailable_bytes gauge\n"
        "node_memory_MemAvailable_bytes %.0f\n",
        MEM_TOTAL, MEM_TOTAL - used);
    struct MHD_Response *r = MHD_create_response_from_buffer(n, text, MHD_RESPMEM_MUST_COPY);
    MHD_add_response_header(r, "Content-Type", "text/plain; version=0.0.4");
    enum MHD_Result rc = MHD_queue_response(conn, 200, r);
    MHD_destroy_response(r);
    return rc;
}

static int parse_uint(const char *s, unsigned max, unsigned *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v > max)
        return -EINVAL;
    *out = (unsigned)v;
    return 0;
}

/* A socket on @ip, a free port, for libmicrohttpd or the silent stand-in. */
static int listen_on(const char *ip, int *port)
{
    struct sockaddr_in a = {.sin_family = AF_INET};
    socklen_t len = sizeof(a);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || inet_pton(AF_INET, ip, &a.sin_addr) != 1 ||
        bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(fd, 64) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    *port = ntohs(a.sin_port);
    return fd;
}

int main(int argc, char **argv)
{
    static struct exporter xs[MAX_NODES];
    struct fake_apiserver *f = NULL;
    unsigned nodes, lifetime = 600;
    sigset_t stop;
    int rc = 1;

    if ((argc != 6 && argc != 7) || parse_uint(argv[4], MAX_NODES, &nodes) != 0 || nodes == 0 ||
        (argc == 7 && parse_uint(argv[6], 86400, &lifetime) != 0)) {
        fprintf(stderr, "usage: prom-cluster CERT KEY TOKEN NODES DIR [LIFETIME_SECONDS]\n");
        return 2;
    }
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGHUP);
    if (pthread_sigmask(SIG_BLOCK, &stop, NULL) != 0 || signal(SIGPIPE, SIG_IGN) == SIG_ERR ||
        prctl(PR_SET_PDEATHSIG, SIGTERM) == -1) {
        perror("prom-cluster: signals");
        return 1;
    }
    struct fake_params p = {.cert_file = argv[1], .key_file = argv[2], .token = argv[3]};
    if (fake_start(&p, &f) != 0) {
        fprintf(stderr, "prom-cluster: cannot start the API server\n");
        return 1;
    }
    for (unsigned i = 0; i < nodes; i++) {
        char json[1024];
        snprintf(json, sizeof(json),
                 "{\"metadata\":{\"name\":\"node-%u\"},\"status\":{\"allocatable\":{\"cpu\":\"4\","
                 "\"memory\":\"16Gi\",\"pods\":\"110\"},\"capacity\":{\"cpu\":\"4\",\"memory\":"
                 "\"16Gi\",\"pods\":\"110\"},\"addresses\":[{\"type\":\"Hostname\",\"address\":"
                 "\"node-%u\"},{\"type\":\"InternalIP\",\"address\":\"127.0.0.%u\"}]}}",
                 i, i, i + 2);
        if (fake_put(f, FAKE_NODE, json, NULL) != 0) {
            fprintf(stderr, "prom-cluster: cannot store node-%u\n", i);
            goto out;
        }
    }
    printf("port=%d\n", fake_port(f));
    for (unsigned i = 0; i < nodes; i++) {
        char ip[32];
        int port;
        snprintf(ip, sizeof(ip), "127.0.0.%u", i + 2);
        int fd = listen_on(ip, &port);
        xs[i] = (struct exporter){.index = (int)i, .dir = argv[5], .last = now_s(), .busy = -1};
        pthread_mutex_init(&xs[i].lock, NULL);
        xs[i].busy = read_number(argv[5], "cpu", (int)i, 1.0);
        if (fd >= 0)
            xs[i].d =
                MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, 0, NULL, NULL,
                                 on_request, &xs[i], MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_END);
        if (xs[i].d == NULL) {
            fprintf(stderr, "prom-cluster: cannot serve on %s\n", ip);
            goto out;
        }
        printf("exporter=%u %s:%d\n", i, ip, port);
    }
    int silent_port;
    int silent = listen_on("127.0.0.1", &silent_port);
    if (silent < 0) {
        fprintf(stderr, "prom-cluster: cannot listen for the silent stand-in\n");
        goto out;
    }
    printf("silent=%d\n", silent_port);
    fflush(stdout);
    struct timespec wait = {.tv_sec = lifetime};
    if (sigtimedwait(&stop, NULL, &wait) == -1 && errno == EAGAIN)
        fprintf(stderr, "prom-cluster: lifetime of %u s is over\n", lifetime);
    close(silent);
    rc = 0;
out:
    for (unsigned i = 0; i < nodes; i++)
        if (xs[i].d != NULL)
            MHD_stop_daemon(xs[i].d);
    fake_stop(f);
    return rc;
}

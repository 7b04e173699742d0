/*
 * bench-driver: replays one request body against a running cpu-extender over
 * keep-alive HTTP, side by side with the parse floor, and prints one table
 * row (markdown).
 *
 *   bench-driver case PORT PID VERB FILE NODES SECONDS CONNECTIONS
 *       p50/p99 of the HTTP round trip, requests/s, MB/s, the server's
 *       peak RSS during the case (and over its idle RSS per body byte, when
 *       BENCH_IDLE_KIB gives the idle VmRSS in KiB), and in this process,
 *       on the same body (bench/measure.h): the scan floor (one validating
 *       pass, no output), the handler (the verb itself, without a
 *       cluster, in a warm arena) and the cJSON parse (the floor before
 *       the scanner).
 *   bench-driver idle PID
 *       VmRSS and RssAnon of the server.
 *   bench-driver healthz PORT FILE
 *       /healthz latency on a second connection while FILE is being
 *       prioritized on the first.
 *   bench-driver growth PORT PID FILE REQUESTS
 *       VmRSS before and after REQUESTS prioritize calls.
 *   bench-driver soak PORT PID FILE VERB RATE SECONDS
 *       RATE requests/s for SECONDS; counts answers other than 200 and 5xx,
 *       and the range of VmRSS.
 *
 * Only 127.0.0.1 is ever contacted; every loop is bounded in count or time.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/arena.h"
#include "bench/measure.h"
#include "bench/raw.h"
#include "config/config.h"
#include "tests/support/fixtures.h"
#include "tests/support/http_client.h"

#define MAX_SAMPLES 2000000

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double percentile(double *v, size_t n, double p)
{
    if (n == 0)
        return 0;
    qsort(v, n, sizeof(*v), cmp_double);
    size_t i = (size_t)(p * (double)(n - 1) + 0.5);
    return v[i];
}

/* Reads "Key:   N kB" from /proc/PID/status, in KiB. */
static long proc_kib(int pid, const char *key)
{
    char path[64], line[256];
    long v = -1;
    snprintf(path, sizeof(path), "/proc/%d/status", pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    while (fgets(line, sizeof(line), f) != NULL)
        if (strncmp(line, key, strlen(key)) == 0 && line[strlen(key)] == ':')
            v = strtol(line + strlen(key) + 1, NULL, 10);
    fclose(f);
    return v;
}

/* Resets the peak RSS (VmHWM) of PID to its current RSS. */
static void reset_peak(int pid)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/clear_refs", pid);
    FILE *f = fopen(path, "w");
    if (f != NULL) {
        fputs("5", f);
        fclose(f);
    }
}

/* The in-process columns of a case, sampled beside the requests. */
struct inproc {
    enum bench_mode verb; /* BENCH_PRIORITIZE or BENCH_FILTER */
    const struct cfg *cfg;
    double *scan, *handler, *parse; /* ms, one triple per sample */
    size_t n, cap;
};

/* One run of @mode in a warm arena, timed without taking and giving back
 * the arena (the server takes it at the headers, before the body). */
static double run_ms(enum bench_mode mode, const struct cfg *c, const char *body, size_t len)
{
    struct arena *a = arena_acquire();
    if (a == NULL) {
        fprintf(stderr, "bench-driver: out of memory\n");
        exit(1);
    }
    double t0 = now_ms();
    int rc = bench_run_mode(mode, c, a, body, len);
    double t = now_ms() - t0;
    arena_release(a);
    if (rc != 0) {
        fprintf(stderr, "bench-driver: mode %d fails on this body\n", (int)mode);
        exit(1);
    }
    return t;
}

/* @k samples of the three, interleaved (scan, handler, parse, scan, ...):
 * each sees the machine and the caches as the other two do. */
static void sample_inproc(struct inproc *ip, const char *body, size_t len, size_t k)
{
    for (size_t i = 0; i < k && ip->n < ip->cap; i++, ip->n++) {
        ip->scan[ip->n] = run_ms(BENCH_SCAN, ip->cfg, body, len);
        ip->handler[ip->n] = run_ms(ip->verb, ip->cfg, body, len);
        ip->parse[ip->n] = run_ms(BENCH_PARSE, ip->cfg, body, len);
    }
}

/* The transport floor: the same body POSTed to /healthz, which reads and
 * drops it and answers 405: what moving the bytes over loopback costs. */
static double transport_ms(int port, const char *body, size_t len, int rounds)
{
    static double samples[64];
    char *buf = NULL;
    size_t cap = 0, n = 0;
    int fd = http_connect(port);
    for (int i = 0; fd >= 0 && i < rounds && i < 64; i++) {
        struct http_response r;
        double t0 = now_ms();
        if (http_send(fd, "POST", "/healthz", body, len) != 0 ||
            http_read_reuse(fd, &r, &buf, &cap, 30000) != 0)
            break;
        samples[n++] = now_ms() - t0;
    }
    if (fd >= 0)
        close(fd);
    free(buf);
    return percentile(samples, n, 0.5);
}

struct load {
    int port;
    struct inproc *inproc; /* non-NULL: blocks of in-process samples between the requests */
    const char *path;
    const char *body;
    size_t len;
    double until_ms;  /* of request time: sampling in between does not count */
    double sample_ms; /* time spent in the in-process samples */
    double *samples;
    size_t n, cap;
    int errors;
};

static void *run_load(void *arg)
{
    struct load *l = arg;
    int fd = http_connect(l->port);
    if (fd < 0) {
        l->errors++;
        return NULL;
    }
    char *buf = NULL;
    size_t cap = 0;
    while (l->n < l->cap && (l->n < 3 || now_ms() < l->until_ms + l->sample_ms)) {
        struct http_response r;
        /* Every 32 requests, 32 in-process samples of each: drift in the
         * machine's speed hits both alike, and the cache is not flushed
         * before every request by a run in this process. A body of tens of
         * MB takes blocks of 4: 32 would keep the connection silent past
         * the server's request timeout on a busy machine. */
        size_t block = l->len > 20000000 ? 4 : 32;
        if (l->inproc != NULL && l->n % block == 0) {
            double s0 = now_ms();
            sample_inproc(l->inproc, l->body, l->len, block);
            l->sample_ms += now_ms() - s0;
        }
        double t0 = now_ms();
        int rc = http_send(fd, "POST", l->path, l->body, l->len);
        if (rc == 0)
            rc = http_read_reuse(fd, &r, &buf, &cap, 30000);
        l->samples[l->n++] = now_ms() - t0;
        if (rc != 0 || r.status != 200)
            l->errors++;
        if (rc != 0)
            break;
    }
    free(buf);
    close(fd);
    return NULL;
}

/* The server's VmRSS right after it started, in KiB, from BENCH_IDLE_KIB
 * (run.sh measures it); -1 when not given. */
static long idle_kib(void)
{
    const char *v = getenv("BENCH_IDLE_KIB");
    char *end;
    if (v == NULL || *v == '\0')
        return -1;
    long kib = strtol(v, &end, 10);
    return *end == '\0' && kib > 0 ? kib : -1;
}

static int cmd_case(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: bench-driver case PORT PID VERB FILE NODES SECONDS CONNECTIONS\n");
        return 2;
    }
    int port = atoi(argv[0]), pid = atoi(argv[1]), conns = atoi(argv[6]);
    const char *verb = argv[2], *file = argv[3];
    long nodes = atol(argv[4]), idle = idle_kib();
    double seconds = atof(argv[5]);
    size_t len;
    struct cfg cfg;
    struct inproc ip = {.cfg = &cfg, .cap = MAX_SAMPLES};
    char *body = file_slurp(file, &len), path[64];
    if (body == NULL || conns < 1 || conns > 16) {
        fprintf(stderr, "bench-driver: cannot read %s\n", file);
        return 1;
    }
    if (bench_mode_parse(verb, &ip.verb) != 0 ||
        (ip.verb != BENCH_PRIORITIZE && ip.verb != BENCH_FILTER)) {
        fprintf(stderr, "bench-driver: verb %s: want prioritize or filter\n", verb);
        return 2;
    }
    snprintf(path, sizeof(path), "/scheduler/%s", verb);

    /* The in-process columns are sampled in this process, side by side
     * with the requests: with one connection in blocks between the
     * requests, with more before the load (the load takes both cores). */
    bench_cfg(&cfg);
    bench_init();
    ip.scan = malloc(MAX_SAMPLES * sizeof(double));
    ip.handler = malloc(MAX_SAMPLES * sizeof(double));
    ip.parse = malloc(MAX_SAMPLES * sizeof(double));
    if (ip.scan == NULL || ip.handler == NULL || ip.parse == NULL) {
        fprintf(stderr, "bench-driver: out of memory\n");
        return 1;
    }
    if (conns > 1)
        for (double stop = now_ms() + seconds * 500; ip.n < 5 || now_ms() < stop;)
            sample_inproc(&ip, body, len, 1);
    double transport = transport_ms(port, body, len, len > 20000000 ? 5 : 30);
    double raw = bench_raw_roundtrip_ms(body, len, len > 20000000 ? 9 : 30);
    struct load loads[16];
    pthread_t threads[16];
    reset_peak(pid);
    double start = now_ms();
    for (int i = 0; i < conns; i++) {
        loads[i] = (struct load){.port = port,
                                 .path = path,
                                 .body = body,
                                 .len = len,
                                 .until_ms = start + seconds * 1000,
                                 .cap = MAX_SAMPLES / (size_t)conns,
                                 .inproc = conns == 1 ? &ip : NULL};
        loads[i].samples = malloc(loads[i].cap * sizeof(double));
        pthread_create(&threads[i], NULL, run_load, &loads[i]);
    }
    size_t total = 0;
    int errors = 0;
    for (int i = 0; i < conns; i++) {
        pthread_join(threads[i], NULL);
        total += loads[i].n;
        errors += loads[i].errors;
    }
    /* Requests per second over the time spent on requests: with one
     * connection the in-process blocks in between are not load. */
    double elapsed = (now_ms() - start - (conns == 1 ? loads[0].sample_ms : 0)) / 1000;
    long peak = proc_kib(pid, "VmHWM");
    double scan = percentile(ip.scan, ip.n, 0.5), handler = percentile(ip.handler, ip.n, 0.5);
    double parse = percentile(ip.parse, ip.n, 0.5);
    free(ip.scan);
    free(ip.handler);
    free(ip.parse);
    arena_pool_drain();
    double *all = malloc((total + 1) * sizeof(double));
    size_t k = 0;
    for (int i = 0; i < conns; i++) {
        memcpy(all + k, loads[i].samples, loads[i].n * sizeof(double));
        k += loads[i].n;
        free(loads[i].samples);
    }
    double p50 = percentile(all, total, 0.5), p99 = percentile(all, total, 0.99);
    char over_idle[32] = "n/a";
    if (idle > 0 && peak > 0)
        snprintf(over_idle, sizeof(over_idle), "%.2f", (double)(peak - idle) * 1024 / (double)len);
    /* | case | body | B/node | conns | n | HTTP p50 | HTTP p99 | handler p50 | handler GB/s |
     * scan p50 | handler/scan | cJSON parse p50 | transport p50 | req/s | MB/s | peak RSS |
     * (peak-idle)/body | errors | raw loopback p50 | */
    /* A raw round trip that failed is "-", so no target is judged on it. */
    char raw_text[32] = "-";
    if (raw >= 0)
        snprintf(raw_text, sizeof(raw_text), "%.3f ms", raw);
    printf("| %s %s | %.2f MB | %ld | %d | %zu | %.3f ms | %.3f ms | %.4f ms | %.2f | %.4f ms | "
           "%.2f | %.4f ms | %.3f ms | %.0f | %.0f | %.1f MiB | %s | %d | %s |\n",
           verb, strrchr(file, '/') ? strrchr(file, '/') + 1 : file, (double)len / 1e6,
           nodes > 0 ? (long)len / nodes : 0, conns, total, p50, p99, handler,
           (double)len / (handler / 1e3) / 1e9, scan, handler / scan, parse, transport,
           (double)total / elapsed, (double)total * (double)len / elapsed / 1e6,
           (double)peak / 1024, over_idle, errors, raw_text);
    free(all);
    free(body);
    return errors == 0 ? 0 : 1;
}

static int cmd_idle(int argc, char **argv)
{
    if (argc != 1)
        return 2;
    int pid = atoi(argv[0]);
    printf("| idle | VmRSS %.1f MiB | RssAnon %.1f MiB |\n", (double)proc_kib(pid, "VmRSS") / 1024,
           (double)proc_kib(pid, "RssAnon") / 1024);
    return 0;
}

struct big {
    int port;
    char *body;
    size_t len;
    volatile int done;
};

static void *post_big(void *arg)
{
    struct big *b = arg;
    struct http_response r;
    int fd = http_connect(b->port);
    for (int i = 0; i < 3 && fd >= 0; i++) {
        http_roundtrip(fd, "POST", "/scheduler/prioritize", b->body, b->len, &r);
        http_response_free(&r);
    }
    if (fd >= 0)
        close(fd);
    b->done = 1;
    return NULL;
}

static int cmd_healthz(int argc, char **argv)
{
    static double samples[100000];
    if (argc != 2)
        return 2;
    struct big b = {.port = atoi(argv[0])};
    b.body = file_slurp(argv[1], &b.len);
    if (b.body == NULL)
        return 1;
    pthread_t t;
    pthread_create(&t, NULL, post_big, &b);
    int fd = http_connect(b.port);
    size_t n = 0;
    while (!b.done && fd >= 0 && n < sizeof(samples) / sizeof(samples[0])) {
        struct http_response r;
        double t0 = now_ms();
        http_roundtrip(fd, "GET", "/healthz", NULL, 0, &r);
        samples[n++] = now_ms() - t0;
        http_response_free(&r);
        usleep(1000);
    }
    pthread_join(t, NULL);
    if (fd >= 0)
        close(fd);
    double p50 = percentile(samples, n, 0.5), max = n ? samples[n - 1] : 0;
    printf(
        "| /healthz during 3 x prioritize %s | %zu probes | p50 %.3f ms | p99 %.3f ms | max %.3f "
        "ms |\n",
        strrchr(argv[1], '/') + 1, n, p50, percentile(samples, n, 0.99), max);
    free(b.body);
    return 0;
}

static int cmd_growth(int argc, char **argv)
{
    if (argc != 4)
        return 2;
    int port = atoi(argv[0]), pid = atoi(argv[1]);
    long n = atol(argv[3]);
    size_t len;
    char *body = file_slurp(argv[2], &len);
    if (body == NULL)
        return 1;
    int fd = http_connect(port);
    long errors = 0, before = 0;
    for (long i = 0; i < n && fd >= 0; i++) {
        struct http_response r;
        if (http_roundtrip(fd, "POST", "/scheduler/prioritize", body, len, &r) != 0 ||
            r.status != 200)
            errors++;
        http_response_free(&r);
        if (i == n / 10) /* after warm-up */
            before = proc_kib(pid, "VmRSS");
    }
    long after = proc_kib(pid, "VmRSS");
    printf("| %ld requests of %s | VmRSS after 10 %%: %.1f MiB | at the end: %.1f MiB | errors %ld "
           "|\n",
           n, strrchr(argv[2], '/') + 1, (double)before / 1024, (double)after / 1024, errors);
    if (fd >= 0)
        close(fd);
    free(body);
    return errors == 0 ? 0 : 1;
}

/* Paced load: @rate requests/s for @seconds on one connection, RSS sampled
 * every 10 s. Prints the totals; fails on any answer other than 200. */
static int cmd_soak(int argc, char **argv)
{
    if (argc != 6)
        return 2;
    int port = atoi(argv[0]), pid = atoi(argv[1]);
    const char *verb = argv[3];
    double rate = atof(argv[4]), seconds = atof(argv[5]);
    size_t len, cap = 0;
    char *body = file_slurp(argv[2], &len), *buf = NULL, path[64];
    if (body == NULL || rate <= 0)
        return 1;
    snprintf(path, sizeof(path), "/scheduler/%s", verb);
    int fd = http_connect(port);
    long sent = 0, not_ok = 0, server_errors = 0, rss_min = -1, rss_max = -1;
    double start = now_ms(), next_sample = start;
    while (fd >= 0 && now_ms() - start < seconds * 1000) {
        double due = start + (double)sent * 1000 / rate;
        double wait = due - now_ms();
        if (wait > 0)
            usleep((useconds_t)(wait * 1000));
        struct http_response r;
        if (http_send(fd, "POST", path, body, len) != 0 ||
            http_read_reuse(fd, &r, &buf, &cap, 30000) != 0) {
            not_ok++;
            close(fd);
            fd = http_connect(port);
            continue;
        }
        sent++;
        not_ok += r.status != 200;
        server_errors += r.status >= 500;
        if (now_ms() >= next_sample) {
            long rss = proc_kib(pid, "VmRSS");
            rss_min = rss_min < 0 || rss < rss_min ? rss : rss_min;
            rss_max = rss > rss_max ? rss : rss_max;
            next_sample += 10000;
        }
    }
    double elapsed = (now_ms() - start) / 1000 + 1e-9;
    printf("| soak %s %s | %.0f s | %ld requests | %.0f req/s | not 200: %ld | 5xx: %ld | VmRSS "
           "%.1f..%.1f MiB |\n",
           verb, strrchr(argv[2], '/') ? strrchr(argv[2], '/') + 1 : argv[2], elapsed, sent,
           (double)sent / elapsed, not_ok, server_errors, (double)rss_min / 1024,
           (double)rss_max / 1024);
    if (fd >= 0)
        close(fd);
    free(buf);
    free(body);
    return not_ok == 0 && sent > 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "case") == 0)
        return cmd_case(argc - 2, argv + 2);
    if (argc >= 2 && strcmp(argv[1], "idle") == 0)
        return cmd_idle(argc - 2, argv + 2);
    if (argc >= 2 && strcmp(argv[1], "healthz") == 0)
        return cmd_healthz(argc - 2, argv + 2);
    if (argc >= 2 && strcmp(argv[1], "growth") == 0)
        return cmd_growth(argc - 2, argv + 2);
    if (argc >= 2 && strcmp(argv[1], "soak") == 0)
        return cmd_soak(argc - 2, argv + 2);
    fprintf(stderr, "usage: bench-driver case|idle|healthz|growth ...\n");
    return 2;
}

/*
 * bench-driver: replays one request body against a running cpu-extender over
 * keep-alive HTTP, side by side with the parse floor, and prints one table
 * row (markdown).
 *
 *   bench-driver case PORT PID VERB FILE NODES SECONDS CONNECTIONS
 *       p50/p99 latency, requests/s, MB/s, the server's peak RSS during the
 *       case, and the floor: cJSON_ParseWithLengthOpts into a warm arena on
 *       the same body, in this process, with no scoring and no answer.
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

#include <cjson/cJSON.h>

#include "base/arena.h"
#include "server/codec/json.h"
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

/* One floor sample: parse the body into a warm arena, as the server does,
 * with no scoring and no answer. */
static double parse_once_ms(const char *body, size_t len)
{
    struct arena *a = arena_acquire();
    cJSON *j;
    size_t at;
    double t0 = now_ms();
    int rc = codec_json_tree(a, body, len, &j, &at);
    double t = now_ms() - t0;
    arena_release(a);
    if (rc != 0) {
        fprintf(stderr, "bench-driver: body does not parse\n");
        exit(1);
    }
    return t;
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
    bool interleave_floor; /* alternate phases of floor samples and requests */
    double *floor;
    const char *path;
    const char *body;
    size_t len;
    double until_ms;
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
    while (l->n < l->cap && (l->n < 3 || now_ms() < l->until_ms)) {
        struct http_response r;
        /* Every 32 requests, as many floor samples: drift in the machine's
         * speed hits both alike, and the cache is not flushed before every
         * request by a parse in this process. */
        if (l->interleave_floor && l->n % 32 == 0)
            for (size_t k = 0; k < 32 && l->n + k < l->cap; k++)
                l->floor[l->n + k] = parse_once_ms(l->body, l->len);
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

static int cmd_case(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: bench-driver case PORT PID VERB FILE NODES SECONDS CONNECTIONS\n");
        return 2;
    }
    int port = atoi(argv[0]), pid = atoi(argv[1]), conns = atoi(argv[6]);
    const char *verb = argv[2], *file = argv[3];
    long nodes = atol(argv[4]);
    double seconds = atof(argv[5]);
    size_t len;
    char *body = file_slurp(file, &len), path[64];
    if (body == NULL || conns < 1 || conns > 16) {
        fprintf(stderr, "bench-driver: cannot read %s\n", file);
        return 1;
    }
    snprintf(path, sizeof(path), "/scheduler/%s", verb);

    /* The floor is sampled in this process, side by side with the requests:
     * with one connection in blocks between the requests, with more before
     * the load. */
    codec_json_install_hooks();
    double *floors = malloc(MAX_SAMPLES * sizeof(double)), floor;
    size_t n_floor = 0;
    if (conns > 1) {
        for (double stop = now_ms() + seconds * 500; n_floor < 5 || now_ms() < stop;)
            floors[n_floor++] = parse_once_ms(body, len);
    }
    double transport = transport_ms(port, body, len, len > 20000000 ? 5 : 30);
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
                                 .interleave_floor = conns == 1,
                                 .floor = floors};
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
    double elapsed = (now_ms() - start) / 1000;
    if (conns == 1) /* floor samples were taken in blocks of 32 */
        n_floor =
            (loads[0].n + 31) / 32 * 32 < loads[0].cap ? (loads[0].n + 31) / 32 * 32 : loads[0].cap;
    floor = percentile(floors, n_floor, 0.5);
    free(floors);
    arena_pool_drain();
    double *all = malloc((total + 1) * sizeof(double));
    size_t k = 0;
    for (int i = 0; i < conns; i++) {
        memcpy(all + k, loads[i].samples, loads[i].n * sizeof(double));
        k += loads[i].n;
        free(loads[i].samples);
    }
    double p50 = percentile(all, total, 0.5), p99 = percentile(all, total, 0.99);
    long peak = proc_kib(pid, "VmHWM");
    /* | case | body | B/node | conns | n | p50 | p99 | floor p50 | p50/floor | transport p50 |
     * p50/(floor+transport) | req/s | MB/s | peak RSS | peak/body | errors | */
    printf("| %s %s | %.2f MB | %ld | %d | %zu | %.3f ms | %.3f ms | %.3f ms | %.2f | %.3f ms | "
           "%.2f | "
           "%.0f | %.0f | %.1f MiB | %.1f | %d |\n",
           verb, strrchr(file, '/') ? strrchr(file, '/') + 1 : file, (double)len / 1e6,
           nodes > 0 ? (long)len / nodes : 0, conns, total, p50, p99, floor, p50 / floor, transport,
           p50 / (floor + transport), (double)total / elapsed,
           (double)total * (double)len / elapsed / 1e6, (double)peak / 1024,
           (double)peak * 1024 / (double)len, errors);
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

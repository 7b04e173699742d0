#include "bench/raw.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define RAW_MAX_ROUNDS 64
#define RAW_ANSWER     64
/* A reader that hears nothing for this long gives up: every wait is bounded. */
#define RAW_TIMEOUT_MS 30000

struct reader {
    int listener;
    size_t len;
    int rounds;
    int failed;
};

/* Bounds every blocking receive on @fd: a plain blocking recv (no poll
 * before each) is the cheapest way to take bytes off a socket, the floor. */
static void bound_reads(int fd)
{
    const struct timeval tv = {.tv_sec = RAW_TIMEOUT_MS / 1000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

/* Reads exactly @n bytes into @buf; 0 or -1 (closed, error, timeout). */
static int read_all(int fd, char *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = recv(fd, buf + got, n - got, 0);
        if (r <= 0)
            return -1;
        got += (size_t)r;
    }
    return 0;
}

static int write_all(int fd, const char *buf, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, buf, n, MSG_NOSIGNAL);
        if (w <= 0)
            return -1;
        buf += w;
        n -= (size_t)w;
    }
    return 0;
}

/* The trivial server: one connection, @rounds bodies received whole into
 * one buffer, each answered with 64 bytes. */
static void *serve(void *arg)
{
    struct reader *r = arg;
    char answer[RAW_ANSWER];
    char *buf = malloc(r->len + 1);
    struct pollfd p = {.fd = r->listener, .events = POLLIN};
    int fd = buf != NULL && poll(&p, 1, RAW_TIMEOUT_MS) == 1 ? accept(r->listener, NULL, NULL) : -1;

    memset(answer, 'a', sizeof(answer));
    if (fd >= 0)
        bound_reads(fd);
    for (int i = 0; fd >= 0 && i < r->rounds; i++)
        if (read_all(fd, buf, r->len) != 0 || write_all(fd, answer, sizeof(answer)) != 0) {
            r->failed = 1;
            break;
        }
    if (fd < 0)
        r->failed = 1;
    else
        close(fd);
    free(buf);
    return NULL;
}

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

/* A listening socket on 127.0.0.1, any port; its port in *@port. */
static int listen_loopback(int *port)
{
    struct sockaddr_in sa = {.sin_family = AF_INET};
    socklen_t sl = sizeof(sa);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(fd, 1) != 0 ||
        getsockname(fd, (struct sockaddr *)&sa, &sl) != 0) {
        close(fd);
        return -1;
    }
    *port = ntohs(sa.sin_port);
    return fd;
}

double bench_raw_roundtrip_ms(const char *body, size_t len, int rounds)
{
    double samples[RAW_MAX_ROUNDS];
    char answer[RAW_ANSWER];
    int port = 0, n = 0;
    struct reader r = {.len = len, .rounds = rounds < RAW_MAX_ROUNDS ? rounds : RAW_MAX_ROUNDS};
    pthread_t t;

    r.listener = listen_loopback(&port);
    if (r.listener < 0)
        return -1;
    if (pthread_create(&t, NULL, serve, &r) != 0) {
        close(r.listener);
        return -1;
    }
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    /* As the HTTP client: no Nagle delay on the last piece. */
    if (fd >= 0)
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (fd >= 0)
        bound_reads(fd);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        close(fd);
        fd = -1;
    }
    for (; fd >= 0 && n < r.rounds; n++) {
        double t0 = now_ms();
        if (write_all(fd, body, len) != 0 || read_all(fd, answer, sizeof(answer)) != 0)
            break;
        samples[n] = now_ms() - t0;
    }
    if (fd >= 0)
        close(fd); /* the reader, if still waiting, reads EOF */
    pthread_join(t, NULL);
    close(r.listener);
    if (n < r.rounds || r.failed)
        return -1;
    qsort(samples, (size_t)n, sizeof(samples[0]), cmp_double);
    return samples[n / 2];
}

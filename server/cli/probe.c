#include "server/cli/probe.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/err.h"
#include "server/cli/args.h"

#define PROBE_TIMEOUT_MS 2000

/* A wildcard listen address is probed on the matching loopback. */
static const char *probe_host(const char *host)
{
    if (strcmp(host, "0.0.0.0") == 0)
        return "127.0.0.1";
    if (strcmp(host, "::") == 0)
        return "::1";
    return host;
}

static long ms_left(const struct timespec *deadline)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (deadline->tv_sec - now.tv_sec) * 1000 + (deadline->tv_nsec - now.tv_nsec) / 1000000;
}

static int wait_fd(int fd, short events, const struct timespec *deadline)
{
    struct pollfd p = {.fd = fd, .events = events};
    long left = ms_left(deadline);
    if (left <= 0)
        return -ETIMEDOUT;
    int rc = poll(&p, 1, (int)left);
    return rc == 1 ? 0 : rc == 0 ? -ETIMEDOUT : -errno;
}

static int connect_to(const char *host, int port, const struct timespec *deadline)
{
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV};
    struct addrinfo *res = NULL;
    char port_text[16];
    int fd = -1;

    snprintf(port_text, sizeof(port_text), "%d", port);
    if (getaddrinfo(host, port_text, &hints, &res) != 0)
        return -EINVAL;
    fd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd == -1)
        goto out_free;
    if (connect(fd, res->ai_addr, res->ai_addrlen) == -1 && errno != EINPROGRESS)
        goto out_close;
    int soerr = 0;
    socklen_t len = sizeof(soerr);
    if (wait_fd(fd, POLLOUT, deadline) != 0 ||
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) == -1 || soerr != 0)
        goto out_close;
    freeaddrinfo(res);
    return fd;

out_close:
    close(fd);
    fd = -1;
out_free:
    freeaddrinfo(res);
    return fd;
}

/* GETs /healthz (or /readyz when @ready) from cfg->listen, a wildcard
 * address being probed on loopback, within 2 s. Returns 0 on 200, or -errno
 * with the reason in @err. */
static int probe(const struct cfg *cfg, bool ready, char *err)
{
    char host[CFG_STR_LEN], req[512], resp[512];
    struct timespec deadline;
    int port, fd, status = 0;
    size_t got = 0;

    if (cfg_listen_split(cfg->listen, host, &port) != 0 || port == 0) {
        err_set(err, "listen %s: need a fixed port to probe", cfg->listen);
        return -EINVAL;
    }
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += PROBE_TIMEOUT_MS / 1000;
    fd = connect_to(probe_host(host), port, &deadline);
    if (fd < 0) {
        err_set(err, "cannot connect to %s", cfg->listen);
        return -ECONNREFUSED;
    }
    int n = snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n",
                     ready ? "/readyz" : "/healthz", cfg->listen);
    if (send(fd, req, (size_t)n, MSG_NOSIGNAL) != n) {
        err_set(err, "cannot send the probe to %s", cfg->listen);
        close(fd);
        return -EIO;
    }
    while (got + 1 < sizeof(resp) && wait_fd(fd, POLLIN, &deadline) == 0) {
        ssize_t r = recv(fd, resp + got, sizeof(resp) - 1 - got, 0);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    resp[got] = '\0';
    if (sscanf(resp, "HTTP/1.%*d %d", &status) != 1) {
        err_set(err, "no HTTP answer from %s within %d ms", cfg->listen, PROBE_TIMEOUT_MS);
        return -ETIMEDOUT;
    }
    if (status != 200) {
        const char *body = strstr(resp, "\r\n\r\n");
        err_set(err, "%s answered %d %s", ready ? "/readyz" : "/healthz", status,
                body ? body + 4 : "");
        return -EAGAIN;
    }
    return 0;
}

int cli_probe_main(int argc, char **argv)
{
    struct cfg c;
    char err[ERR_LEN];
    bool ready = false;
    char *rest[64];
    int n = 0;

    for (int i = 0; i < argc && n < 64; i++) {
        if (strcmp(argv[i], "--ready") == 0)
            ready = true;
        else
            rest[n++] = argv[i];
    }
    if (cli_load_config(&c, n, rest) != 0)
        return 2;
    if (probe(&c, ready, err) != 0) {
        fprintf(stderr, "cpu-extender probe: %s\n", err);
        return 1;
    }
    return 0;
}

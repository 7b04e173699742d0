#include "server/http/probe.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <gnutls/gnutls.h>

#include "base/err.h"
#include "server/http/tls.h"

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

/* A non-blocking socket connected to @host:@port, or -1. */
static int connect_to(const char *host, int port, const struct timespec *deadline)
{
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV};
    struct addrinfo *res = NULL;
    char port_text[16];
    int fd = -1;

    snprintf(port_text, sizeof(port_text), "%d", port);
    if (getaddrinfo(host, port_text, &hints, &res) != 0)
        return -1;
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

/* One connection, plain or TLS: sends and receives within the deadline. */
struct conn {
    int fd;
    gnutls_session_t tls; /* NULL: plain */
    const struct timespec *deadline;
};

static int conn_send(struct conn *c, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t n;
        if (c->tls != NULL) {
            n = gnutls_record_send(c->tls, data, len);
            if (n == GNUTLS_E_AGAIN || n == GNUTLS_E_INTERRUPTED) {
                if (wait_fd(c->fd, gnutls_record_get_direction(c->tls) ? POLLOUT : POLLIN,
                            c->deadline) != 0)
                    return -ETIMEDOUT;
                continue;
            }
        } else {
            n = send(c->fd, data, len, MSG_NOSIGNAL);
            if (n == -1 && (errno == EAGAIN || errno == EINTR)) {
                if (wait_fd(c->fd, POLLOUT, c->deadline) != 0)
                    return -ETIMEDOUT;
                continue;
            }
        }
        if (n <= 0)
            return -EIO;
        data += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Reads until the peer closes, @cap - 1 bytes are in, or the deadline. */
static size_t conn_recv_all(struct conn *c, char *buf, size_t cap)
{
    size_t got = 0;
    while (got + 1 < cap) {
        ssize_t n;
        if (c->tls != NULL) {
            /* Records already decrypted need no wait on the socket. */
            if (gnutls_record_check_pending(c->tls) == 0 &&
                wait_fd(c->fd, POLLIN, c->deadline) != 0)
                break;
            n = gnutls_record_recv(c->tls, buf + got, cap - 1 - got);
            if (n == GNUTLS_E_AGAIN || n == GNUTLS_E_INTERRUPTED)
                continue;
        } else {
            if (wait_fd(c->fd, POLLIN, c->deadline) != 0)
                break;
            n = recv(c->fd, buf + got, cap - 1 - got, 0);
            if (n == -1 && (errno == EAGAIN || errno == EINTR))
                continue;
        }
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    buf[got] = '\0';
    return got;
}

/* The TLS handshake on c->fd within the deadline. */
static int handshake(struct conn *c, gnutls_certificate_credentials_t cred, const char *host,
                     char *err)
{
    int rc;
    if (gnutls_init(&c->tls, GNUTLS_CLIENT | GNUTLS_NONBLOCK) < 0) {
        c->tls = NULL;
        err_set(err, "out of memory");
        return -ENOMEM;
    }
    if ((rc = gnutls_priority_set_direct(c->tls, HTTP_TLS_PRIORITIES, NULL)) < 0 ||
        (rc = gnutls_credentials_set(c->tls, GNUTLS_CRD_CERTIFICATE, cred)) < 0) {
        err_set(err, "TLS setup: %s", gnutls_strerror(rc));
        return -EPROTO;
    }
    /* A name, not an address: the server may choose its certificate by it. */
    if (strchr(host, ':') == NULL && strspn(host, "0123456789.") != strlen(host))
        gnutls_server_name_set(c->tls, GNUTLS_NAME_DNS, host, strlen(host));
    gnutls_transport_set_int(c->tls, c->fd);
    do {
        rc = gnutls_handshake(c->tls);
        if (rc == GNUTLS_E_AGAIN || rc == GNUTLS_E_INTERRUPTED) {
            if (wait_fd(c->fd, gnutls_record_get_direction(c->tls) ? POLLOUT : POLLIN,
                        c->deadline) != 0) {
                err_set(err, "TLS handshake with %s timed out", host);
                return -ETIMEDOUT;
            }
            continue;
        }
    } while (rc < 0 && gnutls_error_is_fatal(rc) == 0);
    if (rc < 0) {
        err_set(err, "TLS handshake with %s failed: %s", host, gnutls_strerror(rc));
        return -EPROTO;
    }
    return 0;
}

int http_probe_get(const char *host, int port, bool tls, const char *path, int timeout_ms,
                   struct http_probe_answer *out, char *err)
{
    struct timespec deadline;
    gnutls_certificate_credentials_t cred = NULL;
    char req[512], resp[4096];
    int rc;

    memset(out, 0, sizeof(*out));
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += timeout_ms / 1000;
    deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    struct conn c = {.fd = connect_to(host, port, &deadline), .deadline = &deadline};
    if (c.fd < 0) {
        err_set(err, "cannot connect to %s port %d", host, port);
        return -ECONNREFUSED;
    }
    if (tls) {
        if (gnutls_certificate_allocate_credentials(&cred) < 0) {
            err_set(err, "out of memory");
            rc = -ENOMEM;
            goto out_close;
        }
        if ((rc = handshake(&c, cred, host, err)) != 0)
            goto out_close;
    }
    int n = snprintf(req, sizeof(req),
                     "GET %s HTTP/1.1\r\nHost: %s%s%s:%d\r\nUser-Agent: cpu-extender-probe\r\n"
                     "Connection: close\r\n\r\n",
                     path, strchr(host, ':') ? "[" : "", host, strchr(host, ':') ? "]" : "", port);
    if (n < 0 || (size_t)n >= sizeof(req) || conn_send(&c, req, (size_t)n) != 0) {
        err_set(err, "cannot send the probe to %s port %d", host, port);
        rc = -EIO;
        goto out_close;
    }
    conn_recv_all(&c, resp, sizeof(resp));
    if (sscanf(resp, "HTTP/1.%*d %d", &out->status) != 1) {
        err_set(err, "no HTTP answer from %s port %d within %d ms%s", host, port, timeout_ms,
                tls ? "" : " (is it serving HTTPS? tls-cert is not set here)");
        rc = -EPROTO;
        goto out_close;
    }
    const char *body = strstr(resp, "\r\n\r\n");
    snprintf(out->body, sizeof(out->body), "%s", body != NULL ? body + 4 : "");
    rc = 0;

out_close:
    if (c.tls != NULL) {
        gnutls_bye(c.tls, GNUTLS_SHUT_WR);
        gnutls_deinit(c.tls);
    }
    if (cred != NULL)
        gnutls_certificate_free_credentials(cred);
    close(c.fd);
    return rc;
}

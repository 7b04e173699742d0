#include "tests/support/http_client.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

int http_connect(int port)
{
    return http_connect_from(NULL, port);
}

int http_connect_from(const char *from, int port)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd == -1)
        return -1;
    if (from != NULL) {
        struct sockaddr_in src = {.sin_family = AF_INET};
        inet_pton(AF_INET, from, &src.sin_addr);
        if (bind(fd, (struct sockaddr *)&src, sizeof(src)) == -1) {
            close(fd);
            return -1;
        }
    }
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    /* Headers and body go out in two sends: without NODELAY the second
     * waits for the server's delayed ACK (40 ms). */
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == -1) {
        close(fd);
        return -1;
    }
    return fd;
}

int http_send_raw(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t n = send(fd, data, len, MSG_NOSIGNAL);
        if (n <= 0)
            return -1;
        data += n;
        len -= (size_t)n;
    }
    return 0;
}

int http_send(int fd, const char *method, const char *path, const char *body, size_t len)
{
    char head[1024];
    int n;
    if (body != NULL)
        n = snprintf(head, sizeof(head),
                     "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: Go-http-client/1.1\r\n"
                     "Content-Length: %zu\r\nContent-Type: application/json\r\n"
                     "Accept-Encoding: gzip\r\n\r\n",
                     method, path, len);
    else
        n = snprintf(head, sizeof(head), "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", method, path);
    if (http_send_raw(fd, head, (size_t)n) != 0)
        return -1;
    return body != NULL ? http_send_raw(fd, body, len) : 0;
}

static int wait_readable(int fd, int timeout_ms)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    return poll(&p, 1, timeout_ms) == 1 ? 0 : -1;
}

int http_read_reuse(int fd, struct http_response *r, char **bufp, size_t *capp, int timeout_ms)
{
    size_t got = 0, want_total = 0;
    char *end = NULL;

    memset(r, 0, sizeof(*r));
    if (*bufp == NULL) {
        *capp = 65536;
        *bufp = malloc(*capp + 1);
        if (*bufp == NULL)
            return -1;
    }
    for (;;) {
        char *buf = *bufp;
        if (end == NULL) {
            buf[got] = '\0';
            end = strstr(buf, "\r\n\r\n");
            if (end != NULL) {
                const char *cl = strcasestr(buf, "\r\nContent-Length:");
                size_t head = (size_t)(end + 4 - buf);
                want_total = head + (cl != NULL && cl < end ? strtoul(cl + 17, NULL, 10) : 0);
                sscanf(buf, "HTTP/1.%*d %d", &r->status);
                snprintf(r->headers, sizeof(r->headers), "%.*s", (int)head, buf);
                r->len = want_total - head;
            }
        }
        if (end != NULL && got >= want_total) {
            r->body = buf + (want_total - r->len);
            r->body[r->len] = '\0'; /* may cut a pipelined next answer: none is sent */
            return 0;
        }
        size_t need = end != NULL ? want_total : got + 65536;
        if (need > *capp) {
            size_t off = end != NULL ? (size_t)(end - buf) : 0;
            char *b = realloc(buf, need + 1);
            if (b == NULL)
                break;
            *bufp = b;
            *capp = need;
            if (end != NULL)
                end = b + off;
        }
        if (wait_readable(fd, timeout_ms) != 0)
            break;
        ssize_t n = recv(fd, *bufp + got, *capp - got, 0);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    r->status = 0;
    r->body = NULL;
    return -1;
}

int http_read(int fd, struct http_response *r, int timeout_ms)
{
    char *buf = NULL;
    size_t cap = 0;
    int rc = http_read_reuse(fd, r, &buf, &cap, timeout_ms);
    if (rc == 0) {
        char *body = malloc(r->len + 1);
        if (body != NULL) {
            memcpy(body, r->body, r->len + 1);
        }
        r->body = body;
    }
    free(buf);
    return r->body != NULL ? rc : -1;
}

int http_roundtrip(int fd, const char *method, const char *path, const char *body, size_t len,
                   struct http_response *r)
{
    if (http_send(fd, method, path, body, len) != 0) {
        memset(r, 0, sizeof(*r));
        return -1;
    }
    return http_read(fd, r, 10000);
}

int http_request(int port, const char *method, const char *path, const char *body, size_t len,
                 struct http_response *r)
{
    int fd = http_connect(port);
    if (fd < 0) {
        memset(r, 0, sizeof(*r));
        return -1;
    }
    int rc = http_roundtrip(fd, method, path, body, len, r);
    close(fd);
    return rc;
}

bool http_closed(int fd, int timeout_ms)
{
    char c;
    if (wait_readable(fd, timeout_ms) != 0)
        return false;
    ssize_t n = recv(fd, &c, 1, MSG_DONTWAIT);
    return n == 0 || (n == -1 && errno == ECONNRESET);
}

void http_response_free(struct http_response *r)
{
    free(r->body);
    r->body = NULL;
}

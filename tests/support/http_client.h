/*
 * A small HTTP/1.1 client for the end-to-end tests: raw bytes out, one
 * response in (Content-Length bodies), on a connection that may be reused
 * (keep-alive) or cut. Loopback only; every read has a deadline.
 */
#ifndef TESTS_SUPPORT_HTTP_CLIENT_H
#define TESTS_SUPPORT_HTTP_CLIENT_H

#include <stdbool.h>
#include <stddef.h>

struct http_response {
    int status; /* 0 when the connection closed without a response */
    char headers[4096];
    char *body; /* malloc'd, NUL-terminated */
    size_t len;
};

/* Connects to 127.0.0.1:@port; returns the socket or -1. */
int http_connect(int port);

/* The same from source address @from (another loopback address such as
 * 127.0.0.2, to be another client for per-IP limits). */
int http_connect_from(const char *from, int port);

/* Sends @len raw bytes; returns 0 or -1. */
int http_send_raw(int fd, const char *data, size_t len);

/* Sends a request with a Content-Length body (or none when @body is NULL),
 * headers like kube-scheduler's. */
int http_send(int fd, const char *method, const char *path, const char *body, size_t len);

/* Reads one response within @timeout_ms. Returns 0, or -1 when the
 * connection closed or timed out first (status stays 0). */
int http_read(int fd, struct http_response *r, int timeout_ms);

/* Like http_read, but reads into *@buf (capacity *@cap, grown as needed and
 * kept by the caller across calls): r->body points into it and must not be
 * freed. For the benchmark, where a fresh buffer per answer would measure
 * the client's page faults. */
int http_read_reuse(int fd, struct http_response *r, char **buf, size_t *cap, int timeout_ms);

/* Send + read on @fd. */
int http_roundtrip(int fd, const char *method, const char *path, const char *body, size_t len,
                   struct http_response *r);

/* One request on a new connection to 127.0.0.1:@port, closed after the
 * answer. Returns 0 or -1 like http_read. */
int http_request(int port, const char *method, const char *path, const char *body, size_t len,
                 struct http_response *r);

/* True when the peer closed @fd (reads EOF within @timeout_ms). */
bool http_closed(int fd, int timeout_ms);

void http_response_free(struct http_response *r);

#endif

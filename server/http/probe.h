/*
 * The client side of `cpu-extender probe`: one GET to this process's own
 * listener, plain or over TLS, within a deadline. Here because this room
 * holds GnuTLS, which speaks the server's TLS too.
 */
#ifndef SERVER_HTTP_PROBE_H
#define SERVER_HTTP_PROBE_H

#include <stdbool.h>
#include <stddef.h>

/* What one probe request got. */
struct http_probe_answer {
    int status;     /* the HTTP status, 0 when none came */
    char body[512]; /* the start of the body, NUL-terminated */
};

/*
 * GETs @path from @host:@port (a numeric address or a name) with
 * "Connection: close", over TLS 1.2 or 1.3 when @tls, within @timeout_ms.
 * The server's certificate is not verified: the probe asks the listener of
 * its own pod whether it answers, over loopback, and the certificate may
 * name only the address kube-scheduler dials. No client certificate is
 * sent (the health endpoints never need one). Returns 0 with @out (any
 * status), or -errno with the reason in @err (ERR_LEN): -ECONNREFUSED,
 * -ETIMEDOUT, -EPROTO (TLS failed, or no HTTP answer).
 */
int http_probe_get(const char *host, int port, bool tls, const char *path, int timeout_ms,
                   struct http_probe_answer *out, char *err);

#endif

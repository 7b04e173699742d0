/*
 * The kube-apiserver client: HTTPS requests over libcurl built on OpenSSL
 * to the cluster of a struct kube_target (kube/target.h), with the CA and
 * the server's host name or IP verified.
 *
 * A bearer token read from a file (the in-cluster service-account token,
 * or a kubeconfig tokenFile) is re-read whenever the file changes, and once
 * more after a 401, since bound service-account tokens rotate. An exec
 * credential plugin (kube/exec.h) is run at the first request, again when
 * its credential nears its expiry, and after a 401.
 */
#ifndef KUBE_CLIENT_H
#define KUBE_CLIENT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "kube/target.h"

#define KUBE_LINE_MAX (16u << 20)  /* longest watch event line */
#define KUBE_BODY_MAX (512u << 20) /* longest non-streamed body */

/*
 * Process-wide setup of the HTTP library (curl_global_init). Call once in
 * main() (and in test runners) before any thread starts and before
 * kube_client_new. Not thread-safe. Returns 0 or -EIO.
 */
int kube_global_init(void);

/* Undoes kube_global_init, after every client is freed. Not thread-safe. */
void kube_global_cleanup(void);

struct kube_client;

/*
 * Makes a client for @t (copied). Thread-safe to use from several threads
 * at once: each request uses its own connection handle. Runs no plugin
 * yet. Returns 0 or -ENOMEM / -EINVAL with @err.
 */
int kube_client_new(const struct kube_target *t, struct kube_client **out, char *err);

/* Frees @c (NULL is fine). No request may be running. */
void kube_client_free(struct kube_client *c);

/* An answer: HTTP status and the body, malloc'd and NUL-terminated, which
 * the caller frees with free(). */
struct kube_response {
    long status;
    char *body;
    size_t len;
};

/*
 * GET @path (begins with '/', query included) with Accept: application/json.
 * Any HTTP status is a success (0) with the status in @out; transport and
 * TLS failures (refused, certificate not verified, timeout after
 * @timeout_seconds, body over KUBE_BODY_MAX or the bound asked for) return -ECONNREFUSED /
 * -EPROTO / -ETIMEDOUT / -E2BIG with @err; other transport failures
 * -ECONNRESET (connection dropped) or -EIO (anything else, e.g. an
 * unresolvable host); an unreadable token file or a failed exec plugin
 * -EACCES. With a token file, a 401 re-reads the file, and with an exec
 * plugin runs it again, and the request is repeated once. A request may
 * wait for a plugin run (at most its timeout, KUBE_EXEC_TIMEOUT_MS). On
 * failure @out->body is NULL. Thread-safe.
 */
int kube_get(struct kube_client *c, const char *path, int timeout_seconds,
             struct kube_response *out, char *err);

/* What bounds one request besides its timeout. Zero fields bound nothing. */
struct kube_bounds {
    /* CLOCK_MONOTONIC nanoseconds (base/clock.h): the request, a repeat
     * after a 401 included, ends by then (-ETIMEDOUT). A credential plugin
     * run is not cut short by it (kube/exec.h has no deadline of its own),
     * but no transfer starts after it. */
    uint64_t deadline_ns;
    /* The longest body taken (-E2BIG past it); 0: KUBE_BODY_MAX, and never
     * more than that. A caller that knows what it asked for (a list page
     * of `limit` objects, one item per node) says so here: the body then
     * cannot grow to whatever the server sends. */
    size_t body_max;
    /* A stream's longest line (-E2BIG past it); 0: KUBE_LINE_MAX, and
     * never more than that. A watch knows its events' objects are no
     * larger than etcd keeps. */
    size_t line_max;
    const atomic_bool *stop; /* -ECANCELED within about a second once true */
};

/* kube_get under @b (NULL: none), and POST @body (@len bytes,
 * application/json) to @path the same way. */
int kube_get_bounded(struct kube_client *c, const char *path, int timeout_seconds,
                     const struct kube_bounds *b, struct kube_response *out, char *err);
int kube_post_bounded(struct kube_client *c, const char *path, const char *body, size_t len,
                      int timeout_seconds, const struct kube_bounds *b, struct kube_response *out,
                      char *err);

/*
 * Ends every request of @c, in progress or to come, with -ECANCELED within
 * about a second (a stream too): for a shutdown that must not wait for a
 * hung API server. For good: there is no undo. Thread-safe, async-safe
 * enough for a watchdog thread (one atomic store).
 */
void kube_client_cancel(struct kube_client *c);

/* Called for each complete line of a streamed body (without the '\n',
 * NUL-terminated, @len bytes, owned by the caller of the callback), and
 * once before them with @line NULL and @len 0 when a 2xx response's
 * headers are in (the stream is open, even if no line ever comes). A
 * non-zero return stops the stream and becomes kube_stream_bounded's result. */
typedef int (*kube_line_fn)(void *ctx, char *line, size_t len);

/*
 * GET @path and hand every newline-terminated line of the body to @fn as it
 * arrives (a watch), under @b (NULL: none). Returns when the server ends
 * the body (0), when @fn returns non-zero (that value), when *b->stop
 * becomes true (-ECANCELED, noticed within a second), when no byte arrives
 * for @idle_seconds (-ETIMEDOUT), on a line over KUBE_LINE_MAX (-E2BIG), or
 * on a transport error (as kube_get). A 2xx status returns 0 with the
 * status in @out and a NULL body; a non-2xx status returns 0 with the
 * status and up to 64 KiB of body in @out and no line delivered (a 401
 * with a token file is first retried once, as in kube_get). A partial last
 * line is dropped. Thread-safe.
 */
int kube_stream_bounded(struct kube_client *c, const char *path, int idle_seconds,
                        const struct kube_bounds *b, kube_line_fn fn, void *ctx,
                        struct kube_response *out, char *err);

#endif

/*
 * The kube-apiserver client: where the cluster is and how to prove who we
 * are (kubeconfig or in-cluster service account, as client-go resolves
 * them), and HTTPS requests over libcurl built on OpenSSL, with the CA and
 * the server's host name or IP verified.
 *
 * A bearer token read from a file (the in-cluster service-account token,
 * or a kubeconfig tokenFile) is re-read whenever the file changes, and once
 * more after a 401, since bound service-account tokens rotate.
 */
#ifndef KUBE_CLIENT_H
#define KUBE_CLIENT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#define KUBE_ERR_LEN       512
#define KUBE_PATH_LEN      4096
#define KUBE_LINE_MAX      (16u << 20)  /* longest watch event line */
#define KUBE_BODY_MAX      (512u << 20) /* longest non-streamed body */
#define KUBE_INCLUSTER_DIR "/var/run/secrets/kubernetes.io/serviceaccount"

/* Where the cluster is and the credentials to use: everything a client
 * needs, resolved from a kubeconfig or the in-cluster environment. Data
 * fields (PEM) are malloc'd and owned by the target. */
struct kube_target {
    char source[KUBE_PATH_LEN];  /* for messages: "kubeconfig /x (context c)" or "in-cluster" */
    char server[KUBE_PATH_LEN];  /* https://host:port, no trailing slash */
    char ca_file[KUBE_PATH_LEN]; /* "" when ca_pem or the system store is used */
    char *ca_pem;
    char token_file[KUBE_PATH_LEN]; /* "" when token is static or absent; wins over token */
    char *token;                    /* static bearer token, NULL for none */
    char cert_file[KUBE_PATH_LEN];  /* client certificate, file or data */
    char *cert_pem;
    char key_file[KUBE_PATH_LEN];
    char *key_pem;
    bool insecure_skip_tls_verify;
};

/* Frees what @t owns (wiping the token and key) and zeroes it. */
void kube_target_destroy(struct kube_target *t);

/*
 * Loads the current context of the kubeconfig @path into *@t, merging a
 * colon-separated list of files as client-go does (the first file to set a
 * value wins). @context overrides current-context when not NULL or "".
 * Relative file references resolve against the directory of the file
 * naming them; referenced files must exist (they are read by the client).
 * Files of the list that do not exist are skipped.
 * exec, auth-provider, basic auth, impersonation, tls-server-name and
 * proxy-url are not supported: an error says so, when the chosen context
 * uses them. Files are at most 16 MiB.
 * Returns 0; -ENOENT when no file of @path exists; -EINVAL / -ENOMEM with a
 * message naming the file and the field in @err, e.g.
 * "kubeconfig /x: users[dev].user.client-key-data: invalid base64".
 * On failure *@t is zeroed. Thread-safe.
 */
int kube_load_kubeconfig(const char *path, const char *context, struct kube_target *t,
                         char err[KUBE_ERR_LEN]);

/*
 * Loads the in-cluster configuration: KUBERNETES_SERVICE_HOST and
 * KUBERNETES_SERVICE_PORT from @envp (NULL-terminated, may be NULL), and
 * token and ca.crt from @dir (KUBE_INCLUSTER_DIR in production); the token
 * is kept as token_file, so rotations are picked up. Both files must be
 * readable. Returns 0, -ENOENT when @envp has no KUBERNETES_SERVICE_HOST
 * (not in a cluster), or -EINVAL with @err.
 */
int kube_load_incluster(char **envp, const char *dir, struct kube_target *t,
                        char err[KUBE_ERR_LEN]);

/*
 * The service's rule for finding a cluster: @kubeconfig (the --kubeconfig
 * option) when not empty, else KUBECONFIG from @envp, else the in-cluster
 * environment; with @home_fallback (rank), finally $HOME/.kube/config (HOME
 * from @envp) when it exists, as kubectl does. Each uses its kubeconfig's
 * current-context.
 * Returns 0 with *@t filled, -ENOENT when none applies (request-only mode),
 * or another negative errno with @err when the one found cannot be used
 * (a --kubeconfig or KUBECONFIG naming no existing file is -EINVAL, not
 * -ENOENT).
 */
int kube_resolve_target(const char *kubeconfig, char **envp, const char *incluster_dir,
                        bool home_fallback, struct kube_target *t, char err[KUBE_ERR_LEN]);

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
 * at once: each request uses its own connection handle.
 * Returns 0 or -ENOMEM / -EINVAL with @err.
 */
int kube_client_new(const struct kube_target *t, struct kube_client **out, char err[KUBE_ERR_LEN]);

/* Frees @c (NULL is fine). No request may be running. */
void kube_client_free(struct kube_client *c);

/* Returns the server URL of @c, for messages. */
const char *kube_client_server(const struct kube_client *c);

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
 * @timeout_seconds, body over KUBE_BODY_MAX) return -ECONNREFUSED /
 * -EPROTO / -ETIMEDOUT / -E2BIG with @err; other transport failures
 * -ECONNRESET (connection dropped) or -EIO (anything else, e.g. an
 * unresolvable host); an unreadable token file -EACCES. With a token file,
 * a 401 re-reads the file and repeats the request once. On failure
 * @out->body is NULL. Thread-safe.
 */
int kube_get(struct kube_client *c, const char *path, int timeout_seconds,
             struct kube_response *out, char err[KUBE_ERR_LEN]);

/* As kube_get, but also returns -ECANCELED, within about a second, once
 * *@stop becomes true (for an informer's list, which must stop promptly). */
int kube_get_cancellable(struct kube_client *c, const char *path, int timeout_seconds,
                         const atomic_bool *stop, struct kube_response *out,
                         char err[KUBE_ERR_LEN]);

/* POST @body (@len bytes, application/json) to @path; as kube_get. */
int kube_post(struct kube_client *c, const char *path, const char *body, size_t len,
              int timeout_seconds, struct kube_response *out, char err[KUBE_ERR_LEN]);

/* Called for each complete line of a streamed body (without the '\n',
 * NUL-terminated, @len bytes, owned by the caller of the callback), and
 * once before them with @line NULL and @len 0 when a 2xx response's
 * headers are in (the stream is open, even if no line ever comes). A
 * non-zero return stops the stream and becomes kube_stream's result. */
typedef int (*kube_line_fn)(void *ctx, char *line, size_t len);

/*
 * GET @path and hand every newline-terminated line of the body to @fn as it
 * arrives (a watch). Returns when the server ends the body (0), when @fn
 * returns non-zero (that value), when *@stop becomes true (-ECANCELED,
 * noticed within a second), when no byte arrives for @idle_seconds
 * (-ETIMEDOUT), on a line over KUBE_LINE_MAX (-E2BIG), or on a transport
 * error (as kube_get). A 2xx status returns 0 with the status in @out and
 * a NULL body; a non-2xx status returns 0 with the status and up to 64 KiB
 * of body in @out and no line delivered (a 401 with a token file is first
 * retried once, as in kube_get). A partial last line is dropped.
 * Thread-safe.
 */
int kube_stream(struct kube_client *c, const char *path, int idle_seconds, const atomic_bool *stop,
                kube_line_fn fn, void *ctx, struct kube_response *out, char err[KUBE_ERR_LEN]);

#endif

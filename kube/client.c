/*
 * HTTPS requests to the kube-apiserver over libcurl (OpenSSL backend).
 *
 * One easy handle per request: simple, and thread-safe without locking;
 * a new TLS handshake per list page costs about a millisecond, nothing next
 * to a list. The shared mutable things, the bearer token read from a file
 * and the exec plugin's credential, have a lock each.
 */
#include "kube/client.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <curl/curl.h>

#include "base/clock.h"
#include "base/err.h"
#include "kube/exec.h"
#include "kube/token.h"
#include "kube/transfer.h"
#include "version.h"

#define KUBE_CONNECT_TIMEOUT 5 /* seconds */

struct kube_client {
    struct kube_target t; /* deep copy */
    char user_agent[128];
    struct kube_token token; /* of t.token_file or t.token */
    struct kube_exec *exec;  /* of the target's exec (shared; t.exec is NULL), NULL for none */
    atomic_bool cancelled;   /* kube_client_cancel: every request ends */
};

int kube_global_init(void)
{
    return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 0 : -EIO;
}

void kube_global_cleanup(void)
{
    curl_global_cleanup();
}

/* ---- client ---- */

static int dup_str(char **dst, const char *src)
{
    *dst = NULL;
    if (src == NULL)
        return 0;
    *dst = strdup(src);
    return *dst == NULL ? -ENOMEM : 0;
}

int kube_client_new(const struct kube_target *t, struct kube_client **out, char *err)
{
    *out = NULL;
    if (strncmp(t->server, "https://", 8) != 0 && strncmp(t->server, "http://", 7) != 0)
        return err_fail(err, -EINVAL, "%s: server \"%s\" is not an http(s) URL", t->source,
                        t->server);
    struct kube_client *c = calloc(1, sizeof(*c));
    if (c == NULL)
        return err_fail(err, -ENOMEM, "kube client: out of memory");
    c->t = *t;
    c->t.ca_pem = c->t.token = c->t.cert_pem = c->t.key_pem = NULL;
    c->t.exec = NULL;
    int rc = -ENOMEM;
    if (dup_str(&c->t.ca_pem, t->ca_pem) != 0 || dup_str(&c->t.token, t->token) != 0 ||
        dup_str(&c->t.cert_pem, t->cert_pem) != 0 || dup_str(&c->t.key_pem, t->key_pem) != 0)
        goto out_free_client;
    rc = kube_token_init(&c->token, c->t.token_file, c->t.token);
    if (rc != 0)
        goto out_free_client;
    if (t->exec != NULL) {
        rc = kube_exec_new(t, &c->exec, err);
        if (rc != 0) {
            kube_client_free(c);
            return rc;
        }
    }
    snprintf(c->user_agent, sizeof(c->user_agent), "cpu-extender/%s", CPU_EXTENDER_VERSION);
    *out = c;
    return 0;

out_free_client:
    kube_target_destroy(&c->t);
    free(c);
    return err_fail(err, rc, "kube client: %s", rc == -ENOMEM ? "out of memory" : strerror(-rc));
}

void kube_client_free(struct kube_client *c)
{
    if (c == NULL)
        return;
    kube_exec_free(c->exec);
    kube_token_destroy(&c->token);
    kube_target_destroy(&c->t);
    free(c);
}

static int add_header(struct curl_slist **list, const char *line)
{
    struct curl_slist *l = curl_slist_append(*list, line);
    if (l == NULL)
        return -ENOMEM;
    *list = l;
    return 0;
}

/* The headers of a request: JSON both ways, and the bearer token. */
static int request_headers(const char *auth, bool with_body, struct curl_slist **headers)
{
    *headers = NULL;
    if (add_header(headers, "Accept: application/json") != 0 ||
        (auth != NULL && add_header(headers, auth) != 0) ||
        (with_body && add_header(headers, "Content-Type: application/json") != 0) ||
        /* No "Expect: 100-continue" round trip for large bodies. */
        (with_body && add_header(headers, "Expect:") != 0))
        return -ENOMEM;
    return 0;
}

/* Everything but TLS that a transfer sets on @e. @timeout_ms bounds the
 * whole transfer (0: none), @idle the seconds without a byte (0: none). */
static bool set_transfer(CURL *e, const struct kube_client *c, const char *url,
                         struct curl_slist *headers, char *errbuf, struct kube_xfer *x,
                         long timeout_ms, int idle)
{
    bool ok = curl_easy_setopt(e, CURLOPT_URL, url) == CURLE_OK;
    ok = ok && curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers) == CURLE_OK;
    ok = ok && curl_easy_setopt(e, CURLOPT_USERAGENT, c->user_agent) == CURLE_OK;
    ok = ok && curl_easy_setopt(e, CURLOPT_ERRORBUFFER, errbuf) == CURLE_OK;
    ok = ok && curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L) == CURLE_OK;
    ok = ok && curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT, (long)KUBE_CONNECT_TIMEOUT) == CURLE_OK;
    ok = ok && curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L) == CURLE_OK;
    ok = ok && curl_easy_setopt(e, CURLOPT_TCP_KEEPIDLE, 30L) == CURLE_OK;
    ok = ok && curl_easy_setopt(e, CURLOPT_TCP_KEEPINTVL, 10L) == CURLE_OK;
    ok = ok && curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "") == CURLE_OK;
    ok = ok && curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, kube_xfer_on_write) == CURLE_OK;
    ok = ok && curl_easy_setopt(e, CURLOPT_WRITEDATA, x) == CURLE_OK;
    if (x->stream) {
        ok = ok && curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, kube_xfer_on_header) == CURLE_OK;
        ok = ok && curl_easy_setopt(e, CURLOPT_HEADERDATA, x) == CURLE_OK;
    }
    if (timeout_ms > 0)
        ok = ok && curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, timeout_ms) == CURLE_OK;
    if (idle > 0) {
        ok = ok && curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, 1L) == CURLE_OK;
        ok = ok && curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, (long)idle) == CURLE_OK;
    }
    if (!x->stream)
        ok = ok &&
             curl_easy_setopt(e, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)x->body_max) == CURLE_OK;
    /* Every transfer watches the client's cancel flag (and its own stop):
     * libcurl calls this about once a second even on an idle transfer. */
    ok = ok && curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L) == CURLE_OK;
    ok = ok && curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, kube_xfer_on_progress) == CURLE_OK;
    ok = ok && curl_easy_setopt(e, CURLOPT_XFERINFODATA, x) == CURLE_OK;
    return ok;
}

/* What a finished transfer (@cc) means: 0 or -errno with @err. */
static int result_of(CURLcode cc, const struct kube_xfer *x, const char *method, const char *server,
                     const char *path, const char *errbuf, char *err)
{
    if (cc == CURLE_OK || (cc == CURLE_WRITE_ERROR && x->body_full))
        return 0;
    if (cc == CURLE_WRITE_ERROR && x->fn_rc != 0)
        return x->fn_rc;
    if ((cc == CURLE_WRITE_ERROR && x->too_big) || cc == CURLE_FILESIZE_EXCEEDED)
        return err_fail(err, -E2BIG, "%s %s%s: %s over %zu bytes", method, server, path,
                        x->stream ? "line" : "body", x->stream ? x->line_max : x->body_max);
    if (cc == CURLE_WRITE_ERROR && x->no_memory)
        return err_fail(err, -ENOMEM, "%s %s%s: out of memory", method, server, path);
    if (cc == CURLE_ABORTED_BY_CALLBACK && x->stopped)
        return err_fail(err, -ECANCELED, "%s %s%s: stopped", method, server, path);
    err_set(err, "%s %s%s: %s", method, server, path,
            errbuf[0] != '\0' ? errbuf : curl_easy_strerror(cc));
    return kube_xfer_errno(cc);
}

/* The credential of a request: the "Authorization" header in *@auth, and
 * from an exec plugin maybe a client certificate in @ec. @retry follows a
 * 401 to the credential of generation *@gen (exec) or of the token file;
 * *@gen is set to the generation used. A plugin is waited for at most the
 * request's @timeout (seconds, 0: its own timeout only) and never past
 * @deadline_ns (0: none): a bind's credential ends with the bind. */
static int credential(struct kube_client *c, bool retry, uint64_t *gen, int timeout,
                      uint64_t deadline_ns, char **auth, struct kube_exec_cred *ec, char *err)
{
    if (c->exec == NULL)
        return kube_token_header(&c->token, retry, auth, err);
    uint64_t deadline = timeout > 0
                            ? clock_add_ns(clock_mono_ns(), (uint64_t)timeout * CLOCK_NS_PER_SEC)
                            : KUBE_EXEC_NO_DEADLINE;
    if (deadline_ns != 0 && (deadline == KUBE_EXEC_NO_DEADLINE || deadline_ns < deadline))
        deadline = deadline_ns;
    int rc = kube_exec_get(c->exec, retry ? *gen : 0, deadline, ec, err);
    if (rc == 0) {
        *gen = ec->generation;
        *auth = ec->header;
        ec->header = NULL;
    }
    return rc;
}

/* The milliseconds a transfer may take: @timeout seconds (0: none), less
 * when @deadline_ns (0: none) comes first; -1 when it has passed. */
static long transfer_ms(int timeout, uint64_t deadline_ns)
{
    long ms = timeout > 0 ? (long)timeout * 1000 : 0;
    if (deadline_ns == 0)
        return ms;
    uint64_t now = clock_mono_ns();
    if (now >= deadline_ns)
        return -1;
    /* At least 1: libcurl reads 0 as "no timeout". */
    long left = (long)((deadline_ns - now + CLOCK_NS_PER_MS - 1) / CLOCK_NS_PER_MS);
    return ms == 0 || left < ms ? left : ms;
}

/* One request. @timeout bounds the whole transfer (0: none), @deadline_ns
 * too (kube_bounds), @idle the time without a byte (0: none). @retry and
 * @gen: see credential(). On 0, *@status is the HTTP status. */
static int perform_once(struct kube_client *c, const char *method, const char *path,
                        const char *body, size_t blen, int timeout, uint64_t deadline_ns, int idle,
                        bool retry, uint64_t *gen, struct kube_xfer *x, long *status, char *err)
{
    char errbuf[CURL_ERROR_SIZE] = "";
    struct curl_slist *headers = NULL;
    struct kube_exec_cred ec = {0};
    char *auth = NULL, *url = NULL;
    CURL *e = NULL;
    int rc = credential(c, retry, gen, timeout, deadline_ns, &auth, &ec, err);
    if (rc != 0)
        return rc;
    /* The plugin may have used the time up; a transfer would not start in
     * time anyway. */
    long timeout_ms = transfer_ms(timeout, deadline_ns);
    if (timeout_ms < 0 || atomic_load(&c->cancelled)) {
        rc = timeout_ms < 0 ? -ETIMEDOUT : -ECANCELED;
        err_set(err, "%s %s%s: %s", method, c->t.server, path,
                rc == -ETIMEDOUT ? "deadline passed before the request was sent" : "stopped");
        goto out_free;
    }

    rc = -ENOMEM;
    err_set(err, "%s %s: out of memory", method, c->t.server);
    size_t ulen = strlen(c->t.server) + strlen(path) + 1;
    url = malloc(ulen);
    if (url == NULL || request_headers(auth, body != NULL, &headers) != 0 ||
        (e = curl_easy_init()) == NULL)
        goto out_free;
    snprintf(url, ulen, "%s%s", c->t.server, path);
    x->easy = e;
    bool ok = kube_xfer_set_tls(e, &c->t, ec.cert_pem, ec.key_pem) &&
              set_transfer(e, c, url, headers, errbuf, x, timeout_ms, idle);
    if (body != NULL) {
        ok = ok && curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)blen) == CURLE_OK;
        ok = ok && curl_easy_setopt(e, CURLOPT_POSTFIELDS, body) == CURLE_OK;
    }
    if (!ok) {
        rc = err_fail(err, -EINVAL, "%s %s: libcurl refused an option", method, c->t.server);
        goto out_free;
    }
    CURLcode cc = curl_easy_perform(e);
    *status = 0;
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, status);
    rc = result_of(cc, x, method, c->t.server, path, errbuf, err);

out_free:
    curl_easy_cleanup(e);
    x->easy = NULL;
    for (struct curl_slist *h = headers; h != NULL; h = h->next)
        explicit_bzero(h->data, strlen(h->data));
    curl_slist_free_all(headers);
    free(url);
    kube_free_secret(auth);
    kube_exec_cred_wipe(&ec);
    return rc;
}

/* A request, repeated once after a 401 with a re-read token when the token
 * comes from a file (it may have rotated under us), or with the exec
 * plugin run again (client-go runs it again after a 401 too, but leaves
 * the repeat to the next request). */
static int perform(struct kube_client *c, const char *method, const char *path, const char *body,
                   size_t blen, int timeout, const struct kube_bounds *b, int idle,
                   struct kube_xfer *x, struct kube_response *out, char *err)
{
    long status = 0;
    uint64_t gen = 0;
    uint64_t deadline_ns = b != NULL ? b->deadline_ns : 0;
    int rc;

    memset(out, 0, sizeof(*out));
    x->cancel = &c->cancelled;
    x->body_max =
        b != NULL && b->body_max > 0 && b->body_max < KUBE_BODY_MAX ? b->body_max : KUBE_BODY_MAX;
    x->line_max =
        b != NULL && b->line_max > 0 && b->line_max < KUBE_LINE_MAX ? b->line_max : KUBE_LINE_MAX;
    if (x->stop == NULL && b != NULL)
        x->stop = b->stop;
    if (path[0] != '/')
        return err_fail(err, -EINVAL, "%s %s: path must begin with '/'", method, path);
    for (int attempt = 0;; attempt++) {
        rc = perform_once(c, method, path, body, blen, timeout, deadline_ns, idle, attempt > 0,
                          &gen, x, &status, err);
        if (rc != 0 || status != 401 || attempt > 0 ||
            (c->t.token_file[0] == '\0' && c->exec == NULL))
            break;
        x->len = x->scan = 0;
        x->status_known = x->collecting = x->body_full = false;
    }
    out->status = status;
    /* A stream's 2xx body went to the callback; keep only error bodies. */
    bool keep_body = !x->stream || status < 200 || status > 299;
    if (rc != 0 || !keep_body) {
        free(x->buf);
        x->buf = NULL;
        return rc;
    }
    if (x->buf == NULL && kube_xfer_append(x, "", 0) != 0)
        return err_fail(err, -ENOMEM, "out of memory");
    out->body = x->buf;
    out->len = x->len;
    x->buf = NULL;
    return 0;
}

int kube_get_bounded(struct kube_client *c, const char *path, int timeout_seconds,
                     const struct kube_bounds *b, struct kube_response *out, char *err)
{
    struct kube_xfer x = {0};
    return perform(c, "GET", path, NULL, 0, timeout_seconds, b, 0, &x, out, err);
}

int kube_post_bounded(struct kube_client *c, const char *path, const char *body, size_t len,
                      int timeout_seconds, const struct kube_bounds *b, struct kube_response *out,
                      char *err)
{
    struct kube_xfer x = {0};
    return perform(c, "POST", path, body != NULL ? body : "", len, timeout_seconds, b, 0, &x, out,
                   err);
}

int kube_get(struct kube_client *c, const char *path, int timeout_seconds,
             struct kube_response *out, char *err)
{
    return kube_get_bounded(c, path, timeout_seconds, NULL, out, err);
}

int kube_stream_bounded(struct kube_client *c, const char *path, int idle_seconds,
                        const struct kube_bounds *b, kube_line_fn fn, void *ctx,
                        struct kube_response *out, char *err)
{
    struct kube_xfer x = {.stream = true, .fn = fn, .ctx = ctx};
    return perform(c, "GET", path, NULL, 0, 0, b, idle_seconds, &x, out, err);
}

void kube_client_cancel(struct kube_client *c)
{
    if (c != NULL)
        atomic_store(&c->cancelled, true);
}

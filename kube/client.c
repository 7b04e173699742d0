/*
 * HTTPS requests to the kube-apiserver over libcurl (OpenSSL backend).
 *
 * One easy handle per request: simple, and thread-safe without locking;
 * a new TLS handshake per list page costs about a millisecond, nothing next
 * to a list. The one shared mutable thing, the bearer token read from a
 * file, has its own lock.
 */
#include "kube/client.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <curl/curl.h>

#include "version.h"

#define KUBE_CONNECT_TIMEOUT 5           /* seconds */
#define KUBE_TOKEN_MAX       (64u << 10) /* longest token file */
#define KUBE_ERR_BODY_MAX    (64u << 10) /* body kept of a failed stream */

struct kube_client {
    struct kube_target t; /* deep copy */
    char user_agent[128];
    pthread_mutex_t token_lock; /* guards the fields below */
    char *file_token;           /* last token read from t.token_file */
    struct stat token_st;       /* what the file was when it was read */
};

/* One transfer in progress: what the callbacks need. */
struct xfer {
    CURL *easy;
    bool stream;
    kube_line_fn fn;
    void *ctx;
    const atomic_bool *stop;
    char *buf; /* body, or the partial line of a stream */
    size_t len, cap;
    size_t scan;       /* stream: bytes of buf already searched for '\n' */
    bool status_known; /* stream: 2xx-ness looked up */
    bool opened;       /* stream: the 2xx headers are in and fn was told */
    bool collecting;   /* stream: not 2xx, keeping the body */
    bool body_full;    /* stream: the kept body reached its cap */
    bool too_big;
    bool no_memory;
    bool stopped;
    int fn_rc;
};

int kube_global_init(void)
{
    return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 0 : -EIO;
}

void kube_global_cleanup(void)
{
    curl_global_cleanup();
}

/* ---- bearer token ---- */

static bool is_space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n';
}

static bool is_same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
           a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* Reads the token in @path (surrounding whitespace trimmed, as client-go
 * does) into a malloc'd *@out, and the file's stat into *@st. */
static int read_token(const char *path, char **out, struct stat *st, char err[KUBE_ERR_LEN])
{
    char *buf = NULL;
    size_t len = 0;
    int rc = -EACCES;

    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd == -1) {
        snprintf(err, KUBE_ERR_LEN, "token file %.300s: %s", path, strerror(errno));
        return -EACCES;
    }
    if (fstat(fd, st) == -1 || !S_ISREG(st->st_mode) || st->st_size > (off_t)KUBE_TOKEN_MAX) {
        snprintf(err, KUBE_ERR_LEN, "token file %.300s: not a regular file of at most %u KiB", path,
                 KUBE_TOKEN_MAX >> 10);
        goto out_close;
    }
    buf = malloc(KUBE_TOKEN_MAX + 1);
    if (buf == NULL) {
        snprintf(err, KUBE_ERR_LEN, "token file %.300s: out of memory", path);
        rc = -ENOMEM;
        goto out_close;
    }
    while (len < KUBE_TOKEN_MAX) {
        ssize_t n = read(fd, buf + len, KUBE_TOKEN_MAX - len);
        if (n == -1 && errno == EINTR)
            continue;
        if (n == -1) {
            snprintf(err, KUBE_ERR_LEN, "token file %.300s: %s", path, strerror(errno));
            goto out_free_buf;
        }
        if (n == 0)
            break;
        len += (size_t)n;
    }
    size_t start = 0;
    while (start < len && is_space(buf[start]))
        start++;
    while (len > start && is_space(buf[len - 1]))
        len--;
    if (len == start) {
        snprintf(err, KUBE_ERR_LEN, "token file %.300s: empty", path);
        goto out_free_buf;
    }
    /* The token goes into an HTTP header. */
    for (size_t i = start; i < len; i++) {
        if ((unsigned char)buf[i] < 0x21 || (unsigned char)buf[i] > 0x7e) {
            snprintf(err, KUBE_ERR_LEN, "token file %.300s: spaces or control characters", path);
            goto out_free_buf;
        }
    }
    *out = strndup(buf + start, len - start);
    if (*out == NULL) {
        snprintf(err, KUBE_ERR_LEN, "token file %.300s: out of memory", path);
        rc = -ENOMEM;
        goto out_free_buf;
    }
    rc = 0;

out_free_buf:
    explicit_bzero(buf, KUBE_TOKEN_MAX + 1);
    free(buf);
out_close:
    close(fd);
    return rc;
}

/*
 * The "Authorization: Bearer ..." header for the next request, malloc'd in
 * *@hdr (NULL when @c has no token). A token file is re-read when it
 * changed (kubelet rotates projected tokens by swapping a symlink, so the
 * inode changes) or when @force is set; if that fails, the token read
 * before stays in use.
 */
static int auth_header(struct kube_client *c, bool force, char **hdr, char err[KUBE_ERR_LEN])
{
    static const char prefix[] = "Authorization: Bearer ";
    const char *token = c->t.token;
    int rc = 0;

    *hdr = NULL;
    if (c->t.token_file[0] == '\0' && token == NULL)
        return 0;
    pthread_mutex_lock(&c->token_lock);
    if (c->t.token_file[0] != '\0') {
        struct stat st;
        bool changed = stat(c->t.token_file, &st) == -1 || !is_same_file(&st, &c->token_st);
        if (force || changed || c->file_token == NULL) {
            char *fresh = NULL;
            rc = read_token(c->t.token_file, &fresh, &st, err);
            if (rc == 0) {
                if (c->file_token != NULL)
                    explicit_bzero(c->file_token, strlen(c->file_token));
                free(c->file_token);
                c->file_token = fresh;
                c->token_st = st;
            } else if (c->file_token != NULL) {
                rc = 0;
            }
        }
        token = c->file_token;
    }
    if (rc == 0 && token != NULL) {
        size_t n = sizeof(prefix) + strlen(token);
        *hdr = malloc(n);
        if (*hdr == NULL) {
            snprintf(err, KUBE_ERR_LEN, "out of memory");
            rc = -ENOMEM;
        } else {
            snprintf(*hdr, n, "%s%s", prefix, token);
        }
    }
    pthread_mutex_unlock(&c->token_lock);
    return rc;
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

int kube_client_new(const struct kube_target *t, struct kube_client **out, char err[KUBE_ERR_LEN])
{
    *out = NULL;
    if (strncmp(t->server, "https://", 8) != 0 && strncmp(t->server, "http://", 7) != 0) {
        snprintf(err, KUBE_ERR_LEN, "%.300s: server \"%.100s\" is not an http(s) URL", t->source,
                 t->server);
        return -EINVAL;
    }
    struct kube_client *c = calloc(1, sizeof(*c));
    if (c == NULL)
        goto out_nomem;
    c->t = *t;
    c->t.ca_pem = c->t.token = c->t.cert_pem = c->t.key_pem = NULL;
    if (dup_str(&c->t.ca_pem, t->ca_pem) != 0 || dup_str(&c->t.token, t->token) != 0 ||
        dup_str(&c->t.cert_pem, t->cert_pem) != 0 || dup_str(&c->t.key_pem, t->key_pem) != 0)
        goto out_free_client;
    int rc = pthread_mutex_init(&c->token_lock, NULL);
    if (rc != 0) {
        kube_target_destroy(&c->t);
        free(c);
        snprintf(err, KUBE_ERR_LEN, "kube client: %s", strerror(rc));
        return -rc;
    }
    snprintf(c->user_agent, sizeof(c->user_agent), "cpu-extender/%s", CPU_EXTENDER_VERSION);
    *out = c;
    return 0;

out_free_client:
    kube_target_destroy(&c->t);
    free(c);
out_nomem:
    snprintf(err, KUBE_ERR_LEN, "kube client: out of memory");
    return -ENOMEM;
}

void kube_client_free(struct kube_client *c)
{
    if (c == NULL)
        return;
    pthread_mutex_destroy(&c->token_lock);
    if (c->file_token != NULL)
        explicit_bzero(c->file_token, strlen(c->file_token));
    free(c->file_token);
    kube_target_destroy(&c->t);
    free(c);
}

const char *kube_client_server(const struct kube_client *c)
{
    return c->t.server;
}

/* ---- transfers ---- */

static int append(struct xfer *x, const char *data, size_t n)
{
    if (x->cap - x->len <= n) {
        size_t ncap = x->cap ? x->cap : 16 * 1024;
        while (ncap - x->len <= n)
            ncap *= 2;
        char *b = realloc(x->buf, ncap);
        if (b == NULL) {
            x->no_memory = true;
            return -ENOMEM;
        }
        x->buf = b;
        x->cap = ncap;
    }
    memcpy(x->buf + x->len, data, n);
    x->len += n;
    x->buf[x->len] = '\0';
    return 0;
}

/* Hands every complete line in the buffer to the callback. Returns the
 * bytes consumed, or 0 to abort the transfer. */
static size_t deliver_lines(struct xfer *x, size_t n)
{
    size_t start = 0;
    for (;;) {
        char *nl = memchr(x->buf + x->scan, '\n', x->len - x->scan);
        if (nl == NULL)
            break;
        size_t end = (size_t)(nl - x->buf);
        if (end - start > KUBE_LINE_MAX) {
            x->too_big = true;
            return 0;
        }
        *nl = '\0';
        int rc = x->fn(x->ctx, x->buf + start, end - start);
        if (rc != 0) {
            x->fn_rc = rc;
            return 0;
        }
        start = end + 1;
        x->scan = start;
    }
    if (x->len - start > KUBE_LINE_MAX) {
        x->too_big = true;
        return 0;
    }
    /* Keep only the partial line; the next chunk is searched from its end. */
    memmove(x->buf, x->buf + start, x->len - start);
    x->len -= start;
    x->scan = x->len;
    return n;
}

/* Stream: at the blank line that ends a 2xx response's headers, tells the
 * callback that the stream is open (a NULL line), before any event: a
 * watch of a quiet resource sends no byte for minutes, and its reader
 * must know it is working. */
/* cppcheck-suppress constParameter ; libcurl's callback type */
static size_t on_header(char *data, size_t size, size_t nmemb, void *userp)
{
    struct xfer *x = userp;
    size_t n = size * nmemb;
    long status = 0;

    if (x->opened || !(n == 2 && data[0] == '\r' && data[1] == '\n'))
        return n;
    curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);
    if (status < 200 || status > 299)
        return n;
    x->opened = true;
    int rc = x->fn(x->ctx, NULL, 0);
    if (rc != 0) {
        x->fn_rc = rc;
        return 0;
    }
    return n;
}

static size_t on_write(char *data, size_t size, size_t nmemb, void *userp)
{
    struct xfer *x = userp;
    size_t n = size * nmemb;

    if (x->stream && !x->status_known) {
        long status = 0;
        curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);
        x->collecting = status < 200 || status > 299;
        x->status_known = true;
    }
    if (x->stream && x->collecting) {
        /* Enough of an error body for its Status message; then stop. */
        size_t take = n;
        if (x->len + take > KUBE_ERR_BODY_MAX) {
            take = KUBE_ERR_BODY_MAX - x->len;
            x->body_full = true;
        }
        if (append(x, data, take) != 0)
            return 0;
        return x->body_full ? 0 : n;
    }
    if (!x->stream) {
        if (x->len + n > KUBE_BODY_MAX) {
            x->too_big = true;
            return 0;
        }
        return append(x, data, n) == 0 ? n : 0;
    }
    if (append(x, data, n) != 0)
        return 0;
    return deliver_lines(x, n);
}

static int on_progress(void *userp, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                       curl_off_t ulnow)
{
    struct xfer *x = userp;
    (void)dltotal;
    (void)dlnow;
    (void)ultotal;
    (void)ulnow;
    if (x->stop != NULL && atomic_load(x->stop)) {
        x->stopped = true;
        return 1;
    }
    return 0;
}

/* A transport failure as a negative errno. */
static int curl_errno(CURLcode cc)
{
    switch (cc) {
    case CURLE_COULDNT_CONNECT:
        return -ECONNREFUSED;
    case CURLE_OPERATION_TIMEDOUT:
        return -ETIMEDOUT;
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ENGINE_SETFAILED:
    case CURLE_SSL_ENGINE_INITFAILED:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_SHUTDOWN_FAILED:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_CLIENTCERT:
    case CURLE_USE_SSL_FAILED:
        return -EPROTO;
    case CURLE_FILESIZE_EXCEEDED:
        return -E2BIG;
    case CURLE_OUT_OF_MEMORY:
        return -ENOMEM;
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
        return -ECONNRESET;
    default:
        return -EIO;
    }
}

/* The TLS and credential options of every request. */
static bool set_tls(CURL *e, const struct kube_target *t)
{
    bool ok = true;
    bool https = strncmp(t->server, "https://", 8) == 0;

    /* Never follow the URL to another scheme or host. */
    ok = ok && curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, https ? "https" : "http") == CURLE_OK;
    ok = ok && curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L) == CURLE_OK;
    if (!https)
        return ok;
    ok = ok && curl_easy_setopt(e, CURLOPT_SSLVERSION, (long)CURL_SSLVERSION_TLSv1_2) == CURLE_OK;
    ok = ok && curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, t->insecure_skip_tls_verify ? 0L : 1L) ==
                   CURLE_OK;
    ok = ok && curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, t->insecure_skip_tls_verify ? 0L : 2L) ==
                   CURLE_OK;
    /* The cluster CA alone, not the system store as well: any certificate a
     * public CA issued must not pass for the API server. */
    if (t->ca_pem != NULL) {
        struct curl_blob b = {.data = t->ca_pem, .len = strlen(t->ca_pem), .flags = CURL_BLOB_COPY};
        ok = ok && curl_easy_setopt(e, CURLOPT_CAINFO_BLOB, &b) == CURLE_OK;
        ok = ok && curl_easy_setopt(e, CURLOPT_CAPATH, NULL) == CURLE_OK;
    } else if (t->ca_file[0] != '\0') {
        ok = ok && curl_easy_setopt(e, CURLOPT_CAINFO, t->ca_file) == CURLE_OK;
        ok = ok && curl_easy_setopt(e, CURLOPT_CAPATH, NULL) == CURLE_OK;
    }
    if (t->cert_pem != NULL) {
        struct curl_blob b = {
            .data = t->cert_pem, .len = strlen(t->cert_pem), .flags = CURL_BLOB_COPY};
        ok = ok && curl_easy_setopt(e, CURLOPT_SSLCERT_BLOB, &b) == CURLE_OK;
        ok = ok && curl_easy_setopt(e, CURLOPT_SSLCERTTYPE, "PEM") == CURLE_OK;
    } else if (t->cert_file[0] != '\0') {
        ok = ok && curl_easy_setopt(e, CURLOPT_SSLCERT, t->cert_file) == CURLE_OK;
        ok = ok && curl_easy_setopt(e, CURLOPT_SSLCERTTYPE, "PEM") == CURLE_OK;
    }
    if (t->key_pem != NULL) {
        struct curl_blob b = {
            .data = t->key_pem, .len = strlen(t->key_pem), .flags = CURL_BLOB_COPY};
        ok = ok && curl_easy_setopt(e, CURLOPT_SSLKEY_BLOB, &b) == CURLE_OK;
        ok = ok && curl_easy_setopt(e, CURLOPT_SSLKEYTYPE, "PEM") == CURLE_OK;
    } else if (t->key_file[0] != '\0') {
        ok = ok && curl_easy_setopt(e, CURLOPT_SSLKEY, t->key_file) == CURLE_OK;
        ok = ok && curl_easy_setopt(e, CURLOPT_SSLKEYTYPE, "PEM") == CURLE_OK;
    }
    return ok;
}

static int add_header(struct curl_slist **list, const char *line)
{
    struct curl_slist *l = curl_slist_append(*list, line);
    if (l == NULL)
        return -ENOMEM;
    *list = l;
    return 0;
}

/* One request. @timeout bounds the whole transfer (0: none), @idle the time
 * without a byte (0: none). On 0, *@status is the HTTP status. */
static int perform_once(struct kube_client *c, const char *method, const char *path,
                        const char *body, size_t blen, int timeout, int idle, bool force_token,
                        struct xfer *x, long *status, char err[KUBE_ERR_LEN])
{
    char errbuf[CURL_ERROR_SIZE];
    struct curl_slist *headers = NULL;
    char *auth = NULL, *url = NULL;
    CURL *e;
    int rc = auth_header(c, force_token, &auth, err);
    if (rc != 0)
        return rc;

    rc = -ENOMEM;
    snprintf(err, KUBE_ERR_LEN, "%s %.200s: out of memory", method, c->t.server);
    size_t ulen = strlen(c->t.server) + strlen(path) + 1;
    url = malloc(ulen);
    if (url == NULL)
        goto out_free_auth;
    snprintf(url, ulen, "%s%s", c->t.server, path);
    e = curl_easy_init();
    if (e == NULL)
        goto out_free_url;
    x->easy = e;
    if (add_header(&headers, "Accept: application/json") != 0 ||
        (auth != NULL && add_header(&headers, auth) != 0) ||
        (body != NULL && add_header(&headers, "Content-Type: application/json") != 0) ||
        /* No "Expect: 100-continue" round trip for large bodies. */
        (body != NULL && add_header(&headers, "Expect:") != 0))
        goto out_cleanup;

    errbuf[0] = '\0';
    bool ok = set_tls(e, &c->t);
    ok = ok && curl_easy_setopt(e, CURLOPT_URL, url) == CURLE_OK;
    ok = ok && curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers) == CURLE_OK;
    ok = ok && curl_easy_setopt(e, CURLOPT_USERAGENT, c->user_agent) == CURLE_OK;
    ok = ok && curl_easy_setopt(e, CURLOPT_ERRORBUFFER, errbuf) == CURLE_OK;
    ok = ok && curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L) == CURLE_OK;
    ok = ok && curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT, (long)KUBE_CONNECT_TIMEOUT) == CURLE_OK;
    ok = ok && curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L) == CURLE_OK;
    ok = ok && curl_easy_setopt(e, CURLOPT_TCP_KEEPIDLE, 30L) == CURLE_OK;
    ok = ok && curl_easy_setopt(e, CURLOPT_TCP_KEEPINTVL, 10L) == CURLE_OK;
    ok = ok && curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "") == CURLE_OK;
    ok = ok && curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_write) == CURLE_OK;
    ok = ok && curl_easy_setopt(e, CURLOPT_WRITEDATA, x) == CURLE_OK;
    if (x->stream) {
        ok = ok && curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header) == CURLE_OK;
        ok = ok && curl_easy_setopt(e, CURLOPT_HEADERDATA, x) == CURLE_OK;
    }
    if (timeout > 0)
        ok = ok && curl_easy_setopt(e, CURLOPT_TIMEOUT, (long)timeout) == CURLE_OK;
    if (idle > 0) {
        ok = ok && curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, 1L) == CURLE_OK;
        ok = ok && curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, (long)idle) == CURLE_OK;
    }
    if (!x->stream)
        ok = ok &&
             curl_easy_setopt(e, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)KUBE_BODY_MAX) == CURLE_OK;
    if (x->stop != NULL) {
        /* libcurl calls this about once a second even on an idle stream. */
        ok = ok && curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L) == CURLE_OK;
        ok = ok && curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, on_progress) == CURLE_OK;
        ok = ok && curl_easy_setopt(e, CURLOPT_XFERINFODATA, x) == CURLE_OK;
    }
    if (body != NULL) {
        ok = ok && curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)blen) == CURLE_OK;
        ok = ok && curl_easy_setopt(e, CURLOPT_POSTFIELDS, body) == CURLE_OK;
    }
    if (!ok) {
        snprintf(err, KUBE_ERR_LEN, "%s %.200s: libcurl refused an option", method, c->t.server);
        rc = -EINVAL;
        goto out_cleanup;
    }

    CURLcode cc = curl_easy_perform(e);
    *status = 0;
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, status);
    if (cc == CURLE_OK || (cc == CURLE_WRITE_ERROR && x->body_full)) {
        rc = 0;
    } else if (cc == CURLE_WRITE_ERROR && x->fn_rc != 0) {
        rc = x->fn_rc;
    } else if ((cc == CURLE_WRITE_ERROR && x->too_big) || cc == CURLE_FILESIZE_EXCEEDED) {
        snprintf(err, KUBE_ERR_LEN, "%s %.200s%.100s: %s over %u MiB", method, c->t.server, path,
                 x->stream ? "line" : "body", (x->stream ? KUBE_LINE_MAX : KUBE_BODY_MAX) >> 20);
        rc = -E2BIG;
    } else if (cc == CURLE_WRITE_ERROR && x->no_memory) {
        snprintf(err, KUBE_ERR_LEN, "%s %.200s%.100s: out of memory", method, c->t.server, path);
        rc = -ENOMEM;
    } else if (cc == CURLE_ABORTED_BY_CALLBACK && x->stopped) {
        snprintf(err, KUBE_ERR_LEN, "%s %.200s%.100s: stopped", method, c->t.server, path);
        rc = -ECANCELED;
    } else {
        snprintf(err, KUBE_ERR_LEN, "%s %.200s%.100s: %.200s", method, c->t.server, path,
                 errbuf[0] != '\0' ? errbuf : curl_easy_strerror(cc));
        rc = curl_errno(cc);
    }

out_cleanup:
    curl_easy_cleanup(e);
    x->easy = NULL;
    for (struct curl_slist *h = headers; h != NULL; h = h->next)
        explicit_bzero(h->data, strlen(h->data));
    curl_slist_free_all(headers);
out_free_url:
    free(url);
out_free_auth:
    if (auth != NULL)
        explicit_bzero(auth, strlen(auth));
    free(auth);
    return rc;
}

/* A request, repeated once with a re-read token after a 401 when the token
 * comes from a file (it may have rotated under us). */
static int perform(struct kube_client *c, const char *method, const char *path, const char *body,
                   size_t blen, int timeout, int idle, struct xfer *x, struct kube_response *out,
                   char err[KUBE_ERR_LEN])
{
    long status = 0;
    int rc;

    memset(out, 0, sizeof(*out));
    if (path[0] != '/') {
        snprintf(err, KUBE_ERR_LEN, "%s %.200s: path must begin with '/'", method, path);
        return -EINVAL;
    }
    for (int attempt = 0;; attempt++) {
        rc = perform_once(c, method, path, body, blen, timeout, idle, attempt > 0, x, &status, err);
        if (rc != 0 || status != 401 || attempt > 0 || c->t.token_file[0] == '\0')
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
    if (x->buf == NULL && append(x, "", 0) != 0) {
        snprintf(err, KUBE_ERR_LEN, "out of memory");
        return -ENOMEM;
    }
    out->body = x->buf;
    out->len = x->len;
    x->buf = NULL;
    return 0;
}

int kube_get_cancellable(struct kube_client *c, const char *path, int timeout_seconds,
                         const atomic_bool *stop, struct kube_response *out, char err[KUBE_ERR_LEN])
{
    struct xfer x = {.stop = stop};
    return perform(c, "GET", path, NULL, 0, timeout_seconds, 0, &x, out, err);
}

int kube_get(struct kube_client *c, const char *path, int timeout_seconds,
             struct kube_response *out, char err[KUBE_ERR_LEN])
{
    return kube_get_cancellable(c, path, timeout_seconds, NULL, out, err);
}

int kube_post(struct kube_client *c, const char *path, const char *body, size_t len,
              int timeout_seconds, struct kube_response *out, char err[KUBE_ERR_LEN])
{
    struct xfer x = {0};
    return perform(c, "POST", path, body != NULL ? body : "", len, timeout_seconds, 0, &x, out,
                   err);
}

int kube_stream(struct kube_client *c, const char *path, int idle_seconds, const atomic_bool *stop,
                kube_line_fn fn, void *ctx, struct kube_response *out, char err[KUBE_ERR_LEN])
{
    struct xfer x = {.stream = true, .fn = fn, .ctx = ctx, .stop = stop};
    return perform(c, "GET", path, NULL, 0, 0, idle_seconds, &x, out, err);
}

#include "kube/transfer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int kube_xfer_append(struct kube_xfer *x, const char *data, size_t n)
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
static size_t deliver_lines(struct kube_xfer *x, size_t n)
{
    size_t start = 0;
    for (;;) {
        char *nl = memchr(x->buf + x->scan, '\n', x->len - x->scan);
        if (nl == NULL)
            break;
        size_t end = (size_t)(nl - x->buf);
        if (end - start > x->line_max) {
            x->too_big = true;
            return 0;
        }
        *nl = '\0';
        if ((x->fn_rc = x->fn(x->ctx, x->buf + start, end - start)) != 0)
            return 0;
        start = end + 1;
        x->scan = start;
    }
    if (x->len - start > x->line_max) {
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
size_t kube_xfer_on_header(char *data, size_t size, size_t nmemb, void *userp)
{
    struct kube_xfer *x = userp;
    size_t n = size * nmemb;
    long status = 0;

    if (x->opened || !(n == 2 && data[0] == '\r' && data[1] == '\n'))
        return n;
    curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);
    if (status < 200 || status > 299)
        return n;
    x->opened = true;
    x->fn_rc = x->fn(x->ctx, NULL, 0);
    return x->fn_rc != 0 ? 0 : n;
}

size_t kube_xfer_on_write(char *data, size_t size, size_t nmemb, void *userp)
{
    struct kube_xfer *x = userp;
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
        if (kube_xfer_append(x, data, take) != 0)
            return 0;
        return x->body_full ? 0 : n;
    }
    if (!x->stream) {
        if (x->len + n > x->body_max) {
            x->too_big = true;
            return 0;
        }
        return kube_xfer_append(x, data, n) == 0 ? n : 0;
    }
    if (kube_xfer_append(x, data, n) != 0)
        return 0;
    return deliver_lines(x, n);
}

int kube_xfer_on_progress(void *userp, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                          curl_off_t ulnow)
{
    struct kube_xfer *x = userp;
    (void)dltotal;
    (void)dlnow;
    (void)ultotal;
    (void)ulnow;
    if ((x->stop != NULL && atomic_load(x->stop)) ||
        (x->cancel != NULL && atomic_load(x->cancel))) {
        x->stopped = true;
        return 1;
    }
    return 0;
}

int kube_xfer_errno(CURLcode cc)
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

/* PEM @pem in memory (option @blob) if not NULL, else the file @file
 * (option @path) if not "", then @type (the file type, or CAPATH unset). */
static bool set_pem(CURL *e, CURLoption blob, CURLoption path, CURLoption type, char *pem,
                    const char *file)
{
    struct curl_blob b = {
        .data = pem, .len = pem != NULL ? strlen(pem) : 0, .flags = CURL_BLOB_COPY};
    if (pem == NULL && file[0] == '\0')
        return true;
    bool ok = pem != NULL ? curl_easy_setopt(e, blob, &b) == CURLE_OK
                          : curl_easy_setopt(e, path, file) == CURLE_OK;
    return ok && (type == CURLOPT_CAPATH ? curl_easy_setopt(e, type, NULL)
                                         : curl_easy_setopt(e, type, "PEM")) == CURLE_OK;
}

bool kube_xfer_set_tls(CURL *e, const struct kube_target *t, char *cert_pem, char *key_pem)
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
    ok = ok &&
         set_pem(e, CURLOPT_CAINFO_BLOB, CURLOPT_CAINFO, CURLOPT_CAPATH, t->ca_pem, t->ca_file);
    ok = ok && set_pem(e, CURLOPT_SSLCERT_BLOB, CURLOPT_SSLCERT, CURLOPT_SSLCERTTYPE,
                       cert_pem != NULL ? cert_pem : t->cert_pem, t->cert_file);
    return ok && set_pem(e, CURLOPT_SSLKEY_BLOB, CURLOPT_SSLKEY, CURLOPT_SSLKEYTYPE,
                         key_pem != NULL ? key_pem : t->key_pem, t->key_file);
}

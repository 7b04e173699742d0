/*
 * One libcurl transfer of the client: the buffer and the callbacks that
 * fill it (a whole body, or the lines of a watch handed over as they
 * arrive), the TLS options every request sets, and what a libcurl failure
 * means as an errno. Used by kube/client.c only.
 */
#ifndef KUBE_TRANSFER_H
#define KUBE_TRANSFER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include <curl/curl.h>

#include "kube/client.h"

#define KUBE_ERR_BODY_MAX (64u << 10) /* body kept of a failed stream */

/* One transfer in progress: what the callbacks need. */
struct kube_xfer {
    CURL *easy;
    bool stream;
    kube_line_fn fn;
    void *ctx;
    const atomic_bool *stop;
    const atomic_bool *cancel; /* the client's: kube_client_cancel */
    size_t body_max;           /* longest body kept (not a stream); never over KUBE_BODY_MAX */
    size_t line_max;           /* longest line of a stream; never over KUBE_LINE_MAX */
    char *buf;                 /* body, or the partial line of a stream */
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

/* Appends @n bytes to x->buf (NUL-terminated). Returns 0 or -ENOMEM. */
int kube_xfer_append(struct kube_xfer *x, const char *data, size_t n);

/* CURLOPT_HEADERFUNCTION of a stream: tells the callback when a 2xx
 * response's headers are in (a NULL line). */
size_t kube_xfer_on_header(char *data, size_t size, size_t nmemb, void *userp);

/* CURLOPT_WRITEFUNCTION: keeps a body (up to x->body_max), or hands a
 * 2xx stream's lines to the callback and keeps a failed one's body. */
size_t kube_xfer_on_write(char *data, size_t size, size_t nmemb, void *userp);

/* CURLOPT_XFERINFOFUNCTION: stops the transfer once x->stop or
 * x->cancel is set. */
int kube_xfer_on_progress(void *userp, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                          curl_off_t ulnow);

/* A transport failure as a negative errno. */
int kube_xfer_errno(CURLcode cc);

/* Sets the TLS and credential options of every request to @t on @e, with
 * the client certificate and key @cert_pem and @key_pem (an exec
 * plugin's, NULL for none) in place of the target's; libcurl copies them,
 * and writes through none. False when libcurl refused one. */
bool kube_xfer_set_tls(CURL *e, const struct kube_target *t, char *cert_pem, char *key_pem);

#endif

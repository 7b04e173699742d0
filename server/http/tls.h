/*
 * Optional HTTPS serving through libmicrohttpd's GnuTLS (Debian's
 * libmicrohttpd has no OpenSSL backend): TLS 1.2 and 1.3 only, the server
 * certificate re-read when its files change, and client certificates
 * (mTLS) verified here, since libmicrohttpd only asks for them.
 *
 * The certificate callback of GnuTLS takes no user pointer, so the current
 * certificate lives in this module, behind one lock (see tls.c).
 */
#ifndef SERVER_HTTP_TLS_H
#define SERVER_HTTP_TLS_H

#include <gnutls/abstract.h>
#include <gnutls/gnutls.h>
#include <microhttpd.h>

#include "config/config.h"

/* TLS 1.2 and 1.3, GnuTLS's NORMAL suites. */
#define HTTP_TLS_PRIORITIES "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"

/*
 * Loads cfg->tls_cert and cfg->tls_key (PEM). Returns 0, or -EINVAL with a
 * message naming the file in @err. Call once before the daemon starts.
 */
int http_tls_init(const struct cfg *cfg, char *err);

/* The GnuTLS certificate callback for MHD_OPTION_HTTPS_CERT_CALLBACK: hands
 * out the current certificate, after re-reading the files when they
 * changed (checked at most once a second; a bad new pair is logged and the
 * old one kept). */
int http_tls_cert_callback(gnutls_session_t session, const gnutls_datum_t *req_ca_rdn, int nreqs,
                           const gnutls_pk_algorithm_t *pk_algos, int pk_algos_length,
                           gnutls_pcert_st **pcert, unsigned int *pcert_length,
                           gnutls_privkey_t *privkey);

/* NULL when the client of @conn presented a certificate that verifies
 * against the trusted client CA (MHD_OPTION_HTTPS_MEM_TRUST) and is meant
 * for client authentication; else why not, a static text for the 403's
 * Error ("client certificate required" only when none was sent). */
const char *http_tls_client_refusal(struct MHD_Connection *conn);

/* Reads a whole PEM file (at most 1 MiB) into a malloc'd string (for the
 * trusted CA), or NULL with a message in @err (ERR_LEN). */
char *http_tls_read_pem(const char *path, char *err);

/* Frees the certificates (after the daemon stopped). */
void http_tls_destroy(void);

#endif

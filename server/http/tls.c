#include "server/http/tls.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "base/err.h"
#include "base/file.h"
#include "base/log.h"

#define TLS_PEM_MAX (1u << 20) /* longest certificate or key file */

/* A certificate chain and its key. Replaced ones are kept until the server
 * stops: GnuTLS may need the key of the certificate it was handed long after
 * (a TLS 1.2 client can hold its key exchange back), and nothing tells us
 * when a handshake is done with it. Rotations are rare; each keeps a few KB. */
struct tls_gen {
    gnutls_pcert_st *pcerts;
    unsigned int n_pcerts;
    gnutls_privkey_t key;
    time_t retired; /* 0 while current */
    struct tls_gen *older;
};

/* The module's state; `lock` guards all of it. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct tls_gen *current;
static char cert_path[CFG_STR_LEN], key_path[CFG_STR_LEN];
static struct timespec cert_mtime, key_mtime;
static time_t last_check;

char *http_tls_read_pem(const char *path, char *err)
{
    char *buf;
    size_t len;
    return file_read(path, TLS_PEM_MAX, FILE_REGULAR, &buf, &len, err) == 0 ? buf : NULL;
}

static void gen_free(struct tls_gen *g)
{
    if (g == NULL)
        return;
    for (unsigned int i = 0; i < g->n_pcerts; i++)
        gnutls_pcert_deinit(&g->pcerts[i]);
    free(g->pcerts);
    gnutls_privkey_deinit(g->key);
    free(g);
}

/* Reads the certificate chain and the key into a new generation, or NULL. */
static struct tls_gen *gen_load(char *err)
{
    char *cert = http_tls_read_pem(cert_path, err), *key = NULL;
    struct tls_gen *g = calloc(1, sizeof(*g)), *ok = NULL;
    gnutls_x509_crt_t *crts = NULL;
    unsigned int n = 0;
    int rc;

    if (cert == NULL || g == NULL)
        goto out;
    key = http_tls_read_pem(key_path, err);
    if (key == NULL)
        goto out;
    gnutls_datum_t cd = {(unsigned char *)cert, (unsigned int)strlen(cert)};
    gnutls_datum_t kd = {(unsigned char *)key, (unsigned int)strlen(key)};
    rc = gnutls_x509_crt_list_import2(&crts, &n, &cd, GNUTLS_X509_FMT_PEM, 0);
    if (rc < 0 || n == 0) {
        err_set(err, "%s: no PEM certificate (%s)", cert_path,
                rc < 0 ? gnutls_strerror(rc) : "empty");
        goto out;
    }
    g->pcerts = calloc(n, sizeof(*g->pcerts));
    if (g->pcerts == NULL)
        goto out;
    for (unsigned int i = 0; i < n; i++) {
        rc = gnutls_pcert_import_x509(&g->pcerts[i], crts[i], 0);
        if (rc < 0) {
            err_set(err, "%s: %s", cert_path, gnutls_strerror(rc));
            goto out;
        }
        g->n_pcerts++;
    }
    if (gnutls_privkey_init(&g->key) < 0 ||
        (rc = gnutls_privkey_import_x509_raw(g->key, &kd, GNUTLS_X509_FMT_PEM, NULL, 0)) < 0) {
        err_set(err, "%s: not a PEM private key", key_path);
        goto out;
    }
    /* A key that does not match the certificate would fail every handshake:
     * compare the key IDs of the certificate's public key and of the key's. */
    unsigned char cert_id[64] = {0}, key_id[64] = {0};
    size_t cert_id_len = sizeof(cert_id), key_id_len = sizeof(key_id);
    gnutls_pubkey_t pub = NULL;
    rc = gnutls_x509_crt_get_key_id(crts[0], 0, cert_id, &cert_id_len);
    if (rc >= 0 && (rc = gnutls_pubkey_init(&pub)) >= 0 &&
        (rc = gnutls_pubkey_import_privkey(pub, g->key, 0, 0)) >= 0)
        rc = gnutls_pubkey_get_key_id(pub, 0, key_id, &key_id_len);
    gnutls_pubkey_deinit(pub);
    if (rc < 0 || cert_id_len != key_id_len || memcmp(cert_id, key_id, key_id_len) != 0) {
        err_set(err, "%s does not match the certificate in %s", key_path, cert_path);
        goto out;
    }
    ok = g;
    g = NULL;
out:
    for (unsigned int i = 0; i < n; i++)
        gnutls_x509_crt_deinit(crts[i]);
    gnutls_free(crts);
    gen_free(g);
    if (key != NULL)
        file_free_secret(key, strlen(key)); /* no key material left in freed memory */
    free(cert);
    return ok;
}

static struct timespec mtime_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? st.st_mtim : (struct timespec){0, 0};
}

static bool same_time(struct timespec a, struct timespec b)
{
    return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

int http_tls_init(const struct cfg *cfg, char *err)
{
    snprintf(cert_path, sizeof(cert_path), "%s", cfg->tls_cert);
    snprintf(key_path, sizeof(key_path), "%s", cfg->tls_key);
    cert_mtime = mtime_of(cert_path);
    key_mtime = mtime_of(key_path);
    last_check = time(NULL);
    current = gen_load(err);
    return current != NULL ? 0 : -EINVAL;
}

/* With the lock held: re-reads the pair when either file changed. */
static void maybe_reload(void)
{
    char err[ERR_LEN];
    time_t now = time(NULL);
    if (now == last_check)
        return;
    last_check = now;
    struct timespec c = mtime_of(cert_path), k = mtime_of(key_path);
    if (same_time(c, cert_mtime) && same_time(k, key_mtime))
        return;
    struct tls_gen *g = gen_load(err);
    if (g == NULL) {
        /* Perhaps half written: try again next second, keep serving the old. */
        LOG(LOG_ERROR, "TLS certificate reload failed, keeping the old one", LOG_STR("error", err));
        return;
    }
    cert_mtime = c;
    key_mtime = k;
    current->retired = now;
    g->older = current;
    current = g;
    LOG(LOG_INFO, "TLS certificate reloaded", LOG_STR("cert", cert_path));
}

int http_tls_cert_callback(gnutls_session_t session, const gnutls_datum_t *req_ca_rdn, int nreqs,
                           const gnutls_pk_algorithm_t *pk_algos, int pk_algos_length,
                           gnutls_pcert_st **pcert, unsigned int *pcert_length,
                           gnutls_privkey_t *privkey)
{
    (void)session;
    (void)req_ca_rdn;
    (void)nreqs;
    (void)pk_algos;
    (void)pk_algos_length;
    pthread_mutex_lock(&lock);
    maybe_reload();
    *pcert = current->pcerts;
    *pcert_length = current->n_pcerts;
    *privkey = current->key;
    pthread_mutex_unlock(&lock);
    return 0;
}

const char *http_tls_client_refusal(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);
    gnutls_session_t s = ci != NULL ? (gnutls_session_t)ci->tls_session : NULL;
    unsigned int n = 0, status = 0;
    /* The chain must verify and the certificate be meant for TLS clients. */
    gnutls_typed_vdata_st purpose = {.type = GNUTLS_DT_KEY_PURPOSE_OID,
                                     .data = (unsigned char *)(uintptr_t)GNUTLS_KP_TLS_WWW_CLIENT};
    if (s == NULL || gnutls_certificate_get_peers(s, &n) == NULL || n == 0)
        return "client certificate required";
    if (gnutls_certificate_verify_peers(s, &purpose, 1, &status) != 0)
        return "client certificate does not verify";
    if (status == 0)
        return NULL;
    /* The first reason that holds, the issuer first: a certificate from
     * another CA is that, whatever its dates say. */
    if (status & GNUTLS_CERT_SIGNER_NOT_FOUND)
        return "client certificate not issued by the trusted client CA";
    if (status & (GNUTLS_CERT_SIGNATURE_FAILURE | GNUTLS_CERT_SIGNER_NOT_CA |
                  GNUTLS_CERT_INSECURE_ALGORITHM))
        return "client certificate signature does not verify";
    if (status & GNUTLS_CERT_EXPIRED)
        return "client certificate expired";
    if (status & GNUTLS_CERT_NOT_ACTIVATED)
        return "client certificate not valid yet";
    if (status & GNUTLS_CERT_PURPOSE_MISMATCH)
        return "client certificate not for client authentication (extended key usage)";
    if (status & GNUTLS_CERT_REVOKED)
        return "client certificate revoked";
    return "client certificate does not verify";
}

void http_tls_destroy(void)
{
    pthread_mutex_lock(&lock);
    while (current != NULL) {
        struct tls_gen *older = current->older;
        gen_free(current);
        current = older;
    }
    pthread_mutex_unlock(&lock);
}

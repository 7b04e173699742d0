/*
 * What an exec credential plugin writes on standard output: an
 * ExecCredential (client.authentication.k8s.io/v1 or v1beta1, the same
 * apiVersion as asked for) whose status carries a token and/or a client
 * certificate and key, and maybe an expirationTimestamp. Checked as
 * client-go's refreshCredsLocked checks it, for kube/exec.c.
 */
#ifndef KUBE_EXEC_OUTPUT_H
#define KUBE_EXEC_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>

/* A credential as the plugin gave it; strings malloc'd, NULL for none. */
struct kube_exec_status {
    char *token;
    char *cert_pem;
    char *key_pem;
    bool has_expiry;
    double expiry; /* wall-clock seconds since the epoch */
};

/*
 * Reads @len bytes of @out (NULL: nothing was written) as an
 * ExecCredential of @api_version into *@st, judging expiry against @now
 * (wall-clock seconds). Returns 0, -EACCES with "@where: reason" in @err
 * (ERR_LEN) — not JSON, another apiVersion or kind, no status, no token
 * and no certificate, a certificate without a key or the other way round,
 * a token unfit for a header, data that is not PEM, a timestamp that is
 * not RFC 3339 or is already past; never quoting the token or the key —
 * or -ENOMEM. On failure *@st holds nothing. Thread-safe.
 */
int kube_exec_read_output(const char *where, const char *api_version, const char *out, size_t len,
                          double now, struct kube_exec_status *st, char *err);

/* Wipes and frees what @st holds and zeroes it. */
void kube_exec_status_wipe(struct kube_exec_status *st);

/* Parses an RFC 3339 time as Go's time.Parse(time.RFC3339) takes it
 * (2006-01-02T15:04:05Z, or an offset, fractional seconds allowed) into
 * *@out (seconds since the epoch). Returns whether it is one. */
bool kube_exec_is_time(const char *s, double *out);

#endif

#include "kube/exec_output.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "base/err.h"
#include "kube/target.h"
#include "kube/token.h"

void kube_exec_status_wipe(struct kube_exec_status *st)
{
    kube_free_secret(st->token);
    free(st->cert_pem);
    kube_free_secret(st->key_pem);
    memset(st, 0, sizeof(*st));
}

/* @n digits at *@p into *@v. */
static bool digits(const char **p, int n, int *v)
{
    *v = 0;
    for (int i = 0; i < n; i++, (*p)++) {
        if (**p < '0' || **p > '9')
            return false;
        *v = *v * 10 + (**p - '0');
    }
    return true;
}

/* metav1.Time decodes with time.Parse(time.RFC3339). */
bool kube_exec_is_time(const char *s, double *out)
{
    static const char sep[] = "--T::";
    int f[6], off = 0;
    double frac = 0, scale = 0.1;

    for (int i = 0; i < 6; i++)
        if (!digits(&s, i == 0 ? 4 : 2, &f[i]) || (i < 5 && *s++ != sep[i]))
            return false;
    if (*s == '.') {
        if (*++s < '0' || *s > '9')
            return false;
        for (; *s >= '0' && *s <= '9'; s++, scale /= 10)
            frac += (*s - '0') * scale;
    }
    if (*s == '+' || *s == '-') {
        int sign = *s++ == '-' ? -1 : 1, hh, mm;
        if (!digits(&s, 2, &hh) || *s++ != ':' || !digits(&s, 2, &mm) || hh > 23 || mm > 59)
            return false;
        off = sign * (hh * 3600 + mm * 60);
    } else if (*s++ != 'Z') {
        return false;
    }
    if (*s != '\0' || f[1] < 1 || f[1] > 12 || f[2] < 1 || f[3] > 23 || f[4] > 59 || f[5] > 59)
        return false;
    struct tm tm = {.tm_year = f[0] - 1900,
                    .tm_mon = f[1] - 1,
                    .tm_mday = f[2],
                    .tm_hour = f[3],
                    .tm_min = f[4],
                    .tm_sec = f[5]};
    time_t t = timegm(&tm);
    if (t == (time_t)-1 || tm.tm_mday != f[2]) /* no 31 February */
        return false;
    *out = (double)t - off + frac;
    return true;
}

/* The string field @name of @obj: NULL when absent, null or ""; @bad set
 * when it is there but not a string. */
static const char *field(const cJSON *obj, const char *name, bool *bad)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (v == NULL || cJSON_IsNull(v))
        return NULL;
    if (!cJSON_IsString(v)) {
        *bad = true;
        return NULL;
    }
    return v->valuestring[0] != '\0' ? v->valuestring : NULL;
}

/* Checks the ExecCredential's status and copies it into @c. Messages never
 * quote the token or the key. */
static int take_status(const char *w, const cJSON *status, double now, struct kube_exec_status *c,
                       char *err)
{
    bool bad = false;
    const char *token = field(status, "token", &bad);
    const char *cert = field(status, "clientCertificateData", &bad);
    const char *key = field(status, "clientKeyData", &bad);
    const char *exp = field(status, "expirationTimestamp", &bad);

    if (bad)
        return err_fail(err, -EACCES, "%s: the plugin's status has a field that is not a string",
                        w);
    /* client-go's checks, in its words */
    if (token == NULL && cert == NULL && key == NULL)
        return err_fail(err, -EACCES, "%s: exec plugin didn't return a token or cert/key pair", w);
    if ((cert == NULL) != (key == NULL))
        return err_fail(err, -EACCES, "%s: exec plugin returned only certificate or key, not both",
                        w);
    if (token != NULL && !kube_token_is_valid(token, strlen(token)))
        return err_fail(err, -EACCES, "%s: status.token: spaces or control characters", w);
    if (cert != NULL && (strstr(cert, "-----BEGIN ") == NULL || strstr(key, "-----BEGIN ") == NULL))
        return err_fail(err, -EACCES,
                        "%s: status.clientCertificateData or clientKeyData: not PEM data", w);
    if (exp != NULL) {
        if (!kube_exec_is_time(exp, &c->expiry))
            return err_fail(err, -EACCES,
                            "%s: status.expirationTimestamp \"%.64s\": not an RFC 3339 time", w,
                            exp);
        if (c->expiry <= now)
            return err_fail(err, -EACCES,
                            "%s: the plugin returned a credential that expired at %.64s", w, exp);
        c->has_expiry = true;
    }
    c->token = token != NULL ? strdup(token) : NULL;
    c->cert_pem = cert != NULL ? strdup(cert) : NULL;
    c->key_pem = key != NULL ? strdup(key) : NULL;
    if ((token != NULL && c->token == NULL) || (cert != NULL && c->cert_pem == NULL) ||
        (key != NULL && c->key_pem == NULL)) {
        kube_exec_status_wipe(c);
        return err_fail(err, -ENOMEM, "%s: out of memory", w);
    }
    return 0;
}

/* Wipes the secrets out of a parsed ExecCredential before it is freed. */
static void wipe_json(cJSON *j)
{
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(j, "status");
    static const char *const secret[] = {"token", "clientKeyData"};
    for (size_t i = 0; i < sizeof(secret) / sizeof(secret[0]); i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(status, secret[i]);
        if (cJSON_IsString(v))
            explicit_bzero(v->valuestring, strlen(v->valuestring));
    }
    cJSON_Delete(j);
}

/* client-go decodes with the configured group version, then checks
 * "exec plugin is configured to use API version X, plugin returned version Y". */
int kube_exec_read_output(const char *w, const char *api_version, const char *out, size_t len,
                          double now, struct kube_exec_status *c, char *err)
{
    cJSON *j = out != NULL ? cJSON_ParseWithLength(out, len) : NULL;
    bool bad = false;
    int rc = -EACCES;

    memset(c, 0, sizeof(*c));
    /* A tree that is not an object has no members: all are NULL then. */
    const char *version = field(j, "apiVersion", &bad);
    const char *kind = field(j, "kind", &bad);
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(j, "status");
    if (!cJSON_IsObject(j))
        err_set(err, "%s: decoding stdout: not a JSON object (an ExecCredential)", w);
    else if (version == NULL || strcmp(version, api_version) != 0)
        err_set(err,
                "%s: exec plugin is configured to use API version %s, plugin returned version "
                "%s%.64s%s",
                w, api_version, version != NULL ? "\"" : "none", version != NULL ? version : "",
                version != NULL ? "\"" : "");
    else if (kind == NULL || strcmp(kind, "ExecCredential") != 0)
        err_set(err, "%s: decoding stdout: kind %s%.64s%s, not ExecCredential", w,
                kind != NULL ? "\"" : "none", kind != NULL ? kind : "", kind != NULL ? "\"" : "");
    else if (!cJSON_IsObject(status))
        err_set(err, "%s: exec plugin didn't return a status field", w);
    else if ((rc = take_status(w, status, now, c, err)) != 0)
        memset(c, 0, sizeof(*c)); /* nothing allocated yet: only the expiry */
    wipe_json(j);
    return rc;
}

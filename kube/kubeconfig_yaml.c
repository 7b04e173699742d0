/*
 * The YAML values of a kubeconfig (libyaml's document API): scalars,
 * booleans as YAML 1.1 spells them, file references and base64 PEM data,
 * each failing with "kubeconfig FILE: WHERE.KEY: reason". Used by
 * kubeconfig_parse.c.
 */
#include "kube/kubeconfig_yaml.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base64.h"
#include "base/err.h"
#include "config/yaml.h"

int kube_kc_fail(const struct kc_parse *p, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err, ERR_LEN, fmt, ap);
    va_end(ap);
    err_prefix(p->err, "kubeconfig %s: ", p->file);
    return rc;
}

bool kube_kc_is_null(const yaml_node_t *n)
{
    if (n == NULL)
        return true;
    if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return false;
    const char *v = (const char *)n->data.scalar.value;
    size_t l = n->data.scalar.length;
    return l == 0 || (l == 1 && v[0] == '~') ||
           (l == 4 &&
            (memcmp(v, "null", 4) == 0 || memcmp(v, "Null", 4) == 0 || memcmp(v, "NULL", 4) == 0));
}

int kube_kc_str(const struct kc_parse *p, const yaml_node_t *n, const char *where, const char *key,
                void *vout)
{
    char **out = vout;
    if (kube_kc_is_null(n)) {
        free(*out);
        *out = NULL;
        return 0;
    }
    if (n->type != YAML_SCALAR_NODE)
        return kube_kc_fail(p, -EINVAL, "%s.%s: want a string", where, key);
    size_t len = n->data.scalar.length;
    if (memchr(n->data.scalar.value, '\0', len) != NULL)
        return kube_kc_fail(p, -EINVAL, "%s.%s: contains a NUL byte", where, key);
    char *s = malloc(len + 1);
    if (s == NULL)
        return kube_kc_fail(p, -ENOMEM, "out of memory");
    memcpy(s, n->data.scalar.value, len);
    s[len] = '\0';
    free(*out);
    *out = s;
    return 0;
}

int kube_kc_abs(const struct kc_parse *p, char **out)
{
    if ((*out)[0] == '/' || p->dir[0] == '\0')
        return 0;
    size_t need = strlen(p->dir) + 1 + strlen(*out) + 1;
    char *abs = malloc(need);
    if (abs == NULL)
        return kube_kc_fail(p, -ENOMEM, "out of memory");
    snprintf(abs, need, "%s/%s", p->dir, *out);
    free(*out);
    *out = abs;
    return 0;
}

int kube_kc_path(const struct kc_parse *p, const yaml_node_t *n, const char *where, const char *key,
                 void *vout)
{
    char **out = vout;
    int rc = kube_kc_str(p, n, where, key, out);
    if (rc != 0 || *out == NULL)
        return rc;
    if ((*out)[0] == '\0') {
        free(*out);
        *out = NULL;
        return 0;
    }
    return kube_kc_abs(p, out);
}

int kube_kc_pem(const struct kc_parse *p, const yaml_node_t *n, const char *where, const char *key,
                void *vout)
{
    char **out = vout;
    char *text = NULL, *pem = NULL;
    size_t len;
    int rc = kube_kc_str(p, n, where, key, &text);
    if (rc != 0)
        return rc;
    if (text == NULL || text[0] == '\0') {
        free(text);
        free(*out);
        *out = NULL;
        return 0;
    }
    rc = base64_decode(text, strlen(text), &pem, &len);
    free(text);
    if (rc == -ENOMEM)
        return kube_kc_fail(p, rc, "out of memory");
    if (rc != 0)
        return kube_kc_fail(p, rc, "%s.%s: invalid base64", where, key);
    /* libcurl takes PEM only; a NUL would also cut the text short. */
    if (memchr(pem, '\0', len) != NULL || strstr(pem, "-----BEGIN ") == NULL) {
        free(pem);
        return kube_kc_fail(p, -EINVAL, "%s.%s: not PEM data", where, key);
    }
    free(*out);
    *out = pem;
    return 0;
}

int kube_kc_bool(const struct kc_parse *p, const yaml_node_t *n, const char *where, const char *key,
                 void *vout)
{
    bool *out = vout;
    const char *const yes[] = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"};
    const char *const no[] = {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"};

    if (kube_kc_is_null(n)) {
        *out = false;
        return 0;
    }
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        if (cfg_yaml_is_key(n, yes[i])) {
            *out = true;
            return 0;
        }
        if (cfg_yaml_is_key(n, no[i])) {
            *out = false;
            return 0;
        }
    }
    return kube_kc_fail(p, -EINVAL, "%s.%s: want true or false", where, key);
}

/*
 * The YAML values of a kubeconfig file, read from libyaml's document tree
 * for kubeconfig_parse.c: each reader checks the type, copies the value
 * (malloc'd, replacing what *out held) and on failure writes
 * "kubeconfig FILE: WHERE.KEY: reason" into the parse's error buffer.
 * Not thread-safe on one struct kc_parse; separate parses are independent.
 */
#ifndef KUBE_KUBECONFIG_YAML_H
#define KUBE_KUBECONFIG_YAML_H

#include <stdbool.h>

#include <yaml.h>

#include "kube/kubeconfig_parse.h"

#define KC_WHERE_LEN 160 /* "users[NAME].user" and the like, NAME cut at 64 bytes */

/* One file being parsed. */
struct kc_parse {
    struct kc_config *m;
    yaml_document_t *doc;
    const char *file; /* owned by m->files */
    const char *dir;  /* relative paths resolve against it; "" leaves them */
    char *err;        /* ERR_LEN bytes */
};

/* Writes "kubeconfig FILE: <message>" to p->err and returns @rc. */
int kube_kc_fail(const struct kc_parse *p, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A plain null, ~ or empty scalar, or no node at all: YAML's null. */
bool kube_kc_is_null(const yaml_node_t *n);

/* Every reader of a value: @n, the value of @key in @where, into *@out, a
 * char * (a bool for kube_kc_bool); one type, so that tables name them. */
typedef int (*kc_read_fn)(const struct kc_parse *p, const yaml_node_t *n, const char *where,
                          const char *key, void *out);

/* Copies scalar @n into *@out (replacing it), NULL for YAML null. Returns 0,
 * -EINVAL (not a scalar, a NUL byte) or -ENOMEM. */
int kube_kc_str(const struct kc_parse *p, const yaml_node_t *n, const char *where, const char *key,
                void *out);

/* Makes the relative path *@out (not NULL) absolute against p->dir,
 * replacing it. Returns 0 or -ENOMEM. */
int kube_kc_abs(const struct kc_parse *p, char **out);

/* A file reference: as kube_kc_str, "" being none, relative paths made
 * absolute against the file's directory. */
int kube_kc_path(const struct kc_parse *p, const yaml_node_t *n, const char *where, const char *key,
                 void *out);

/* A base64 PEM field: decoded, and refused (-EINVAL) unless it is PEM text. */
int kube_kc_pem(const struct kc_parse *p, const yaml_node_t *n, const char *where, const char *key,
                void *out);

/* A boolean as YAML 1.1 spells it (true/yes/on, false/no/off; null is
 * false). Returns 0 or -EINVAL. */
int kube_kc_bool(const struct kc_parse *p, const yaml_node_t *n, const char *where, const char *key,
                 void *out);

#endif

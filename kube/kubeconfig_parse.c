#include "kube/kubeconfig_parse.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "base/base64.h"
#include "base/err.h"

#define KC_WHERE_LEN 160

/* One file being parsed. */
struct kc_parse {
    struct kc_config *m;
    yaml_document_t *doc;
    const char *file; /* owned by m->files */
    const char *dir;
    char *err;
};

void kube_kc_free(struct kc_config *m)
{
    for (size_t i = 0; i < m->n_clusters; i++) {
        struct kc_cluster *c = &m->clusters[i];
        free(c->name);
        free(c->server);
        free(c->ca_file);
        free(c->ca_pem);
    }
    free(m->clusters);
    for (size_t i = 0; i < m->n_users; i++) {
        struct kc_user *u = &m->users[i];
        free(u->name);
        if (u->token != NULL)
            explicit_bzero(u->token, strlen(u->token));
        free(u->token);
        free(u->token_file);
        free(u->cert_file);
        free(u->cert_pem);
        free(u->key_file);
        if (u->key_pem != NULL)
            explicit_bzero(u->key_pem, strlen(u->key_pem));
        free(u->key_pem);
    }
    free(m->users);
    for (size_t i = 0; i < m->n_contexts; i++) {
        free(m->contexts[i].name);
        free(m->contexts[i].cluster);
        free(m->contexts[i].user);
    }
    free(m->contexts);
    free(m->current_context);
    for (size_t i = 0; i < m->n_files; i++)
        free(m->files[i]);
    free(m->files);
    memset(m, 0, sizeof(*m));
}

static int fail(const struct kc_parse *p, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Writes "kubeconfig FILE: <message>" to p->err and returns @rc. */
static int fail(const struct kc_parse *p, int rc, const char *fmt, ...)
{
    int n = snprintf(p->err, ERR_LEN, "kubeconfig %s: ", p->file);
    if (n < 0 || n >= ERR_LEN)
        return rc;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err + n, ERR_LEN - (size_t)n, fmt, ap);
    va_end(ap);
    return rc;
}

/* Grows the array *@arr of @size-byte elements to hold one more than @n. */
static int grow(void **arr, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return 0;
    size_t ncap = *cap ? *cap * 2 : 8;
    void *a = realloc(*arr, ncap * size);
    if (a == NULL)
        return -ENOMEM;
    *arr = a;
    *cap = ncap;
    return 0;
}

/* ---- YAML nodes ---- */

static const yaml_node_t *node(const struct kc_parse *p, int index)
{
    return yaml_document_get_node(p->doc, index);
}

/* A plain null, ~ or empty scalar, or no node at all: YAML's null. */
static bool is_null(const yaml_node_t *n)
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

static bool key_is(const yaml_node_t *k, const char *s)
{
    size_t l = strlen(s);
    return k != NULL && k->type == YAML_SCALAR_NODE && k->data.scalar.length == l &&
           memcmp(k->data.scalar.value, s, l) == 0;
}

/* The value of @key in mapping @map, NULL when absent (the last one when
 * repeated, as later keys override earlier ones). */
static const yaml_node_t *map_get(const struct kc_parse *p, const yaml_node_t *map, const char *key)
{
    const yaml_node_t *v = NULL;
    for (const yaml_node_pair_t *pr = map->data.mapping.pairs.start;
         pr < map->data.mapping.pairs.top; pr++)
        if (key_is(node(p, pr->key), key))
            v = node(p, pr->value);
    return v;
}

/* Copies scalar @n into *@out (replacing it), NULL for YAML null. */
static int str_value(const struct kc_parse *p, const yaml_node_t *n, const char *where,
                     const char *key, char **out)
{
    if (is_null(n)) {
        free(*out);
        *out = NULL;
        return 0;
    }
    if (n->type != YAML_SCALAR_NODE)
        return fail(p, -EINVAL, "%s.%s: want a string", where, key);
    size_t len = n->data.scalar.length;
    if (memchr(n->data.scalar.value, '\0', len) != NULL)
        return fail(p, -EINVAL, "%s.%s: contains a NUL byte", where, key);
    char *s = malloc(len + 1);
    if (s == NULL)
        return fail(p, -ENOMEM, "out of memory");
    memcpy(s, n->data.scalar.value, len);
    s[len] = '\0';
    free(*out);
    *out = s;
    return 0;
}

/* A file reference: relative paths resolve against the file's directory. */
static int path_value(const struct kc_parse *p, const yaml_node_t *n, const char *where,
                      const char *key, char **out)
{
    int rc = str_value(p, n, where, key, out);
    if (rc != 0 || *out == NULL)
        return rc;
    if ((*out)[0] == '\0') {
        free(*out);
        *out = NULL;
        return 0;
    }
    if ((*out)[0] == '/' || p->dir[0] == '\0')
        return 0;
    size_t need = strlen(p->dir) + 1 + strlen(*out) + 1;
    char *abs = malloc(need);
    if (abs == NULL)
        return fail(p, -ENOMEM, "out of memory");
    snprintf(abs, need, "%s/%s", p->dir, *out);
    free(*out);
    *out = abs;
    return 0;
}

/* A base64 PEM field: decoded, and refused unless it is PEM text. */
static int pem_value(const struct kc_parse *p, const yaml_node_t *n, const char *where,
                     const char *key, char **out)
{
    char *text = NULL, *pem = NULL;
    size_t len;
    int rc = str_value(p, n, where, key, &text);
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
        return fail(p, rc, "out of memory");
    if (rc != 0)
        return fail(p, rc, "%s.%s: invalid base64", where, key);
    /* libcurl takes PEM only; a NUL would also cut the text short. */
    if (memchr(pem, '\0', len) != NULL || strstr(pem, "-----BEGIN ") == NULL) {
        free(pem);
        return fail(p, -EINVAL, "%s.%s: not PEM data", where, key);
    }
    free(*out);
    *out = pem;
    return 0;
}

static int bool_value(const struct kc_parse *p, const yaml_node_t *n, const char *where,
                      const char *key, bool *out)
{
    static const char *const yes[] = {"true", "True", "TRUE", "yes", "Yes",
                                      "YES",  "on",   "On",   "ON"};
    static const char *const no[] = {"false", "False", "FALSE", "no", "No",
                                     "NO",    "off",   "Off",   "OFF"};

    if (is_null(n)) {
        *out = false;
        return 0;
    }
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        if (key_is(n, yes[i])) {
            *out = true;
            return 0;
        }
        if (key_is(n, no[i])) {
            *out = false;
            return 0;
        }
    }
    return fail(p, -EINVAL, "%s.%s: want true or false", where, key);
}

/* ---- entries ---- */

static int parse_cluster(const struct kc_parse *p, const yaml_node_t *body, const char *where,
                         struct kc_cluster *c)
{
    int rc = 0;
    for (const yaml_node_pair_t *pr = body->data.mapping.pairs.start;
         rc == 0 && pr < body->data.mapping.pairs.top; pr++) {
        const yaml_node_t *k = node(p, pr->key), *v = node(p, pr->value);
        if (key_is(k, "server"))
            rc = str_value(p, v, where, "server", &c->server);
        else if (key_is(k, "certificate-authority"))
            rc = path_value(p, v, where, "certificate-authority", &c->ca_file);
        else if (key_is(k, "certificate-authority-data"))
            rc = pem_value(p, v, where, "certificate-authority-data", &c->ca_pem);
        else if (key_is(k, "insecure-skip-tls-verify"))
            rc = bool_value(p, v, where, "insecure-skip-tls-verify", &c->insecure);
        else if (key_is(k, "tls-server-name") && !is_null(v))
            c->unsupported = "tls-server-name";
        else if (key_is(k, "proxy-url") && !is_null(v))
            c->unsupported = "proxy-url";
    }
    return rc;
}

static int parse_user(const struct kc_parse *p, const yaml_node_t *body, const char *where,
                      struct kc_user *u)
{
    int rc = 0;
    for (const yaml_node_pair_t *pr = body->data.mapping.pairs.start;
         rc == 0 && pr < body->data.mapping.pairs.top; pr++) {
        const yaml_node_t *k = node(p, pr->key), *v = node(p, pr->value);
        if (key_is(k, "token"))
            rc = str_value(p, v, where, "token", &u->token);
        else if (key_is(k, "tokenFile"))
            rc = path_value(p, v, where, "tokenFile", &u->token_file);
        else if (key_is(k, "client-certificate"))
            rc = path_value(p, v, where, "client-certificate", &u->cert_file);
        else if (key_is(k, "client-certificate-data"))
            rc = pem_value(p, v, where, "client-certificate-data", &u->cert_pem);
        else if (key_is(k, "client-key"))
            rc = path_value(p, v, where, "client-key", &u->key_file);
        else if (key_is(k, "client-key-data"))
            rc = pem_value(p, v, where, "client-key-data", &u->key_pem);
        else if (is_null(v))
            continue;
        else if (key_is(k, "exec")) {
            u->unsupported = "exec";
            u->why = "exec credential plugins are not supported";
        } else if (key_is(k, "auth-provider")) {
            u->unsupported = "auth-provider";
            u->why = "auth providers are not supported";
        } else if (key_is(k, "username") || key_is(k, "password")) {
            u->unsupported = key_is(k, "username") ? "username" : "password";
            u->why = "basic authentication is not supported";
        } else if (key_is(k, "as") || key_is(k, "as-uid") || key_is(k, "as-groups") ||
                   key_is(k, "as-user-extra")) {
            u->unsupported = "as";
            u->why = "impersonation is not supported";
        }
    }
    return rc;
}

static int parse_context(const struct kc_parse *p, const yaml_node_t *body, const char *where,
                         struct kc_context *c)
{
    int rc = 0;
    for (const yaml_node_pair_t *pr = body->data.mapping.pairs.start;
         rc == 0 && pr < body->data.mapping.pairs.top; pr++) {
        const yaml_node_t *k = node(p, pr->key), *v = node(p, pr->value);
        if (key_is(k, "cluster"))
            rc = str_value(p, v, where, "cluster", &c->cluster);
        else if (key_is(k, "user"))
            rc = str_value(p, v, where, "user", &c->user);
    }
    return rc;
}

enum kc_kind {
    KC_CLUSTER = 0,
    KC_USER,
    KC_CONTEXT,
};

static const char *const kind_list[] = {"clusters", "users", "contexts"};
static const char *const kind_body[] = {"cluster", "user", "context"};

/* Whether @name is already defined: 1, or 2 when by the file being parsed. */
static int defined(const struct kc_parse *p, enum kc_kind kind, const char *name)
{
    const struct kc_config *m = p->m;
    size_t n = kind == KC_CLUSTER ? m->n_clusters : kind == KC_USER ? m->n_users : m->n_contexts;
    for (size_t i = 0; i < n; i++) {
        const char *en = kind == KC_CLUSTER ? m->clusters[i].name
                         : kind == KC_USER  ? m->users[i].name
                                            : m->contexts[i].name;
        const char *ef = kind == KC_CLUSTER ? m->clusters[i].file
                         : kind == KC_USER  ? m->users[i].file
                                            : m->contexts[i].file;
        if (strcmp(en, name) == 0)
            return ef == p->file ? 2 : 1;
    }
    return 0;
}

/* Parses one entry of a clusters/users/contexts list into the config,
 * unless an earlier file defined its name (client-go: the first wins). */
static int parse_entry(const struct kc_parse *p, enum kc_kind kind, size_t index,
                       const yaml_node_t *item)
{
    struct kc_config *m = p->m;
    const char *list = kind_list[kind];
    char where[KC_WHERE_LEN];
    char *name = NULL;
    int rc;

    if (item == NULL || item->type != YAML_MAPPING_NODE)
        return fail(p, -EINVAL, "%s[%zu]: want a mapping", list, index);
    snprintf(where, sizeof(where), "%s[%zu]", list, index);
    rc = str_value(p, map_get(p, item, "name"), where, "name", &name);
    if (rc != 0)
        return rc;
    if (name == NULL || name[0] == '\0') {
        free(name);
        return fail(p, -EINVAL, "%s[%zu].name: missing", list, index);
    }
    snprintf(where, sizeof(where), "%s[%.64s].%s", list, name, kind_body[kind]);
    const yaml_node_t *body = map_get(p, item, kind_body[kind]);
    if (!is_null(body) && body->type != YAML_MAPPING_NODE) {
        rc = fail(p, -EINVAL, "%s: want a mapping", where);
        goto out_free_name;
    }
    int seen = defined(p, kind, name);
    if (seen == 2) {
        rc = fail(p, -EINVAL, "%s[%.64s]: defined twice", list, name);
        goto out_free_name;
    }
    if (seen == 1)
        goto out_free_name;

    switch (kind) {
    case KC_CLUSTER: {
        rc = grow((void **)&m->clusters, &m->cap_clusters, m->n_clusters, sizeof(*m->clusters));
        if (rc != 0)
            break;
        struct kc_cluster *c = &m->clusters[m->n_clusters++];
        memset(c, 0, sizeof(*c));
        c->name = name;
        c->file = p->file;
        name = NULL;
        if (!is_null(body))
            rc = parse_cluster(p, body, where, c);
        break;
    }
    case KC_USER: {
        rc = grow((void **)&m->users, &m->cap_users, m->n_users, sizeof(*m->users));
        if (rc != 0)
            break;
        struct kc_user *u = &m->users[m->n_users++];
        memset(u, 0, sizeof(*u));
        u->name = name;
        u->file = p->file;
        name = NULL;
        if (!is_null(body))
            rc = parse_user(p, body, where, u);
        break;
    }
    case KC_CONTEXT: {
        rc = grow((void **)&m->contexts, &m->cap_contexts, m->n_contexts, sizeof(*m->contexts));
        if (rc != 0)
            break;
        struct kc_context *x = &m->contexts[m->n_contexts++];
        memset(x, 0, sizeof(*x));
        x->name = name;
        x->file = p->file;
        name = NULL;
        if (!is_null(body))
            rc = parse_context(p, body, where, x);
        break;
    }
    }
    if (rc == -ENOMEM && p->err[0] == '\0')
        fail(p, rc, "out of memory");

out_free_name:
    free(name);
    return rc;
}

static int parse_list(const struct kc_parse *p, enum kc_kind kind, const yaml_node_t *seq)
{
    if (is_null(seq))
        return 0;
    if (seq->type != YAML_SEQUENCE_NODE)
        return fail(p, -EINVAL, "%s: want a list", kind_list[kind]);
    size_t n = (size_t)(seq->data.sequence.items.top - seq->data.sequence.items.start);
    if (n > KC_MAX_ENTRIES)
        return fail(p, -EINVAL, "%s: more than %d entries", kind_list[kind], KC_MAX_ENTRIES);
    for (size_t i = 0; i < n; i++) {
        int rc = parse_entry(p, kind, i, node(p, seq->data.sequence.items.start[i]));
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* Parses the document @text of file @name into @m, merging. */
int kube_kc_parse(struct kc_config *m, const char *text, size_t len, const char *name,
                  const char *dir, char *err)
{
    yaml_parser_t parser;
    yaml_document_t doc;
    struct kc_parse p = {.m = m, .doc = &doc, .dir = dir != NULL ? dir : "", .err = err};
    int rc = -ENOMEM;

    err[0] = '\0';
    char **files = realloc(m->files, (m->n_files + 1) * sizeof(*files));
    if (files == NULL)
        goto out_nomem;
    m->files = files;
    m->files[m->n_files] = strdup(name);
    if (m->files[m->n_files] == NULL)
        goto out_nomem;
    p.file = m->files[m->n_files++];

    if (len > KUBE_KUBECONFIG_MAX)
        return fail(&p, -EINVAL, "larger than %u MiB", KUBE_KUBECONFIG_MAX >> 20);
    if (yaml_parser_initialize(&parser) == 0)
        goto out_nomem;
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (yaml_parser_load(&parser, &doc) == 0) {
        if (parser.error == YAML_MEMORY_ERROR)
            rc = fail(&p, -ENOMEM, "out of memory");
        else
            rc = fail(&p, -EINVAL, "YAML error at line %zu column %zu: %s",
                      parser.problem_mark.line + 1, parser.problem_mark.column + 1,
                      parser.problem != NULL ? parser.problem : "unknown");
        goto out_delete_parser;
    }

    const yaml_node_t *root = yaml_document_get_root_node(&doc);
    rc = 0;
    if (is_null(root))
        goto out_delete_doc; /* an empty file adds nothing */
    if (root->type != YAML_MAPPING_NODE) {
        rc = fail(&p, -EINVAL, "want a YAML mapping at the top");
        goto out_delete_doc;
    }
    char *current = NULL;
    rc = str_value(&p, map_get(&p, root, "current-context"), "", "current-context", &current);
    if (rc != 0)
        goto out_delete_doc;
    /* The first file that sets a current context wins. */
    if (m->current_context == NULL && current != NULL && current[0] != '\0') {
        m->current_context = current;
        current = NULL;
    }
    free(current);
    rc = parse_list(&p, KC_CLUSTER, map_get(&p, root, "clusters"));
    if (rc == 0)
        rc = parse_list(&p, KC_USER, map_get(&p, root, "users"));
    if (rc == 0)
        rc = parse_list(&p, KC_CONTEXT, map_get(&p, root, "contexts"));

out_delete_doc:
    yaml_document_delete(&doc);
out_delete_parser:
    yaml_parser_delete(&parser);
    return rc;

out_nomem:
    err_set(err, "kubeconfig %s: out of memory", name);
    return -ENOMEM;
}

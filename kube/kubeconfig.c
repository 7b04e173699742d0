/*
 * kubeconfig files as client-go reads them: YAML (libyaml's document API),
 * a colon-separated list merged with the first definition of each named
 * cluster, user and context winning, relative paths resolved against the
 * naming file's directory, then the chosen context resolved into a
 * struct kube_target.
 *
 * Entries are checked in two steps: what makes a file unreadable (bad YAML,
 * wrong types, bad base64, a name defined twice) fails the load, as in
 * client-go; what only matters for the entry in use (a missing server, exec
 * credentials, files that do not exist) fails only when that entry is
 * chosen.
 */
#include "kube/kubeconfig.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yaml.h>

#define KC_MAX_ENTRIES 10000 /* per list: names are compared pairwise */
#define KC_WHERE_LEN   160

struct kc_cluster {
    char *name;
    const char *file; /* borrowed from kc_config.files */
    char *server;
    char *ca_file;
    char *ca_pem;
    bool insecure;
    const char *unsupported; /* static field name, NULL for none */
};

struct kc_user {
    char *name;
    const char *file;
    char *token;
    char *token_file;
    char *cert_file;
    char *cert_pem;
    char *key_file;
    char *key_pem;
    const char *unsupported;
    const char *why; /* static explanation for unsupported */
};

struct kc_context {
    char *name;
    const char *file;
    char *cluster;
    char *user;
};

/* The merged contents of every file read. */
struct kc_config {
    struct kc_cluster *clusters;
    size_t n_clusters, cap_clusters;
    struct kc_user *users;
    size_t n_users, cap_users;
    struct kc_context *contexts;
    size_t n_contexts, cap_contexts;
    char *current_context;
    char **files;
    size_t n_files;
};

/* One file being parsed. */
struct kc_parse {
    struct kc_config *m;
    yaml_document_t *doc;
    const char *file; /* owned by m->files */
    const char *dir;
    char *err;
};

static void kc_free(struct kc_config *m)
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
    int n = snprintf(p->err, KUBE_ERR_LEN, "kubeconfig %s: ", p->file);
    if (n < 0 || n >= KUBE_ERR_LEN)
        return rc;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err + n, KUBE_ERR_LEN - (size_t)n, fmt, ap);
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

/* ---- base64 (kubeconfig *-data fields) ---- */

static int b64_value(unsigned char ch)
{
    if (ch >= 'A' && ch <= 'Z')
        return ch - 'A';
    if (ch >= 'a' && ch <= 'z')
        return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9')
        return ch - '0' + 52;
    if (ch == '+')
        return 62;
    if (ch == '/')
        return 63;
    return -1;
}

/*
 * Decodes standard, padded base64 (as Go's encoding/json does for []byte),
 * skipping whitespace, since YAML block scalars wrap long values. Returns a
 * malloc'd NUL-terminated buffer in *@out and its length in *@out_len, or
 * -EINVAL / -ENOMEM.
 */
static int b64_decode(const char *in, size_t len, char **out, size_t *out_len)
{
    char *buf = malloc(len / 4 * 3 + 4);
    size_t n = 0, quad = 0, pad = 0;
    unsigned int acc = 0;

    if (buf == NULL)
        return -ENOMEM;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)in[i];
        if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n')
            continue;
        if (ch == '=') {
            /* Padding only in the last two places of a quad. */
            if (quad < 2)
                goto out_invalid;
            pad++;
            acc <<= 6;
            quad++;
        } else {
            int v = b64_value(ch);
            if (v < 0 || pad > 0)
                goto out_invalid;
            acc = acc << 6 | (unsigned int)v;
            quad++;
        }
        if (quad == 4) {
            buf[n++] = (char)(acc >> 16 & 0xff);
            if (pad < 2)
                buf[n++] = (char)(acc >> 8 & 0xff);
            if (pad < 1)
                buf[n++] = (char)(acc & 0xff);
            quad = 0;
            acc = 0;
            if (pad > 0) {
                /* Nothing but whitespace may follow the padding. */
                for (i++; i < len; i++)
                    if (in[i] != ' ' && in[i] != '\t' && in[i] != '\r' && in[i] != '\n')
                        goto out_invalid;
                break;
            }
        }
    }
    if (quad != 0)
        goto out_invalid;
    buf[n] = '\0';
    *out = buf;
    *out_len = n;
    return 0;

out_invalid:
    free(buf);
    return -EINVAL;
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
    rc = b64_decode(text, strlen(text), &pem, &len);
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
static int kc_parse(struct kc_config *m, const char *text, size_t len, const char *name,
                    const char *dir, char err[KUBE_ERR_LEN])
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
    snprintf(err, KUBE_ERR_LEN, "kubeconfig %s: out of memory", name);
    return -ENOMEM;
}

/* ---- resolution ---- */

/* Copies @v into the target field @dst of @cap bytes. */
static int put(char *dst, size_t cap, const char *v)
{
    size_t l = strlen(v);
    if (l >= cap)
        return -ENAMETOOLONG;
    memcpy(dst, v, l + 1);
    return 0;
}

/* Checks that @path names a readable regular file (errors name it). */
static int check_file(const char *path, char *why, size_t n)
{
    struct stat st;
    if (stat(path, &st) == -1) {
        snprintf(why, n, "%s: %s", path, strerror(errno));
        return -EINVAL;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, n, "%s: not a regular file", path);
        return -EINVAL;
    }
    return 0;
}

/* Server URL: http(s)://, no trailing slash. */
static int check_server(const char *server, char *out, size_t cap)
{
    if (strncmp(server, "https://", 8) != 0 && strncmp(server, "http://", 7) != 0)
        return -EINVAL;
    const char *host = strstr(server, "://") + 3;
    if (*host == '\0' || *host == '/')
        return -EINVAL;
    for (const char *s = server; *s != '\0'; s++)
        if ((unsigned char)*s <= ' ' || *s == 0x7f)
            return -EINVAL;
    size_t l = strlen(server);
    while (l > 0 && server[l - 1] == '/')
        l--;
    if (l >= cap)
        return -EINVAL;
    memcpy(out, server, l);
    out[l] = '\0';
    return 0;
}

/* A token goes into an HTTP header: printable ASCII only. */
static bool is_valid_token(const char *s)
{
    if (*s == '\0')
        return false;
    for (; *s != '\0'; s++)
        if ((unsigned char)*s < 0x21 || (unsigned char)*s > 0x7e)
            return false;
    return true;
}

static int resolve_cluster(const struct kc_cluster *c, struct kube_target *t,
                           char err[KUBE_ERR_LEN])
{
    char why[KUBE_ERR_LEN / 2];
    const char *f = c->file;
    const char *n = c->name;

    if (c->unsupported != NULL) {
        snprintf(err, KUBE_ERR_LEN, "kubeconfig %s: clusters[%.64s].cluster.%s: not supported", f,
                 n, c->unsupported);
        return -EINVAL;
    }
    if (c->server == NULL || c->server[0] == '\0') {
        snprintf(err, KUBE_ERR_LEN, "kubeconfig %s: clusters[%.64s].cluster.server: missing", f, n);
        return -EINVAL;
    }
    if (check_server(c->server, t->server, sizeof(t->server)) != 0) {
        snprintf(err, KUBE_ERR_LEN,
                 "kubeconfig %s: clusters[%.64s].cluster.server: want an https:// URL, not "
                 "\"%.100s\"",
                 f, n, c->server);
        return -EINVAL;
    }
    if (c->ca_file != NULL && c->ca_pem != NULL) {
        snprintf(err, KUBE_ERR_LEN,
                 "kubeconfig %s: clusters[%.64s].cluster: both certificate-authority and "
                 "certificate-authority-data are set",
                 f, n);
        return -EINVAL;
    }
    if (c->insecure && (c->ca_file != NULL || c->ca_pem != NULL)) {
        snprintf(err, KUBE_ERR_LEN,
                 "kubeconfig %s: clusters[%.64s].cluster: insecure-skip-tls-verify with a "
                 "certificate authority is not allowed",
                 f, n);
        return -EINVAL;
    }
    if (c->ca_file != NULL) {
        int rc = check_file(c->ca_file, why, sizeof(why));
        if (rc == 0 && put(t->ca_file, sizeof(t->ca_file), c->ca_file) != 0) {
            snprintf(why, sizeof(why), "path too long");
            rc = -EINVAL;
        }
        if (rc != 0) {
            snprintf(err, KUBE_ERR_LEN,
                     "kubeconfig %s: clusters[%.64s].cluster.certificate-authority: %s", f, n, why);
            return rc;
        }
    }
    if (c->ca_pem != NULL) {
        t->ca_pem = strdup(c->ca_pem);
        if (t->ca_pem == NULL)
            goto out_nomem;
    }
    t->insecure_skip_tls_verify = c->insecure;
    return 0;

out_nomem:
    snprintf(err, KUBE_ERR_LEN, "kubeconfig %s: out of memory", f);
    return -ENOMEM;
}

/* A file field of a user: must exist and fit the target. */
static int user_file(const struct kc_user *u, const char *field, const char *path, char *dst,
                     size_t cap, char err[KUBE_ERR_LEN])
{
    char why[KUBE_ERR_LEN / 2];
    int rc = check_file(path, why, sizeof(why));
    if (rc == 0 && put(dst, cap, path) != 0) {
        snprintf(why, sizeof(why), "path too long");
        rc = -EINVAL;
    }
    if (rc != 0)
        snprintf(err, KUBE_ERR_LEN, "kubeconfig %s: users[%.64s].user.%s: %s", u->file, u->name,
                 field, why);
    return rc;
}

static int resolve_user(const struct kc_user *u, struct kube_target *t, char err[KUBE_ERR_LEN])
{
    const char *f = u->file;
    const char *n = u->name;
    int rc;

    if (u->unsupported != NULL) {
        snprintf(err, KUBE_ERR_LEN, "kubeconfig %s: users[%.64s].user.%s: %s (user \"%.64s\")", f,
                 n, u->unsupported, u->why, n);
        return -EINVAL;
    }
    if (u->cert_file != NULL && u->cert_pem != NULL) {
        snprintf(err, KUBE_ERR_LEN,
                 "kubeconfig %s: users[%.64s].user: both client-certificate and "
                 "client-certificate-data are set",
                 f, n);
        return -EINVAL;
    }
    if (u->key_file != NULL && u->key_pem != NULL) {
        snprintf(err, KUBE_ERR_LEN,
                 "kubeconfig %s: users[%.64s].user: both client-key and client-key-data are set", f,
                 n);
        return -EINVAL;
    }
    bool has_cert = u->cert_file != NULL || u->cert_pem != NULL;
    bool has_key = u->key_file != NULL || u->key_pem != NULL;
    if (has_cert != has_key) {
        snprintf(err, KUBE_ERR_LEN, "kubeconfig %s: users[%.64s].user: %s without %s", f, n,
                 has_cert ? "a client certificate" : "a client key",
                 has_cert ? "a client key" : "a client certificate");
        return -EINVAL;
    }
    /* client-go: a tokenFile is read (and re-read) when no token is set;
     * with both, the file still refreshes the token. Keep just the file. */
    if (u->token_file != NULL) {
        rc = user_file(u, "tokenFile", u->token_file, t->token_file, sizeof(t->token_file), err);
        if (rc != 0)
            return rc;
    } else if (u->token != NULL && u->token[0] != '\0') {
        if (!is_valid_token(u->token)) {
            snprintf(err, KUBE_ERR_LEN,
                     "kubeconfig %s: users[%.64s].user.token: spaces or control characters", f, n);
            return -EINVAL;
        }
        t->token = strdup(u->token);
        if (t->token == NULL)
            goto out_nomem;
    }
    if (u->cert_file != NULL) {
        rc = user_file(u, "client-certificate", u->cert_file, t->cert_file, sizeof(t->cert_file),
                       err);
        if (rc != 0)
            return rc;
    }
    if (u->key_file != NULL) {
        rc = user_file(u, "client-key", u->key_file, t->key_file, sizeof(t->key_file), err);
        if (rc != 0)
            return rc;
    }
    if (u->cert_pem != NULL) {
        t->cert_pem = strdup(u->cert_pem);
        if (t->cert_pem == NULL)
            goto out_nomem;
    }
    if (u->key_pem != NULL) {
        t->key_pem = strdup(u->key_pem);
        if (t->key_pem == NULL)
            goto out_nomem;
    }
    return 0;

out_nomem:
    snprintf(err, KUBE_ERR_LEN, "kubeconfig %s: out of memory", f);
    return -ENOMEM;
}

/* Resolves @context (or the current context) of @m into *@t; @src names
 * the file list in messages. On failure *@t is destroyed. */
static int kc_resolve(const struct kc_config *m, const char *src, const char *context,
                      struct kube_target *t, char err[KUBE_ERR_LEN])
{
    const struct kc_context *x = NULL;
    const struct kc_cluster *c = NULL;
    const struct kc_user *u = NULL;
    int rc;

    const char *name = context != NULL && context[0] != '\0' ? context : m->current_context;
    if (name == NULL) {
        snprintf(err, KUBE_ERR_LEN, "kubeconfig %s: current-context is not set", src);
        return -EINVAL;
    }
    for (size_t i = 0; i < m->n_contexts && x == NULL; i++)
        if (strcmp(m->contexts[i].name, name) == 0)
            x = &m->contexts[i];
    if (x == NULL) {
        snprintf(err, KUBE_ERR_LEN, "kubeconfig %s: context \"%.64s\" not found", src, name);
        return -EINVAL;
    }
    if (x->cluster == NULL || x->cluster[0] == '\0') {
        snprintf(err, KUBE_ERR_LEN, "kubeconfig %s: contexts[%.64s].context.cluster: missing",
                 x->file, x->name);
        return -EINVAL;
    }
    for (size_t i = 0; i < m->n_clusters && c == NULL; i++)
        if (strcmp(m->clusters[i].name, x->cluster) == 0)
            c = &m->clusters[i];
    if (c == NULL) {
        snprintf(err, KUBE_ERR_LEN,
                 "kubeconfig %s: cluster \"%.64s\" (of context \"%.64s\") not found", src,
                 x->cluster, x->name);
        return -EINVAL;
    }
    /* No user is anonymous access, as in client-go. */
    if (x->user != NULL && x->user[0] != '\0') {
        for (size_t i = 0; i < m->n_users && u == NULL; i++)
            if (strcmp(m->users[i].name, x->user) == 0)
                u = &m->users[i];
        if (u == NULL) {
            snprintf(err, KUBE_ERR_LEN,
                     "kubeconfig %s: user \"%.64s\" (of context \"%.64s\") not found", src, x->user,
                     x->name);
            return -EINVAL;
        }
    }

    memset(t, 0, sizeof(*t));
    snprintf(t->source, sizeof(t->source), "kubeconfig %.3900s (context %.64s)", src, x->name);
    rc = resolve_cluster(c, t, err);
    if (rc == 0 && u != NULL)
        rc = resolve_user(u, t, err);
    if (rc != 0)
        kube_target_destroy(t);
    return rc;
}

int kube_parse_kubeconfig_text(const char *text, size_t len, const char *name, const char *dir,
                               const char *context, struct kube_target *t, char err[KUBE_ERR_LEN])
{
    struct kc_config m = {0};

    memset(t, 0, sizeof(*t));
    int rc = kc_parse(&m, text, len, name, dir, err);
    if (rc == 0)
        rc = kc_resolve(&m, name, context, t, err);
    kc_free(&m);
    return rc;
}

/* Reads @path whole (at most KUBE_KUBECONFIG_MAX bytes). Returns 0, -ENOENT
 * when it does not exist, or -EINVAL / -ENOMEM with @err. */
static int read_file(const char *path, char **out, size_t *out_len, char err[KUBE_ERR_LEN])
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int rc = -EINVAL;

    if (f == NULL) {
        if (errno == ENOENT)
            return -ENOENT;
        snprintf(err, KUBE_ERR_LEN, "kubeconfig %.300s: %s", path, strerror(errno));
        return -EINVAL;
    }
    for (;;) {
        if (len == cap) {
            if (cap > KUBE_KUBECONFIG_MAX) {
                snprintf(err, KUBE_ERR_LEN, "kubeconfig %.300s: larger than %u MiB", path,
                         KUBE_KUBECONFIG_MAX >> 20);
                goto out_free_buf;
            }
            size_t ncap = cap ? cap * 2 : 64 * 1024;
            char *b = realloc(buf, ncap + 1);
            if (b == NULL) {
                snprintf(err, KUBE_ERR_LEN, "kubeconfig %.300s: out of memory", path);
                rc = -ENOMEM;
                goto out_free_buf;
            }
            buf = b;
            cap = ncap;
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0)
            break;
    }
    if (ferror(f)) {
        snprintf(err, KUBE_ERR_LEN, "kubeconfig %.300s: read error", path);
        goto out_free_buf;
    }
    if (len > KUBE_KUBECONFIG_MAX) {
        snprintf(err, KUBE_ERR_LEN, "kubeconfig %.300s: larger than %u MiB", path,
                 KUBE_KUBECONFIG_MAX >> 20);
        goto out_free_buf;
    }
    buf[len] = '\0';
    fclose(f);
    *out = buf;
    *out_len = len;
    return 0;

out_free_buf:
    free(buf);
    fclose(f);
    return rc;
}

/* The absolute directory of @path into @dir. */
static int dir_of(const char *path, char dir[KUBE_PATH_LEN])
{
    const char *slash = strrchr(path, '/');
    char cwd[KUBE_PATH_LEN];
    size_t dl = slash == NULL ? 0 : slash == path ? 1 : (size_t)(slash - path);

    if (path[0] == '/') {
        memcpy(dir, path, dl);
        dir[dl] = '\0';
        return 0;
    }
    if (getcwd(cwd, sizeof(cwd)) == NULL)
        return -errno;
    int n = slash == NULL ? snprintf(dir, KUBE_PATH_LEN, "%s", cwd)
                          : snprintf(dir, KUBE_PATH_LEN, "%s/%.*s", cwd, (int)dl, path);
    return n < 0 || n >= KUBE_PATH_LEN ? -ENAMETOOLONG : 0;
}

int kube_load_kubeconfig(const char *path, const char *context, struct kube_target *t,
                         char err[KUBE_ERR_LEN])
{
    struct kc_config m = {0};
    size_t loaded = 0;
    int rc = 0;

    memset(t, 0, sizeof(*t));
    err[0] = '\0';
    for (const char *p = path; rc == 0 && *p != '\0';) {
        const char *colon = strchr(p, ':');
        size_t l = colon != NULL ? (size_t)(colon - p) : strlen(p);
        char file[KUBE_PATH_LEN], dir[KUBE_PATH_LEN];
        char *text = NULL;
        size_t len;

        const char *next = colon != NULL ? colon + 1 : p + l;
        if (l == 0) {
            p = next;
            continue;
        }
        if (l >= sizeof(file)) {
            snprintf(err, KUBE_ERR_LEN, "kubeconfig %.*s...: path too long", 64, p);
            rc = -EINVAL;
            break;
        }
        memcpy(file, p, l);
        file[l] = '\0';
        p = next;
        rc = read_file(file, &text, &len, err);
        if (rc == -ENOENT) {
            rc = 0; /* missing files in the list are skipped, as in client-go */
            continue;
        }
        if (rc != 0)
            break;
        rc = dir_of(file, dir);
        if (rc != 0)
            snprintf(err, KUBE_ERR_LEN, "kubeconfig %.300s: directory: %s", file, strerror(-rc));
        else
            rc = kc_parse(&m, text, len, file, dir, err);
        free(text);
        loaded++;
    }
    if (rc == 0 && loaded == 0) {
        snprintf(err, KUBE_ERR_LEN, "kubeconfig %.256s: no such file", path);
        rc = -ENOENT;
    }
    if (rc == 0)
        rc = kc_resolve(&m, path, context, t, err);
    kc_free(&m);
    return rc;
}

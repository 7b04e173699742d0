#include "kube/kubeconfig_parse.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "base/err.h"
#include "config/yaml.h"
#include "kube/kubeconfig_yaml.h"
#include "kube/target.h"

static void free_env(struct kc_exec *e)
{
    for (size_t i = 0; i < e->n_env; i++) {
        free(e->env_name[i]);
        kube_free_secret(e->env_value[i]);
    }
    free(e->env_name);
    free(e->env_value);
    e->env_name = e->env_value = NULL;
    e->n_env = 0;
}

static void free_exec(struct kc_exec *e)
{
    if (e == NULL)
        return;
    free(e->command);
    for (size_t i = 0; i < e->n_args; i++)
        free(e->args[i]);
    free(e->args);
    free_env(e);
    free(e->api_version);
    free(e->install_hint);
    free(e->interactive_mode);
    free(e);
}

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
        kube_free_secret(u->token);
        free(u->token_file);
        free(u->cert_file);
        free(u->cert_pem);
        free(u->key_file);
        kube_free_secret(u->key_pem);
        free_exec(u->exec);
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

/* A new zeroed element at the end of the array *@arr of @size-byte
 * elements (@n used, room for @cap), grown as needed; NULL when out of
 * memory. */
static void *append(void **arr, size_t *n, size_t *cap, size_t size)
{
    if (*n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 8;
        void *a = realloc(*arr, ncap * size);
        if (a == NULL)
            return NULL;
        *arr = a;
        *cap = ncap;
    }
    void *item = (char *)*arr + (*n)++ * size;
    memset(item, 0, size);
    return item;
}

/* ---- entries ---- */

static int parse_cluster(const struct kc_parse *p, const yaml_node_t *body, const char *where,
                         struct kc_cluster *c)
{
    int rc = 0;
    for (const yaml_node_pair_t *pr = body->data.mapping.pairs.start;
         rc == 0 && pr < body->data.mapping.pairs.top; pr++) {
        const yaml_node_t *k = yaml_document_get_node(p->doc, pr->key),
                          *v = yaml_document_get_node(p->doc, pr->value);
        if (cfg_yaml_is_key(k, "server"))
            rc = kube_kc_str(p, v, where, "server", &c->server);
        else if (cfg_yaml_is_key(k, "certificate-authority"))
            rc = kube_kc_path(p, v, where, "certificate-authority", &c->ca_file);
        else if (cfg_yaml_is_key(k, "certificate-authority-data"))
            rc = kube_kc_pem(p, v, where, "certificate-authority-data", &c->ca_pem);
        else if (cfg_yaml_is_key(k, "insecure-skip-tls-verify"))
            rc = kube_kc_bool(p, v, where, "insecure-skip-tls-verify", &c->insecure);
        else if (cfg_yaml_is_key(k, "tls-server-name") && !kube_kc_is_null(v))
            c->unsupported = "tls-server-name";
        else if (cfg_yaml_is_key(k, "proxy-url") && !kube_kc_is_null(v))
            c->unsupported = "proxy-url";
    }
    return rc;
}

/* A list of strings (exec args) into *@out, replacing it. */
static int str_list(const struct kc_parse *p, const yaml_node_t *seq, const char *where,
                    const char *key, char ***out, size_t *n_out)
{
    for (size_t i = 0; i < *n_out; i++)
        free((*out)[i]);
    free(*out);
    *out = NULL;
    *n_out = 0;
    if (kube_kc_is_null(seq))
        return 0;
    if (seq->type != YAML_SEQUENCE_NODE)
        return kube_kc_fail(p, -EINVAL, "%s.%s: want a list", where, key);
    size_t n = (size_t)(seq->data.sequence.items.top - seq->data.sequence.items.start);
    if (n > KC_MAX_EXEC_ITEMS)
        return kube_kc_fail(p, -EINVAL, "%s.%s: more than %d entries", where, key,
                            KC_MAX_EXEC_ITEMS);
    if (n == 0)
        return 0;
    *out = calloc(n, sizeof(**out));
    if (*out == NULL)
        return kube_kc_fail(p, -ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        char item[48];
        snprintf(item, sizeof(item), "%.16s[%zu]", key, i);
        const yaml_node_t *v = yaml_document_get_node(p->doc, seq->data.sequence.items.start[i]);
        /* A null item is "" to Go's YAML-to-JSON decoding. */
        int rc = kube_kc_is_null(v) ? 0 : kube_kc_str(p, v, where, item, &(*out)[i]);
        (*n_out)++;
        if (rc == 0 && (*out)[i] == NULL && ((*out)[i] = strdup("")) == NULL)
            rc = kube_kc_fail(p, -ENOMEM, "out of memory");
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* exec.env: a list of {name, value} into @e. */
static int env_list(const struct kc_parse *p, const yaml_node_t *seq, const char *where,
                    struct kc_exec *e)
{
    if (kube_kc_is_null(seq)) {
        free_env(e);
        return 0;
    }
    if (seq->type != YAML_SEQUENCE_NODE)
        return kube_kc_fail(p, -EINVAL, "%s.env: want a list", where);
    size_t n = (size_t)(seq->data.sequence.items.top - seq->data.sequence.items.start);
    if (n > KC_MAX_EXEC_ITEMS)
        return kube_kc_fail(p, -EINVAL, "%s.env: more than %d entries", where, KC_MAX_EXEC_ITEMS);
    free_env(e); /* a repeated key: the last one wins */
    if (n == 0)
        return 0;
    e->env_name = calloc(n, sizeof(*e->env_name));
    e->env_value = calloc(n, sizeof(*e->env_value));
    if (e->env_name == NULL || e->env_value == NULL)
        return kube_kc_fail(p, -ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        char item[KC_WHERE_LEN + 40];
        snprintf(item, sizeof(item), "%.*s.env[%zu]", KC_WHERE_LEN, where, i);
        const yaml_node_t *v = yaml_document_get_node(p->doc, seq->data.sequence.items.start[i]);
        e->n_env++;
        if (v == NULL || v->type != YAML_MAPPING_NODE)
            return kube_kc_fail(p, -EINVAL, "%s: want a mapping with name and value", item);
        int rc = kube_kc_str(p, cfg_yaml_get(p->doc, v, "name"), item, "name", &e->env_name[i]);
        if (rc == 0)
            rc = kube_kc_str(p, cfg_yaml_get(p->doc, v, "value"), item, "value", &e->env_value[i]);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* users[].user.exec: recorded as written (what it means is checked by
 * kubeconfig.c when the user is chosen, as client-go validates only the
 * context in use). A command with a '/' that is relative resolves against
 * the file's directory, as client-go's ResolveLocalPaths does; one
 * without is looked up in PATH when it runs. */
static int parse_exec(const struct kc_parse *p, const yaml_node_t *body, const char *user_where,
                      struct kc_user *u)
{
    char where[KC_WHERE_LEN + 8];
    int rc = 0;

    snprintf(where, sizeof(where), "%s.exec", user_where);
    if (body->type != YAML_MAPPING_NODE)
        return kube_kc_fail(p, -EINVAL, "%s: want a mapping", where);
    free_exec(u->exec); /* a repeated key: the last one wins */
    u->exec = calloc(1, sizeof(*u->exec));
    if (u->exec == NULL)
        return kube_kc_fail(p, -ENOMEM, "out of memory");
    struct kc_exec *e = u->exec;
    for (const yaml_node_pair_t *pr = body->data.mapping.pairs.start;
         rc == 0 && pr < body->data.mapping.pairs.top; pr++) {
        const yaml_node_t *k = yaml_document_get_node(p->doc, pr->key),
                          *v = yaml_document_get_node(p->doc, pr->value);
        if (cfg_yaml_is_key(k, "command")) {
            rc = kube_kc_str(p, v, where, "command", &e->command);
            if (rc == 0 && e->command != NULL && strchr(e->command, '/') != NULL)
                rc = kube_kc_abs(p, &e->command);
        } else if (cfg_yaml_is_key(k, "args")) {
            rc = str_list(p, v, where, "args", &e->args, &e->n_args);
        } else if (cfg_yaml_is_key(k, "env")) {
            rc = env_list(p, v, where, e);
        } else if (cfg_yaml_is_key(k, "apiVersion")) {
            rc = kube_kc_str(p, v, where, "apiVersion", &e->api_version);
        } else if (cfg_yaml_is_key(k, "installHint")) {
            rc = kube_kc_str(p, v, where, "installHint", &e->install_hint);
        } else if (cfg_yaml_is_key(k, "interactiveMode")) {
            rc = kube_kc_str(p, v, where, "interactiveMode", &e->interactive_mode);
        } else if (cfg_yaml_is_key(k, "provideClusterInfo")) {
            rc = kube_kc_bool(p, v, where, "provideClusterInfo", &e->provide_cluster_info);
        }
    }
    return rc;
}

static int parse_user(const struct kc_parse *p, const yaml_node_t *body, const char *where,
                      struct kc_user *u)
{
    int rc = 0;
    for (const yaml_node_pair_t *pr = body->data.mapping.pairs.start;
         rc == 0 && pr < body->data.mapping.pairs.top; pr++) {
        const yaml_node_t *k = yaml_document_get_node(p->doc, pr->key),
                          *v = yaml_document_get_node(p->doc, pr->value);
        if (cfg_yaml_is_key(k, "token"))
            rc = kube_kc_str(p, v, where, "token", &u->token);
        else if (cfg_yaml_is_key(k, "tokenFile"))
            rc = kube_kc_path(p, v, where, "tokenFile", &u->token_file);
        else if (cfg_yaml_is_key(k, "client-certificate"))
            rc = kube_kc_path(p, v, where, "client-certificate", &u->cert_file);
        else if (cfg_yaml_is_key(k, "client-certificate-data"))
            rc = kube_kc_pem(p, v, where, "client-certificate-data", &u->cert_pem);
        else if (cfg_yaml_is_key(k, "client-key"))
            rc = kube_kc_path(p, v, where, "client-key", &u->key_file);
        else if (cfg_yaml_is_key(k, "client-key-data"))
            rc = kube_kc_pem(p, v, where, "client-key-data", &u->key_pem);
        else if (kube_kc_is_null(v))
            continue;
        else if (cfg_yaml_is_key(k, "exec"))
            rc = parse_exec(p, v, where, u);
        else if (cfg_yaml_is_key(k, "auth-provider")) {
            u->unsupported = "auth-provider";
            u->why = "auth providers are not supported";
        } else if (cfg_yaml_is_key(k, "username") || cfg_yaml_is_key(k, "password")) {
            u->unsupported = cfg_yaml_is_key(k, "username") ? "username" : "password";
            u->why = "basic authentication is not supported";
        } else if (cfg_yaml_is_key(k, "as") || cfg_yaml_is_key(k, "as-uid") ||
                   cfg_yaml_is_key(k, "as-groups") || cfg_yaml_is_key(k, "as-user-extra")) {
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
        const yaml_node_t *k = yaml_document_get_node(p->doc, pr->key),
                          *v = yaml_document_get_node(p->doc, pr->value);
        if (cfg_yaml_is_key(k, "cluster"))
            rc = kube_kc_str(p, v, where, "cluster", &c->cluster);
        else if (cfg_yaml_is_key(k, "user"))
            rc = kube_kc_str(p, v, where, "user", &c->user);
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
        return kube_kc_fail(p, -EINVAL, "%s[%zu]: want a mapping", list, index);
    snprintf(where, sizeof(where), "%s[%zu]", list, index);
    rc = kube_kc_str(p, cfg_yaml_get(p->doc, item, "name"), where, "name", &name);
    if (rc != 0)
        return rc;
    if (name == NULL || name[0] == '\0') {
        free(name);
        return kube_kc_fail(p, -EINVAL, "%s[%zu].name: missing", list, index);
    }
    snprintf(where, sizeof(where), "%s[%.64s].%s", list, name, kind_body[kind]);
    const yaml_node_t *body = cfg_yaml_get(p->doc, item, kind_body[kind]);
    if (!kube_kc_is_null(body) && body->type != YAML_MAPPING_NODE) {
        rc = kube_kc_fail(p, -EINVAL, "%s: want a mapping", where);
        goto out_free_name;
    }
    int seen = defined(p, kind, name);
    if (seen == 2) {
        rc = kube_kc_fail(p, -EINVAL, "%s[%.64s]: defined twice", list, name);
        goto out_free_name;
    }
    if (seen == 1)
        goto out_free_name;

    rc = -ENOMEM;
    switch (kind) {
    case KC_CLUSTER: {
        struct kc_cluster *c =
            append((void **)&m->clusters, &m->n_clusters, &m->cap_clusters, sizeof(*c));
        if (c == NULL)
            break;
        c->name = name;
        c->file = p->file;
        name = NULL;
        rc = kube_kc_is_null(body) ? 0 : parse_cluster(p, body, where, c);
        break;
    }
    case KC_USER: {
        struct kc_user *u = append((void **)&m->users, &m->n_users, &m->cap_users, sizeof(*u));
        if (u == NULL)
            break;
        u->name = name;
        u->file = p->file;
        name = NULL;
        rc = kube_kc_is_null(body) ? 0 : parse_user(p, body, where, u);
        break;
    }
    case KC_CONTEXT: {
        struct kc_context *x =
            append((void **)&m->contexts, &m->n_contexts, &m->cap_contexts, sizeof(*x));
        if (x == NULL)
            break;
        x->name = name;
        x->file = p->file;
        name = NULL;
        rc = kube_kc_is_null(body) ? 0 : parse_context(p, body, where, x);
        break;
    }
    }
    if (rc == -ENOMEM && p->err[0] == '\0')
        kube_kc_fail(p, rc, "out of memory");

out_free_name:
    free(name);
    return rc;
}

static int parse_list(const struct kc_parse *p, enum kc_kind kind, const yaml_node_t *seq)
{
    if (kube_kc_is_null(seq))
        return 0;
    if (seq->type != YAML_SEQUENCE_NODE)
        return kube_kc_fail(p, -EINVAL, "%s: want a list", kind_list[kind]);
    size_t n = (size_t)(seq->data.sequence.items.top - seq->data.sequence.items.start);
    if (n > KC_MAX_ENTRIES)
        return kube_kc_fail(p, -EINVAL, "%s: more than %d entries", kind_list[kind],
                            KC_MAX_ENTRIES);
    for (size_t i = 0; i < n; i++) {
        int rc = parse_entry(p, kind, i,
                             yaml_document_get_node(p->doc, seq->data.sequence.items.start[i]));
        if (rc != 0)
            return rc;
    }
    return 0;
}

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
        return kube_kc_fail(&p, -EINVAL, "larger than %u MiB", KUBE_KUBECONFIG_MAX >> 20);
    size_t line, column;
    rc = cfg_yaml_check_depth(text, len, &line, &column);
    if (rc == -E2BIG)
        return err_fail(err, -EINVAL, "kubeconfig %s:%zu:%zu: nested deeper than %d levels", p.file,
                        line, column, CFG_YAML_DEPTH_MAX);
    if (rc != 0)
        goto out_nomem;
    if (yaml_parser_initialize(&parser) == 0)
        goto out_nomem;
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (yaml_parser_load(&parser, &doc) == 0) {
        if (parser.error == YAML_MEMORY_ERROR)
            rc = kube_kc_fail(&p, -ENOMEM, "out of memory");
        else
            rc = kube_kc_fail(&p, -EINVAL, "YAML error at line %zu column %zu: %s",
                              parser.problem_mark.line + 1, parser.problem_mark.column + 1,
                              parser.problem != NULL ? parser.problem : "unknown");
        goto out_delete_parser;
    }

    const yaml_node_t *root = yaml_document_get_root_node(&doc);
    rc = 0;
    if (kube_kc_is_null(root))
        goto out_delete_doc; /* an empty file adds nothing */
    if (root->type != YAML_MAPPING_NODE) {
        rc = kube_kc_fail(&p, -EINVAL, "want a YAML mapping at the top");
        goto out_delete_doc;
    }
    char *current = NULL;
    rc = kube_kc_str(&p, cfg_yaml_get(p.doc, root, "current-context"), "", "current-context",
                     &current);
    if (rc != 0)
        goto out_delete_doc;
    /* The first file that sets a current context wins. */
    if (m->current_context == NULL && current != NULL && current[0] != '\0') {
        m->current_context = current;
        current = NULL;
    }
    free(current);
    rc = parse_list(&p, KC_CLUSTER, cfg_yaml_get(p.doc, root, "clusters"));
    if (rc == 0)
        rc = parse_list(&p, KC_USER, cfg_yaml_get(p.doc, root, "users"));
    if (rc == 0)
        rc = parse_list(&p, KC_CONTEXT, cfg_yaml_get(p.doc, root, "contexts"));

out_delete_doc:
    yaml_document_delete(&doc);
out_delete_parser:
    yaml_parser_delete(&parser);
    return rc;

out_nomem:
    return err_fail(err, -ENOMEM, "kubeconfig %s: out of memory", name);
}

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

/* A plain field of an entry's body: its key, its reader and where it goes. */
struct kc_field {
    const char *key;
    kc_read_fn read;
    size_t off; /* of the char * or bool in the entry */
};

static const struct kc_field cluster_fields[] = {
    {"server", kube_kc_str, offsetof(struct kc_cluster, server)},
    {"certificate-authority", kube_kc_path, offsetof(struct kc_cluster, ca_file)},
    {"certificate-authority-data", kube_kc_pem, offsetof(struct kc_cluster, ca_pem)},
    {"insecure-skip-tls-verify", kube_kc_bool, offsetof(struct kc_cluster, insecure)},
    {NULL, NULL, 0},
};

static const struct kc_field user_fields[] = {
    {"token", kube_kc_str, offsetof(struct kc_user, token)},
    {"tokenFile", kube_kc_path, offsetof(struct kc_user, token_file)},
    {"client-certificate", kube_kc_path, offsetof(struct kc_user, cert_file)},
    {"client-certificate-data", kube_kc_pem, offsetof(struct kc_user, cert_pem)},
    {"client-key", kube_kc_path, offsetof(struct kc_user, key_file)},
    {"client-key-data", kube_kc_pem, offsetof(struct kc_user, key_pem)},
    {NULL, NULL, 0},
};

static const struct kc_field context_fields[] = {
    {"cluster", kube_kc_str, offsetof(struct kc_context, cluster)},
    {"user", kube_kc_str, offsetof(struct kc_context, user)},
    {NULL, NULL, 0},
};

static const struct kc_field exec_fields[] = {
    {"apiVersion", kube_kc_str, offsetof(struct kc_exec, api_version)},
    {"installHint", kube_kc_str, offsetof(struct kc_exec, install_hint)},
    {"interactiveMode", kube_kc_str, offsetof(struct kc_exec, interactive_mode)},
    {"provideClusterInfo", kube_kc_bool, offsetof(struct kc_exec, provide_cluster_info)},
    {NULL, NULL, 0},
};

/* Frees (wiping: some are secrets) the strings of @obj that @f names. */
static void free_fields(const struct kc_field *f, void *obj)
{
    for (; f->key != NULL; f++)
        if (f->read != kube_kc_bool)
            kube_free_secret(*(char **)((char *)obj + f->off));
}

static void free_exec(struct kc_exec *e)
{
    if (e == NULL)
        return;
    free_fields(exec_fields, e);
    free(e->command);
    for (size_t i = 0; i < e->n_args; i++)
        free(e->args[i]);
    free(e->args);
    free_env(e);
    free(e);
}

/* ---- entries ---- */

/* Reads @v, the value of key @k, into the field of @obj that @f names:
 * 1 when no field is named @k, else 0 or the reader's error. */
static int read_field(const struct kc_parse *p, const struct kc_field *f, const yaml_node_t *k,
                      const yaml_node_t *v, const char *where, void *obj)
{
    for (; f->key != NULL; f++)
        if (cfg_yaml_is_key(k, f->key))
            return f->read(p, v, where, f->key, (char *)obj + f->off);
    return 1;
}

/* A key that no table names: read by the kind's own function. */
typedef int (*kc_other_fn)(const struct kc_parse *p, const yaml_node_t *k, const yaml_node_t *v,
                           const char *where, void *obj);

/* Reads the keys of the mapping @body into @obj: those @fields names, and
 * the others through @other (NULL: ignored). */
static int read_body(const struct kc_parse *p, const yaml_node_t *body, const char *where,
                     const struct kc_field *fields, void *obj, kc_other_fn other)
{
    int rc = 0;
    for (const yaml_node_pair_t *pr = body->data.mapping.pairs.start;
         rc == 0 && pr < body->data.mapping.pairs.top; pr++) {
        const yaml_node_t *k = yaml_document_get_node(p->doc, pr->key),
                          *v = yaml_document_get_node(p->doc, pr->value);
        rc = read_field(p, fields, k, v, where, obj);
        if (rc == 1)
            rc = other != NULL ? other(p, k, v, where, obj) : 0;
    }
    return rc;
}

static int cluster_other(const struct kc_parse *p, const yaml_node_t *k, const yaml_node_t *v,
                         const char *where, void *obj)
{
    struct kc_cluster *c = obj;
    (void)p;
    (void)where;
    if (cfg_yaml_is_key(k, "tls-server-name") && !kube_kc_is_null(v))
        c->unsupported = "tls-server-name";
    else if (cfg_yaml_is_key(k, "proxy-url") && !kube_kc_is_null(v))
        c->unsupported = "proxy-url";
    return 0;
}

/* The length of the list @seq, named @name in messages, into *@n (0 for
 * null); more than @max entries are refused. */
static int list_len(const struct kc_parse *p, const yaml_node_t *seq, const char *name, size_t max,
                    size_t *n)
{
    *n = 0;
    if (kube_kc_is_null(seq))
        return 0;
    if (seq->type != YAML_SEQUENCE_NODE)
        return kube_kc_fail(p, -EINVAL, "%s: want a list", name);
    *n = (size_t)(seq->data.sequence.items.top - seq->data.sequence.items.start);
    if (*n > max)
        return kube_kc_fail(p, -EINVAL, "%s: more than %zu entries", name, max);
    return 0;
}

/* exec.args: a list of strings into @e, replacing it. */
static int args_list(const struct kc_parse *p, const yaml_node_t *seq, const char *where,
                     struct kc_exec *e)
{
    char name[KC_WHERE_LEN + 16];
    size_t n;

    for (size_t i = 0; i < e->n_args; i++)
        free(e->args[i]);
    free(e->args);
    e->args = NULL;
    e->n_args = 0;
    snprintf(name, sizeof(name), "%s.args", where);
    int rc = list_len(p, seq, name, KC_MAX_EXEC_ITEMS, &n);
    if (rc != 0 || n == 0)
        return rc;
    if ((e->args = calloc(n, sizeof(*e->args))) == NULL)
        return kube_kc_fail(p, -ENOMEM, "out of memory");
    for (size_t i = 0; rc == 0 && i < n; i++, e->n_args++) {
        char item[48];
        snprintf(item, sizeof(item), "args[%zu]", i);
        const yaml_node_t *v = yaml_document_get_node(p->doc, seq->data.sequence.items.start[i]);
        /* A null item is "" to Go's YAML-to-JSON decoding. */
        rc = kube_kc_is_null(v) ? 0 : kube_kc_str(p, v, where, item, &e->args[i]);
        if (rc == 0 && e->args[i] == NULL && (e->args[i] = strdup("")) == NULL)
            rc = kube_kc_fail(p, -ENOMEM, "out of memory");
    }
    return rc;
}

/* exec.env: a list of {name, value} into @e. */
static int env_list(const struct kc_parse *p, const yaml_node_t *seq, const char *where,
                    struct kc_exec *e)
{
    char name[KC_WHERE_LEN + 16];
    size_t n;

    snprintf(name, sizeof(name), "%s.env", where);
    int rc = list_len(p, seq, name, KC_MAX_EXEC_ITEMS, &n);
    if (rc != 0)
        return rc;
    free_env(e); /* a repeated key: the last one wins */
    if (n == 0)
        return 0;
    e->env_name = calloc(n, sizeof(*e->env_name));
    e->env_value = calloc(n, sizeof(*e->env_value));
    if (e->env_name == NULL || e->env_value == NULL)
        return kube_kc_fail(p, -ENOMEM, "out of memory");
    for (size_t i = 0; rc == 0 && i < n; i++) {
        char item[KC_WHERE_LEN + 40];
        snprintf(item, sizeof(item), "%.*s.env[%zu]", KC_WHERE_LEN, where, i);
        const yaml_node_t *v = yaml_document_get_node(p->doc, seq->data.sequence.items.start[i]);
        e->n_env++;
        if (v == NULL || v->type != YAML_MAPPING_NODE)
            return kube_kc_fail(p, -EINVAL, "%s: want a mapping with name and value", item);
        rc = kube_kc_str(p, cfg_yaml_get(p->doc, v, "name"), item, "name", &e->env_name[i]);
        if (rc == 0)
            rc = kube_kc_str(p, cfg_yaml_get(p->doc, v, "value"), item, "value", &e->env_value[i]);
    }
    return rc;
}

static int exec_other(const struct kc_parse *p, const yaml_node_t *k, const yaml_node_t *v,
                      const char *where, void *obj)
{
    struct kc_exec *e = obj;
    /* A command with a '/' that is relative resolves against the file's
     * directory, as client-go's ResolveLocalPaths does; one without is
     * looked up in PATH when it runs. */
    if (cfg_yaml_is_key(k, "command")) {
        int rc = kube_kc_str(p, v, where, "command", &e->command);
        return rc == 0 && e->command != NULL && strchr(e->command, '/') != NULL
                   ? kube_kc_abs(p, &e->command)
                   : rc;
    }
    if (cfg_yaml_is_key(k, "args"))
        return args_list(p, v, where, e);
    return cfg_yaml_is_key(k, "env") ? env_list(p, v, where, e) : 0;
}

/* users[].user.exec: recorded as written (what it means is checked by
 * kubeconfig.c when the user is chosen, as client-go validates only the
 * context in use). */
static int parse_exec(const struct kc_parse *p, const yaml_node_t *body, const char *user_where,
                      struct kc_user *u)
{
    char where[KC_WHERE_LEN + 8];

    snprintf(where, sizeof(where), "%s.exec", user_where);
    if (body->type != YAML_MAPPING_NODE)
        return kube_kc_fail(p, -EINVAL, "%s: want a mapping", where);
    free_exec(u->exec); /* a repeated key: the last one wins */
    u->exec = calloc(1, sizeof(*u->exec));
    if (u->exec == NULL)
        return kube_kc_fail(p, -ENOMEM, "out of memory");
    return read_body(p, body, where, exec_fields, u->exec, exec_other);
}

static int user_other(const struct kc_parse *p, const yaml_node_t *k, const yaml_node_t *v,
                      const char *where, void *obj)
{
    struct kc_user *u = obj;
    if (kube_kc_is_null(v))
        return 0;
    if (cfg_yaml_is_key(k, "exec"))
        return parse_exec(p, v, where, u);
    if (cfg_yaml_is_key(k, "auth-provider")) {
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
    return 0;
}

/* Each list of kc_config.lists: its key, its entries' body key and type. */
static const struct {
    const char *list, *body;
    size_t size;
    const struct kc_field *fields;
    kc_other_fn other; /* NULL: other keys are ignored */
} kinds[KC_KINDS] = {
    {"clusters", "cluster", sizeof(struct kc_cluster), cluster_fields, cluster_other},
    {"users", "user", sizeof(struct kc_user), user_fields, user_other},
    {"contexts", "context", sizeof(struct kc_context), context_fields, NULL},
};

static struct kc_entry *entry_at(const struct kc_list *l, enum kc_kind kind, size_t i)
{
    return (struct kc_entry *)((char *)l->items + i * kinds[kind].size);
}

const struct kc_entry *kube_kc_find(const struct kc_config *m, enum kc_kind kind, const char *name)
{
    for (size_t i = 0; i < m->lists[kind].n; i++) {
        const struct kc_entry *e = entry_at(&m->lists[kind], kind, i);
        if (strcmp(e->name, name) == 0)
            return e;
    }
    return NULL;
}

void kube_kc_free(struct kc_config *m)
{
    for (enum kc_kind k = 0; k < KC_KINDS; k++) {
        for (size_t i = 0; i < m->lists[k].n; i++) {
            struct kc_entry *e = entry_at(&m->lists[k], k, i);
            free(e->name);
            free_fields(kinds[k].fields, e);
            if (k == KC_USER)
                free_exec(((struct kc_user *)e)->exec);
        }
        free(m->lists[k].items);
    }
    free(m->current_context);
    for (size_t i = 0; i < m->n_files; i++)
        free(m->files[i]);
    free(m->files);
    memset(m, 0, sizeof(*m));
}

/* A new zeroed entry of @size bytes at the end of @l, grown as needed;
 * NULL when out of memory. */
static void *append(struct kc_list *l, size_t size)
{
    if (l->n == l->cap) {
        size_t ncap = l->cap ? l->cap * 2 : 8;
        void *a = realloc(l->items, ncap * size);
        if (a == NULL)
            return NULL;
        l->items = a;
        l->cap = ncap;
    }
    void *item = (char *)l->items + l->n++ * size;
    memset(item, 0, size);
    return item;
}

/* Parses one entry of a clusters/users/contexts list into the config,
 * unless an earlier file defined its name (client-go: the first wins). */
static int parse_entry(const struct kc_parse *p, enum kc_kind kind, size_t index,
                       const yaml_node_t *item)
{
    const char *list = kinds[kind].list;
    char where[KC_WHERE_LEN];
    char *name = NULL;

    if (item == NULL || item->type != YAML_MAPPING_NODE)
        return kube_kc_fail(p, -EINVAL, "%s[%zu]: want a mapping", list, index);
    snprintf(where, sizeof(where), "%s[%zu]", list, index);
    int rc = kube_kc_str(p, cfg_yaml_get(p->doc, item, "name"), where, "name", &name);
    if (rc != 0)
        return rc;
    if (name == NULL || name[0] == '\0') {
        free(name);
        return kube_kc_fail(p, -EINVAL, "%s[%zu].name: missing", list, index);
    }
    snprintf(where, sizeof(where), "%s[%.64s].%s", list, name, kinds[kind].body);
    const yaml_node_t *body = cfg_yaml_get(p->doc, item, kinds[kind].body);
    const struct kc_entry *seen = kube_kc_find(p->m, kind, name);
    struct kc_entry *e = NULL;
    if (!kube_kc_is_null(body) && body->type != YAML_MAPPING_NODE)
        rc = kube_kc_fail(p, -EINVAL, "%s: want a mapping", where);
    else if (seen != NULL && seen->file == p->file)
        rc = kube_kc_fail(p, -EINVAL, "%s[%.64s]: defined twice", list, name);
    else if (seen == NULL && (e = append(&p->m->lists[kind], kinds[kind].size)) == NULL)
        rc = kube_kc_fail(p, -ENOMEM, "out of memory");
    if (e == NULL) {
        free(name);
        return rc;
    }
    e->name = name;
    e->file = p->file;
    return kube_kc_is_null(body)
               ? 0
               : read_body(p, body, where, kinds[kind].fields, e, kinds[kind].other);
}

static int parse_list(const struct kc_parse *p, enum kc_kind kind, const yaml_node_t *seq)
{
    size_t n;
    int rc = list_len(p, seq, kinds[kind].list, KC_MAX_ENTRIES, &n);
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = parse_entry(p, kind, i,
                         yaml_document_get_node(p->doc, seq->data.sequence.items.start[i]));
    return rc;
}

int kube_kc_parse(struct kc_config *m, const char *text, size_t len, const char *name,
                  const char *dir, char *err)
{
    yaml_document_t doc;
    struct cfg_yaml_error ye;
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
    rc = cfg_yaml_load(text, len, "kubeconfig ", p.file, &doc, &ye, err);
    if (rc == -EBADMSG)
        return kube_kc_fail(&p, -EINVAL, "YAML error at line %zu column %zu: %s", ye.line,
                            ye.column, ye.problem);
    if (rc != 0)
        return rc;

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
    for (enum kc_kind k = 0; rc == 0 && k < KC_KINDS; k++)
        rc = parse_list(&p, k, cfg_yaml_get(p.doc, root, kinds[k].list));

out_delete_doc:
    yaml_document_delete(&doc);
    return rc;

out_nomem:
    return err_fail(err, -ENOMEM, "kubeconfig %s: out of memory", name);
}

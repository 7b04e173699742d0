/*
 * The kubeconfig model: every file of a KUBECONFIG list parsed (libyaml's
 * document API) and merged, the first definition of each named cluster,
 * user and context winning, relative paths resolved against the naming
 * file's directory. What makes a file unreadable (bad YAML, wrong types,
 * bad base64, a name defined twice) fails here, as in client-go; what only
 * matters for the entry in use is checked by kubeconfig.c when it is chosen.
 */
#ifndef KUBE_KUBECONFIG_PARSE_H
#define KUBE_KUBECONFIG_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#define KUBE_KUBECONFIG_MAX (16u << 20) /* longest kubeconfig file */
#define KC_MAX_ENTRIES      10000       /* per list: names are compared pairwise */
#define KC_MAX_EXEC_ITEMS   1024        /* exec args, exec env entries */

/* What every entry of a clusters, users or contexts list begins with. */
struct kc_entry {
    char *name;
    const char *file; /* borrowed from kc_config.files */
};

struct kc_cluster {
    struct kc_entry e;
    char *server;
    char *ca_file;
    char *ca_pem;
    bool insecure;
    const char *unsupported; /* static field name, NULL for none */
};

/* users[].user.exec as written; kubeconfig.c checks it when it is used. */
struct kc_exec {
    char *command; /* relative with a '/': made absolute against the file's directory */
    char **args;
    size_t n_args;
    char **env_name, **env_value;
    size_t n_env;
    char *api_version;
    char *install_hint;
    char *interactive_mode;
    bool provide_cluster_info;
};

struct kc_user {
    struct kc_entry e;
    char *token;
    char *token_file;
    char *cert_file;
    char *cert_pem;
    char *key_file;
    char *key_pem;
    struct kc_exec *exec; /* NULL for none */
    const char *unsupported;
    const char *why; /* static explanation for unsupported */
};

struct kc_context {
    struct kc_entry e;
    char *cluster;
    char *user;
};

/* The named lists of a kubeconfig, in the order kc_config.lists holds them. */
enum kc_kind {
    KC_CLUSTER = 0,
    KC_USER,
    KC_CONTEXT,
    KC_KINDS,
};

/* One list: struct kc_cluster, kc_user or kc_context entries by its kind. */
struct kc_list {
    void *items;
    size_t n, cap;
};

/* The merged contents of every file read. */
struct kc_config {
    struct kc_list lists[KC_KINDS];
    char *current_context;
    char **files;
    size_t n_files;
};

/* The entry of list @kind of @m named @name, NULL when none is. */
const struct kc_entry *kube_kc_find(const struct kc_config *m, enum kc_kind kind, const char *name);

/* Frees what @m holds (wiping tokens and keys) and zeroes it. */
void kube_kc_free(struct kc_config *m);

/*
 * Parses the document @text (@len bytes) of file @name into @m, merging;
 * relative paths resolve against @dir. Returns 0, or -EINVAL / -ENOMEM
 * with "kubeconfig NAME: ..." in @err (ERR_LEN).
 */
int kube_kc_parse(struct kc_config *m, const char *text, size_t len, const char *name,
                  const char *dir, char *err);

#endif

/*
 * Where a cluster is and the credentials to use: everything a client
 * needs, resolved from a kubeconfig (kubeconfig.h) or the in-cluster
 * environment (incluster.h); kube/discover.h chooses which.
 */
#ifndef KUBE_TARGET_H
#define KUBE_TARGET_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#define KUBE_PATH_LEN      4096
#define KUBE_INCLUSTER_DIR "/var/run/secrets/kubernetes.io/serviceaccount"

/* The credential plugin of a kubeconfig user (users[].user.exec), checked
 * and resolved; kube/exec.h runs it. All strings are malloc'd. Not changed
 * once a plugin runs it, so kube/exec.c shares it rather than copying it. */
struct kube_exec_config {
    char *where;   /* for messages: "kubeconfig /x: users[eks].user.exec" */
    char *command; /* with a '/': a path (relative ones already made absolute
                    * against the kubeconfig's directory); else looked up in PATH */
    char **args;   /* argv[1..], n_args of them */
    size_t n_args;
    char **env; /* "NAME=value", added to the process environment */
    size_t n_env;
    char *api_version;  /* client.authentication.k8s.io/v1 or /v1beta1 */
    char *install_hint; /* shown when the command is not found; NULL for none */
    bool provide_cluster_info;
    int timeout_ms;    /* a run is killed after this; KUBE_EXEC_TIMEOUT_MS (kube/exec.h) */
    atomic_int shares; /* holders besides the first; kube_exec_config_free drops one */
};

/* Data fields (PEM, tokens) are malloc'd and owned by the target. */
struct kube_target {
    char source[KUBE_PATH_LEN];  /* for messages: "kubeconfig /x (context c)" or "in-cluster" */
    char server[KUBE_PATH_LEN];  /* https://host:port, no trailing slash */
    char ca_file[KUBE_PATH_LEN]; /* "" when ca_pem or the system store is used */
    char *ca_pem;
    char token_file[KUBE_PATH_LEN]; /* "" when token is static or absent; wins over token */
    char *token;                    /* static bearer token, NULL for none */
    char cert_file[KUBE_PATH_LEN];  /* client certificate, file or data */
    char *cert_pem;
    char key_file[KUBE_PATH_LEN];
    char *key_pem;
    bool insecure_skip_tls_verify;
    struct kube_exec_config *exec; /* credential plugin, NULL for none */
};

/* Frees what @t owns (wiping the token and key) and zeroes it. */
void kube_target_destroy(struct kube_target *t);

/* Wipes the string @s (a token, a key), then frees it; NULL is fine. */
void kube_free_secret(char *s);

/* Frees @e and everything it holds (NULL is fine), or, while it is shared,
 * drops this holder's share. */
void kube_exec_config_free(struct kube_exec_config *e);

#endif

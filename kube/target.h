/*
 * Where a cluster is and the credentials to use: everything a client
 * needs, resolved from a kubeconfig (kubeconfig.h) or the in-cluster
 * environment (incluster.h); kube/discover.h chooses which.
 */
#ifndef KUBE_TARGET_H
#define KUBE_TARGET_H

#include <stdbool.h>

#define KUBE_PATH_LEN      4096
#define KUBE_INCLUSTER_DIR "/var/run/secrets/kubernetes.io/serviceaccount"

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
};

/* Frees what @t owns (wiping the token and key) and zeroes it. */
void kube_target_destroy(struct kube_target *t);

#endif

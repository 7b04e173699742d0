/*
 * exec credential plugins (users[].user.exec of a kubeconfig: EKS, GKE,
 * AKS, OIDC helpers), run as client-go's plugin/pkg/client/auth/exec does:
 * the command with its args, the process environment plus the configured
 * env plus KUBERNETES_EXEC_INFO (an ExecCredential of the configured
 * apiVersion: spec.interactive false, spec.cluster when provideClusterInfo),
 * its standard output read as an ExecCredential of the same apiVersion,
 * and status.token and/or status.clientCertificateData + clientKeyData
 * kept until status.expirationTimestamp (for the process's lifetime
 * without one), or until the API server answers 401.
 *
 * Unlike client-go: no terminal and no standard input is ever given to the
 * plugin (the service has none); a run is killed after
 * KUBE_EXEC_TIMEOUT_MS or at its caller's deadline (client-go waits for
 * ever), with what it started in its process group; standard output is
 * bounded; standard error is kept for the message, not passed through (our
 * standard error is the JSON log); a credential is refreshed a little
 * before it expires (client-go waits for the expiry), and one that arrives
 * already expired is an error.
 */
#ifndef KUBE_EXEC_H
#define KUBE_EXEC_H

#include <stdint.h>

#include "kube/target.h"

#define KUBE_EXEC_V1         "client.authentication.k8s.io/v1"
#define KUBE_EXEC_V1BETA1    "client.authentication.k8s.io/v1beta1"
#define KUBE_EXEC_TIMEOUT_MS 60000      /* a run is killed after this */
#define KUBE_EXEC_OUTPUT_MAX (1u << 20) /* longest standard output of a run */
#define KUBE_EXEC_CA_MAX     (1u << 20) /* longest CA file for provideClusterInfo */
#define KUBE_EXEC_EARLY_MAX  30.0       /* seconds: refresh at most this long before expiry */

/* The plugin of one client, and its cached credential. */
struct kube_exec;

/*
 * Prepares the plugin of @t->exec (shared, with the cluster's server, CA
 * and insecure-skip-tls-verify for spec.cluster; a CA file is read now, as
 * client-go does). Runs nothing yet. Returns 0, or -EINVAL (unreadable
 * CA file) / -ENOMEM with @err (ERR_LEN).
 */
int kube_exec_new(const struct kube_target *t, struct kube_exec **out, char *err);

/* Frees @x (NULL is fine), wiping the credential. No call may be running. */
void kube_exec_free(struct kube_exec *x);

/* A credential for one request: copies the caller wipes with
 * kube_exec_cred_wipe. */
struct kube_exec_cred {
    char *header;   /* "Authorization: Bearer ...", NULL when the plugin gave no token */
    char *cert_pem; /* client certificate and key (PEM), NULL when none */
    char *key_pem;
    uint64_t generation; /* which run gave it (1, 2, ...) */
};

#define KUBE_EXEC_NO_DEADLINE UINT64_MAX /* for kube_exec_get(): the plugin's timeout only */

/*
 * The credential for the next request: the cached one while it is valid
 * and not of generation @refused (the one the API server just answered 401
 * to; 0: none), else a fresh one from running the plugin. One run at a
 * time: callers that need a credential while one runs wait for its result.
 * No caller waits past @deadline (CLOCK_MONOTONIC nanoseconds, base/clock.h;
 * KUBE_EXEC_NO_DEADLINE: none): a run it starts is killed then, sooner
 * than the plugin's own timeout, and a wait for another caller's run ends
 * then. When a refresh before the expiry fails, the cached credential
 * serves until it expires. Returns 0, or -EACCES with a message naming the
 * kubeconfig, the user and what failed in @err (ERR_LEN) — never the
 * credential — or -ETIMEDOUT (@deadline came first) or -ENOMEM.
 * Thread-safe.
 */
int kube_exec_get(struct kube_exec *x, uint64_t refused, uint64_t deadline,
                  struct kube_exec_cred *out, char *err);

/* Wipes and frees what @c holds and zeroes it. */
void kube_exec_cred_wipe(struct kube_exec_cred *c);

#endif

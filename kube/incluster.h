/* The in-cluster configuration: the service-account token and CA that
 * kubelet mounts, and the API server's service address. */
#ifndef KUBE_INCLUSTER_H
#define KUBE_INCLUSTER_H

#include "kube/target.h"

/*
 * Loads the in-cluster configuration: KUBERNETES_SERVICE_HOST and
 * KUBERNETES_SERVICE_PORT from @envp (NULL-terminated, may be NULL), and
 * token and ca.crt from @dir (KUBE_INCLUSTER_DIR in production); the token
 * is kept as token_file, so rotations are picked up. Both files must be
 * readable. Returns 0, -ENOENT when @envp has no KUBERNETES_SERVICE_HOST
 * (not in a cluster), or -EINVAL with @err (ERR_LEN).
 */
int kube_load_incluster(char **envp, const char *dir, struct kube_target *t, char *err);

#endif

/*
 * Which cluster: the one rule every command uses to find it, on top of the
 * two loaders (kubeconfig.h, incluster.h).
 */
#ifndef KUBE_DISCOVER_H
#define KUBE_DISCOVER_H

#include <stdbool.h>

#include "kube/target.h"

/*
 * @kubeconfig (the --kubeconfig option) when not empty, else KUBECONFIG
 * from @envp, else the in-cluster environment (token and CA in
 * @incluster_dir); with @home_fallback (rank), finally $HOME/.kube/config
 * (HOME from @envp) when it exists, as kubectl does. Each uses its
 * kubeconfig's current-context.
 * Returns 0 with *@t filled, -ENOENT when none applies (request-only mode),
 * or another negative errno with @err (ERR_LEN) when the one found cannot
 * be used (a --kubeconfig or KUBECONFIG naming no existing file is -EINVAL,
 * not -ENOENT).
 */
int kube_discover(const char *kubeconfig, char **envp, const char *incluster_dir,
                  bool home_fallback, struct kube_target *t, char *err);

#endif

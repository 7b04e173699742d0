/*
 * Which cluster: the one rule every command (serve, rank, simulate) uses
 * to find it, on top of the two loaders (kubeconfig.h, incluster.h).
 */
#ifndef KUBE_DISCOVER_H
#define KUBE_DISCOVER_H

#include "kube/target.h"

/*
 * client-go's loading order (clientcmd NewDefaultClientConfigLoadingRules
 * and DeferredLoadingClientConfig.ClientConfig): @kubeconfig (the
 * --kubeconfig option) when not empty, else KUBECONFIG from @envp (a
 * colon-separated list), else $HOME/.kube/config (HOME from @envp) when it
 * exists and defines anything, else the in-cluster environment (token and
 * CA in @incluster_dir). Each kubeconfig uses its current-context.
 * Returns 0 with *@t filled, -ENOENT when none applies (request-only mode;
 * "no cluster: ..." in @err), or another negative errno with @err (ERR_LEN)
 * when the one found cannot be used: a --kubeconfig or KUBECONFIG naming
 * no existing file, or files that define nothing, is -EINVAL (client-go
 * would go on to in-cluster; a file named on purpose must be usable).
 */
int kube_discover(const char *kubeconfig, char **envp, const char *incluster_dir,
                  struct kube_target *t, char *err);

#endif

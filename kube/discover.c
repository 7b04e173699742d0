#include "kube/discover.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "base/env.h"
#include "base/err.h"
#include "kube/incluster.h"
#include "kube/kubeconfig.h"

/* Loads the kubeconfig (list) @path that was asked for: a missing or empty
 * file is an error here, not "no cluster". */
static int load_named(const char *path, struct kube_target *t, char *err)
{
    int rc = kube_load_kubeconfig(path, NULL, t, err);
    return rc == -ENOENT ? -EINVAL : rc;
}

int kube_discover(const char *kubeconfig, char **envp, const char *incluster_dir,
                  struct kube_target *t, char *err)
{
    memset(t, 0, sizeof(*t));
    if (kubeconfig != NULL && kubeconfig[0] != '\0')
        return load_named(kubeconfig, t, err);
    const char *env = env_get(envp, "KUBECONFIG");
    if (env != NULL && env[0] != '\0')
        return load_named(env, t, err);
    /* client-go's default file: used when it exists; one that defines
     * nothing (an empty placeholder in an image) leads on to in-cluster,
     * as client-go's IsDefaultConfig check does. */
    const char *home = env_get(envp, "HOME");
    if (home != NULL && home[0] != '\0') {
        char path[KUBE_PATH_LEN];
        struct stat st;
        int n = snprintf(path, sizeof(path), "%s/.kube/config", home);
        if (n > 0 && (size_t)n < sizeof(path) && stat(path, &st) == 0) {
            int rc = kube_load_kubeconfig(path, NULL, t, err);
            if (rc != -ENOENT)
                return rc;
        }
    }
    int rc = kube_load_incluster(envp, incluster_dir, t, err);
    if (rc != -ENOENT)
        return rc;
    return err_fail(err, -ENOENT,
                    "no cluster: no --kubeconfig, no KUBECONFIG, no ~/.kube/config and not in a "
                    "cluster (KUBERNETES_SERVICE_HOST is not set)");
}

#include "kube/target.h"

#include <stdlib.h>
#include <string.h>

void kube_free_secret(char *s)
{
    if (s != NULL)
        explicit_bzero(s, strlen(s));
    free(s);
}

void kube_target_destroy(struct kube_target *t)
{
    free(t->ca_pem);
    kube_free_secret(t->token);
    free(t->cert_pem);
    kube_free_secret(t->key_pem);
    kube_exec_config_free(t->exec);
    memset(t, 0, sizeof(*t));
}

void kube_exec_config_free(struct kube_exec_config *e)
{
    if (e == NULL || atomic_fetch_sub(&e->shares, 1) > 0)
        return;
    free(e->where);
    free(e->command);
    for (size_t i = 0; i < e->n_args; i++)
        free(e->args[i]);
    free(e->args);
    /* The environment may carry secrets of the plugin's own. */
    for (size_t i = 0; i < e->n_env; i++)
        kube_free_secret(e->env[i]);
    free(e->env);
    free(e->api_version);
    free(e->install_hint);
    free(e);
}

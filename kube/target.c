#include "kube/target.h"

#include <stdlib.h>
#include <string.h>

void kube_target_destroy(struct kube_target *t)
{
    free(t->ca_pem);
    if (t->token != NULL)
        explicit_bzero(t->token, strlen(t->token));
    free(t->token);
    free(t->cert_pem);
    if (t->key_pem != NULL)
        explicit_bzero(t->key_pem, strlen(t->key_pem));
    free(t->key_pem);
    kube_exec_config_free(t->exec);
    memset(t, 0, sizeof(*t));
}

void kube_exec_config_free(struct kube_exec_config *e)
{
    if (e == NULL)
        return;
    free(e->where);
    free(e->command);
    for (size_t i = 0; i < e->n_args; i++)
        free(e->args[i]);
    free(e->args);
    /* The environment may carry secrets of the plugin's own. */
    for (size_t i = 0; i < e->n_env; i++) {
        explicit_bzero(e->env[i], strlen(e->env[i]));
        free(e->env[i]);
    }
    free(e->env);
    free(e->api_version);
    free(e->install_hint);
    free(e);
}

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
    memset(t, 0, sizeof(*t));
}

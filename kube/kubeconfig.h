/*
 * The kubeconfig parser behind kube_load_kubeconfig, on a document in
 * memory: for the fuzzer and the unit tests, which then need no files.
 */
#ifndef KUBE_KUBECONFIG_H
#define KUBE_KUBECONFIG_H

#include <stddef.h>

#include "kube/client.h"

#define KUBE_KUBECONFIG_MAX (16u << 20) /* longest kubeconfig file */

/*
 * Parses the kubeconfig document @text (@len bytes, no NUL needed), named
 * @name in messages, whose relative file references resolve against @dir
 * ("" leaves them relative), and resolves @context (NULL or "": the
 * document's current-context) into *@t, as kube_load_kubeconfig does for a
 * single file. Files the chosen context references must exist (stat only;
 * they are not read here). Returns 0, or -EINVAL / -ENOMEM with a message
 * naming @name and the field in @err; *@t is zeroed on failure.
 * Thread-safe.
 */
int kube_parse_kubeconfig_text(const char *text, size_t len, const char *name, const char *dir,
                               const char *context, struct kube_target *t, char err[KUBE_ERR_LEN]);

#endif

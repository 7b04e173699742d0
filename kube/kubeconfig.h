/*
 * kubeconfig files, as client-go reads them, into a struct kube_target,
 * exec credential plugins included (run by kube/exec.h). auth-provider,
 * basic auth, impersonation, tls-server-name and proxy-url are not
 * supported: an error says so, when the chosen context uses them.
 */
#ifndef KUBE_KUBECONFIG_H
#define KUBE_KUBECONFIG_H

#include <stddef.h>

#include "kube/kubeconfig_parse.h"
#include "kube/target.h"

/*
 * Loads the current context of the kubeconfig @path into *@t, merging a
 * colon-separated list of files as client-go does (the first file to set a
 * value wins). @context overrides current-context when not NULL or "".
 * Relative file references resolve against the directory of the file
 * naming them; referenced files must exist (they are read by the client).
 * Files of the list that do not exist are skipped. Files are at most 16 MiB.
 * Returns 0; -ENOENT when no file of @path exists, or when those that do
 * define no cluster, user, context or current-context; -EINVAL / -ENOMEM with a
 * message naming the file and the field in @err (ERR_LEN), e.g.
 * "kubeconfig /x: users[dev].user.client-key-data: invalid base64".
 * On failure *@t is zeroed. Thread-safe.
 */
int kube_load_kubeconfig(const char *path, const char *context, struct kube_target *t, char *err);

/*
 * The same for one document in memory: @text (@len bytes, no NUL needed),
 * named @name in messages, whose relative file references resolve against
 * @dir ("" leaves them relative). For the fuzzer and the unit tests, which
 * then need no files. Thread-safe.
 */
int kube_parse_kubeconfig_text(const char *text, size_t len, const char *name, const char *dir,
                               const char *context, struct kube_target *t, char *err);

#endif

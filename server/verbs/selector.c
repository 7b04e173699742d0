#include "server/verbs/selector.h"

#include <stdbool.h>
#include <string.h>

#include "server/codec/pod.h"

static bool namespace_is(const void *ctx, const char *item, size_t len)
{
    const char *ns = ctx;
    return strlen(ns) == len && strncmp(ns, item, len) == 0;
}

/* True when the pod lacks label item "k=v" (stops cfg_list_any at the
 * first missing one). */
static bool label_missing(const void *ctx, const char *item, size_t len)
{
    const struct codec_pod *pod = ctx;
    const char *eq = memchr(item, '=', len);
    size_t klen = (size_t)(eq - item), vlen = len - klen - 1;
    const char *v = codec_pod_label(pod, item, klen);
    return v == NULL || strlen(v) != vlen || strncmp(v, eq + 1, vlen) != 0;
}

/* Is @pod inside cfg's selector (namespaces, labels, priority range)? */
static bool pod_selected(const struct cfg *cfg, const struct codec_pod *pod)
{
    if (pod->priority < cfg->select_priority_min || pod->priority > cfg->select_priority_max)
        return false;
    if (cfg->select_namespaces[0] != '\0' &&
        !cfg_list_any(cfg->select_namespaces, namespace_is, pod->ns))
        return false;
    return cfg->select_labels[0] == '\0' || !cfg_list_any(cfg->select_labels, label_missing, pod);
}

enum ops_answer verb_answer_kind(const struct cfg *cfg, const struct codec_pod *pod)
{
    if (cfg->mode == CFG_MODE_PASSTHROUGH)
        return OPS_ANSWER_PASSTHROUGH_MODE;
    if (!pod_selected(cfg, pod))
        return OPS_ANSWER_PASSTHROUGH_SELECTOR;
    return cfg->mode == CFG_MODE_SHADOW ? OPS_ANSWER_SHADOW : OPS_ANSWER_SCORED;
}

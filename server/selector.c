/* The pod selector (verbs.h): which pods the extender scores at all. */
#include "server/verbs.h"

#include <string.h>

static bool namespace_is(const void *ctx, const char *item, size_t len)
{
    const char *ns = ctx;
    return strlen(ns) == len && strncmp(ns, item, len) == 0;
}

/* True when the pod lacks label item "k=v" (stops cfg_list_any at the
 * first missing one). */
static bool label_missing(const void *ctx, const char *item, size_t len)
{
    const cJSON *labels = ctx;
    const char *eq = memchr(item, '=', len);
    size_t klen = (size_t)(eq - item), vlen = len - klen - 1;
    const cJSON *v, *last = NULL;
    /* Labels are a Go map: a duplicate key's last value wins. */
    cJSON_ArrayForEach(v, labels)
    {
        if (strlen(v->string) == klen && strncmp(v->string, item, klen) == 0)
            last = v;
    }
    return !cJSON_IsString(last) || strlen(last->valuestring) != vlen ||
           strncmp(last->valuestring, eq + 1, vlen) != 0;
}

bool srv_pod_selected(const struct cfg *cfg, const struct codec_pod *pod)
{
    if (pod->priority < cfg->select_priority_min || pod->priority > cfg->select_priority_max)
        return false;
    if (cfg->select_namespaces[0] != '\0' &&
        !cfg_list_any(cfg->select_namespaces, namespace_is, pod->ns))
        return false;
    if (cfg->select_labels[0] == '\0')
        return true;
    if (pod->labels == NULL)
        return false;
    return !cfg_list_any(cfg->select_labels, label_missing, pod->labels);
}

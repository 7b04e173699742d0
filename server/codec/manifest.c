#include "server/codec/manifest.h"

#include <errno.h>

#include <cjson/cJSON.h>

#include "server/codec/json.h"

/* Removes every member @key of @obj, duplicates included. */
static void delete_all(cJSON *obj, const char *key)
{
    cJSON *gone = cJSON_DetachItemFromObjectCaseSensitive(obj, key);
    while (gone != NULL) {
        cJSON_Delete(gone);
        gone = cJSON_DetachItemFromObjectCaseSensitive(obj, key);
    }
}

/* The pod as a new object: what the API server set is removed, and a
 * nodeSelector pins it to @node. */
static int pin(cJSON *pod, const char *node, FILE *out)
{
    static const char *const server_set[] = {
        "uid",
        "resourceVersion",
        "managedFields",
        "generation",
        "creationTimestamp",
        "selfLink",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
    };
    /* The members the decoder read: the last of duplicates, as Go does. */
    cJSON *meta = codec_json_member(pod, "metadata");
    cJSON *spec = codec_json_member(pod, "spec");

    for (size_t i = 0; i < sizeof(server_set) / sizeof(server_set[0]); i++)
        delete_all(meta, server_set[i]);
    delete_all(pod, "status");
    if (!cJSON_IsObject(spec)) {
        spec = cJSON_AddObjectToObject(pod, "spec");
        if (spec == NULL)
            return -ENOMEM;
    }
    delete_all(spec, "nodeName");
    cJSON *sel = codec_json_member(spec, "nodeSelector");
    if (!cJSON_IsObject(sel)) {
        delete_all(spec, "nodeSelector");
        sel = cJSON_AddObjectToObject(spec, "nodeSelector");
    }
    delete_all(sel, "kubernetes.io/hostname");
    if (sel == NULL || cJSON_AddStringToObject(sel, "kubernetes.io/hostname", node) == NULL)
        return -ENOMEM;
    if (codec_json_member(pod, "apiVersion") == NULL)
        cJSON_AddStringToObject(pod, "apiVersion", "v1");
    if (codec_json_member(pod, "kind") == NULL)
        cJSON_AddStringToObject(pod, "kind", "Pod");
    char *text = cJSON_Print(pod);
    if (text == NULL)
        return -ENOMEM;
    fprintf(out, "%s\n", text);
    cJSON_free(text);
    return 0;
}

int codec_pinned_manifest(const char *pod_json, size_t len, const char *node, FILE *out)
{
    /* A tree of its own, malloc'd: editing it frees the members it drops. */
    cJSON *pod = cJSON_ParseWithLength(pod_json, len);
    if (!cJSON_IsObject(pod)) {
        cJSON_Delete(pod);
        return -EINVAL;
    }
    int rc = pin(pod, node, out);
    cJSON_Delete(pod);
    return rc;
}

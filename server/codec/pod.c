#include "server/codec/pod.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "base/err.h"
#include "server/codec/json.h"
#include "server/codec/pod_status.h"
#include "server/codec/quantities.h"

/* A member that must be an object when present. */
static int object_member(const cJSON *obj, const char *key, const cJSON **out)
{
    *out = codec_json_field(obj, key);
    return *out == NULL || cJSON_IsObject(*out) ? 0 : -EINVAL;
}

static const char *string_or_empty(const cJSON *obj, const char *key)
{
    const cJSON *v = codec_json_field(obj, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* resources.limits of @resources into @out's lim and has_lim (the in-flight
 * estimate reads them), leaving its requests alone. */
static int limits_of(const cJSON *resources, const char *path, struct score_container *out,
                     char *err)
{
    struct score_container lim = {0};
    char list[96];

    snprintf(list, sizeof(list), "%s.limits", path);
    if (codec_resource_list(codec_json_field(resources, "limits"), &lim, list, err) != 0)
        return -EINVAL;
    memcpy(out->lim, lim.req, sizeof(out->lim));
    memcpy(out->has_lim, lim.has, sizeof(out->has_lim));
    return 0;
}

/* One container of spec.containers or spec.initContainers. */
static int container(const cJSON *c, const char *path, struct score_container *out, char *err)
{
    const cJSON *resources, *policy;
    char list[96];

    if (!cJSON_IsObject(c))
        return err_fail(err, -EINVAL, "%s: want an object", path);
    if (object_member(c, "resources", &resources) != 0)
        return err_fail(err, -EINVAL, "%s.resources: want an object", path);
    snprintf(list, sizeof(list), "%s.resources.requests", path);
    if (codec_resource_list(codec_json_field(resources, "requests"), out, list, err) != 0)
        return -EINVAL;
    snprintf(list, sizeof(list), "%s.resources", path);
    if (limits_of(resources, list, out, err) != 0)
        return -EINVAL;
    policy = codec_json_field(c, "restartPolicy");
    if (policy != NULL && !cJSON_IsString(policy))
        return err_fail(err, -EINVAL, "%s.restartPolicy: want a string", path);
    out->restartable = policy != NULL && strcmp(policy->valuestring, "Always") == 0;
    return 0;
}

static int container_list(struct arena *a, const cJSON *spec, const char *key,
                          struct score_container **out, size_t *n, char *err)
{
    const cJSON *list = codec_json_field(spec, key), *c;
    char path[64];
    size_t i = 0;

    *out = NULL;
    *n = 0;
    if (list == NULL)
        return 0;
    if (!cJSON_IsArray(list))
        return err_fail(err, -EINVAL, "Pod.spec.%s: want an array", key);
    size_t count = (size_t)cJSON_GetArraySize(list);
    if (count == 0)
        return 0;
    struct score_container *containers = arena_calloc(a, count, sizeof(*containers));
    if (containers == NULL)
        return err_fail(err, -ENOMEM, "out of memory");
    cJSON_ArrayForEach(c, list)
    {
        snprintf(path, sizeof(path), "Pod.spec.%s[%zu]", key, i);
        if (container(c, path, &containers[i], err) != 0)
            return -EINVAL;
        i++;
    }
    *out = containers;
    *n = count;
    return 0;
}

/* metadata.labels, in document order: the selector asks for the last of a
 * key (codec_pod_label), so duplicates need no pass of their own. */
static int labels(struct arena *a, const cJSON *meta, struct codec_pod *out, char *err)
{
    const cJSON *obj, *v;
    size_t i = 0;

    if (object_member(meta, "labels", &obj) != 0)
        return err_fail(err, -EINVAL, "Pod.metadata.labels: want an object");
    size_t n = obj != NULL ? (size_t)cJSON_GetArraySize(obj) : 0;
    if (n == 0)
        return 0;
    struct codec_label *l = arena_calloc(a, n, sizeof(*l));
    if (l == NULL)
        return err_fail(err, -ENOMEM, "out of memory");
    cJSON_ArrayForEach(v, obj)
    {
        /* A non-string value reads as no value: no selector item matches it. */
        l[i].key = v->string;
        l[i].value = cJSON_IsString(v) ? v->valuestring : NULL;
        i++;
    }
    out->labels = l;
    out->n_labels = n;
    return 0;
}

const char *codec_pod_label(const struct codec_pod *pod, const char *key, size_t klen)
{
    const char *value = NULL;
    bool found = false;
    for (size_t i = 0; i < pod->n_labels; i++)
        if (strlen(pod->labels[i].key) == klen && memcmp(pod->labels[i].key, key, klen) == 0) {
            value = pod->labels[i].value;
            found = true;
        }
    return found ? value : NULL;
}

/* metadata.ownerReferences: a DaemonSet among the owners makes the pod a
 * daemon (what kube-scheduler's DaemonSet pods are: one per node, nowhere
 * else to go). */
static int owner_references(const cJSON *meta, struct codec_pod *out, char *err)
{
    const cJSON *refs = codec_json_field(meta, "ownerReferences"), *r;
    if (refs != NULL && !cJSON_IsArray(refs))
        return err_fail(err, -EINVAL, "Pod.metadata.ownerReferences: want an array");
    cJSON_ArrayForEach(r, refs)
    {
        const cJSON *kind = codec_json_field(r, "kind");
        if (cJSON_IsNull(r))
            continue; /* Go reads it as an empty reference */
        if (!cJSON_IsObject(r) || (kind != NULL && !cJSON_IsString(kind)))
            return err_fail(err, -EINVAL,
                            "Pod.metadata.ownerReferences: want objects with a string kind");
        out->daemonset =
            out->daemonset || (kind != NULL && strcmp(kind->valuestring, "DaemonSet") == 0);
    }
    return 0;
}

static int metadata(struct arena *a, const cJSON *pod, struct codec_pod *out, char *err)
{
    const cJSON *meta;
    if (object_member(pod, "metadata", &meta) != 0)
        return err_fail(err, -EINVAL, "Pod.metadata: want an object");
    for (const char *const *k = (const char *const[]){"name", "namespace", NULL}; *k; k++) {
        const cJSON *v = codec_json_field(meta, *k);
        if (v != NULL && !cJSON_IsString(v))
            return err_fail(err, -EINVAL, "Pod.metadata.%s: want a string", *k);
    }
    out->name = string_or_empty(meta, "name");
    out->ns = string_or_empty(meta, "namespace");
    out->uid = string_or_empty(meta, "uid");
    if (owner_references(meta, out, err) != 0)
        return -EINVAL;
    return labels(a, meta, out, err);
}

/* Does spec.resources.requests name a resource that pod-level resources
 * cover (cpu, memory or hugepages-*)? Then the pod's request is the
 * pod-level one, even where it names neither cpu nor memory. */
static bool has_pod_level_key(const cJSON *requests)
{
    const cJSON *item;
    cJSON_ArrayForEach(item, requests)
    {
        if (item->string != NULL &&
            (strcmp(item->string, "cpu") == 0 || strcmp(item->string, "memory") == 0 ||
             strncmp(item->string, "hugepages-", 10) == 0))
            return true;
    }
    return false;
}

static int priority(const cJSON *spec, struct codec_pod *out, char *err)
{
    const cJSON *prio = codec_json_field(spec, "priority");
    /* Range first: converting an out-of-range double is undefined. */
    if (prio != NULL && (!cJSON_IsNumber(prio) ||
                         !(prio->valuedouble >= INT32_MIN && prio->valuedouble <= INT32_MAX) ||
                         prio->valuedouble != (double)(int32_t)prio->valuedouble))
        return err_fail(err, -EINVAL, "Pod.spec.priority: want a 32-bit integer");
    out->priority = prio != NULL ? (long long)prio->valuedouble : 0;
    return 0;
}

int codec_pod_decode(struct arena *a, const cJSON *pod, struct codec_pod *out, char *err)
{
    const cJSON *spec, *resources;
    struct score_pod *p = &out->spec; /* zeroed with *out */
    struct score_container *containers, *init_containers;
    int rc;

    memset(out, 0, sizeof(*out));
    out->ns = out->name = out->uid = out->node_name = out->phase = "";
    if (pod == NULL)
        return err_fail(err, -EINVAL, "Pod: missing");
    if (!cJSON_IsObject(pod))
        return err_fail(err, -EINVAL, "Pod: want an object");
    if ((rc = metadata(a, pod, out, err)) != 0)
        return rc;
    if (object_member(pod, "spec", &spec) != 0)
        return err_fail(err, -EINVAL, "Pod.spec: want an object");
    out->node_name = string_or_empty(spec, "nodeName");
    if (priority(spec, out, err) != 0)
        return -EINVAL;
    out->phase = string_or_empty(codec_json_field(pod, "status"), "phase");
    if ((rc = container_list(a, spec, "containers", &containers, &p->n_containers, err)) != 0 ||
        (rc = container_list(a, spec, "initContainers", &init_containers, &p->n_init_containers,
                             err)) != 0)
        return rc;
    /* A running pod charges its node what an in-place resize left it. */
    if ((rc = codec_pod_status(
             a, codec_json_field(pod, "status"), codec_json_field(spec, "containers"),
             codec_json_field(spec, "initContainers"), p, containers, init_containers, err)) != 0)
        return rc;
    p->containers = containers;
    p->init_containers = init_containers;
    if (codec_resource_list(codec_json_field(spec, "overhead"), &p->overhead, "Pod.spec.overhead",
                            err) != 0)
        return -EINVAL;
    if (object_member(spec, "resources", &resources) != 0)
        return err_fail(err, -EINVAL, "Pod.spec.resources: want an object");
    const cJSON *pod_requests = codec_json_field(resources, "requests");
    if (codec_resource_list(pod_requests, &p->pod_level, "Pod.spec.resources.requests", err) != 0)
        return -EINVAL;
    p->pod_level_set = has_pod_level_key(pod_requests);
    if (limits_of(resources, "Pod.spec.resources", &p->pod_level, err) != 0)
        return -EINVAL;
    return 0;
}

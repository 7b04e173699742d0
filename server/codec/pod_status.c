#include "server/codec/pod_status.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "server/codec/json.h"
#include "server/codec/quantities.h"

/* The source followed: staging/src/k8s.io/component-helpers/resource/helpers.go
 * v1.37 (IsPodResizeInfeasible, findContainerStatus, AggregateContainerRequests,
 * PodRequests); the fields from k8s.io/api/core/v1 types.go (PodStatus,
 * ContainerStatus). */

/* Absent and null are one thing to encoding/json: a nil map or pointer. */
static const cJSON *present(const cJSON *obj, const char *key)
{
    const cJSON *v = codec_json_field(obj, key);
    return v == NULL || cJSON_IsNull(v) ? NULL : v;
}

/* A status ResourceList into @out; set when the map is there, even empty. */
static int status_list(const cJSON *list, struct score_list *out, const char *path, char *err)
{
    struct score_container c;

    memset(out, 0, sizeof(*out));
    if (list == NULL)
        return 0;
    memset(&c, 0, sizeof(c));
    if (codec_resource_list(list, &c, path, err) != 0)
        return -EINVAL;
    memcpy(out->req, c.req, sizeof(out->req));
    memcpy(out->has, c.has, sizeof(out->has));
    out->set = true;
    return 0;
}

/* resources.requests of a status entry: resources null or without requests
 * leaves the list unset. */
static int resources_requests(const cJSON *entry, struct score_list *out, const char *path,
                              char *err)
{
    const cJSON *resources = present(entry, "resources");
    char list[128];

    memset(out, 0, sizeof(*out));
    if (resources == NULL)
        return 0;
    if (!cJSON_IsObject(resources))
        return err_fail(err, -EINVAL, "%s.resources: want an object", path);
    snprintf(list, sizeof(list), "%s.resources.requests", path);
    return status_list(present(resources, "requests"), out, list, err);
}

/* The first PodResizePending condition says whether the resize is
 * Infeasible (a later one is not looked at, as upstream). */
static int resize_infeasible(const cJSON *status, bool *out, char *err)
{
    const cJSON *conditions = present(status, "conditions"), *c;

    *out = false;
    if (conditions == NULL)
        return 0;
    if (!cJSON_IsArray(conditions))
        return err_fail(err, -EINVAL, "Pod.status.conditions: want an array");
    cJSON_ArrayForEach(c, conditions)
    {
        const cJSON *type = codec_json_field(c, "type"), *reason = codec_json_field(c, "reason");
        if (!cJSON_IsObject(c) || (type != NULL && !cJSON_IsString(type) && !cJSON_IsNull(type)) ||
            (reason != NULL && !cJSON_IsString(reason) && !cJSON_IsNull(reason)))
            return err_fail(err, -EINVAL,
                            "Pod.status.conditions: want objects with string type and reason");
        if (cJSON_IsString(type) && strcmp(type->valuestring, "PodResizePending") == 0) {
            *out = cJSON_IsString(reason) && strcmp(reason->valuestring, "Infeasible") == 0;
            return 0;
        }
    }
    return 0;
}

static const char *name_of(const cJSON *obj)
{
    const cJSON *v = codec_json_field(obj, "name");
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* One status entry, by the name findContainerStatus looks it up by. */
struct status_ref {
    const char *name;
    const cJSON *entry;
    const char *key; /* containerStatuses or initContainerStatuses */
    size_t index;    /* in its list */
    size_t order;    /* the regular statuses first: the first entry of a name wins */
};

static int ref_order(const void *a, const void *b)
{
    const struct status_ref *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c != 0 ? c : (x->order > y->order) - (x->order < y->order);
}

/* The index of both status lists, sorted by name then order: one lookup per
 * container is a binary search, so a pod of n containers and m statuses
 * costs O((n + m) log m), where scanning the lists per container cost
 * n x m (seconds for a crafted pod of 40 000 of each). */
struct status_index {
    struct status_ref *refs;
    size_t n;
};

/* Checks each list is an array of objects with a string name (or none),
 * then indexes both. */
static int index_build(struct arena *a, const cJSON *statuses, const cJSON *init_statuses,
                       struct status_index *out, char *err)
{
    const cJSON *lists[] = {statuses, init_statuses}, *e;
    static const char *const keys[] = {"containerStatuses", "initContainerStatuses"};
    size_t n = 0;

    out->refs = NULL;
    out->n = 0;
    for (size_t l = 0; l < 2; l++) {
        if (lists[l] != NULL && !cJSON_IsArray(lists[l]))
            return err_fail(err, -EINVAL, "Pod.status.%s: want an array", keys[l]);
        cJSON_ArrayForEach(e, lists[l])
        {
            const cJSON *name = codec_json_field(e, "name");
            if (!cJSON_IsObject(e) ||
                (name != NULL && !cJSON_IsString(name) && !cJSON_IsNull(name)))
                return err_fail(err, -EINVAL, "Pod.status.%s: want objects with a string name",
                                keys[l]);
            n++;
        }
    }
    if (n == 0)
        return 0;
    out->refs = arena_calloc(a, n, sizeof(*out->refs));
    if (out->refs == NULL)
        return err_fail(err, -ENOMEM, "out of memory");
    for (size_t l = 0; l < 2; l++) {
        size_t i = 0;
        cJSON_ArrayForEach(e, lists[l])
        {
            out->refs[out->n] = (struct status_ref){name_of(e), e, keys[l], i++, out->n};
            out->n++;
        }
    }
    qsort(out->refs, out->n, sizeof(*out->refs), ref_order);
    return 0;
}

/* findContainerStatus: the first entry of the name (the lowest order), by
 * the lower bound of the name. */
static const struct status_ref *index_find(const struct status_index *ix, const char *name)
{
    size_t lo = 0, hi = ix->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(ix->refs[mid].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < ix->n && strcmp(ix->refs[lo].name, name) == 0 ? &ix->refs[lo] : NULL;
}

/* Each container of @spec_list gets the status entry of its name. */
static int containers_status(const cJSON *spec_list, const struct status_index *ix,
                             struct score_container *out, char *err)
{
    const cJSON *c;
    size_t i = 0;

    cJSON_ArrayForEach(c, spec_list)
    {
        const struct status_ref *ref = index_find(ix, name_of(c));
        if (ref != NULL) {
            char path[96], list[128];
            snprintf(path, sizeof(path), "Pod.status.%s[%zu]", ref->key, ref->index);
            snprintf(list, sizeof(list), "%s.allocatedResources", path);
            if (status_list(present(ref->entry, "allocatedResources"), &out[i].allocated, list,
                            err) != 0 ||
                resources_requests(ref->entry, &out[i].actuated, path, err) != 0)
                return -EINVAL;
        }
        i++;
    }
    return 0;
}

int codec_pod_status(struct arena *a, const cJSON *status, const cJSON *containers,
                     const cJSON *init_containers, struct score_pod *pod,
                     struct score_container *regular, struct score_container *init, char *err)
{
    const cJSON *resources;
    struct status_index ix;

    if (status == NULL || cJSON_IsNull(status))
        return 0;
    if (!cJSON_IsObject(status))
        return err_fail(err, -EINVAL, "Pod.status: want an object");
    if (resize_infeasible(status, &pod->resize_infeasible, err) != 0 ||
        status_list(present(status, "allocatedResources"), &pod->status_allocated,
                    "Pod.status.allocatedResources", err) != 0 ||
        resources_requests(status, &pod->status_actuated, "Pod.status", err) != 0)
        return -EINVAL;
    resources = present(status, "resources");
    pod->status_resources = resources != NULL;

    const cJSON *statuses = present(status, "containerStatuses");
    const cJSON *init_statuses = present(status, "initContainerStatuses");
    int rc = index_build(a, statuses, init_statuses, &ix, err);
    if (rc != 0)
        return rc;
    if (containers_status(containers, &ix, regular, err) != 0 ||
        containers_status(init_containers, &ix, init, err) != 0)
        return -EINVAL;
    return 0;
}

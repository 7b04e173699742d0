#include "server/codec/pod_status.h"

#include <errno.h>
#include <stdio.h>
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
    if (!cJSON_IsObject(resources)) {
        err_set(err, "%s.resources: want an object", path);
        return -EINVAL;
    }
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
    if (!cJSON_IsArray(conditions)) {
        err_set(err, "Pod.status.conditions: want an array");
        return -EINVAL;
    }
    cJSON_ArrayForEach(c, conditions)
    {
        const cJSON *type = codec_json_field(c, "type"), *reason = codec_json_field(c, "reason");
        if (!cJSON_IsObject(c) || (type != NULL && !cJSON_IsString(type) && !cJSON_IsNull(type)) ||
            (reason != NULL && !cJSON_IsString(reason) && !cJSON_IsNull(reason))) {
            err_set(err, "Pod.status.conditions: want objects with string type and reason");
            return -EINVAL;
        }
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

static int check_statuses(const cJSON *list, const char *key, char *err)
{
    const cJSON *e;
    if (list == NULL)
        return 0;
    if (!cJSON_IsArray(list)) {
        err_set(err, "Pod.status.%s: want an array", key);
        return -EINVAL;
    }
    cJSON_ArrayForEach(e, list)
    {
        const cJSON *name = codec_json_field(e, "name");
        if (!cJSON_IsObject(e) || (name != NULL && !cJSON_IsString(name) && !cJSON_IsNull(name))) {
            err_set(err, "Pod.status.%s: want objects with a string name", key);
            return -EINVAL;
        }
    }
    return 0;
}

/* findContainerStatus: the regular statuses first, then the init ones; the
 * first entry of the name. */
static const cJSON *find_status(const cJSON *statuses, const cJSON *init_statuses, const char *name,
                                const char **key, size_t *index)
{
    const cJSON *lists[] = {statuses, init_statuses}, *e;
    static const char *const keys[] = {"containerStatuses", "initContainerStatuses"};

    for (size_t l = 0; l < 2; l++) {
        size_t i = 0;
        cJSON_ArrayForEach(e, lists[l])
        {
            if (strcmp(name_of(e), name) == 0) {
                *key = keys[l];
                *index = i;
                return e;
            }
            i++;
        }
    }
    return NULL;
}

/* Each container of @spec_list gets the status entry of its name. */
static int containers_status(const cJSON *spec_list, const cJSON *statuses,
                             const cJSON *init_statuses, struct score_container *out, char *err)
{
    const cJSON *c;
    size_t i = 0;

    cJSON_ArrayForEach(c, spec_list)
    {
        const char *key = "";
        size_t index = 0;
        const cJSON *e = find_status(statuses, init_statuses, name_of(c), &key, &index);
        if (e != NULL) {
            char path[96], list[128];
            snprintf(path, sizeof(path), "Pod.status.%s[%zu]", key, index);
            snprintf(list, sizeof(list), "%s.allocatedResources", path);
            if (status_list(present(e, "allocatedResources"), &out[i].allocated, list, err) != 0 ||
                resources_requests(e, &out[i].actuated, path, err) != 0)
                return -EINVAL;
        }
        i++;
    }
    return 0;
}

int codec_pod_status(const cJSON *status, const cJSON *containers, const cJSON *init_containers,
                     struct score_pod *pod, struct score_container *regular,
                     struct score_container *init, char *err)
{
    const cJSON *resources;

    if (status == NULL || cJSON_IsNull(status))
        return 0;
    if (!cJSON_IsObject(status)) {
        err_set(err, "Pod.status: want an object");
        return -EINVAL;
    }
    if (resize_infeasible(status, &pod->resize_infeasible, err) != 0 ||
        status_list(present(status, "allocatedResources"), &pod->status_allocated,
                    "Pod.status.allocatedResources", err) != 0 ||
        resources_requests(status, &pod->status_actuated, "Pod.status", err) != 0)
        return -EINVAL;
    resources = present(status, "resources");
    pod->status_resources = resources != NULL;

    const cJSON *statuses = present(status, "containerStatuses");
    const cJSON *init_statuses = present(status, "initContainerStatuses");
    if (check_statuses(statuses, "containerStatuses", err) != 0 ||
        check_statuses(init_statuses, "initContainerStatuses", err) != 0)
        return -EINVAL;
    if (containers_status(containers, statuses, init_statuses, regular, err) != 0 ||
        containers_status(init_containers, statuses, init_statuses, init, err) != 0)
        return -EINVAL;
    return 0;
}

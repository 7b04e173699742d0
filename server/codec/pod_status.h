/*
 * The in-place resize status of a v1.Pod (InPlacePodVerticalScaling, GA
 * since 1.35; the pod-level maps of InPlacePodLevelResourcesVerticalScaling,
 * beta and on since 1.36): what kube-scheduler v1.37 reads of status when it
 * charges a running pod to its node (component-helpers resource.PodRequests
 * with UseStatusResources). A pod not yet scheduled has none of it.
 */
#ifndef SERVER_CODEC_POD_STATUS_H
#define SERVER_CODEC_POD_STATUS_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/arena.h"
#include "scoring/resources.h"

/*
 * Reads Pod @status (NULL or null: none) into @pod and its containers:
 * status.conditions (the first PodResizePending decides Infeasible),
 * status.allocatedResources, status.resources.requests, and for each
 * container of @containers (the entries of spec.containers) and
 * @init_containers (spec.initContainers; @pod's arrays, in that order) the
 * status entry of its name, looked for in containerStatuses then
 * initContainerStatuses: allocatedResources and resources.requests. Returns 0
 * or -EINVAL with @err naming the field (-ENOMEM: the index of the status
 * entries, allocated in @a, did not fit).
 */
int codec_pod_status(struct arena *a, const cJSON *status, const cJSON *containers,
                     const cJSON *init_containers, struct score_pod *pod,
                     struct score_container *regular, struct score_container *init, char *err);

#endif

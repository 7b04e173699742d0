/*
 * The plain structs that scoring works on: the resources it scores, a pod's
 * containers and a node's capacity, all in Kubernetes base units (CPU in
 * millicores as MilliValue() gives them, memory in bytes as Value()).
 */
#ifndef SCORING_RESOURCES_H
#define SCORING_RESOURCES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum score_resource {
    SCORE_CPU = 0,
    SCORE_MEMORY,
    SCORE_NRES, /* number of scored resources; keep last */
};

/* Returns "cpu" or "memory": the Kubernetes resource name. */
const char *score_resource_name(enum score_resource r);

/* @a + @b, held at INT64_MAX instead of wrapping: a sum of requests. */
static inline int64_t score_add_sat(int64_t a, int64_t b)
{
    int64_t s;
    return __builtin_add_overflow(a, b, &s) ? INT64_MAX : s;
}

/* A resource list of a pod's or container's status during an in-place
 * resize. set says the map is there (not null), even when empty: upstream
 * tells a missing map (fall back to the next source) from an empty one (no
 * keys). has[r] says the map holds key r. */
struct score_list {
    int64_t req[SCORE_NRES];
    bool has[SCORE_NRES];
    bool set;
};

/* One container's resources.requests for the scored resources. has[r] is
 * true when the requests map holds the key, even with value 0: only an
 * absent key gets the scoring default (100m CPU, 200Mi memory). */
struct score_container {
    int64_t req[SCORE_NRES];
    bool has[SCORE_NRES];
    bool restartable; /* init container with restartPolicy: Always (sidecar) */
    /* resources.limits for the scored resources, has_lim[r] when the map
     * holds the key: only the in-flight estimate reads them
     * (scoring/podreq.h score_pod_estimate). */
    int64_t lim[SCORE_NRES];
    bool has_lim[SCORE_NRES];
    /* In-place resize (InPlacePodVerticalScaling): the container's entry in
     * status.containerStatuses or initContainerStatuses, found by name (the
     * regular statuses first, as findContainerStatus looks): its
     * allocatedResources and its resources.requests (what the kubelet
     * actuated). Both unset for a container without a status entry. */
    struct score_list allocated;
    struct score_list actuated;
};

/* What a pod asks for. Arrays are borrowed. pod_level is spec.resources.
 * requests and overhead is spec.overhead; has[] says which keys they set.
 * pod_level_set says spec.resources.requests holds a key that pod-level
 * resources support (cpu, memory or hugepages-*, IsPodLevelRequestsSet);
 * pod_level.has[] for cpu or memory implies it, so a decoder needs to set it
 * only for a pod that sets hugepages-* alone. */
struct score_pod {
    const struct score_container *containers;
    size_t n_containers;
    const struct score_container *init_containers;
    size_t n_init_containers;
    struct score_container pod_level;
    bool pod_level_set;
    struct score_container overhead;
    /* In-place resize status. resize_infeasible: the first condition of
     * type PodResizePending has reason Infeasible (IsPodResizeInfeasible):
     * the spec no longer counts where a status says otherwise.
     * status_resources: status.resources is there (not null), even without
     * requests; status_allocated and status_actuated are
     * status.allocatedResources and status.resources.requests, the pod-level
     * maps (InPlacePodLevelResourcesVerticalScaling). */
    bool resize_infeasible;
    bool status_resources;
    struct score_list status_allocated;
    struct score_list status_actuated;
};

/* A candidate node: allocatable and what is already used on it (from the
 * configured source; 0 when unknown). All values are >= 0. used counts real
 * requests (kube-scheduler's Requested: the filter and balanced);
 * used_non_zero counts containers without a request at the defaults
 * (NonZeroRequested: spread, pack, target). They differ only when the
 * source is the pod requests. */
struct score_node {
    int64_t alloc[SCORE_NRES];
    int64_t used[SCORE_NRES];
    int64_t used_non_zero[SCORE_NRES];
};

#endif

#include "scoring/podreq.h"

#include <errno.h>

static const int64_t default_request[SCORE_NRES] = {
    [SCORE_CPU] = SCORE_DEFAULT_MILLI_CPU,
    [SCORE_MEMORY] = SCORE_DEFAULT_MEMORY,
};

static int64_t container_request(const struct score_container *c, enum score_resource r,
                                 bool non_zero)
{
    if (non_zero && !c->has[r])
        return default_request[r];
    return c->req[r];
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* One resource, one view: the sidecar rule of KEP-753. */
static int request_of(const struct score_pod *pod, enum score_resource r, bool non_zero,
                      int64_t *out)
{
    int64_t sum = 0, sidecars = 0, init_max = 0;

    for (size_t i = 0; i < pod->n_containers; i++)
        if (__builtin_add_overflow(sum, container_request(&pod->containers[i], r, non_zero), &sum))
            return -ERANGE;
    for (size_t i = 0; i < pod->n_init_containers; i++) {
        const struct score_container *c = &pod->init_containers[i];
        int64_t req = container_request(c, r, non_zero), running;
        if (c->restartable) {
            /* A sidecar keeps running next to the app containers. */
            if (__builtin_add_overflow(sum, req, &sum) ||
                __builtin_add_overflow(sidecars, req, &sidecars))
                return -ERANGE;
            running = sidecars;
        } else if (__builtin_add_overflow(req, sidecars, &running)) {
            return -ERANGE;
        }
        init_max = max64(init_max, running);
    }
    int64_t total = max64(sum, init_max);
    if (pod->pod_level.has[r])
        total = pod->pod_level.req[r];
    if (pod->overhead.has[r] && __builtin_add_overflow(total, pod->overhead.req[r], &total))
        return -ERANGE;
    *out = total;
    return 0;
}

static bool any_has(const struct score_container *c, size_t n, enum score_resource r)
{
    for (size_t i = 0; i < n; i++)
        if (c[i].has[r])
            return true;
    return false;
}

/* Whether PodRequests' result holds the key: a container, init container,
 * pod-level request or overhead names it, even with 0. */
static bool pod_names(const struct score_pod *pod, enum score_resource r)
{
    return any_has(pod->containers, pod->n_containers, r) ||
           any_has(pod->init_containers, pod->n_init_containers, r) || pod->pod_level.has[r] ||
           pod->overhead.has[r];
}

int score_pod_request(const struct score_pod *pod, struct score_pod_request *out)
{
    bool pod_level =
        pod->pod_level_set || pod->pod_level.has[SCORE_CPU] || pod->pod_level.has[SCORE_MEMORY];

    for (int r = 0; r < SCORE_NRES; r++) {
        enum score_resource res = (enum score_resource)r;
        if (request_of(pod, res, false, &out->real[r]) != 0 ||
            request_of(pod, res, true, &out->non_zero_scored[r]) != 0)
            return -ERANGE;
        /* NodeInfo's getNonMissingContainerRequests: with pod-level requests,
         * only a key the pod lacks altogether gets the default, and then every
         * container lacks it, so the per-container sum is the one above. */
        out->non_zero[r] =
            pod_level && pod_names(pod, res) ? out->real[r] : out->non_zero_scored[r];
    }
    return 0;
}

#include "server/cluster/feeds.h"

#include <errno.h>
#include <string.h>

#include "base/arena.h"
#include "base/err.h"
#include "base/log.h"
#include "server/codec/node_address.h"
#include "server/codec/nodelist.h"
#include "server/codec/pod.h"

int cluster_apply_node(struct kube_state *st, const struct cfg *c, enum kube_event ev,
                       const cJSON *obj)
{
    char err[ERR_LEN];
    struct codec_node n;
    /* The decoder copies the node's name into an arena. */
    struct arena *a = arena_acquire();

    if (a == NULL) {
        LOG(LOG_ERROR, "node event dropped: out of memory", LOG_INT("event", (int)ev));
        return -ENOMEM;
    }
    /* The informer hands over a tree; the Node decoder reads bytes (the one
     * decoder requests use), so the object is printed back for it: watch
     * events are few and small beside requests. */
    char *text = cJSON_PrintUnformatted(obj);
    int rc = text != NULL ? codec_node_decode(a, text, strlen(text), c, &n, err)
                          : err_fail(err, -ENOMEM, "out of memory");
    cJSON_free(text);
    if (rc != 0) {
        LOG(LOG_WARN, "node from the API server ignored", LOG_STR("error", err));
    } else if (ev == KUBE_DELETED) {
        kube_state_node_delete(st, n.name);
    } else {
        char ip[KUBE_IP_LEN];
        codec_node_internal_ip(obj, ip, sizeof(ip)); /* "" when none */
        struct kube_node_info info = {.name = n.name, .invalid = n.invalid, .internal_ip = ip};
        memcpy(info.alloc, n.res.alloc, sizeof(info.alloc));
        memcpy(info.annotation, n.res.used, sizeof(info.annotation));
        rc = kube_state_node_put(st, &info);
        if (rc != 0)
            LOG(LOG_ERROR, "node event dropped: out of memory", LOG_STR("node", n.name));
    }
    arena_release(a);
    return rc;
}

int cluster_apply_pod(struct kube_state *st, enum kube_event ev, const cJSON *obj, double now,
                      const struct cluster_bound_hook *hook,
                      const struct score_in_flight_rules *est)
{
    char err[ERR_LEN];
    struct codec_pod p;
    /* The decoder takes its arrays (containers, labels) from an arena. */
    struct arena *a = arena_acquire();

    if (a == NULL) {
        LOG(LOG_ERROR, "pod event dropped: out of memory", LOG_INT("event", (int)ev));
        return -ENOMEM;
    }
    struct score_pod_request req;
    int rc = codec_pod_decode(a, obj, &p, err);
    /* In requests mode the estimate is non_zero, which the state has. */
    struct kube_pod_info info = {.estimated = est != NULL && est->mode != SCORE_IN_FLIGHT_REQUESTS};
    if (rc == 0 && (score_pod_request(&p.spec, &req) != 0 ||
                    (info.estimated && score_pod_estimate(&p.spec, est, info.estimate) != 0)))
        rc = err_fail(err, -EINVAL, "Pod: total request does not fit in int64");
    if (rc == 0 && p.uid[0] == '\0')
        rc = err_fail(err, -EINVAL, "no metadata.uid");
    if (rc != 0) {
        /* The API server validates pods, so this is a bug somewhere: say
         * so and forget the pod rather than charge a guess. */
        LOG(LOG_WARN, "pod from the API server ignored", LOG_NSNAME("pod", p.ns, p.name),
            LOG_STR("error", err));
        if (p.uid[0] != '\0')
            kube_state_pod_delete(st, p.uid);
        goto out_release_arena;
    }
    if (ev == KUBE_DELETED) {
        kube_state_pod_delete(st, p.uid);
        goto out_release_arena;
    }
    info.uid = p.uid;
    info.node = p.node_name;
    info.terminal = strcmp(p.phase, "Succeeded") == 0 || strcmp(p.phase, "Failed") == 0;
    memcpy(info.real, req.real, sizeof(info.real));
    memcpy(info.non_zero, req.non_zero, sizeof(info.non_zero));
    /* Only the pod informer's thread writes pods, so what the state says
     * before the put is what this event changes. */
    bool binding = hook != NULL && hook->fn != NULL && p.node_name[0] != '\0' &&
                   !kube_state_pod_is_assigned(st, p.uid);
    rc = kube_state_pod_put(st, &info, now);
    if (rc != 0)
        LOG(LOG_ERROR, "pod event dropped: out of memory", LOG_NSNAME("pod", p.ns, p.name));
    else if (binding)
        hook->fn(hook->ctx, p.uid, p.node_name);
out_release_arena:
    arena_release(a);
    return rc;
}

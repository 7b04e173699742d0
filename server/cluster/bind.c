#include "server/cluster/bind.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/log.h"
#include "server/codec/binding.h"

/* After a 409: is the pod bound to @node already? */
static bool is_bound_to(struct kube_client *c, const char *path, const char *node,
                        const struct kube_bounds *b)
{
    char err[ERR_LEN];
    struct kube_response r = {0};
    bool bound = false;
    if (kube_get_bounded(c, path, 10, b, &r, err) == 0 && r.status == 200)
        bound = codec_pod_is_bound_to(r.body, r.len, node);
    free(r.body);
    return bound;
}

int cluster_bind(struct cluster *cl, const char *ns, const char *name, const char *uid,
                 const char *node, uint64_t deadline_ns, char *err)
{
    const struct kube_bounds b = {.deadline_ns = deadline_ns};
    char path[KUBE_PATH_LEN];
    struct kube_response r = {0};
    struct kube_client *c = cluster_client(cl);
    struct buf o;
    size_t len;

    buf_init(&o, 256);
    codec_binding_body(&o, ns, name, uid, node);
    char *body = buf_take(&o, &len);
    if (body == NULL)
        return err_fail(err, -ENOMEM, "out of memory");
    snprintf(path, sizeof(path), "/api/v1/namespaces/%s/pods/%s/binding", ns, name);
    int rc = kube_post_bounded(c, path, body, len, CLUSTER_BIND_TIMEOUT, &b, &r, err);
    free(body);
    if (rc != 0)
        goto out_free;
    if (r.status == 200 || r.status == 201) {
        if (uid[0] != '\0')
            kube_state_placed(cluster_state(cl), node, uid, clock_wall());
        goto out_free;
    }
    path[strlen(path) - strlen("/binding")] = '\0';
    if (r.status == 409 && is_bound_to(c, path, node, &b)) {
        LOG(LOG_INFO, "pod already bound to the node: success", LOG_NSNAME("pod", ns, name),
            LOG_STR("node", node));
        goto out_free;
    }
    codec_status_message(r.status, r.body, r.len, err);
    rc = -EPROTO;
out_free:
    free(r.body);
    return rc;
}

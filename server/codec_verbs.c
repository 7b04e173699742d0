/* The requests of the preempt and bind verbs (codec.h). */
#include "server/codec.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* One victims entry: {"Pods":[...],"NumPDBViolations":n}. */
static int decode_victims(const cJSON *v, bool meta, struct codec_victims *out,
                          char err[CODEC_ERR_LEN])
{
    char why[CODEC_ERR_LEN];
    const cJSON *pods = srv_json_member_folded(v, "Pods"), *p;
    const cJSON *pdb = srv_json_member_folded(v, "NumPDBViolations");
    size_t i = 0;

    if (!cJSON_IsObject(v)) {
        snprintf(err, CODEC_ERR_LEN, "victims of node %.64s: want an object", out->node);
        return -EINVAL;
    }
    if (pdb != NULL) {
        if (!cJSON_IsNumber(pdb) || pdb->valuedouble < 0 || pdb->valuedouble > 1e15 ||
            pdb->valuedouble != (double)(long long)pdb->valuedouble) {
            snprintf(err, CODEC_ERR_LEN, "victims of node %.64s: NumPDBViolations: want a count",
                     out->node);
            return -EINVAL;
        }
        out->num_pdb_violations = (long long)pdb->valuedouble;
    }
    if (pods != NULL && !cJSON_IsArray(pods)) {
        snprintf(err, CODEC_ERR_LEN, "victims of node %.64s: Pods: want an array", out->node);
        return -EINVAL;
    }
    size_t n = pods != NULL ? (size_t)cJSON_GetArraySize(pods) : 0;
    out->uids = cJSON_malloc(n * sizeof(*out->uids) + 1);
    out->request = cJSON_malloc(n * sizeof(*out->request) + 1);
    if (out->uids == NULL || out->request == NULL) {
        snprintf(err, CODEC_ERR_LEN, "out of memory");
        return -ENOMEM;
    }
    out->has_request = !meta;
    cJSON_ArrayForEach(p, pods)
    {
        const cJSON *uid;
        if (meta) {
            uid = srv_json_member_folded(p, "UID");
        } else {
            struct codec_pod pod;
            if (srv_decode_pod(p, &pod, why) != 0) {
                snprintf(err, CODEC_ERR_LEN, "victim %zu on node %.64s: %.160s", i, out->node, why);
                return -EINVAL;
            }
            out->request[i] = pod.request;
            uid = srv_json_member(srv_json_member(p, "metadata"), "uid");
        }
        if (!cJSON_IsString(uid) || uid->valuestring[0] == '\0') {
            snprintf(err, CODEC_ERR_LEN, "victim %zu on node %.64s: no UID", i, out->node);
            return -EINVAL;
        }
        out->uids[i++] = uid->valuestring;
    }
    out->n = i;
    return 0;
}

int srv_decode_preempt(const char *body, size_t len, const struct cfg *cfg,
                       struct codec_preempt_args *out, char err[CODEC_ERR_LEN])
{
    cJSON *root;
    const cJSON *map, *v;
    size_t i = 0;

    memset(out, 0, sizeof(*out));
    if (srv_parse_object(body, len, "ExtenderPreemptionArgs", &root, err) != 0)
        return -EINVAL;
    if (srv_decode_pod_member(root, &out->pod, err) != 0)
        return -EINVAL;
    map = srv_json_member_folded(root, "NodeNameToMetaVictims");
    out->meta_form = map != NULL;
    if (map == NULL)
        map = srv_json_member_folded(root, "NodeNameToVictims");
    if (map == NULL)
        return 0; /* no candidates: the answer is an empty map */
    if (!cJSON_IsObject(map)) {
        snprintf(err, CODEC_ERR_LEN, "%s: want an object",
                 out->meta_form ? "NodeNameToMetaVictims" : "NodeNameToVictims");
        return -EINVAL;
    }
    size_t n = (size_t)cJSON_GetArraySize(map);
    if (n > (size_t)cfg->max_nodes) {
        snprintf(err, CODEC_ERR_LEN, "%zu nodes, more than max-nodes (%d)", n, cfg->max_nodes);
        return -E2BIG;
    }
    out->nodes = cJSON_malloc(n * sizeof(*out->nodes) + 1);
    if (out->nodes == NULL) {
        snprintf(err, CODEC_ERR_LEN, "out of memory");
        return -ENOMEM;
    }
    memset(out->nodes, 0, n * sizeof(*out->nodes));
    cJSON_ArrayForEach(v, map)
    {
        /* A duplicate key: Go's map keeps the last value, in the first
         * key's place as far as we are concerned (the order is ours). */
        size_t k;
        for (k = 0; k < i && strcmp(out->nodes[k].node, v->string) != 0; k++)
            ;
        if (cJSON_IsNull(v)) {
            snprintf(err, CODEC_ERR_LEN, "victims of node %.64s: null", v->string);
            return -EINVAL;
        }
        memset(&out->nodes[k], 0, sizeof(out->nodes[k]));
        out->nodes[k].node = v->string;
        int rc = decode_victims(v, out->meta_form, &out->nodes[k], err);
        if (rc != 0)
            return rc;
        if (k == i)
            i++;
    }
    out->n_nodes = i;
    return 0;
}

/* A name that is safe as a URL path segment. */
static int path_name(const cJSON *root, const char *key, bool required, const char **out,
                     char err[CODEC_ERR_LEN])
{
    const cJSON *v = srv_json_member_folded(root, key);
    *out = "";
    if (v == NULL && !required)
        return 0;
    if (!cJSON_IsString(v) || (required && v->valuestring[0] == '\0')) {
        snprintf(err, CODEC_ERR_LEN, "%s: want a non-empty string", key);
        return -EINVAL;
    }
    if (strlen(v->valuestring) > 253 || strpbrk(v->valuestring, "/?#% \\") != NULL) {
        snprintf(err, CODEC_ERR_LEN, "%s: not a Kubernetes name", key);
        return -EINVAL;
    }
    *out = v->valuestring;
    return 0;
}

int srv_decode_bind(const char *body, size_t len, struct codec_bind_args *out,
                    char err[CODEC_ERR_LEN])
{
    cJSON *root;
    memset(out, 0, sizeof(*out));
    if (srv_parse_object(body, len, "ExtenderBindingArgs", &root, err) != 0)
        return -EINVAL;
    if (path_name(root, "PodName", true, &out->pod_name, err) != 0 ||
        path_name(root, "PodNamespace", true, &out->pod_namespace, err) != 0 ||
        path_name(root, "PodUID", false, &out->pod_uid, err) != 0 ||
        path_name(root, "Node", true, &out->node, err) != 0)
        return -EINVAL;
    return 0;
}

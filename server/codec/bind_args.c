#include "server/codec/bind_args.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "base/err.h"
#include "server/codec/json.h"

/* A name that is safe as a URL path segment. */
static int path_name(const cJSON *root, const char *key, bool required, const char **out, char *err)
{
    const cJSON *v = codec_json_field(root, key);
    *out = "";
    if (v == NULL && !required)
        return 0;
    if (!cJSON_IsString(v) || (required && v->valuestring[0] == '\0'))
        return err_fail(err, -EINVAL, "%s: want a non-empty string", key);
    if (strlen(v->valuestring) > 253 || strpbrk(v->valuestring, "/?#% \\") != NULL)
        return err_fail(err, -EINVAL, "%s: not a Kubernetes name", key);
    *out = v->valuestring;
    return 0;
}

int codec_bind_decode(struct arena *a, const char *body, size_t len, struct codec_bind_args *out,
                      char *err)
{
    cJSON *root;
    int rc;

    memset(out, 0, sizeof(*out));
    if ((rc = codec_json_parse(a, body, len, "ExtenderBindingArgs", &root, err)) != 0)
        return rc;
    if (path_name(root, "PodName", true, &out->pod_name, err) != 0 ||
        path_name(root, "PodNamespace", true, &out->pod_namespace, err) != 0 ||
        path_name(root, "PodUID", false, &out->pod_uid, err) != 0 ||
        path_name(root, "Node", true, &out->node, err) != 0)
        return -EINVAL;
    return 0;
}

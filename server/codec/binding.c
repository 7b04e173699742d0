#include "server/codec/binding.h"

#include <string.h>

#include <cjson/cJSON.h>

#include "base/err.h"
#include "server/codec/json.h"

void codec_binding_body(struct buf *o, const char *ns, const char *name, const char *uid,
                        const char *node)
{
    buf_str(o, "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{\"name\":");
    buf_json_str(o, name);
    buf_str(o, ",\"namespace\":");
    buf_json_str(o, ns);
    if (uid[0] != '\0') {
        buf_str(o, ",\"uid\":");
        buf_json_str(o, uid);
    }
    buf_str(o, "},\"target\":{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":");
    buf_json_str(o, node);
    buf_str(o, "}}");
}

void codec_status_message(long status, const char *body, size_t len, char *out)
{
    cJSON *root = cJSON_ParseWithLength(body != NULL ? body : "", body != NULL ? len : 0);
    const cJSON *msg = codec_json_member(root, "message");
    if (cJSON_IsString(msg))
        err_set(out, "API server answered %ld: %s", status, msg->valuestring);
    else
        err_set(out, "API server answered %ld", status);
    cJSON_Delete(root);
}

bool codec_pod_is_bound_to(const char *body, size_t len, const char *node)
{
    cJSON *root = cJSON_ParseWithLength(body, len);
    const cJSON *name = codec_json_member(codec_json_member(root, "spec"), "nodeName");
    bool bound = cJSON_IsString(name) && strcmp(name->valuestring, node) == 0;
    cJSON_Delete(root);
    return bound;
}

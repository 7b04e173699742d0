#include "server/codec/node_address.h"

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "server/codec/json.h"

int codec_node_internal_ip(const cJSON *obj, char *out, size_t n)
{
    const cJSON *addrs = codec_json_member(codec_json_member(obj, "status"), "addresses"), *a;
    out[0] = '\0';
    if (!cJSON_IsArray(addrs))
        return -ENOENT;
    cJSON_ArrayForEach(a, addrs)
    {
        const cJSON *type = codec_json_member(a, "type"), *addr = codec_json_member(a, "address");
        unsigned char bin[sizeof(struct in6_addr)];
        if (!cJSON_IsString(type) || strcmp(type->valuestring, "InternalIP") != 0 ||
            !cJSON_IsString(addr))
            continue;
        /* The first InternalIP is the node's, as the kubelet orders them;
         * a second (dual stack) is another family of the same node. An
         * address as text, nothing else (no port, no zone). */
        if (strlen(addr->valuestring) >= n || (inet_pton(AF_INET, addr->valuestring, bin) != 1 &&
                                               inet_pton(AF_INET6, addr->valuestring, bin) != 1))
            return -ENOENT;
        memcpy(out, addr->valuestring, strlen(addr->valuestring) + 1);
        return 0;
    }
    return -ENOENT;
}

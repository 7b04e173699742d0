#include "tests/support/bodies.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"

const char bodies_pod[] =
    "{\"metadata\":{\"name\":\"web-0\",\"namespace\":\"shop\",\"uid\":\"6f0c1f2e-8b1c-4c59-9d7c-"
    "2b8f1b8f0a11\",\"labels\":{\"app\":\"web\"}},\"spec\":{\"initContainers\":[{\"name\":"
    "\"migrate\",\"image\":\"registry.example.com/shop/migrate:v3\",\"resources\":{\"requests\":"
    "{\"cpu\":\"500m\",\"memory\":\"256Mi\"}}}],\"containers\":[{\"name\":\"app\",\"image\":"
    "\"registry.example.com/shop/web:v3\",\"resources\":{\"requests\":{\"cpu\":\"750m\","
    "\"memory\":\"1Gi\"}}},{\"name\":\"envoy\",\"resources\":{\"requests\":{\"cpu\":\"100m\"}}}],"
    "\"priority\":0},\"status\":{\"phase\":\"Running\"}}";

/* A Node as a kubelet reports it: labels, a long annotation, allocatable,
 * 40 images. */
static void node(struct buf *b, size_t i)
{
    buf_printf(b,
               "{\"metadata\":{\"name\":\"node-%05zu\",\"labels\":{\"kubernetes.io/hostname\":"
               "\"node-%05zu\",\"topology.kubernetes.io/zone\":\"us-east-1a\"},\"annotations\":"
               "{\"cpu-extender.io/cpu-used\":\"%s\",\"note\":\"",
               i, i, i % 3 == 0 ? "7900m" : "1");
    for (int k = 0; k < 8; k++)
        buf_str(b, "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
    buf_str(b, "\"}},\"status\":{\"allocatable\":{\"cpu\":\"8\",\"memory\":\"32Gi\","
               "\"pods\":\"110\"},\"images\":[");
    for (int k = 0; k < 40; k++)
        buf_printf(b,
                   "%s{\"names\":[\"registry.example.com/team/service-%d@sha256:0123456789abcdef"
                   "0123456789abcdef0123456789abcdef0123456789abcdef\"],\"sizeBytes\":%d}",
                   k ? "," : "", k, 1000000 + k);
    buf_str(b, "]}}");
}

/* Bytes of the body around the items, and of one node (all are the same
 * length while i < 100000 and the annotation's value is 1 or 5 bytes). */
static size_t head_tail(void)
{
    return strlen(bodies_pod) + 96;
}

size_t bodies_nodelist_fits(size_t bytes)
{
    struct buf b;
    size_t len;
    buf_init(&b, 8192);
    node(&b, 1); /* "1": the shorter annotation; "7900m" is 4 bytes more */
    free(buf_take(&b, &len));
    size_t per = len + 1 + 4, fixed = head_tail();
    return bytes > fixed ? (bytes - fixed) / per : 0;
}

char *bodies_nodelist(size_t n, size_t pad_to, size_t *len)
{
    struct buf b;
    buf_init(&b, n * 6500 + 4096);
    buf_printf(&b, "{\"Pod\":%s,\"Nodes\":{\"metadata\":{\"resourceVersion\":\"9\"},\"items\":[",
               bodies_pod);
    for (size_t i = 0; i < n; i++) {
        if (i)
            buf_str(&b, ",");
        node(&b, i);
    }
    static const char tail[] = "]},\"NodeNames\":null}";
    while (b.len + sizeof(tail) - 1 < pad_to && !b.failed)
        buf_str(&b, " ");
    buf_str(&b, tail);
    return buf_take(&b, len);
}

char *bodies_names(size_t n, size_t name_len, size_t *len)
{
    struct buf b;
    buf_init(&b, n * (name_len + 4) + 4096);
    buf_printf(&b, "{\"Pod\":%s,\"NodeNames\":[", bodies_pod);
    for (size_t i = 0; i < n; i++) {
        buf_printf(&b, "%s\"n%08zu", i ? "," : "", i);
        for (size_t k = 9; k < name_len; k++)
            buf_str(&b, "x");
        buf_str(&b, "\"");
    }
    buf_str(&b, "]}");
    return buf_take(&b, len);
}

char *bodies_preempt(size_t n, size_t k, bool meta, size_t *len)
{
    struct buf b;
    const char *spec = strstr(bodies_pod, "\"spec\":");
    buf_init(&b, n * k * (meta ? 64 : sizeof(bodies_pod) + 64) + 4096);
    buf_printf(&b, "{\"Pod\":%s,\"%s\":{", bodies_pod,
               meta ? "NodeNameToMetaVictims" : "NodeNameToVictims");
    for (size_t i = 0; i < n; i++) {
        buf_printf(&b, "%s\"node-%05zu\":{\"Pods\":[", i ? "," : "", i);
        for (size_t v = 0; v < k; v++) {
            if (meta)
                buf_printf(&b, "%s{\"UID\":\"6f0c1f2e-8b1c-4c59-9d7c-%012zu\"}", v ? "," : "",
                           i * k + v);
            else
                buf_printf(&b, "%s{\"metadata\":{\"name\":\"v-%zu-%zu\",\"uid\":\"u-%zu-%zu\"},%s",
                           v ? "," : "", i, v, i, v, spec);
        }
        buf_str(&b, "],\"NumPDBViolations\":0}");
    }
    buf_str(&b, "}}");
    return buf_take(&b, len);
}

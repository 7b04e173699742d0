/*
 * bench-gen: writes realistic ExtenderArgs bodies for the benchmark.
 *
 *   bench-gen DIR N...   for each N: DIR/nodes-N.json (a NodeList of N full
 *                        Node objects, as kube-scheduler sends with
 *                        nodeCacheCapable: false) and DIR/names-N.json (the
 *                        same candidates as NodeNames)
 *
 * Nodes look like a kubelet's: 13 labels, 6 annotations (one 200-600 bytes),
 * capacity and allocatable with 7 quantities, 4 conditions, addresses,
 * nodeInfo and 30-50 images with long digest names. The pod has an init
 * container and three containers. Output is deterministic (fixed seed).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/kubelet_node.h"
#include "bench/rng.h"

static const char *const pod_json =
    "{\"metadata\":{\"name\":\"web-7d9f8b6c5-x2k4p\",\"namespace\":\"shop\","
    "\"uid\":\"6f0c1f2e-8b1c-4c59-9d7c-2b8f1b8f0a11\",\"resourceVersion\":\"81234\","
    "\"creationTimestamp\":\"2026-05-01T10:00:00Z\",\"labels\":{\"app\":\"web\","
    "\"pod-template-hash\":\"7d9f8b6c5\"},\"ownerReferences\":[{\"apiVersion\":\"apps/v1\","
    "\"kind\":\"ReplicaSet\",\"name\":\"web-7d9f8b6c5\",\"uid\":\"0d6b3c1e-1111-4c59-9d7c-"
    "2b8f1b8f0a12\",\"controller\":true,\"blockOwnerDeletion\":true}]},"
    "\"spec\":{\"initContainers\":[{\"name\":\"migrate\",\"image\":\"registry.example.com/shop/"
    "migrate:v3.2.1\",\"resources\":{\"requests\":{\"cpu\":\"500m\",\"memory\":\"256Mi\"}}}],"
    "\"containers\":[{\"name\":\"app\",\"image\":\"registry.example.com/shop/web:v3.2.1\","
    "\"resources\":{\"limits\":{\"cpu\":\"2\",\"memory\":\"2Gi\"},\"requests\":{\"cpu\":\"750m\","
    "\"memory\":\"1Gi\"}}},{\"name\":\"envoy\",\"image\":\"envoyproxy/envoy:v1.30.1\","
    "\"resources\":{\"requests\":{\"cpu\":\"100m\",\"memory\":\"128Mi\"}}},{\"name\":\"log\","
    "\"image\":\"fluent/fluent-bit:3.0\",\"resources\":{}}],\"restartPolicy\":\"Always\","
    "\"schedulerName\":\"cpu-extender-scheduler\",\"priority\":0,\"enableServiceLinks\":true,"
    "\"preemptionPolicy\":\"PreemptLowerPriority\"},\"status\":{\"phase\":\"Pending\","
    "\"qosClass\":\"Burstable\"}}";

static int write_case(const char *dir, unsigned n)
{
    char path[1024];
    FILE *f;

    snprintf(path, sizeof(path), "%s/nodes-%u.json", dir, n);
    f = fopen(path, "w");
    if (f == NULL)
        return -1;
    rng = 0x9e3779b97f4a7c15ULL + n;
    fprintf(f, "{\"Pod\":%s,\"Nodes\":{\"metadata\":{},\"items\":[", pod_json);
    for (unsigned i = 0; i < n; i++) {
        if (i)
            fputc(',', f);
        kubelet_node(f, i, "", "", "");
    }
    fprintf(f, "]},\"NodeNames\":null}");
    if (fclose(f) != 0)
        return -1;

    snprintf(path, sizeof(path), "%s/names-%u.json", dir, n);
    f = fopen(path, "w");
    if (f == NULL)
        return -1;
    fprintf(f, "{\"Pod\":%s,\"Nodes\":null,\"NodeNames\":[", pod_json);
    for (unsigned i = 0; i < n; i++)
        fprintf(f, "%s\"node-%05u\"", i ? "," : "", i);
    fprintf(f, "]}");
    return fclose(f) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench-gen DIR N...\n");
        return 2;
    }
    for (int i = 2; i < argc; i++) {
        unsigned n = (unsigned)strtoul(argv[i], NULL, 10);
        if (n == 0 || write_case(argv[1], n) != 0) {
            fprintf(stderr, "bench-gen: cannot write %s/*-%s.json\n", argv[1], argv[i]);
            return 1;
        }
    }
    return 0;
}

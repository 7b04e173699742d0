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

#include "bench/rng.h"

static void hex(FILE *f, int n)
{
    for (int i = 0; i < n; i++)
        fputc("0123456789abcdef"[pick(16)], f);
}

static void uuid(FILE *f)
{
    hex(f, 8);
    fputc('-', f);
    hex(f, 4);
    fputc('-', f);
    hex(f, 4);
    fputc('-', f);
    hex(f, 4);
    fputc('-', f);
    hex(f, 12);
}

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

static const char *const conditions[] = {"MemoryPressure", "DiskPressure", "PIDPressure", "Ready"};

static void node(FILE *f, unsigned i)
{
    static const int cpus[] = {4, 8, 16, 32};
    int cpu = cpus[pick(4)];
    unsigned mem_ki = (unsigned)cpu * 4u * 1024u * 1024u - 500000u - pick(100000);
    unsigned zone = pick(3);

    fprintf(f, "{\"metadata\":{\"name\":\"node-%05u\",\"uid\":\"", i);
    uuid(f);
    fprintf(f,
            "\",\"resourceVersion\":\"%u\",\"creationTimestamp\":\"2026-01-0%uT0%u:00:00Z\","
            "\"labels\":{\"beta.kubernetes.io/arch\":\"amd64\","
            "\"beta.kubernetes.io/instance-type\":\"m5.%dxlarge\","
            "\"beta.kubernetes.io/os\":\"linux\",\"failure-domain.beta.kubernetes.io/region\":"
            "\"us-east-1\",\"failure-domain.beta.kubernetes.io/zone\":\"us-east-1%c\","
            "\"kubernetes.io/arch\":\"amd64\",\"kubernetes.io/hostname\":\"node-%05u\","
            "\"kubernetes.io/os\":\"linux\",\"node.kubernetes.io/instance-type\":\"m5.%dxlarge\","
            "\"topology.kubernetes.io/region\":\"us-east-1\","
            "\"topology.kubernetes.io/zone\":\"us-east-1%c\",\"node-role.kubernetes.io/worker\":"
            "\"\",\"pool\":\"general-%u\"},",
            100000 + pick(900000), 1 + pick(9), pick(10), cpu / 4, 'a' + (int)zone, i, cpu / 4,
            'a' + (int)zone, pick(4));
    fprintf(f, "\"annotations\":{\"node.alpha.kubernetes.io/ttl\":\"0\","
               "\"volumes.kubernetes.io/controller-managed-attach-detach\":\"true\","
               "\"csi.volume.kubernetes.io/nodeid\":\"{\\\"ebs.csi.aws.com\\\":\\\"i-");
    hex(f, 17);
    fprintf(f,
            "\\\"}\",\"kubeadm.alpha.kubernetes.io/cri-socket\":\"unix:///run/containerd/"
            "containerd.sock\",\"cpu-extender.io/cpu-used\":\"%um\","
            "\"cluster.example.com/inventory\":\"",
            pick((unsigned)cpu * 900));
    for (unsigned k = 200 + pick(400); k > 0; k--)
        fputc('a' + (int)pick(26), f);
    fprintf(f,
            "\"}},\"spec\":{\"podCIDR\":\"10.%u.%u.0/24\",\"podCIDRs\":[\"10.%u.%u.0/24\"],"
            "\"providerID\":\"aws:///us-east-1%c/i-",
            i / 256 % 256, i % 256, i / 256 % 256, i % 256, 'a' + (int)zone);
    hex(f, 17);
    fprintf(f, "\"},\"status\":{");
    for (int which = 0; which < 2; which++) {
        fprintf(f,
                "\"%s\":{\"cpu\":\"%s%d%s\",\"ephemeral-storage\":\"%llu\",\"hugepages-1Gi\":\"0\","
                "\"hugepages-2Mi\":\"0\",\"memory\":\"%uKi\",\"pods\":\"110\","
                "\"attachable-volumes-aws-ebs\":\"25\"},",
                which ? "allocatable" : "capacity", "", which ? cpu * 1000 - 80 : cpu,
                which ? "m" : "", 93492209510ULL - (which ? 4000000000ULL : 0ULL),
                mem_ki - (which ? 0 : 1000000u));
    }
    fprintf(f, "\"conditions\":[");
    for (int c = 0; c < 4; c++)
        fprintf(f,
                "%s{\"type\":\"%s\",\"status\":\"%s\",\"lastHeartbeatTime\":"
                "\"2026-12-02T13:0%d:00Z\",\"lastTransitionTime\":\"2026-11-30T09:00:00Z\","
                "\"reason\":\"Kubelet%s\",\"message\":\"kubelet reports %s\"}",
                c ? "," : "", conditions[c], c == 3 ? "True" : "False", c, conditions[c],
                conditions[c]);
    fprintf(f,
            "],\"addresses\":[{\"type\":\"InternalIP\",\"address\":\"10.0.%u.%u\"},"
            "{\"type\":\"Hostname\",\"address\":\"node-%05u\"}],"
            "\"daemonEndpoints\":{\"kubeletEndpoint\":{\"Port\":10250}},\"nodeInfo\":{"
            "\"machineID\":\"",
            i / 256 % 256, i % 256, i);
    hex(f, 32);
    fprintf(f, "\",\"systemUUID\":\"");
    uuid(f);
    fprintf(f, "\",\"bootID\":\"");
    uuid(f);
    fprintf(f, "\",\"kernelVersion\":\"6.1.0-27-cloud-amd64\",\"osImage\":\"Debian GNU/Linux 12 "
               "(bookworm)\",\"containerRuntimeVersion\":\"containerd://1.7.20\","
               "\"kubeletVersion\":\"v1.31.0\",\"kubeProxyVersion\":\"v1.31.0\","
               "\"operatingSystem\":\"linux\",\"architecture\":\"amd64\"},\"images\":[");
    for (unsigned k = 0, n = 30 + pick(21); k < n; k++) {
        unsigned app = pick(400);
        fprintf(f, "%s{\"names\":[\"registry.example.com/platform/team-%u/service-%u@sha256:",
                k ? "," : "", app % 20, app);
        hex(f, 64);
        fprintf(f,
                "\",\"registry.example.com/platform/team-%u/service-%u:v%u.%u.%u\"],"
                "\"sizeBytes\":%llu}",
                app % 20, app, pick(5), pick(20), pick(50),
                (unsigned long long)(20000000 + pick(2000000000)));
    }
    fprintf(f, "],\"volumesAttached\":null}}");
}

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
        node(f, i);
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

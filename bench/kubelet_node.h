/*
 * A Node object as a kubelet writes it, for the benchmark's generators:
 * 13 labels, 6 annotations (one 200-600 bytes), capacity and allocatable
 * with 7 quantities, 4 conditions, addresses, nodeInfo and 30-50 images
 * with long digest names, about 12 KB. Deterministic (bench/rng.h).
 */
#ifndef BENCH_KUBELET_NODE_H
#define BENCH_KUBELET_NODE_H

#include <stdio.h>

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

static const char *const conditions[] = {"MemoryPressure", "DiskPressure", "PIDPressure", "Ready"};

/* The status of node-%05u (@i) with @cpu CPUs and @mem_ki KiB: capacity,
 * allocatable, conditions, addresses, nodeInfo and the images, then the
 * end of the object. */
static void kubelet_node_status(FILE *f, unsigned i, int cpu, unsigned mem_ki)
{
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

/* node-%05u: @head_extra is written after the opening brace (members and a
 * comma: "\"kind\":\"Node\","), @labels_extra after the last label and
 * @spec_extra after the last spec member (each a comma and members); ""
 * for none, which writes what bench-gen always wrote. */
static void kubelet_node(FILE *f, unsigned i, const char *head_extra, const char *labels_extra,
                         const char *spec_extra)
{
    static const int cpus[] = {4, 8, 16, 32};
    int cpu = cpus[pick(4)];
    unsigned mem_ki = (unsigned)cpu * 4u * 1024u * 1024u - 500000u - pick(100000);
    unsigned zone = pick(3);

    fprintf(f, "{%s\"metadata\":{\"name\":\"node-%05u\",\"uid\":\"", head_extra, i);
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
            "\"\",\"pool\":\"general-%u\"%s},",
            100000 + pick(900000), 1 + pick(9), pick(10), cpu / 4, 'a' + (int)zone, i, cpu / 4,
            'a' + (int)zone, pick(4), labels_extra);
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
    fprintf(f, "\"%s},\"status\":{", spec_extra);
    kubelet_node_status(f, i, cpu, mem_ki);
}

#endif

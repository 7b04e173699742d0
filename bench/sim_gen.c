/*
 * bench-sim-gen: writes the input of `cpu-extender simulate` at scale, as
 * kubectl prints it.
 *
 *   bench-sim-gen DIR NODES PODS [WORKLOADS [unique]]
 *       DIR/sim-nodes-NODES.json  `kubectl get nodes -o json`: a List of
 *                                 kubelet-like Node objects (about 12 KB
 *                                 each, bench/kubelet_node.h)
 *       DIR/sim-pods-PODS.json    `kubectl get pods -A -o json` of pending
 *                                 pods (about 2.5 KB each)
 *       DIR/sim-pods-PODS-unique.json  with "unique": the same pods, but
 *                                 each app container requests a cpu and
 *                                 memory of its own, so that no two pods
 *                                 share a shape (the engine's worst case,
 *                                 as bench-sim's "unique")
 *
 * Nodes come from six pools as in bench/sim_engine.c: general and large
 * amd64, arm64, memory, GPU nodes tainted nvidia.com/gpu=true:NoSchedule,
 * control-plane nodes tainted NoSchedule; 1 % are cordoned and 1 % NotReady
 * (the lifecycle taints). Each carries the cpu-used annotation (0-90 % of
 * its CPU). Pods come from WORKLOADS (default 150) Deployments with
 * Zipf-like replica counts, each one shape: a request (some without),
 * an envoy sidecar or an init container, the default not-ready and
 * unreachable tolerations, some a nodeSelector (arch, pool), a required
 * zone affinity, GPU tolerations, a priority. Deterministic (fixed seed).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/kubelet_node.h"
#include "bench/rng.h"

/* "unique": every pod's app container its own request (write_pods). */
static bool unique_requests;

struct pool {
    const char *name, *arch, *type;
    int percent;
    const char *taints; /* spec members, or "" */
};

static const struct pool pools[] = {
    {"general", "amd64", "m6i.4xlarge", 55, ""},
    {"large", "amd64", "m6i.8xlarge", 15, ""},
    {"arm", "arm64", "m7g.4xlarge", 12, ""},
    {"memory", "amd64", "r6i.2xlarge", 10, ""},
    {"gpu", "amd64", "p3.2xlarge", 5,
     ",\"taints\":[{\"key\":\"nvidia.com/gpu\",\"value\":\"true\",\"effect\":\"NoSchedule\"}]"},
    {"control-plane", "amd64", "m6i.xlarge", 3,
     ",\"taints\":[{\"key\":\"node-role.kubernetes.io/control-plane\",\"effect\":"
     "\"NoSchedule\"}]"},
};

static const char *const cordoned =
    ",\"unschedulable\":true,\"taints\":[{\"key\":\"node.kubernetes.io/unschedulable\","
    "\"effect\":\"NoSchedule\",\"timeAdded\":\"2026-12-01T08:00:00Z\"}]";
static const char *const not_ready =
    ",\"taints\":[{\"key\":\"node.kubernetes.io/not-ready\",\"effect\":\"NoSchedule\","
    "\"timeAdded\":\"2026-12-01T08:00:00Z\"},{\"key\":\"node.kubernetes.io/not-ready\","
    "\"effect\":\"NoExecute\",\"timeAdded\":\"2026-12-01T08:00:05Z\"}]";

static int write_nodes(const char *dir, unsigned n)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/sim-nodes-%u.json", dir, n);
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return -1;
    rng = 0x2545f4914f6cdd1dULL + n;
    fprintf(f, "{\"apiVersion\":\"v1\",\"items\":[");
    for (unsigned i = 0; i < n; i++) {
        unsigned roll = pick(100), acc = 0;
        size_t p = 0;
        while (p + 1 < sizeof(pools) / sizeof(pools[0]) && roll >= acc + (unsigned)pools[p].percent)
            acc += (unsigned)pools[p++].percent;
        char labels[256];
        snprintf(labels, sizeof(labels),
                 ",\"kubernetes.io/arch\":\"%s\",\"beta.kubernetes.io/arch\":\"%s\",\"pool\":"
                 "\"%s\",\"node.kubernetes.io/instance-type\":\"%s\"",
                 pools[p].arch, pools[p].arch, pools[p].name, pools[p].type);
        unsigned state = pick(100);
        const char *spec = state == 0 ? cordoned : state == 1 ? not_ready : pools[p].taints;
        fputs(i ? "," : "", f);
        kubelet_node(f, i, "\"apiVersion\":\"v1\",\"kind\":\"Node\",", labels, spec);
    }
    fprintf(f, "],\"kind\":\"List\",\"metadata\":{\"resourceVersion\":\"\"}}\n");
    return fclose(f) == 0 ? 0 : -1;
}

/* One Deployment's pods: everything they share. */
struct workload {
    char name[32], ns[32], hash[16];
    const char *cpu, *mem; /* NULL: no requests */
    const char *selector;  /* nodeSelector members, or NULL */
    bool zone_affinity, gpu, sidecar, init;
    int priority;
    size_t replicas;
};

static const char *const cpus[] = {"50m", "100m", "250m",  "500m", "500m",
                                   "1",   "1",    "1500m", "2",    "4"};
static const char *const mems[] = {"64Mi", "128Mi", "256Mi", "512Mi", "1Gi",
                                   "1Gi",  "2Gi",   "4Gi",   "8Gi"};

static void hexs(char *buf, int n)
{
    for (int i = 0; i < n; i++)
        buf[i] = "0123456789abcdef"[pick(16)];
    buf[n] = '\0';
}

static void workloads(struct workload *w, size_t n, size_t n_pods)
{
    double hsum = 0;
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        hsum += 1.0 / (double)(i + 1);
    for (size_t i = 0; i < n; i++) {
        struct workload *x = &w[i];
        snprintf(x->name, sizeof(x->name), "svc-%03zu", i);
        snprintf(x->ns, sizeof(x->ns), "team-%zu", i % 12);
        hexs(x->hash, 10);
        bool requests = pick(10) != 0;
        x->cpu = requests ? cpus[pick(10)] : NULL;
        x->mem = requests ? mems[pick(9)] : NULL;
        unsigned s = pick(20);
        x->selector = s == 0   ? "\"kubernetes.io/arch\":\"arm64\""
                      : s == 1 ? "\"pool\":\"memory\""
                      : s < 5  ? "\"kubernetes.io/arch\":\"amd64\""
                               : NULL;
        x->zone_affinity = pick(5) == 0;
        x->gpu = pick(30) == 0;
        x->sidecar = pick(3) == 0;
        x->init = pick(4) == 0;
        x->priority = pick(10) == 0 ? 1000000 : pick(4) == 0 ? 1000 : 0;
        x->replicas = (size_t)((double)n_pods / hsum / (double)(i + 1));
        total += x->replicas;
    }
    for (size_t i = 0; total < n_pods; i = (i + 1) % n, total++)
        w[i].replicas++;
}

static void container(FILE *f, const char *name, const char *image, const char *cpu,
                      const char *mem, const char *token, bool sidecar)
{
    fprintf(f,
            "{\"image\":\"%s\",\"imagePullPolicy\":\"IfNotPresent\",\"name\":\"%s\","
            "\"ports\":[{\"containerPort\":8080,\"name\":\"http\",\"protocol\":\"TCP\"}],"
            "\"resources\":{",
            image, name);
    if (cpu != NULL)
        fprintf(f, "\"limits\":{\"memory\":\"%s\"},\"requests\":{\"cpu\":\"%s\",\"memory\":\"%s\"}",
                mem, cpu, mem);
    fprintf(f,
            "}%s,\"terminationMessagePath\":\"/dev/termination-log\","
            "\"terminationMessagePolicy\":\"File\",\"volumeMounts\":[{\"mountPath\":"
            "\"/var/run/secrets/kubernetes.io/serviceaccount\",\"name\":\"kube-api-access-%s\","
            "\"readOnly\":true}]}",
            sidecar ? ",\"restartPolicy\":\"Always\"" : "", token);
}

static void pod(FILE *f, const struct workload *w, unsigned k)
{
    char suffix[8], uid[40], token[8];
    static const char alnum[] = "bcdfghjklmnpqrstvwxz2456789";
    for (int i = 0; i < 5; i++)
        suffix[i] = alnum[pick(sizeof(alnum) - 1)];
    suffix[5] = '\0';
    for (int i = 0; i < 5; i++)
        token[i] = alnum[pick(sizeof(alnum) - 1)];
    token[5] = '\0';
    hexs(uid, 32);
    fprintf(f,
            "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"creationTimestamp\":"
            "\"2026-12-02T13:%02u:%02uZ\",\"generateName\":\"%s-%s-\",\"labels\":{\"app\":\"%s\","
            "\"pod-template-hash\":\"%s\",\"app.kubernetes.io/part-of\":\"shop\"},\"name\":"
            "\"%s-%s-%s\",\"namespace\":\"%s\",\"ownerReferences\":[{\"apiVersion\":\"apps/v1\","
            "\"blockOwnerDeletion\":true,\"controller\":true,\"kind\":\"ReplicaSet\",\"name\":"
            "\"%s-%s\",\"uid\":\"%.8s-%.4s-%.4s-%.4s-%.12s\"}],\"resourceVersion\":\"%u\",\"uid\":"
            "\"%.8s-%.4s-%.4s-%.4s-%.12s\"},\"spec\":{",
            k / 60 % 60, k % 60, w->name, w->hash, w->name, w->hash, w->name, w->hash, suffix,
            w->ns, w->name, w->hash, w->hash, w->hash, w->hash, w->hash, w->hash, 100000 + k, uid,
            uid + 8, uid + 12, uid + 16, uid + 20);
    if (w->zone_affinity)
        fprintf(f, "\"affinity\":{\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuring"
                   "Execution\":{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":"
                   "\"topology.kubernetes.io/zone\",\"operator\":\"In\",\"values\":["
                   "\"us-east-1a\",\"us-east-1b\"]}]}]}}},");
    fputs("\"containers\":[", f);
    char cpu[32], mem[32];
    if (unique_requests) {
        /* As bench-sim's unique: memory 4 KiB apart from pod to pod. */
        snprintf(cpu, sizeof(cpu), "%um", 1 + k * 7919u % 3989u);
        snprintf(mem, sizeof(mem), "%llu", 64ULL * 1024 * 1024 + 4096ULL * k);
    }
    container(f, "app", "registry.example.com/shop/app:v3.2.1", unique_requests ? cpu : w->cpu,
              unique_requests ? mem : w->mem, token, false);
    if (w->sidecar) {
        fputc(',', f);
        container(f, "envoy", "envoyproxy/envoy:v1.30.1", "100m", "128Mi", token, false);
    }
    fputs("],\"dnsPolicy\":\"ClusterFirst\",\"enableServiceLinks\":true,", f);
    if (w->init) {
        fputs("\"initContainers\":[", f);
        container(f, "migrate", "registry.example.com/shop/migrate:v3.2.1", "500m", "256Mi", token,
                  false);
        fputs("],", f);
    }
    if (w->selector != NULL)
        fprintf(f, "\"nodeSelector\":{%s},", w->selector);
    fprintf(
        f,
        "\"preemptionPolicy\":\"PreemptLowerPriority\",\"priority\":%d,%s\"restartPolicy\":"
        "\"Always\",\"schedulerName\":\"default-scheduler\",\"securityContext\":{},"
        "\"serviceAccount\":\"default\",\"serviceAccountName\":\"default\","
        "\"terminationGracePeriodSeconds\":30,\"tolerations\":[{\"effect\":\"NoExecute\","
        "\"key\":\"node.kubernetes.io/not-ready\",\"operator\":\"Exists\","
        "\"tolerationSeconds\":300},{\"effect\":\"NoExecute\",\"key\":"
        "\"node.kubernetes.io/unreachable\",\"operator\":\"Exists\",\"tolerationSeconds\":300}"
        "%s],\"volumes\":[{\"name\":\"kube-api-access-%s\",\"projected\":{\"defaultMode\":420,"
        "\"sources\":[{\"serviceAccountToken\":{\"expirationSeconds\":3607,\"path\":\"token\"}},"
        "{\"configMap\":{\"items\":[{\"key\":\"ca.crt\",\"path\":\"ca.crt\"}],\"name\":"
        "\"kube-root-ca.crt\"}},{\"downwardAPI\":{\"items\":[{\"fieldRef\":{\"apiVersion\":"
        "\"v1\",\"fieldPath\":\"metadata.namespace\"},\"path\":\"namespace\"}]}}]}}]},"
        "\"status\":{\"conditions\":[{\"lastProbeTime\":null,\"lastTransitionTime\":"
        "\"2026-12-02T13:00:00Z\",\"message\":\"0/5000 nodes are available: preemption: "
        "0/5000 nodes are available.\",\"reason\":\"Unschedulable\",\"status\":\"False\","
        "\"type\":\"PodScheduled\"}],\"phase\":\"Pending\",\"qosClass\":\"%s\"}}",
        w->priority, w->priority >= 1000000 ? "\"priorityClassName\":\"critical\"," : "",
        w->gpu ? ",{\"effect\":\"NoSchedule\",\"key\":\"nvidia.com/gpu\",\"operator\":"
                 "\"Exists\"}"
               : "",
        token, w->cpu != NULL || unique_requests ? "Burstable" : "BestEffort");
}

static int write_pods(const char *dir, unsigned n, size_t n_work)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/sim-pods-%u%s.json", dir, n, unique_requests ? "-unique" : "");
    struct workload *w = calloc(n_work, sizeof(*w));
    size_t *left = calloc(n_work, sizeof(*left));
    FILE *f = fopen(path, "w");
    if (w == NULL || left == NULL || f == NULL) {
        free(w);
        free(left);
        if (f != NULL)
            fclose(f);
        return -1;
    }
    rng = 0x9e3779b97f4a7c15ULL ^ n;
    workloads(w, n_work, n);
    for (size_t i = 0; i < n_work; i++)
        left[i] = w[i].replicas;
    fprintf(f, "{\"apiVersion\":\"v1\",\"items\":[");
    /* Interleaved, as pods of many rollouts arrive together. */
    for (unsigned k = 0; k < n; k++) {
        size_t i = pick((unsigned)n_work);
        while (left[i] == 0)
            i = (i + 1) % n_work;
        left[i]--;
        fputs(k ? "," : "", f);
        pod(f, &w[i], k);
    }
    fprintf(f, "],\"kind\":\"List\",\"metadata\":{\"resourceVersion\":\"\"}}\n");
    free(w);
    free(left);
    return fclose(f) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: bench-sim-gen DIR NODES PODS [WORKLOADS [unique]]\n");
        return 2;
    }
    unsigned nodes = (unsigned)strtoul(argv[2], NULL, 10);
    unsigned pods = (unsigned)strtoul(argv[3], NULL, 10);
    size_t work = argc > 4 ? strtoul(argv[4], NULL, 10) : 150;
    unique_requests = argc > 5 && strcmp(argv[5], "unique") == 0;
    if (nodes == 0 || work == 0 || write_nodes(argv[1], nodes) != 0 ||
        write_pods(argv[1], pods, work) != 0) {
        fprintf(stderr, "bench-sim-gen: cannot write %s/sim-*.json\n", argv[1]);
        return 1;
    }
    return 0;
}

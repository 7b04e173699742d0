/*
 * bench-apiserver: a kube-apiserver for the cluster-state benchmark, the
 * fake of tests/support/fake_apiserver.c filled with a cluster.
 *
 *   bench-apiserver CERT KEY TOKEN NODES PODS_PER_NODE [LIFETIME_SECONDS [EVENTS_PER_SECOND]]
 *
 * Serves HTTPS on 127.0.0.1 (a free port) with CERT/KEY, accepting bearer
 * TOKEN. Stores NODES nodes named node-00000, node-00001, ... (the names
 * bench-gen puts in names-N.json) with a kubelet's allocatable (4 to 32
 * CPUs less 80m, 4 GiB per CPU less the kubelet's reserve), and
 * PODS_PER_NODE pods for each: 1-3 containers (one in ten with an init
 * container, one in twelve without requests), requests that fill the node
 * to 20-90 %, 3 % pending (no node), 5 % terminal (Succeeded or Failed),
 * and each node's metrics.k8s.io usage: 60 % of what its pods request,
 * one sample taken at the start (its age grows as the process runs).
 * Output is deterministic (fixed seed). With EVENTS_PER_SECOND (default 0),
 * once the cluster is stored, pods come and go at that rate (each event an
 * ADDED or a DELETED on the pod watch: a pod of 100m and 128Mi put on a
 * node drawn at random, deleted CHURN_KEEP events later), so that the
 * state's writer runs while requests read it, as in a busy cluster; the
 * events sent are said on stderr at the end.
 *
 * Prints "port=N" on stdout once every object is stored, a summary on
 * stderr, then serves until SIGTERM, SIGINT or SIGHUP, the death of its
 * parent, or LIFETIME_SECONDS (default 3600): a benchmark that dies cannot
 * leave it behind. Only 127.0.0.1 is served; nothing is contacted.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sys/prctl.h>

#include "bench/rng.h"
#include "tests/support/fake_apiserver.h"

#define MAX_NODES 100000
#define MAX_PODS  110 /* per node, the kubelet's default maxPods */
#define JSON_LEN  8192
/* How many churn pods live at once: each is deleted this many events after
 * it was added. */
#define CHURN_KEEP 200
#define MAX_RATE   10000

static const char *const namespaces[] = {"shop",    "payments", "search",  "identity",
                                         "ingress", "logging",  "metrics", "batch",
                                         "ml",      "data",     "web",     "api"};
static const char *const apps[] = {"web",    "cart",   "checkout", "catalog", "auth",
                                   "worker", "envoy",  "indexer",  "feeds",   "reports",
                                   "ingest", "notify", "gateway",  "profile", "ranker"};
static const char *const sidecars[] = {"envoy", "fluent-bit", "otel-agent"};

static void hex(char *out, int n)
{
    for (int i = 0; i < n; i++)
        out[i] = "0123456789abcdef"[pick(16)];
    out[n] = '\0';
}

/* A pod name's random suffix, as a ReplicaSet makes them. */
static void suffix(char *out, int n)
{
    for (int i = 0; i < n; i++)
        out[i] = "bcdfghjklmnpqrstvwxz2456789"[pick(27)];
    out[n] = '\0';
}

/* Appends to @buf (@cap bytes) at *@len; a result that does not fit is
 * caught by the caller through *@len >= @cap. */
__attribute__((format(printf, 4, 5))) static void add(char *buf, size_t cap, size_t *len,
                                                      const char *fmt, ...)
{
    va_list ap;
    if (*len >= cap)
        return;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *len, cap - *len, fmt, ap);
    va_end(ap);
    *len += n > 0 ? (size_t)n : 0;
}

/* CPU as a Kubernetes Quantity: whole cores without a suffix, else millicores. */
static void cpu_text(char *out, size_t n, int64_t milli)
{
    if (milli % 1000 == 0)
        snprintf(out, n, "%lld", (long long)(milli / 1000));
    else
        snprintf(out, n, "%lldm", (long long)milli);
}

/* Memory as a Kubernetes Quantity: Gi when whole, else Mi. */
static void mem_text(char *out, size_t n, int64_t mib)
{
    if (mib % 1024 == 0)
        snprintf(out, n, "%lldGi", (long long)(mib / 1024));
    else
        snprintf(out, n, "%lldMi", (long long)mib);
}

struct node_size {
    int64_t cpu_milli; /* allocatable */
    int64_t mem_mib;
};

static int put_node(struct fake_apiserver *f, unsigned i, struct node_size *size)
{
    static const int cpus[] = {4, 8, 16, 32};
    char json[JSON_LEN], id[18];
    size_t len = 0;
    int cpu = cpus[pick(4)];
    unsigned zone = pick(3);
    int64_t mem_ki = (int64_t)cpu * 4 * 1024 * 1024 - 500000 - pick(100000);

    size->cpu_milli = (int64_t)cpu * 1000 - 80;
    size->mem_mib = mem_ki / 1024;
    hex(id, 17);
    add(json, sizeof(json), &len,
        "{\"metadata\":{\"name\":\"node-%05u\",\"labels\":{\"kubernetes.io/arch\":\"amd64\","
        "\"kubernetes.io/hostname\":\"node-%05u\",\"kubernetes.io/os\":\"linux\","
        "\"node.kubernetes.io/instance-type\":\"m5.%dxlarge\","
        "\"topology.kubernetes.io/region\":\"us-east-1\","
        "\"topology.kubernetes.io/zone\":\"us-east-1%c\",\"node-role.kubernetes.io/worker\":\"\"},"
        "\"annotations\":{\"node.alpha.kubernetes.io/ttl\":\"0\","
        "\"volumes.kubernetes.io/controller-managed-attach-detach\":\"true\"}},"
        "\"spec\":{\"podCIDR\":\"10.%u.%u.0/24\",\"providerID\":\"aws:///us-east-1%c/i-%s\"},",
        i, i, cpu / 4, 'a' + (int)zone, i / 256 % 256, i % 256, 'a' + (int)zone, id);
    add(json, sizeof(json), &len,
        "\"status\":{\"capacity\":{\"cpu\":\"%d\",\"ephemeral-storage\":\"101430960Ki\","
        "\"hugepages-1Gi\":\"0\",\"hugepages-2Mi\":\"0\",\"memory\":\"%lldKi\",\"pods\":\"110\"},"
        "\"allocatable\":{\"cpu\":\"%lldm\",\"ephemeral-storage\":\"93478772582\","
        "\"hugepages-1Gi\":\"0\",\"hugepages-2Mi\":\"0\",\"memory\":\"%lldKi\",\"pods\":\"110\"},"
        "\"conditions\":[{\"type\":\"MemoryPressure\",\"status\":\"False\"},"
        "{\"type\":\"DiskPressure\",\"status\":\"False\"},{\"type\":\"PIDPressure\","
        "\"status\":\"False\"},{\"type\":\"Ready\",\"status\":\"True\","
        "\"reason\":\"KubeletReady\"}],\"addresses\":[{\"type\":\"InternalIP\","
        "\"address\":\"10.0.%u.%u\"},{\"type\":\"Hostname\",\"address\":\"node-%05u\"}],"
        "\"nodeInfo\":{\"kubeletVersion\":\"v1.31.0\",\"containerRuntimeVersion\":"
        "\"containerd://1.7.20\",\"osImage\":\"Debian GNU/Linux 12 (bookworm)\","
        "\"architecture\":\"amd64\",\"operatingSystem\":\"linux\"}}}",
        cpu, (long long)mem_ki + 1000000, (long long)size->cpu_milli, (long long)mem_ki,
        i / 256 % 256, i % 256, i);
    if (len >= sizeof(json))
        return -ENOBUFS;
    return fake_put(f, FAKE_NODE, json, NULL);
}

/* One container with requests (and limits) of about @cpu_milli and @mem_mib,
 * or none at all (BestEffort) when @cpu_milli is 0. */
static void container(char *json, size_t cap, size_t *len, const char *name, const char *image,
                      int64_t cpu_milli, int64_t mem_mib)
{
    char cpu[32], mem[32], cpu_lim[32], mem_lim[32];

    add(json, cap, len, "{\"name\":\"%s\",\"image\":\"registry.example.com/%s:v%u.%u.%u\",", name,
        image, pick(4), pick(20), pick(30));
    if (cpu_milli == 0) {
        add(json, cap, len, "\"resources\":{}}");
        return;
    }
    cpu_text(cpu, sizeof(cpu), cpu_milli);
    mem_text(mem, sizeof(mem), mem_mib);
    cpu_text(cpu_lim, sizeof(cpu_lim), cpu_milli * 2);
    mem_text(mem_lim, sizeof(mem_lim), mem_mib * 2);
    add(json, cap, len,
        "\"ports\":[{\"containerPort\":%u,\"protocol\":\"TCP\"}],"
        "\"resources\":{\"limits\":{\"cpu\":\"%s\",\"memory\":\"%s\"},"
        "\"requests\":{\"cpu\":\"%s\",\"memory\":\"%s\"}},"
        "\"terminationMessagePolicy\":\"File\",\"imagePullPolicy\":\"IfNotPresent\"}",
        8000 + pick(1000), cpu_lim, mem_lim, cpu, mem);
}

/* Rounds @v to a multiple of @step, at least @step. */
static int64_t round_to(int64_t v, int64_t step)
{
    v = (v + step / 2) / step * step;
    return v < step ? step : v;
}

struct pod_counts {
    unsigned running, pending, terminal, containers;
};

/* Pod @k of node @i: its share of @budget_* (the part of the node the
 * node's pods request), split among 1-3 containers. */
static int put_pod(struct fake_apiserver *f, unsigned i, unsigned k, int64_t budget_cpu,
                   int64_t budget_mem, struct pod_counts *c)
{
    char json[JSON_LEN], uid[5][13], hash[11], sfx[6], node[32];
    size_t len = 0;
    const char *ns = namespaces[pick(sizeof(namespaces) / sizeof(namespaces[0]))];
    const char *app = apps[pick(sizeof(apps) / sizeof(apps[0]))];
    unsigned roll = pick(100), n_containers = 1 + pick(3);
    const char *phase = roll < 3   ? "Pending"
                        : roll < 6 ? "Succeeded"
                        : roll < 8 ? "Failed"
                                   : "Running";
    int64_t cpu = budget_cpu * (50 + pick(101)) / 100, mem = budget_mem * (50 + pick(101)) / 100;

    hex(uid[0], 8);
    hex(uid[1], 4);
    hex(uid[2], 3);
    hex(uid[3], 4);
    hex(uid[4], 12);
    hex(hash, 10);
    suffix(sfx, 5);
    node[0] = '\0';
    if (roll >= 3)
        snprintf(node, sizeof(node), "node-%05u", i);
    add(json, sizeof(json), &len,
        "{\"metadata\":{\"name\":\"%s-%s-%s\",\"namespace\":\"%s\","
        "\"uid\":\"%s-%s-4%s-%s-%s\",\"labels\":{\"app\":\"%s\",\"pod-template-hash\":\"%s\"},"
        "\"ownerReferences\":[{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\","
        "\"name\":\"%s-%s\",\"uid\":\"%s-0000-4000-8000-%s\",\"controller\":true,"
        "\"blockOwnerDeletion\":true}]},\"spec\":{\"nodeName\":\"%s\",",
        app, hash, sfx, ns, uid[0], uid[1], uid[2], uid[3], uid[4], app, hash, app, hash, uid[0],
        uid[4], node);
    if (pick(10) == 0) {
        add(json, sizeof(json), &len, "\"initContainers\":[");
        container(json, sizeof(json), &len, "migrate", app, round_to(cpu, 50), round_to(mem, 16));
        add(json, sizeof(json), &len, "],");
    }
    add(json, sizeof(json), &len, "\"containers\":[");
    for (unsigned j = 0; j < n_containers; j++) {
        /* The app takes most of the pod's share, sidecars the rest. */
        int64_t share = j == 0 ? (n_containers == 1 ? 100 : 80) : 20 / (int64_t)(n_containers - 1);
        bool best_effort = pick(12) == 0;
        if (j > 0)
            add(json, sizeof(json), &len, ",");
        container(json, sizeof(json), &len, j == 0 ? app : sidecars[j - 1],
                  j == 0 ? app : sidecars[j - 1], best_effort ? 0 : round_to(cpu * share / 100, 10),
                  round_to(mem * share / 100, 16));
    }
    add(json, sizeof(json), &len,
        "],\"restartPolicy\":\"Always\",\"schedulerName\":\"default-scheduler\","
        "\"serviceAccountName\":\"default\",\"priority\":0,\"tolerations\":["
        "{\"key\":\"node.kubernetes.io/not-ready\",\"operator\":\"Exists\",\"effect\":"
        "\"NoExecute\",\"tolerationSeconds\":300},{\"key\":\"node.kubernetes.io/unreachable\","
        "\"operator\":\"Exists\",\"effect\":\"NoExecute\",\"tolerationSeconds\":300}]},"
        "\"status\":{\"phase\":\"%s\",\"qosClass\":\"Burstable\"",
        phase);
    if (node[0] != '\0')
        add(json, sizeof(json), &len,
            ",\"hostIP\":\"10.0.%u.%u\",\"podIP\":\"10.%u.%u.%u\","
            "\"startTime\":\"2026-12-01T0%u:00:00Z\"",
            i / 256 % 256, i % 256, i / 256 % 256, i % 256, 2 + k, pick(10));
    add(json, sizeof(json), &len, "}}");
    if (len >= sizeof(json))
        return -ENOBUFS;
    c->pending += roll < 3;
    c->terminal += roll >= 3 && roll < 8;
    c->running += roll >= 8;
    c->containers += n_containers;
    return fake_put(f, FAKE_POD, json, NULL);
}

static int fill(struct fake_apiserver *f, unsigned nodes, unsigned pods, struct pod_counts *c)
{
    for (unsigned i = 0; i < nodes; i++) {
        struct node_size size;
        int rc = put_node(f, i, &size);
        if (rc != 0)
            return rc;
        /* The node's pods request 20-90 % of it, in shares of about
         * budget/pods each (50-150 % of that). */
        unsigned fill_percent = 20 + pick(71);
        int64_t budget_cpu = size.cpu_milli * fill_percent / 100 / (pods > 0 ? pods : 1);
        int64_t budget_mem = size.mem_mib * fill_percent / 100 / (pods > 0 ? pods : 1);
        for (unsigned k = 0; k < pods; k++) {
            rc = put_pod(f, i, k, budget_cpu, budget_mem, c);
            if (rc != 0)
                return rc;
        }
        /* Usage from what is already drawn: no draw of its own, so the
         * cluster stays the one the fixed seed has always made. */
        char name[32], cpu[32], mem[32];
        snprintf(name, sizeof(name), "node-%05u", i);
        snprintf(cpu, sizeof(cpu), "%lldm",
                 (long long)(size.cpu_milli * fill_percent * 60 / 10000));
        snprintf(mem, sizeof(mem), "%lldMi", (long long)(size.mem_mib * fill_percent * 60 / 10000));
        rc = fake_set_node_metrics(f, name, cpu, mem);
        if (rc != 0)
            return rc;
    }
    char ts[32];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
    fake_set_metrics_time(f, ts, "20s");
    return 0;
}

struct churn {
    struct fake_apiserver *f;
    unsigned nodes, rate;
    atomic_bool stop;
    unsigned long events, failed;
};

/* Pods that come and go at c->rate events per second until c->stop. */
static void *churn_run(void *arg)
{
    struct churn *c = arg;
    struct timespec next;
    char json[512], name[32];
    unsigned long added = 0, deleted = 0;

    clock_gettime(CLOCK_MONOTONIC, &next);
    while (!atomic_load(&c->stop)) {
        int rc;
        /* Oldest first, every one of them: at most CHURN_KEEP live. */
        if (added - deleted >= CHURN_KEEP && c->events % 2 == 1) {
            snprintf(name, sizeof(name), "churn-%lu", deleted++);
            rc = fake_delete(c->f, FAKE_POD, "churn", name, NULL);
        } else {
            snprintf(json, sizeof(json),
                     "{\"metadata\":{\"name\":\"churn-%lu\",\"namespace\":\"churn\"},"
                     "\"spec\":{\"nodeName\":\"node-%05u\",\"containers\":[{\"name\":\"c\","
                     "\"resources\":{\"requests\":{\"cpu\":\"100m\",\"memory\":\"128Mi\"}}}]},"
                     "\"status\":{\"phase\":\"Running\"}}",
                     added++, pick(c->nodes));
            rc = fake_put(c->f, FAKE_POD, json, NULL);
        }
        c->events++;
        c->failed += rc != 0;
        long step = 1000000000L / (long)c->rate;
        next.tv_nsec += step;
        while (next.tv_nsec >= 1000000000L) {
            next.tv_nsec -= 1000000000L;
            next.tv_sec++;
        }
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
    }
    return NULL;
}

static int parse_uint(const char *s, unsigned max, unsigned *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v > max)
        return -EINVAL;
    *out = (unsigned)v;
    return 0;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    struct fake_apiserver *f = NULL;
    struct pod_counts counts = {0};
    unsigned nodes, pods, lifetime = 3600, rate = 0;
    struct churn churn = {0};
    pthread_t churn_thread;
    sigset_t stop;
    int rc;

    if (argc < 6 || argc > 8 || parse_uint(argv[4], MAX_NODES, &nodes) != 0 ||
        parse_uint(argv[5], MAX_PODS, &pods) != 0 ||
        (argc >= 7 && parse_uint(argv[6], 86400, &lifetime) != 0) ||
        (argc == 8 && parse_uint(argv[7], MAX_RATE, &rate) != 0)) {
        fprintf(stderr, "usage: bench-apiserver CERT KEY TOKEN NODES PODS_PER_NODE "
                        "[LIFETIME_SECONDS [EVENTS_PER_SECOND]]\n");
        return 2;
    }
    /* Blocked before the server's threads start, so that they never take
     * them; the parent's death is one of them. */
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGHUP);
    if (pthread_sigmask(SIG_BLOCK, &stop, NULL) != 0 || signal(SIGPIPE, SIG_IGN) == SIG_ERR ||
        prctl(PR_SET_PDEATHSIG, SIGTERM) == -1) {
        perror("bench-apiserver: signals");
        return 1;
    }
    double t0 = now_s();
    struct fake_params p = {.cert_file = argv[1], .key_file = argv[2], .token = argv[3]};
    rc = fake_start(&p, &f);
    if (rc != 0) {
        fprintf(stderr, "bench-apiserver: cannot start: %s\n", strerror(-rc));
        return 1;
    }
    /* While storing (minutes for a big cluster) they end the process at
     * once: there is nothing to clean up yet that the kernel does not. */
    pthread_sigmask(SIG_UNBLOCK, &stop, NULL);
    rc = fill(f, nodes, pods, &counts);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    if (rc != 0) {
        fprintf(stderr, "bench-apiserver: cannot store the cluster: %s\n", strerror(-rc));
        goto out_stop;
    }
    fprintf(stderr,
            "bench-apiserver: %u nodes, %u pods (%u running, %u pending, %u terminal, %u "
            "containers) stored in %.1f s\n",
            nodes, nodes * pods, counts.running, counts.pending, counts.terminal, counts.containers,
            now_s() - t0);
    churn = (struct churn){.f = f, .nodes = nodes, .rate = rate};
    bool churning =
        rate > 0 && nodes > 0 && pthread_create(&churn_thread, NULL, churn_run, &churn) == 0;
    double churn_start = now_s();
    printf("port=%d\n", fake_port(f));
    fflush(stdout);

    struct timespec wait = {.tv_sec = lifetime};
    if (sigtimedwait(&stop, NULL, &wait) == -1 && errno == EAGAIN)
        fprintf(stderr, "bench-apiserver: lifetime of %u s is over\n", lifetime);
    if (churning) {
        atomic_store(&churn.stop, true);
        pthread_join(churn_thread, NULL);
        double secs = now_s() - churn_start;
        fprintf(stderr, "bench-apiserver: %lu pod events in %.1f s (%.0f per second, %lu failed)\n",
                churn.events, secs, secs > 0 ? (double)churn.events / secs : 0, churn.failed);
    }
out_stop:
    fake_stop(f);
    return rc == 0 ? 0 : 1;
}

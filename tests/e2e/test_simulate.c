/*
 * `cpu-extender simulate`, the real binary on files: placements worked out
 * by hand from the rules (README "How scores are computed": spread, pack,
 * balanced, target; weights cpu 3, memory 1; integer division throughout;
 * score = (value + 5) / 10) and compared to the last integer, the summary's
 * figures, and every malformed input refused with its file, object and
 * field, nothing placed (no CSV written) from a file that fails.
 */
#include <check.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/suites.h"
#include "tests/support/fixtures.h"
#include "tests/support/server_proc.h"

/* A directory of one test's files. */
struct simdir {
    char path[64];
};

static void dir_make(struct simdir *d)
{
    snprintf(d->path, sizeof(d->path), "/tmp/simulate-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(d->path));
}

static void dir_remove(struct simdir *d)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d->path);
    ck_assert_int_eq(system(cmd), 0);
}

static const char *at(const struct simdir *d, const char *name, char *buf, size_t n)
{
    snprintf(buf, n, "%s/%s", d->path, name);
    return buf;
}

static void put(const struct simdir *d, const char *name, const char *text)
{
    char path[128];
    FILE *f = fopen(at(d, name, path, sizeof(path)), "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

/* Runs `cpu-extender simulate` in @d with @args (printf-style; file names
 * are relative to @d); stdout in *@out, stderr in *@err (malloc'd).
 * Returns the exit status. */
static int simulate(const struct simdir *d, char **out, char **err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int simulate(const struct simdir *d, char **out, char **err, const char *fmt, ...)
{
    char args[1024], cmd[6144];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof(args), fmt, ap);
    va_end(ap);
    /* the binary's path may be relative to the repository root; the run is in @d */
    char abs[4096];
    ck_assert_ptr_nonnull(realpath(server_binary(), abs));
    snprintf(cmd, sizeof(cmd),
             "cd '%s' && env -u KUBECONFIG -u KUBERNETES_SERVICE_HOST HOME=/nonexistent '%s' "
             "simulate %s >stdout 2>stderr",
             d->path, abs, args);
    int rc = system(cmd);
    ck_assert_msg(WIFEXITED(rc), "%s: killed", cmd);
    char path[128];
    size_t len;
    *out = file_slurp(at(d, "stdout", path, sizeof(path)), &len);
    *err = file_slurp(at(d, "stderr", path, sizeof(path)), &len);
    return WEXITSTATUS(rc);
}

/* The CSV row of @pod under @strategy in @csv: "node,value,score". */
static void expect_row(const char *csv, const char *strategy, const char *pod, const char *want)
{
    char key[128], line[256];
    snprintf(key, sizeof(key), "\n%s,%s,", strategy, pod);
    const char *p = strstr(csv, key);
    ck_assert_msg(p != NULL, "no row for %s %s in:\n%s", strategy, pod, csv);
    p += strlen(key);
    size_t n = strcspn(p, "\n");
    snprintf(line, sizeof(line), "%.*s", (int)n, p);
    ck_assert_msg(strcmp(line, want) == 0, "%s %s: got %s, want %s", strategy, pod, line, want);
}

static char *read_in(const struct simdir *d, const char *name)
{
    char path[128];
    size_t len;
    return file_slurp(at(d, name, path, sizeof(path)), &len);
}

static bool exists(const struct simdir *d, const char *name)
{
    char path[128];
    struct stat st;
    return stat(at(d, name, path, sizeof(path)), &st) == 0;
}

/* A Node object as kubectl prints it, with only what the model reads. */
static char *node(const char *name, const char *cpu, const char *mem, const char *pods,
                  const char *labels, const char *spec)
{
    char *s;
    ck_assert_int_ge(asprintf(&s,
                              "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":"
                              "\"%s\",\"labels\":{%s}},\"spec\":{%s},\"status\":{\"allocatable\":"
                              "{\"cpu\":\"%s\",\"memory\":\"%s\",\"pods\":\"%s\"}}}",
                              name, labels, spec, cpu, mem, pods),
                     0);
    return s;
}

/* A pending pod with one container requesting @cpu and @mem, and @spec
 * members before it (with their comma). */
static char *pod(const char *name, const char *cpu, const char *mem, const char *spec)
{
    char *s;
    ck_assert_int_ge(asprintf(&s,
                              "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":"
                              "\"%s\",\"namespace\":\"t\"},\"spec\":{%s\"containers\":[{\"name\":"
                              "\"c\",\"resources\":{\"requests\":{\"cpu\":\"%s\",\"memory\":"
                              "\"%s\"}}}]},\"status\":{\"phase\":\"Pending\"}}",
                              name, spec, cpu, mem),
                     0);
    return s;
}

/* A List of @n objects (taken and freed). */
static char *list(size_t n, ...)
{
    size_t cap = 64, len = 0;
    char *out = malloc(cap);
    va_list ap;
    va_start(ap, n);
    len += (size_t)sprintf(out, "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[");
    for (size_t i = 0; i < n; i++) {
        char *item = va_arg(ap, char *);
        size_t k = strlen(item);
        out = realloc(out, cap = len + k + 64);
        len += (size_t)sprintf(out + len, "%s%s", i ? ",\n" : "\n", item);
        free(item);
    }
    va_end(ap);
    sprintf(out + len, "]}\n");
    return out;
}

/*
 * Three nodes: n-a and n-b 4 CPU / 8Gi, n-c 2 CPU / 4Gi; four pods in order:
 * p1 1 CPU / 1Gi, p2 1 CPU / 1Gi, p3 2 CPU / 2Gi, p4 8 CPU / 1Gi (fits
 * nowhere). Per pod the winner's value (the others' in brackets):
 *
 * spread, term (alloc - req) * 100 / alloc:
 *   p1  n-a (4000-1000)*100/4000 = 75, (8-1)/8 = 87; (3*75 + 87)/4 = 78
 *       [n-b 78: a tie, the first name wins; n-c 50, 75 -> 56]       n-a 78 8
 *   p2  n-b 78 [n-a 50, 75 -> 56; n-c 56]                             n-b 78 8
 *   p3  n-a req 3000, 3Gi: 25, 62 -> (75 + 62)/4 = 34 [n-b 34 tie;
 *       n-c req 2000, 2Gi: 0, 50 -> 12]                               n-a 34 3
 *   p4  0/3 nodes are available: 3 Insufficient cpu.
 * pack, term min(req, alloc) * 100 / alloc:
 *   p1  n-c 50, 25 -> (150 + 25)/4 = 43 [n-a, n-b 25, 12 -> 21]       n-c 43 4
 *   p2  n-c req 2000, 2Gi: 100, 50 -> 87: n-c fills to its last millicore
 *                                                                     n-c 87 9
 *   p3  n-c full (2000 + 2000 > 2000); n-a 50, 25 -> 43, n-b 43: tie  n-a 43 4
 * balanced, (1 - |fcpu - fmem| / 2) * 100 on real requests:
 *   p1  n-a 0.25, 0.125 -> 93.75 = 93 [n-b 93 tie; n-c 0.5, 0.25 -> 87]
 *                                                                     n-a 93 9
 *   p2  n-b 93 [n-a 0.5, 0.25 -> 87]                                  n-b 93 9
 *   p3  n-a 0.75, 0.375 -> 81.25 = 81 [n-b 81 tie; n-c 1, 0.5 -> 75]  n-a 81 8
 * target 60, p = req*100/alloc; p <= 60: 60 + 40*p/60, else 60*(100-p)/40:
 *   p1  n-c p 50 -> 60 + 2000/60 = 93, p 25 -> 76; (279 + 76)/4 = 88
 *       [n-a p 25 -> 76, p 12 -> 68; (228 + 68)/4 = 74]               n-c 88 9
 *   p2  n-c p 100 -> 0, p 50 -> 93; 93/4 = 23 [n-a 74, n-b 74]        n-a 74 7
 *   p3  n-a req 3000, 3Gi: p 75 -> 60*25/40 = 37, p 37 -> 60 + 1480/60
 *       = 84; (111 + 84)/4 = 48 [n-b p 50 -> 93, p 25 -> 76: 88;
 *       n-c full]                                                     n-b 88 9
 */
START_TEST(simulate_hand_worked_under_each_strategy)
{
    struct simdir d;
    char *out, *err;
    dir_make(&d);
    char *nodes =
        list(3, node("n-a", "4", "8Gi", "110", "", ""),
             node("n-b", "4000m", "8192Mi", "110", "", ""), node("n-c", "2", "4Gi", "110", "", ""));
    char *pods = list(4, pod("p1", "1", "1Gi", ""), pod("p2", "1000m", "1Gi", ""),
                      pod("p3", "2", "2Gi", ""), pod("p4", "8", "1Gi", ""));
    put(&d, "nodes.json", nodes);
    put(&d, "pods.json", pods);
    ck_assert_int_eq(
        simulate(&d, &out, &err, "--nodes nodes.json --pods pods.json --placements p.csv"), 3);
    char *csv = read_in(&d, "p.csv");
    ck_assert_msg(strncmp(csv, "strategy,pod,node,value,score\n", 30) == 0, "%s", csv);
    expect_row(csv, "spread", "t/p1", "n-a,78,8");
    expect_row(csv, "spread", "t/p2", "n-b,78,8");
    expect_row(csv, "spread", "t/p3", "n-a,34,3");
    expect_row(csv, "spread", "t/p4", ",,");
    expect_row(csv, "pack", "t/p1", "n-c,43,4");
    expect_row(csv, "pack", "t/p2", "n-c,87,9");
    expect_row(csv, "pack", "t/p3", "n-a,43,4");
    expect_row(csv, "pack", "t/p4", ",,");
    expect_row(csv, "balanced", "t/p1", "n-a,93,9");
    expect_row(csv, "balanced", "t/p2", "n-b,93,9");
    expect_row(csv, "balanced", "t/p3", "n-a,81,8");
    expect_row(csv, "target", "t/p1", "n-c,88,9");
    expect_row(csv, "target", "t/p2", "n-a,74,7");
    expect_row(csv, "target", "t/p3", "n-b,88,9");
    expect_row(csv, "target", "t/p4", ",,");
    /* one row per pod and strategy, in placement order */
    size_t lines = 0;
    for (const char *c = csv; *c; c++)
        lines += *c == '\n';
    ck_assert_uint_eq(lines, 1 + 4 * 4);
    ck_assert_msg(strstr(csv, "spread,t/p1,n-a,78,8\nspread,t/p2,") != NULL, "%s", csv);
    /* the pod that fits nowhere, with kube-scheduler's message, under each */
    ck_assert_msg(strstr(out, "not placed under pack (1):\n  1 pod: 0/3 nodes are available: 3 "
                              "Insufficient cpu.\n      t/p4\n") != NULL,
                  "%s", out);
    /* the nodes used, from the placements above: n-a and n-b (spread,
     * balanced), n-c and n-a (pack), all three (target) */
    ck_assert_msg(strstr(out, "nodes used                               2         2         2  "
                              "       3\n") != NULL,
                  "%s", out);
    free(csv);
    free(out);
    free(err);

    /* one strategy: every pod but p4 placed, still exit 3; the normalised
     * score of each winner is 10 (it is the best of its candidates) */
    ck_assert_int_eq(simulate(&d, &out, &err,
                              "--nodes nodes.json --pods pods.json --strategy pack --normalize "
                              "--placements p.csv"),
                     3);
    csv = read_in(&d, "p.csv");
    expect_row(csv, "pack", "t/p2", "n-c,87,10");
    ck_assert_ptr_null(strstr(csv, "spread,"));
    free(csv);
    free(out);
    free(err);
    /* without p4 everything fits: exit 0 */
    free(pods);
    pods = list(1, pod("p1", "1", "1Gi", ""));
    put(&d, "pods.json", pods);
    ck_assert_int_eq(simulate(&d, &out, &err, "--nodes nodes.json --pods pods.json"), 0);
    ck_assert_msg(strstr(out, "every pod placed under every strategy") != NULL, "%s", out);
    free(out);
    free(err);
    free(pods);
    free(nodes);
    dir_remove(&d);
}
END_TEST

/*
 * Pod count, taints, unschedulable, existing pods and the effective request:
 *   w1  4 CPU, 8Gi, pods "2", one pod bound already (500m, 512Mi)
 *   w2  8 CPU, 16Gi, tainted dedicated=batch:NoSchedule
 *   w3  8 CPU, 16Gi, cordoned (spec.unschedulable)
 *   w4  2 CPU, 4Gi
 * q1: a sidecar (250m, 128Mi, an init container with restartPolicy Always)
 *     before an init container (1500m, 256Mi), one container (500m, 512Mi):
 *     cpu max(500 + 250, 1500 + 250) = 1750m, memory max(512 + 128,
 *     256 + 128) = 640Mi.
 * spread:
 *   q1  w1: (4000-2250)*100/4000 = 43, (8192-1152)*100/8192 = 85;
 *       (129 + 85)/4 = 53 [w4: 12, 84 -> 30; w2 tainted; w3 cordoned]  w1 53 5
 *   q2  500m/512Mi: w1 has 2 of 2 pods; w4 75, 87 -> 78               w4 78 8
 *   q3  4 CPU/1Gi, tolerates the taint: w2 50, 93 -> 60               w2 60 6
 *   q4  500m/128Mi: w4 (2000-1000)*100/2000 = 50, (4096-640)*100/4096
 *       = 84; (150 + 84)/4 = 58                                       w4 58 6
 *   q5  1500m/128Mi: 0/4 nodes are available: 1 Insufficient cpu, 1 Too
 *       many pods, 1 node(s) had untolerated taint {dedicated: batch}, 1
 *       node(s) were unschedulable.
 * At the end the median pod to place (cpu 500, 500, 1500, 1750, 4000 ->
 * 1500m; memory 128, 128, 512, 640, 1024 Mi -> 512Mi) fits on w2 and w3
 * but not on w1 (no pod room) nor w4 (1000 + 1500 > 2000): stranded are
 * w1's 1750m and 7040Mi and w4's 1000m and 3456Mi: 2.75 CPUs, 10.25Gi.
 */
START_TEST(simulate_hand_worked_constraints_and_requests)
{
    struct simdir d;
    char *out, *err;
    dir_make(&d);
    char *nodes = list(4, node("w1", "4", "8Gi", "2", "", ""),
                       node("w2", "8", "16Gi", "110", "",
                            "\"taints\":[{\"key\":\"dedicated\",\"value\":\"batch\",\"effect\":"
                            "\"NoSchedule\"}]"),
                       node("w3", "8", "16Gi", "110", "", "\"unschedulable\":true"),
                       node("w4", "2", "4Gi", "110", "", ""));
    char *existing =
        list(2,
             strdup("{\"metadata\":{\"name\":\"old\",\"namespace\":\"t\",\"uid\":\"u1\"},"
                    "\"spec\":{\"nodeName\":\"w1\",\"containers\":[{\"resources\":{"
                    "\"requests\":{\"cpu\":\"500m\",\"memory\":\"512Mi\"}}}]},"
                    "\"status\":{\"phase\":\"Running\"}}"),
             /* finished: charged to nothing */
             strdup("{\"metadata\":{\"name\":\"done\",\"namespace\":\"t\"},\"spec\":{"
                    "\"nodeName\":\"w4\",\"containers\":[{\"resources\":{\"requests\""
                    ":{\"cpu\":\"2\"}}}]},\"status\":{\"phase\":\"Succeeded\"}}"));
    char *q1 = strdup(
        "{\"metadata\":{\"name\":\"q1\",\"namespace\":\"t\"},\"spec\":{\"initContainers\":["
        "{\"name\":\"proxy\",\"restartPolicy\":\"Always\",\"resources\":{\"requests\":{\"cpu\":"
        "\"250m\",\"memory\":\"128Mi\"}}},{\"name\":\"migrate\",\"resources\":{\"requests\":{"
        "\"cpu\":\"1500m\",\"memory\":\"256Mi\"}}}],\"containers\":[{\"name\":\"app\","
        "\"resources\":{\"requests\":{\"cpu\":\"500m\",\"memory\":\"512Mi\"}}}]}}");
    char *pods = list(5, q1, pod("q2", "500m", "512Mi", ""),
                      pod("q3", "4", "1Gi",
                          "\"tolerations\":[{\"key\":\"dedicated\",\"operator\":\"Equal\","
                          "\"value\":\"batch\",\"effect\":\"NoSchedule\"}],"),
                      pod("q4", "500m", "128Mi", ""), pod("q5", "1500m", "128Mi", ""));
    put(&d, "nodes.json", nodes);
    put(&d, "existing.json", existing);
    put(&d, "pods.json", pods);
    ck_assert_int_eq(simulate(&d, &out, &err,
                              "--nodes nodes.json --existing existing.json --pods pods.json "
                              "--strategy spread --placements p.csv"),
                     3);
    char *csv = read_in(&d, "p.csv");
    expect_row(csv, "spread", "t/q1", "w1,53,5");
    expect_row(csv, "spread", "t/q2", "w4,78,8");
    expect_row(csv, "spread", "t/q3", "w2,60,6");
    expect_row(csv, "spread", "t/q4", "w4,58,6");
    expect_row(csv, "spread", "t/q5", ",,");
    ck_assert_msg(strstr(out, "0/4 nodes are available: 1 Insufficient cpu, 1 Too many pods, 1 "
                              "node(s) had untolerated taint {dedicated: batch}, 1 node(s) were "
                              "unschedulable.\n      t/q5\n") != NULL,
                  "%s", out);
    ck_assert_msg(strstr(out, "with 1 pods bound to them from existing.json") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "nodes used                               3\n") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "stranded: nodes                          2\n"
                              "  cpu free there                      2.75\n"
                              "  memory free there                10.25Gi\n") != NULL,
                  "%s", out);
    ck_assert_msg(strstr(out, "median pod to place, cpu 1.5 and memory 512Mi") != NULL, "%s", out);
    free(csv);
    free(out);
    free(err);
    free(nodes);
    free(existing);
    free(pods);
    dir_remove(&d);
}
END_TEST

/* Priority orders the queue (higher first), then the file order; several
 * `kubectl get pod -o json` objects in a row are one input. */
START_TEST(simulate_priority_then_file_order)
{
    struct simdir d;
    char *out, *err;
    dir_make(&d);
    char *nodes = list(1, node("only", "2", "2Gi", "110", "", ""));
    put(&d, "nodes.json", nodes);
    /* three pods of 1 CPU on a 2-CPU node: the later, higher-priority one
     * goes first, the first of the two others second, the third fits nowhere */
    char *a = pod("a", "1", "1Mi", ""), *b = pod("b", "1", "1Mi", ""),
         *c = pod("c", "1", "1Mi", "\"priority\":1000,");
    char stream[4096];
    snprintf(stream, sizeof(stream), "%s\n%s\n%s\n", a, b, c);
    put(&d, "pods.json", stream);
    ck_assert_int_eq(simulate(&d, &out, &err,
                              "--nodes nodes.json --pods pods.json --strategy pack --placements "
                              "p.csv"),
                     3);
    char *csv = read_in(&d, "p.csv");
    ck_assert_msg(strstr(csv, "\npack,t/c,only,") != NULL && strstr(csv, "\npack,t/a,only,") &&
                      strstr(csv, "\npack,t/b,,,\n"),
                  "%s", csv);
    ck_assert_msg(strstr(csv, "pack,t/c,") < strstr(csv, "pack,t/a,"), "%s", csv);
    free(csv);
    free(out);
    free(err);
    free(a);
    free(b);
    free(c);
    free(nodes);
    dir_remove(&d);
}
END_TEST

/* Every malformed input: exit 2, a message naming the file, the object and
 * the field, and nothing placed: no CSV. */
START_TEST(simulate_bad_input_is_refused_and_named)
{
    struct simdir d;
    dir_make(&d);
    char *good_nodes =
        list(2, node("n1", "4", "8Gi", "110", "", ""), node("n2", "4", "8Gi", "110", "", ""));
    char *good_pods = list(2, pod("p1", "1", "1Gi", ""), pod("p2", "1", "1Gi", ""));
    char truncated[256];
    snprintf(truncated, sizeof(truncated), "%.*s", (int)(strlen(good_pods) / 2), good_pods);
    const struct {
        const char *nodes, *pods, *existing, *args, *want;
    } cases[] = {
        {NULL, NULL, NULL, "--nodes missing.json", "missing.json: No such file or directory"},
        {"{\"items\":[", NULL, NULL, "", "nodes.json: malformed JSON at byte 10 of 10"},
        {"{\"kind\":\"PodList\",\"items\":[]}", NULL, NULL, "",
         "nodes.json: a PodList, not nodes (want a NodeList, a List of nodes or a Node)"},
        {"{\"kind\":\"List\",\"items\":[{\"kind\":\"Pod\",\"metadata\":{\"name\":\"x\"}}]}", NULL,
         NULL, "", "nodes.json: items[0] (x): a Pod, not a Node"},
        {"{\"items\":[{\"metadata\":{\"name\":\"n1\"},\"status\":{\"allocatable\":{\"cpu\":"
         "\"lots\"}}}]}",
         NULL, NULL, "", "nodes.json: items[0] (n1): invalid allocatable cpu"},
        {"{\"items\":[{\"metadata\":{\"name\":\"n1\"},\"spec\":{\"taints\":[{\"key\":\"k\","
         "\"effect\":\"Never\"}]}}]}",
         NULL, NULL, "",
         "nodes.json: items[0] (n1): spec.taints[0].effect: want NoSchedule, PreferNoSchedule or "
         "NoExecute, not \"Never\""},
        {"{\"items\":[{\"metadata\":{\"name\":\"n1\",\"labels\":{\"zone\":7}}}]}", NULL, NULL, "",
         "nodes.json: items[0] (n1): metadata.labels[\"zone\"]: want a string"},
        {"{\"items\":[{\"metadata\":{\"name\":\"n1\"}},{\"metadata\":{\"name\":\"n1\"}}]}", NULL,
         NULL, "", "nodes.json: node n1 is given twice"},
        {"{\"items\":[{\"metadata\":{}}]}", NULL, NULL, "",
         "nodes.json.items[0]: node without a metadata.name string"},
        {NULL, truncated, NULL, "", "pods.json: malformed JSON at byte"},
        {NULL, "{\"kind\":\"NodeList\",\"items\":[]}", NULL, "",
         "pods.json: object 1: a NodeList, not pods"},
        {NULL,
         "{\"items\":[{\"metadata\":{\"name\":\"ok\"}},{\"metadata\":{\"name\":\"p3\","
         "\"namespace\":\"shop\"},\"spec\":{\"containers\":[{\"resources\":{\"requests\":{"
         "\"cpu\":\"2 cores\"}}}]}}]}",
         NULL, "",
         "pods.json: items[1] (shop/p3): Pod.spec.containers[0].resources.requests.cpu: quantity "
         "does not match"},
        {NULL, "{\"items\":[{\"metadata\":{\"namespace\":\"t\"},\"spec\":{}}]}", NULL, "",
         "pods.json: items[0]: Pod.metadata.name: missing"},
        {NULL,
         "{\"items\":[{\"metadata\":{\"name\":\"p\"},\"spec\":{\"tolerations\":[{\"operator\":"
         "\"Sometimes\"}]}}]}",
         NULL, "",
         "pods.json: items[0] (default/p): Pod.spec.tolerations[0].operator: want Equal or "
         "Exists, not \"Sometimes\""},
        {NULL, "{\"items\":[{\"kind\":\"Node\",\"metadata\":{\"name\":\"n\"}}]}", NULL, "",
         "pods.json: items[0] (default/n): a Node, not a Pod"},
        {NULL, "{\"items\":[{\"metadata\":{\"name\":\"p\"},\"spec\":{\"priority\":1.5}}]}", NULL,
         "", "pods.json: items[0] (default/p): Pod.spec.priority: want a 32-bit integer"},
        {NULL, NULL,
         "{\"items\":[{\"metadata\":{\"name\":\"e\"},\"spec\":{\"nodeName\":\"n1\","
         "\"containers\":[{\"resources\":{\"requests\":{\"memory\":\"-1Gi\"}}}]}}]}",
         "--existing existing.json",
         "existing.json: items[0] (default/e): Pod.spec.containers[0].resources.requests.memory"},
        {NULL, NULL, "[1]", "--existing existing.json",
         "existing.json: object 1: want a Pod or a PodList object"},
        {NULL, NULL, NULL, "--strategy fastest", "--strategy fastest: want spread, pack"},
        {NULL, NULL, NULL, "--cpu-used-source usage",
         "--cpu-used-source usage: a simulation adds requests and cannot project usage"},
        {NULL, NULL, NULL, "--cpu-weight 500", "cpu-weight"},
        {NULL, NULL, NULL, "--pods - --nodes -", "only one of --nodes, --pods and --existing"},
        {NULL, NULL, NULL, "--placements nowhere/p.csv", "nowhere/p.csv: No such file"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *out, *err, args[512];
        put(&d, "nodes.json", cases[i].nodes != NULL ? cases[i].nodes : good_nodes);
        put(&d, "pods.json", cases[i].pods != NULL ? cases[i].pods : good_pods);
        put(&d, "existing.json", cases[i].existing != NULL ? cases[i].existing : "{\"items\":[]}");
        unlink(at(&d, "p.csv", args, sizeof(args)));
        const char *place = strstr(cases[i].args, "--placements") ? "" : "--placements p.csv";
        snprintf(args, sizeof(args), "%s%s %s",
                 strstr(cases[i].args, "--nodes") ? "" : "--nodes nodes.json ",
                 strstr(cases[i].args, "--pods") ? "" : "--pods pods.json", place);
        char all[1024];
        snprintf(all, sizeof(all), "%s %s", args, cases[i].args);
        int rc = simulate(&d, &out, &err, "%s", all);
        ck_assert_msg(rc == 2, "case %zu (%s): exit %d, %s", i, cases[i].want, rc, err);
        ck_assert_msg(strstr(err, cases[i].want) != NULL, "case %zu: want \"%s\" in: %s", i,
                      cases[i].want, err);
        ck_assert_msg(!exists(&d, "p.csv"), "case %zu: a CSV was written", i);
        ck_assert_msg(out[0] == '\0', "case %zu: printed %s", i, out);
        free(out);
        free(err);
    }
    free(good_nodes);
    free(good_pods);
    dir_remove(&d);
}
END_TEST

/* --html: one page, no script, a bar per node and strategy with the CPU
 * requested before and after as data, the summary table. (Rendered in
 * Chromium: test_browser.c.) */
START_TEST(simulate_html_page_holds_bars_and_summary)
{
    struct simdir d;
    char *out, *err;
    dir_make(&d);
    char *nodes =
        list(2, node("n<1>", "4", "8Gi", "110", "", ""), node("a-node", "2", "4Gi", "110", "", ""));
    char *pods = list(1, pod("p", "1", "1Gi", ""));
    put(&d, "nodes.json", nodes);
    put(&d, "pods.json", pods);
    ck_assert_int_eq(simulate(&d, &out, &err,
                              "--nodes nodes.json --pods pods.json --strategy spread --html "
                              "s.html"),
                     0);
    char *html = read_in(&d, "s.html");
    ck_assert_ptr_null(strstr(html, "<script"));
    ck_assert_ptr_nonnull(strstr(html, "<table class=\"summary\">"));
    /* name order, names escaped; spread puts the pod on the bigger node */
    const char *a = strstr(html, "data-node=\"a-node\" data-alloc=\"2000\" data-before=\"0\" "
                                 "data-after=\"0\"");
    const char *n = strstr(html, "data-node=\"n&lt;1&gt;\" data-alloc=\"4000\" data-before=\"0\" "
                                 "data-after=\"1000\"");
    ck_assert_msg(a != NULL && n != NULL && a < n, "%s", html);
    ck_assert_ptr_nonnull(strstr(n, "style=\"width:0.00%\"></span><span class=\"added\" "
                                    "style=\"width:25.00%\""));
    free(html);
    free(out);
    free(err);
    free(nodes);
    free(pods);
    dir_remove(&d);
}
END_TEST

/*
 * Pods that name their node (spec.nodeName): kube-scheduler never sees
 * them, the simulation holds each to its node by the NodeName rule and
 * warns. Two nodes of 4 CPU / 8Gi, in file order:
 *   bound  1 CPU / 1Gi, nodeName n-b: only n-b; spread (3*75 + 87)/4 = 78
 *                                                                 n-b 78 8
 *   free   1 CPU / 1Gi: n-a 78, n-b now (3*50 + 75)/4 = 56        n-a 78 8
 *   lost   nodeName gone, a node not in the file: 0/2 nodes are
 *          available: 2 node(s) didn't match the requested node name.
 * Two of the three name a node: the warning counts 2. Without such pods,
 * no warning.
 */
START_TEST(simulate_pods_with_node_name_are_held_there_and_warned_about)
{
    struct simdir d;
    char *out, *err;
    dir_make(&d);
    char *nodes =
        list(2, node("n-a", "4", "8Gi", "110", "", ""), node("n-b", "4", "8Gi", "110", "", ""));
    char *pods =
        list(3, pod("bound", "1", "1Gi", "\"nodeName\":\"n-b\","), pod("free", "1", "1Gi", ""),
             pod("lost", "1", "1Gi", "\"nodeName\":\"gone\","));
    put(&d, "nodes.json", nodes);
    put(&d, "pods.json", pods);
    ck_assert_int_eq(simulate(&d, &out, &err,
                              "--nodes nodes.json --pods pods.json --strategy spread "
                              "--placements p.csv"),
                     3);
    char *csv = read_in(&d, "p.csv");
    expect_row(csv, "spread", "t/bound", "n-b,78,8");
    expect_row(csv, "spread", "t/free", "n-a,78,8");
    expect_row(csv, "spread", "t/lost", ",,");
    ck_assert_msg(strstr(out, "0/2 nodes are available: 2 node(s) didn't match the requested "
                              "node name.\n      t/lost\n") != NULL,
                  "%s", out);
    ck_assert_msg(strstr(err, "cpu-extender simulate: warning: 2 of the pods to place have "
                              "spec.nodeName set: each can go only to that node (NodeName), and "
                              "pods that run already belong in --existing\n") != NULL,
                  "%s", err);
    free(csv);
    free(out);
    free(err);
    free(pods);
    pods = list(1, pod("free", "1", "1Gi", ""));
    put(&d, "pods.json", pods);
    ck_assert_int_eq(simulate(&d, &out, &err, "--nodes nodes.json --pods pods.json"), 0);
    ck_assert_msg(strstr(err, "spec.nodeName") == NULL, "%s", err);
    free(out);
    free(err);
    free(pods);
    free(nodes);
    dir_remove(&d);
}
END_TEST

Suite *simulate_cli_suite(void)
{
    Suite *s = suite_create("simulate_cli");
    TCase *tc = tcase_create("simulate_cli");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, simulate_hand_worked_under_each_strategy);
    tcase_add_test(tc, simulate_hand_worked_constraints_and_requests);
    tcase_add_test(tc, simulate_priority_then_file_order);
    tcase_add_test(tc, simulate_bad_input_is_refused_and_named);
    tcase_add_test(tc, simulate_html_page_holds_bars_and_summary);
    tcase_add_test(tc, simulate_pods_with_node_name_are_held_there_and_warned_about);
    suite_add_tcase(s, tc);
    return s;
}

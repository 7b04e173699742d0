/*
 * `cpu-extender rank`, the real binary, on the cluster issue 16 found it
 * failing on: the best raw score on a GPU node tainted NoSchedule, a
 * cordoned node, a NotReady node, an arm64 node under a pod's amd64
 * affinity, the control-plane node; plain nodes, one whose hostname label
 * is not its name, one with a long name; the pod running already.
 *
 * Values worked out by hand (spread, weights cpu 3 memory 1, integer
 * division; the pod asks 500m and 512Mi):
 *   big-1    8 CPU 32Gi, only the ranked pod on it (left out):
 *            (8000-500)*100/8000 = 93, (32768-512)*100/32768 = 98;
 *            (279 + 98)/4 = 94, score 9. Counting the pod itself it would
 *            be 87, 96 -> 89, below small-1: the exclusion decides.
 *   small-1  8 CPU 16Gi: 93, (16384-512)*100/16384 = 96; 375/4 = 93, 9
 *   long...  4 CPU 8Gi: 87, (8192-512)*100/8192 = 93; 354/4 = 88, 9
 *   mid-1    8 CPU 16Gi, a pod of 1 CPU 1Gi: (8000-1500)*100/8000 = 81,
 *            (16-1.5)/16 = 90; 333/4 = 83, 8
 *   gpu-1    32 CPU 128Gi would be 98, but is tainted; cordoned-1 96, but
 *            is cordoned; notready-1, cp-1 tainted; arm-1 is arm64.
 * With normalize, against the best that passes (94): small-1
 * (930 + 47)/94 = 10, mid-1 (830 + 47)/94 = 9; against every node's best
 * (the GPU node's 98) they would be 9 and 8.
 */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/suites.h"
#include "tests/support/fixtures.h"
#include "tests/support/server_proc.h"
#include "tests/support/yaml_doc.h"

#define LONG_NAME "a-very-long-node-name-of-a-managed-pool-0001.eu-west-1.compute.internal"

static const char *const nodes_json =
    "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":["
    "{\"kind\":\"Node\",\"metadata\":{\"name\":\"gpu-1\",\"labels\":{\"kubernetes.io/arch\":"
    "\"amd64\",\"kubernetes.io/hostname\":\"gpu-1\"}},\"spec\":{\"taints\":[{\"key\":"
    "\"nvidia.com/gpu\",\"value\":\"true\",\"effect\":\"NoSchedule\"}]},\"status\":{"
    "\"allocatable\":{\"cpu\":\"32\",\"memory\":\"128Gi\",\"pods\":\"110\"}}},"
    "{\"kind\":\"Node\",\"metadata\":{\"name\":\"cordoned-1\",\"labels\":{\"kubernetes.io/arch\":"
    "\"amd64\"}},\"spec\":{\"unschedulable\":true,\"taints\":[{\"key\":"
    "\"node.kubernetes.io/unschedulable\",\"effect\":\"NoSchedule\"}]},\"status\":{"
    "\"allocatable\":{\"cpu\":\"16\",\"memory\":\"64Gi\",\"pods\":\"110\"}}},"
    "{\"kind\":\"Node\",\"metadata\":{\"name\":\"notready-1\",\"labels\":{\"kubernetes.io/arch\":"
    "\"amd64\"}},\"spec\":{\"taints\":[{\"key\":\"node.kubernetes.io/not-ready\",\"effect\":"
    "\"NoSchedule\"},{\"key\":\"node.kubernetes.io/not-ready\",\"effect\":\"NoExecute\"}]},"
    "\"status\":{\"allocatable\":{\"cpu\":\"16\",\"memory\":\"64Gi\",\"pods\":\"110\"}}},"
    "{\"kind\":\"Node\",\"metadata\":{\"name\":\"arm-1\",\"labels\":{\"kubernetes.io/arch\":"
    "\"arm64\"}},\"status\":{\"allocatable\":{\"cpu\":\"16\",\"memory\":\"64Gi\",\"pods\":"
    "\"110\"}}},"
    "{\"kind\":\"Node\",\"metadata\":{\"name\":\"cp-1\",\"labels\":{\"kubernetes.io/arch\":"
    "\"amd64\",\"node-role.kubernetes.io/control-plane\":\"\"}},\"spec\":{\"taints\":[{\"key\":"
    "\"node-role.kubernetes.io/control-plane\",\"effect\":\"NoSchedule\"}]},\"status\":{"
    "\"allocatable\":{\"cpu\":\"8\",\"memory\":\"32Gi\",\"pods\":\"110\"}}},"
    "{\"kind\":\"Node\",\"metadata\":{\"name\":\"big-1\",\"labels\":{\"kubernetes.io/arch\":"
    "\"amd64\",\"kubernetes.io/hostname\":\"ip-10-0-0-8.ec2.internal\"}},\"status\":{"
    "\"allocatable\":{\"cpu\":\"8\",\"memory\":\"32Gi\",\"pods\":\"110\"}}},"
    "{\"kind\":\"Node\",\"metadata\":{\"name\":\"small-1\",\"labels\":{\"kubernetes.io/arch\":"
    "\"amd64\"}},\"status\":{\"allocatable\":{\"cpu\":\"8\",\"memory\":\"16Gi\",\"pods\":"
    "\"110\"}}},"
    "{\"kind\":\"Node\",\"metadata\":{\"name\":\"" LONG_NAME "\",\"labels\":{"
    "\"kubernetes.io/arch\":\"amd64\"}},\"status\":{\"allocatable\":{\"cpu\":\"4\",\"memory\":"
    "\"8Gi\",\"pods\":\"110\"}}},"
    "{\"kind\":\"Node\",\"metadata\":{\"name\":\"mid-1\",\"labels\":{\"kubernetes.io/arch\":"
    "\"amd64\"}},\"status\":{\"allocatable\":{\"cpu\":\"8\",\"memory\":\"16Gi\",\"pods\":"
    "\"110\"}}}]}";

/* The pod, running on big-1, as kubectl get pod -o json prints it; @owner
 * is "" or an ownerReferences member with its comma. */
static char *pod_json(const char *owner)
{
    char *s;
    ck_assert_int_ge(
        asprintf(&s,
                 "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"web-0\","
                 "\"generateName\":\"web-\",\"namespace\":\"shop\",\"uid\":\"u-web\","
                 "\"resourceVersion\":\"4711\",\"creationTimestamp\":\"2026-12-01T10:00:00Z\","
                 "%s\"labels\":{\"app\":\"web\"},\"managedFields\":[{\"manager\":\"kubectl\"}]},"
                 "\"spec\":{\"nodeName\":\"big-1\",\"affinity\":{\"nodeAffinity\":{"
                 "\"requiredDuringSchedulingIgnoredDuringExecution\":{\"nodeSelectorTerms\":["
                 "{\"matchExpressions\":[{\"key\":\"kubernetes.io/arch\",\"operator\":\"In\","
                 "\"values\":[\"amd64\"]}]}]}}},\"containers\":[{\"name\":\"web\",\"image\":"
                 "\"nginx:1.27\",\"resources\":{\"requests\":{\"cpu\":\"500m\",\"memory\":"
                 "\"512Mi\"}}}],\"tolerations\":[{\"key\":\"node.kubernetes.io/not-ready\","
                 "\"operator\":\"Exists\",\"effect\":\"NoExecute\",\"tolerationSeconds\":300},"
                 "{\"key\":\"node.kubernetes.io/unreachable\",\"operator\":\"Exists\","
                 "\"effect\":\"NoExecute\",\"tolerationSeconds\":300}]},\"status\":{\"phase\":"
                 "\"Running\",\"podIP\":\"10.1.2.3\"}}",
                 owner),
        0);
    return s;
}

static const char *const existing_json =
    "{\"kind\":\"List\",\"items\":["
    /* the ranked pod itself: left out by its UID */
    "{\"metadata\":{\"name\":\"web-0\",\"namespace\":\"shop\",\"uid\":\"u-web\"},\"spec\":{"
    "\"nodeName\":\"big-1\",\"containers\":[{\"resources\":{\"requests\":{\"cpu\":\"500m\","
    "\"memory\":\"512Mi\"}}}]},\"status\":{\"phase\":\"Running\"}},"
    "{\"metadata\":{\"name\":\"db-0\",\"namespace\":\"shop\",\"uid\":\"u-db\"},\"spec\":{"
    "\"nodeName\":\"mid-1\",\"containers\":[{\"resources\":{\"requests\":{\"cpu\":\"1\","
    "\"memory\":\"1Gi\"}}}]},\"status\":{\"phase\":\"Running\"}},"
    /* finished: not charged */
    "{\"metadata\":{\"name\":\"job\",\"namespace\":\"shop\",\"uid\":\"u-job\"},\"spec\":{"
    "\"nodeName\":\"small-1\",\"containers\":[{\"resources\":{\"requests\":{\"cpu\":\"7\"}}}]},"
    "\"status\":{\"phase\":\"Succeeded\"}}]}";

struct rankdir {
    char path[64];
};

static void put(const struct rankdir *d, const char *name, const char *text)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/%s", d->path, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static void setup_dir(struct rankdir *d, const char *owner)
{
    snprintf(d->path, sizeof(d->path), "/tmp/rank-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(d->path));
    put(d, "nodes.json", nodes_json);
    put(d, "existing.json", existing_json);
    char *pod = pod_json(owner);
    put(d, "pod.json", pod);
    free(pod);
}

static void remove_dir(struct rankdir *d)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d->path);
    ck_assert_int_eq(system(cmd), 0);
}

/* Runs rank in @d with @args; stdout and stderr into *@out and *@err. */
static int rank(const struct rankdir *d, char **out, char **err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int rank(const struct rankdir *d, char **out, char **err, const char *fmt, ...)
{
    char args[1024], cmd[6144], abs[4096], path[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof(args), fmt, ap);
    va_end(ap);
    ck_assert_ptr_nonnull(realpath(server_binary(), abs));
    snprintf(cmd, sizeof(cmd),
             "cd '%s' && env -u KUBECONFIG -u KUBERNETES_SERVICE_HOST HOME=/nonexistent '%s' rank "
             "%s >stdout 2>stderr",
             d->path, abs, args);
    int rc = system(cmd);
    ck_assert(WIFEXITED(rc));
    size_t len;
    snprintf(path, sizeof(path), "%s/stdout", d->path);
    *out = file_slurp(path, &len);
    snprintf(path, sizeof(path), "%s/stderr", d->path);
    *err = file_slurp(path, &len);
    return WEXITSTATUS(rc);
}

/* The table line of node @name (its first line, not the one under it). */
static const char *row_of(const char *table, const char *name)
{
    char key[160];
    snprintf(key, sizeof(key), "\n%s ", name);
    const char *p = strstr(table, key);
    ck_assert_msg(p != NULL, "no row for %s in:\n%s", name, table);
    return p + 1;
}

/* Each node of the cluster that the pod may not use names the
 * rule in its row, with kube-scheduler's text on the line under it. */
static void expect_refused_by_rule(const char *err)
{
    /* each refused node names the rule, with kube-scheduler's text under it */
    const struct {
        const char *node, *rule, *text;
    } refused[] = {
        {"gpu-1", "TaintToleration", "node(s) had untolerated taint {nvidia.com/gpu: true}"},
        {"cordoned-1", "NodeUnschedulable", "node(s) were unschedulable"},
        {"notready-1", "TaintToleration",
         "node(s) had untolerated taint {node.kubernetes.io/not-ready: }"},
        {"arm-1", "NodeAffinity", "node(s) didn't match Pod's node affinity/selector"},
        {"cp-1", "TaintToleration",
         "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }"},
    };
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        const char *r = row_of(err, refused[i].node);
        const char *nl = strchr(r, '\n');
        char want[256];
        snprintf(want, sizeof(want), " %s ", refused[i].rule);
        const char *rule = strstr(r, want);
        ck_assert_msg(rule != NULL && rule < nl, "%s: not refused by %s", refused[i].node,
                      refused[i].rule);
        snprintf(want, sizeof(want), "unresolvable: %s\n", refused[i].text);
        const char *why = strstr(nl, want), *next = strchr(nl + 1, '\n');
        ck_assert_msg(why != NULL && why < next, "%s: want %s under it", refused[i].node, want);
    }
}

/* The rows sorted (what fits by score and value, then the rest by name),
 * the columns as wide as the longest name. */
static void expect_sorted_in_columns(const char *err)
{
    /* sorted: what fits by score and value, then the rest by name */
    const char *order[] = {"big-1",      "small-1", LONG_NAME, "mid-1",     "arm-1",
                           "cordoned-1", "cp-1",    "gpu-1",   "notready-1"};
    for (size_t i = 1; i < sizeof(order) / sizeof(order[0]); i++)
        ck_assert_msg(row_of(err, order[i - 1]) < row_of(err, order[i]), "%s after %s",
                      order[i - 1], order[i]);
    ck_assert_msg(strstr(row_of(err, "small-1"), "fits ") != NULL, "%s", err);
    /* columns as wide as the longest name: every row's verdict under the header's */
    const char *head = strstr(err, "NODE ");
    ck_assert_ptr_nonnull(head);
    size_t col = (size_t)(strstr(head, "VERDICT") - head);
    ck_assert_uint_eq(col, strlen(LONG_NAME) + 2);
    for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
        const char *r = row_of(err, order[i]);
        ck_assert_msg(r[col - 1] == ' ' && r[col] != ' ', "%s: verdict not at column %zu", order[i],
                      col);
    }
}

/* The pod written as a new object in YAML, pinned by big-1's own hostname
 * label, with what the pod had kept and the server's fields gone. */
static void expect_pinned_to_big_1(const char *out)
{
    /* the pod as a new object, in YAML, pinned by big-1's own hostname label */
    struct ydoc_file y;
    char yerr[YDOC_ERR_LEN];
    ck_assert_msg(ydoc_load_text(&y, "stdout", out, strlen(out), yerr) == 0, "%s: %s", yerr, out);
    yaml_document_t *doc = &y.docs[0];
    yaml_node_t *root = ydoc_root(doc);
    ck_assert(ydoc_is(ydoc_path(doc, root, "kind"), "Pod"));
    ck_assert(ydoc_is(ydoc_path(doc, root, "metadata.name"), "web-0"));
    ck_assert(ydoc_is(ydoc_path(doc, root, "metadata.namespace"), "shop"));
    const char *gone[] = {"metadata.uid",
                          "metadata.resourceVersion",
                          "metadata.generateName",
                          "metadata.creationTimestamp",
                          "metadata.managedFields",
                          "spec.nodeName",
                          "status"};
    for (size_t i = 0; i < sizeof(gone) / sizeof(gone[0]); i++)
        ck_assert_msg(ydoc_path(doc, root, gone[i]) == NULL, "%s kept", gone[i]);
    ck_assert(
        ydoc_is(ydoc_get(doc, ydoc_path(doc, root, "spec.nodeSelector"), "kubernetes.io/hostname"),
                "ip-10-0-0-8.ec2.internal"));
    /* what the pod had stays: its affinity, its tolerations, its request */
    ck_assert_ptr_nonnull(ydoc_path(doc, root, "spec.affinity.nodeAffinity"));
    ck_assert_uint_eq(ydoc_len(ydoc_path(doc, root, "spec.tolerations")), 2);
    ck_assert_ptr_null(strchr(out, '\t'));
    ydoc_free(&y);
}

START_TEST(rank_refuses_what_kube_scheduler_refuses_and_pins_by_hostname_label)
{
    struct rankdir d;
    char *out, *err;
    setup_dir(&d, "");
    ck_assert_int_eq(rank(&d, &out, &err,
                          "--nodes nodes.json --existing existing.json --pod "
                          "pod.json"),
                     0);
    /* the best node passes every rule; its own pod is not counted on it */
    ck_assert_msg(strstr(err, "best node: big-1 (score 9, value 94)\n") != NULL, "%s", err);
    ck_assert_msg(strstr(row_of(err, "big-1"), "8000m 0m(requests) 500m -> 93") != NULL, "%s", err);
    ck_assert_msg(strstr(err, "(this pod's own request left out)") != NULL, "%s", err);
    expect_refused_by_rule(err);
    expect_sorted_in_columns(err);
    expect_pinned_to_big_1(out);
    free(out);
    free(err);

    /* without --existing nothing counts as used (no annotations here):
     * big-1 is still the best, and the header says where used came from */
    ck_assert_int_eq(rank(&d, &out, &err, "--nodes nodes.json --pod pod.json -o table"), 0);
    ck_assert_msg(strstr(out, "used from their used-annotations") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "best node: big-1 ") != NULL, "%s", out);
    ck_assert_str_eq(err, "");
    free(out);
    free(err);
    remove_dir(&d);
}
END_TEST

/* thresholdPolicy and thresholdExempt decide in rank as in serve (the same
 * functions, server/verbs/evaluate.c): at 5 % every node kube-scheduler
 * would send us fails our CPU threshold; unlessAllFail lets them all
 * through, scored; a DaemonSet's pod is exempt from the thresholds. */
START_TEST(rank_applies_threshold_policy_and_exempt_as_serve)
{
    struct rankdir d;
    char *out, *err;
    setup_dir(&d, "");
    const char *base = "--nodes nodes.json --existing existing.json --pod pod.json -o table "
                       "--cpu-threshold-percent 5";
    ck_assert_int_eq(rank(&d, &out, &err, "%s", base), 1);
    ck_assert_msg(strstr(out, "no node fits this pod") != NULL, "%s", out);
    free(out);
    free(err);
    ck_assert_int_eq(rank(&d, &out, &err, "%s --threshold-policy unlessAllFail", base), 0);
    ck_assert_msg(strstr(out, "best node: big-1 ") != NULL, "%s", out);
    ck_assert_msg(strstr(row_of(out, "big-1"), "let through: every candidate failed a threshold "
                                               "(thresholdPolicy unlessAllFail)") != NULL,
                  "%s", out);
    /* kube-scheduler's own filters still refuse: not let through */
    ck_assert_msg(strstr(row_of(out, "gpu-1"), "let through") == NULL, "%s", out);
    free(out);
    free(err);
    remove_dir(&d);

    setup_dir(&d, "\"ownerReferences\":[{\"apiVersion\":\"apps/v1\",\"kind\":\"DaemonSet\","
                  "\"name\":\"agent\",\"uid\":\"u-ds\",\"controller\":true}],");
    ck_assert_int_eq(rank(&d, &out, &err, "%s", base), 0);
    ck_assert_msg(strstr(row_of(out, "big-1"), "(thresholdExempt daemonsets)") != NULL, "%s", out);
    free(out);
    free(err);
    ck_assert_int_eq(rank(&d, &out, &err, "%s --threshold-exempt ''", base), 1);
    free(out);
    free(err);
    remove_dir(&d);
}
END_TEST

START_TEST(rank_counts_its_own_pod_only_once)
{
    /* The same files, but the ranked pod has another UID: it is a new pod,
     * the one on big-1 counts, and small-1 (93) beats big-1 (89). */
    struct rankdir d;
    char *out, *err;
    setup_dir(&d, "");
    char *pod = pod_json("");
    char *uid = strstr(pod, "u-web");
    memcpy(uid, "u-new", 5);
    put(&d, "pod.json", pod);
    free(pod);
    ck_assert_int_eq(rank(&d, &out, &err,
                          "--nodes nodes.json --existing existing.json --pod "
                          "pod.json -o table"),
                     0);
    ck_assert_msg(strstr(row_of(out, "big-1"), "8000m 500m(requests) 500m -> 87") != NULL, "%s",
                  out);
    ck_assert_msg(strstr(out, "best node: small-1 (score 9, value 93)") != NULL, "%s", out);
    free(out);
    free(err);
    remove_dir(&d);
}
END_TEST

START_TEST(rank_normalizes_against_the_nodes_that_pass)
{
    struct rankdir d;
    char *out, *err;
    setup_dir(&d, "");
    ck_assert_int_eq(rank(&d, &out, &err,
                          "--nodes nodes.json --existing existing.json --pod pod.json "
                          "--normalize -o table"),
                     0);
    /* -o table: the table on stdout, nothing on it else */
    ck_assert_msg(strstr(out, "best node: big-1 (score 10, value 94)") != NULL, "%s", out);
    const char *small = row_of(out, "small-1"), *mid = row_of(out, "mid-1");
    ck_assert_msg(strstr(small, "  93     10    +100\n") != NULL, "%s", small);
    ck_assert_msg(strstr(mid, "  83      9     +90\n") != NULL, "%s", mid);
    ck_assert_msg(strstr(out, "score 10 normalised to the best value") != NULL, "%s", out);
    ck_assert_ptr_null(strstr(out, "apiVersion"));
    free(out);
    free(err);
    remove_dir(&d);
}
END_TEST

START_TEST(rank_outputs_json_and_advises_for_a_controllers_pod)
{
    struct rankdir d;
    char *out, *err;
    setup_dir(&d, "\"ownerReferences\":[{\"apiVersion\":\"apps/v1\",\"kind\":\"StatefulSet\","
                  "\"name\":\"web\",\"uid\":\"u-sts\",\"controller\":true}],");
    ck_assert_int_eq(rank(&d, &out, &err,
                          "--nodes nodes.json --existing existing.json --pod "
                          "pod.json"),
                     0);
    ck_assert_msg(strstr(err, "warning: pod shop/web-0 is controlled by StatefulSet web") != NULL,
                  "%s", err);
    /* the patch for the template: the pod's own term with the pin added */
    struct ydoc_file y;
    char yerr[YDOC_ERR_LEN];
    ck_assert_msg(ydoc_load_text(&y, "stdout", out, strlen(out), yerr) == 0, "%s: %s", yerr, out);
    yaml_document_t *doc = &y.docs[0];
    yaml_node_t *terms = ydoc_path(
        doc, ydoc_root(doc),
        "spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
        "nodeSelectorTerms");
    ck_assert_uint_eq(ydoc_len(terms), 1);
    yaml_node_t *exprs = ydoc_get(doc, ydoc_item(doc, terms, 0), "matchExpressions");
    ck_assert_uint_eq(ydoc_len(exprs), 2);
    ck_assert(ydoc_is(ydoc_get(doc, ydoc_item(doc, exprs, 0), "key"), "kubernetes.io/arch"));
    yaml_node_t *pin = ydoc_item(doc, exprs, 1);
    ck_assert(ydoc_is(ydoc_get(doc, pin, "key"), "kubernetes.io/hostname"));
    ck_assert(ydoc_is(ydoc_get(doc, pin, "operator"), "In"));
    ck_assert(ydoc_is(ydoc_item(doc, ydoc_get(doc, pin, "values"), 0), "ip-10-0-0-8.ec2.internal"));
    ck_assert_ptr_null(ydoc_path(doc, ydoc_root(doc), "metadata"));
    ydoc_free(&y);
    free(out);
    free(err);

    /* -o json, a pod without a controller, read from standard input */
    char *pod = pod_json("");
    put(&d, "pod.json", pod);
    free(pod);
    ck_assert_int_eq(rank(&d, &out, &err, "--nodes nodes.json --pod - -o json <pod.json"), 0);
    ck_assert_msg(strncmp(out, "{\n  \"apiVersion\": \"v1\",\n", 24) == 0, "%s", out);
    ck_assert_msg(strstr(out, "\"kubernetes.io/hostname\": \"ip-10-0-0-8.ec2.internal\"") != NULL,
                  "%s", out);
    free(out);
    free(err);
    remove_dir(&d);
}
END_TEST

START_TEST(rank_checks_kinds_and_says_why)
{
    struct rankdir d;
    char *out, *err;
    setup_dir(&d, "");
    put(&d, "args.json",
        "{\"Pod\":{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[]}},"
        "\"Nodes\":{\"items\":[]},\"NodeNames\":null}");
    put(&d, "names.json", "{\"Pod\":{},\"NodeNames\":[\"a\"]}");
    put(&d, "empty.json", "{}");
    const struct {
        const char *args, *want;
    } cases[] = {
        {"--nodes nodes.json --pod existing.json",
         "existing.json: a List, not a Pod: give one pod (kubectl get pod NAME -o json)"},
        {"--nodes nodes.json --pod nodes.json", "nodes.json: a List, not a Pod"},
        {"--nodes pod.json --pod pod.json", "pod.json: a Pod, not a Node"},
        {"--nodes existing.json --pod pod.json",
         "existing.json: items[0] (web-0): a Pod (it has spec.containers), not a Node"},
        {"--nodes nodes.json --existing nodes.json --pod pod.json",
         "nodes.json: items[0] (gpu-1): a Node, not a Pod"},
        /* issue 24: what has no kind must have a pod's spec */
        {"--nodes nodes.json --pod args.json",
         "args.json: an ExtenderArgs (Pod, Nodes), not a Pod: give one pod"},
        {"--nodes nodes.json --pod names.json", "names.json: an ExtenderArgs (Pod, NodeNames)"},
        {"--nodes nodes.json --pod empty.json",
         "empty.json: neither kind Pod nor spec.containers, not a Pod"},
        {"--nodes nodes.json --pod - <empty.json",
         "standard input: neither kind Pod nor spec.containers"},
        {"--nodes nodes.json --pod missing.json", "missing.json: No such file or directory"},
        {"--nodes - --pod -", "only one of"},
        {"--existing existing.json --pod pod.json", "--existing needs --nodes"},
        {"--nodes nodes.json --pod pod.json -o wide", "-o wide: want yaml, json, table or name"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int rc = rank(&d, &out, &err, "%s", cases[i].args);
        ck_assert_msg(rc == 2, "%s: exit %d: %s", cases[i].args, rc, err);
        ck_assert_msg(strstr(err, cases[i].want) != NULL, "%s: want \"%s\" in %s", cases[i].args,
                      cases[i].want, err);
        ck_assert_msg(out[0] == '\0', "%s: printed %s", cases[i].args, out);
        free(out);
        free(err);
    }
    /* a PodList of kind PodList */
    put(&d, "list.json", "{\"kind\":\"PodList\",\"items\":[]}");
    ck_assert_int_eq(rank(&d, &out, &err, "--nodes nodes.json --pod list.json"), 2);
    ck_assert_msg(strstr(err, "list.json: a PodList, not a Pod") != NULL, "%s", err);
    free(out);
    free(err);
    /* no node fits: kube-scheduler's message, exit 1 */
    ck_assert_int_eq(rank(&d, &out, &err,
                          "--nodes nodes.json --pod pod.json --memory-threshold-"
                          "percent 1"),
                     1);
    ck_assert_msg(strstr(err, "no node fits this pod: 0/9 nodes are available: 1 node(s) didn't "
                              "match Pod's node affinity/selector, 1 node(s) had untolerated "
                              "taint {node-role.kubernetes.io/control-plane: }, 1 node(s) had "
                              "untolerated taint {node.kubernetes.io/not-ready: }, 1 node(s) had "
                              "untolerated taint {nvidia.com/gpu: true}, 1 node(s) were "
                              "unschedulable, 4 Insufficient memory.") != NULL,
                  "%s", err);
    ck_assert_str_eq(out, "");
    free(out);
    free(err);
    remove_dir(&d);
}
END_TEST

/* issue 24: kubectl's spellings of -o and of every flag with a value; -o
 * given writes only the output (no table on stderr), for $(...); a flag
 * without its value says so. */
START_TEST(rank_takes_kubectls_flag_spellings_and_stays_quiet_with_o)
{
    struct rankdir d;
    char *out, *err;
    setup_dir(&d, "");
    static const char *const spellings[] = {
        "--nodes nodes.json --existing existing.json --pod pod.json -o name",
        "--nodes nodes.json --existing existing.json --pod pod.json -oname",
        "--nodes nodes.json --existing existing.json --pod pod.json --output name",
        "--nodes=nodes.json --existing=existing.json --pod=pod.json --output=name",
    };
    for (size_t i = 0; i < sizeof(spellings) / sizeof(spellings[0]); i++) {
        ck_assert_msg(rank(&d, &out, &err, "%s", spellings[i]) == 0, "%s: %s", spellings[i], err);
        ck_assert_msg(strcmp(out, "node/big-1\n") == 0, "%s: %s", spellings[i], out);
        ck_assert_msg(err[0] == '\0', "%s: stderr %s", spellings[i], err);
        free(out);
        free(err);
    }
    static const char *const quiet[] = {"-o json", "-o yaml", "-ojson"};
    for (size_t i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++) {
        ck_assert_int_eq(rank(&d, &out, &err, "--nodes nodes.json --pod pod.json %s", quiet[i]), 0);
        ck_assert_msg(strstr(out, "kubernetes.io/hostname") != NULL, "%s: %s", quiet[i], out);
        ck_assert_msg(err[0] == '\0', "%s: stderr %s", quiet[i], err);
        free(out);
        free(err);
    }
    /* without -o: the table and the advice on stderr, as before */
    ck_assert_int_eq(rank(&d, &out, &err, "--nodes nodes.json --pod pod.json"), 0);
    ck_assert_msg(strstr(err, "best node: big-1") != NULL, "%s", err);
    ck_assert_msg(strstr(err, "delete the pod that is running") != NULL, "%s", err);
    free(out);
    free(err);
    static const struct {
        const char *args, *want;
    } missing[] = {
        {"--nodes nodes.json --pod pod.json -o", "cpu-extender rank: flag -o needs a value\n"},
        {"--nodes nodes.json --pod pod.json --output",
         "cpu-extender rank: flag --output needs a value\n"},
        {"--nodes nodes.json --pod", "cpu-extender rank: flag --pod needs a value\n"},
        {"--pod pod.json --nodes", "cpu-extender rank: flag --nodes needs a value\n"},
    };
    for (size_t i = 0; i < sizeof(missing) / sizeof(missing[0]); i++) {
        ck_assert_int_eq(rank(&d, &out, &err, "%s", missing[i].args), 2);
        ck_assert_str_eq(err, missing[i].want);
        ck_assert_str_eq(out, "");
        free(out);
        free(err);
    }
    remove_dir(&d);
}
END_TEST

/* issue 24: from files there is no usage to use: said and refused, as
 * simulate does, not silently replaced by requests. */
START_TEST(rank_on_files_refuses_a_used_source_it_cannot_have)
{
    struct rankdir d;
    char *out, *err;
    setup_dir(&d, "");
    static const char *const args[] = {"--cpu-used-source usage", "--memory-used-source=max"};
    for (size_t i = 0; i < sizeof(args) / sizeof(args[0]); i++) {
        ck_assert_int_eq(rank(&d, &out, &err, "--nodes nodes.json --pod pod.json %s", args[i]), 2);
        ck_assert_msg(strstr(err, "-used-source ") != NULL &&
                          strstr(err, ": node files carry no usage (metrics.k8s.io)") != NULL,
                      "%s: %s", args[i], err);
        ck_assert_str_eq(out, "");
        free(out);
        free(err);
    }
    remove_dir(&d);
}
END_TEST

/* issue 24: one node is "1 node", one pod bound "1 pod". */
START_TEST(rank_counts_one_as_one)
{
    struct rankdir d;
    char *out, *err;
    setup_dir(&d, "");
    put(&d, "one.json",
        "{\"kind\":\"Node\",\"metadata\":{\"name\":\"solo\",\"labels\":{\"kubernetes.io/arch\":"
        "\"amd64\"}},\"status\":{\"allocatable\":{"
        "\"cpu\":\"8\",\"memory\":\"16Gi\",\"pods\":\"110\"}}}");
    put(&d, "bound.json",
        "{\"kind\":\"List\",\"items\":[{\"metadata\":{\"name\":\"x\",\"namespace\":\"a\","
        "\"uid\":\"u-x\"},\"spec\":{\"nodeName\":\"solo\",\"containers\":[{\"resources\":{"
        "\"requests\":{\"cpu\":\"1\"}}}]},\"status\":{\"phase\":\"Running\"}}]}");
    ck_assert_int_eq(rank(&d, &out, &err, "--nodes one.json --existing bound.json --pod pod.json"),
                     0);
    ck_assert_msg(strstr(err, "1 node from one.json; used from 1 pod bound to them") != NULL, "%s",
                  err);
    free(out);
    free(err);
    remove_dir(&d);
}
END_TEST

/* issue 24: a Pending pod (a UID, not running) is not called running. */
START_TEST(rank_says_what_state_the_pod_is_in)
{
    struct rankdir d;
    char *out, *err;
    setup_dir(&d, "");
    char *pod = pod_json("");
    char *phase = strstr(pod, "\"Running\"");
    ck_assert_ptr_nonnull(phase);
    memcpy(phase, "\"Pending\"", 9);
    put(&d, "pod.json", pod);
    free(pod);
    ck_assert_int_eq(rank(&d, &out, &err, "--nodes nodes.json --pod pod.json"), 0);
    ck_assert_msg(strstr(err, "delete the pod (it exists, phase Pending), then apply") != NULL,
                  "%s", err);
    ck_assert_msg(strstr(err, "running") == NULL, "%s", err);
    free(out);
    free(err);
    remove_dir(&d);
}
END_TEST

Suite *rank_suite(void)
{
    Suite *s = suite_create("rank");
    TCase *tc = tcase_create("rank");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, rank_refuses_what_kube_scheduler_refuses_and_pins_by_hostname_label);
    tcase_add_test(tc, rank_counts_its_own_pod_only_once);
    tcase_add_test(tc, rank_applies_threshold_policy_and_exempt_as_serve);
    tcase_add_test(tc, rank_normalizes_against_the_nodes_that_pass);
    tcase_add_test(tc, rank_outputs_json_and_advises_for_a_controllers_pod);
    tcase_add_test(tc, rank_checks_kinds_and_says_why);
    tcase_add_test(tc, rank_takes_kubectls_flag_spellings_and_stays_quiet_with_o);
    tcase_add_test(tc, rank_on_files_refuses_a_used_source_it_cannot_have);
    tcase_add_test(tc, rank_says_what_state_the_pod_is_in);
    tcase_add_test(tc, rank_counts_one_as_one);
    suite_add_tcase(s, tc);
    return s;
}

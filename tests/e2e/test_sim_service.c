/*
 * The simulation is the service: `cpu-extender simulate` must place pods
 * exactly where the real binary serving filter and prioritize places them,
 * one by one with the state carried forward.
 *
 * The test plays kube-scheduler against the binary watching a fake
 * kube-apiserver (tests/support/fake_apiserver.c, TLS on 127.0.0.1): for
 * each pod, in its queue order (priority, then the order given), it drops
 * the nodes kube-scheduler's own plugins would drop (written out here for
 * this cluster: the cordoned node, the tainted node for pods without the
 * toleration, the zone selector, the pod count), sends the rest to filter
 * (NodeNames, as nodeCacheCapable: true), the passing ones to prioritize,
 * takes the highest score, then the highest value (from /debug/decisions),
 * then the first name, and binds: the pod, now on that node, is stored in
 * the fake, and the test waits until the binary's state holds it. The same
 * nodes and pods, as files, go to `simulate`; every placement (node, value,
 * score) must be the same, under each strategy and with normalize.
 *
 * The pods cover what the state and the simulation must charge alike: no
 * requests (the scoring defaults), init containers, a sidecar, pod-level
 * requests (scored with per-container defaults, charged without them),
 * overhead, a memory-only and a cpu-only request, and priorities.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "tests/suites.h"
#include "tests/support/fake_apiserver.h"
#include "tests/support/fixtures.h"
#include "tests/support/http_client.h"
#include "tests/support/metrics_scrape.h"
#include "tests/support/server_proc.h"
#include "tests/support/test_certs.h"

#define TOKEN  "sim-token"
#define N_PODS 48

static struct test_pki pki;

static void make_pki(void)
{
    test_pki_make(&pki);
}

static void remove_pki(void)
{
    test_pki_remove(&pki);
}

/* The cluster, as the test's kube-scheduler knows it. */
struct tnode {
    const char *name, *cpu, *mem;
    int max_pods;
    const char *zone;
    bool tainted, cordoned;
};

static const struct tnode nodes[] = {
    {"e1", "4", "8Gi", 4, "a", false, false},    {"e2", "8", "16Gi", 110, "a", false, false},
    {"e3", "4", "16Gi", 110, "b", false, false}, {"e4", "16", "32Gi", 6, "b", false, false},
    {"e5", "2", "4Gi", 110, "a", false, false},  {"e6", "8", "8Gi", 110, "b", true, false},
    {"e7", "32", "64Gi", 110, "a", false, true}, {"e8", "6000m", "12Gi", 110, "c", false, false},
};
#define N_NODES (sizeof(nodes) / sizeof(nodes[0]))

static char *node_json(const struct tnode *n)
{
    char *s;
    ck_assert_int_ge(
        asprintf(&s,
                 "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"%s\","
                 "\"labels\":{\"kubernetes.io/hostname\":\"%s\",\"zone\":\"%s\"}},\"spec\":{%s},"
                 "\"status\":{\"allocatable\":{\"cpu\":\"%s\",\"memory\":\"%s\",\"pods\":\"%d\"}}}",
                 n->name, n->name, n->zone,
                 n->tainted    ? "\"taints\":[{\"key\":\"dedicated\",\"value\":\"batch\","
                                 "\"effect\":\"NoSchedule\"}]"
                 : n->cordoned ? "\"unschedulable\":true,\"taints\":[{\"key\":"
                                 "\"node.kubernetes.io/unschedulable\",\"effect\":\"NoSchedule\"}]"
                               : "",
                 n->cpu, n->mem, n->max_pods),
        0);
    return s;
}

/* The pods already bound: name, node, phase, the containers' JSON. */
struct texisting {
    const char *name, *node, *phase, *containers;
};

static const struct texisting existing[] = {
    {"x1", "e1", "Running", "[{\"resources\":{\"requests\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}}}]"},
    {"x2", "e2", "Running", "[{\"resources\":{\"requests\":{\"cpu\":\"2\"}}}]"},
    {"x3", "e4", "Running", "[{\"resources\":{}}]"},
    {"x4", "e8", "Pending", "[{\"resources\":{\"requests\":{\"cpu\":\"500m\"}}}]"},
    {"x5", "e3", "Succeeded", "[{\"resources\":{\"requests\":{\"cpu\":\"3\"}}}]"},
    {"x6", "e6", "Running", "[{\"resources\":{\"requests\":{\"cpu\":\"4\",\"memory\":\"2Gi\"}}}]"},
};
#define N_EXISTING (sizeof(existing) / sizeof(existing[0]))

static char *existing_json(const struct texisting *x)
{
    char *s;
    ck_assert_int_ge(asprintf(&s,
                              "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":"
                              "\"%s\",\"namespace\":\"old\",\"uid\":\"uid-%s\"},\"spec\":{"
                              "\"nodeName\":\"%s\",\"containers\":%s},\"status\":{\"phase\":"
                              "\"%s\"}}",
                              x->name, x->name, x->node, x->containers, x->phase),
                     0);
    return s;
}

/* Pod @i to place: what kube-scheduler's own filters look at, and its JSON. */
static const char *pod_zone(int i)
{
    return i % 5 == 4 ? "b" : NULL;
}

static bool pod_tolerates(int i)
{
    return i % 6 == 5;
}

static int pod_priority(int i)
{
    return i % 11 == 3 ? 1000 : i % 7 == 2 ? 100 : 0;
}

static const char *const shapes[] = {
    /* requests */
    "\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"500m\",\"memory\":"
    "\"512Mi\"}}}]",
    /* none: scored and charged at 100m and 200Mi */
    "\"containers\":[{\"name\":\"c\"}]",
    /* an init container larger than the containers */
    "\"initContainers\":[{\"name\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"2\",\"memory\":"
    "\"256Mi\"}}}],\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"1\","
    "\"memory\":\"1Gi\"}}}]",
    /* a sidecar beside the container */
    "\"initContainers\":[{\"name\":\"s\",\"restartPolicy\":\"Always\",\"resources\":{"
    "\"requests\":{\"cpu\":\"250m\",\"memory\":\"128Mi\"}}}],\"containers\":[{\"name\":\"c\","
    "\"resources\":{\"requests\":{\"cpu\":\"750m\",\"memory\":\"768Mi\"}}}]",
    /* pod-level requests: scored with 300Mi, charged with 100Mi */
    "\"resources\":{\"requests\":{\"cpu\":\"1\"}},\"containers\":[{\"name\":\"a\",\"resources\":{"
    "\"requests\":{\"memory\":\"100Mi\"}}},{\"name\":\"b\"}]",
    /* cpu alone: memory at its default for scoring, 0 for the filter */
    "\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"1500m\"}}}]",
    /* overhead on top */
    "\"overhead\":{\"cpu\":\"100m\",\"memory\":\"64Mi\"},\"containers\":[{\"name\":\"c\","
    "\"resources\":{\"requests\":{\"cpu\":\"200m\",\"memory\":\"256Mi\"}}}]",
};
#define N_SHAPES (sizeof(shapes) / sizeof(shapes[0]))

/* The pod as kubectl would print it pending (@node NULL), or as the
 * API server holds it once bound to @node. */
static char *pod_json(int i, const char *node)
{
    char *s, sel[64] = "", tol[160] = "", bound[128] = "";
    if (pod_zone(i) != NULL)
        snprintf(sel, sizeof(sel), "\"nodeSelector\":{\"zone\":\"%s\"},", pod_zone(i));
    if (pod_tolerates(i))
        snprintf(tol, sizeof(tol),
                 "\"tolerations\":[{\"key\":\"dedicated\",\"operator\":\"Equal\",\"value\":"
                 "\"batch\",\"effect\":\"NoSchedule\"}],");
    if (node != NULL)
        snprintf(bound, sizeof(bound), "\"nodeName\":\"%s\",", node);
    ck_assert_int_ge(asprintf(&s,
                              "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":"
                              "\"p%02d\",\"namespace\":\"new\",\"uid\":\"uid-p%02d\"},\"spec\":"
                              "{%s%s%s\"priority\":%d,%s},\"status\":{\"phase\":\"%s\"}}",
                              i, i, bound, sel, tol, pod_priority(i), shapes[i % N_SHAPES],
                              node != NULL ? "Running" : "Pending"),
                     0);
    return s;
}

/* kube-scheduler's queue: priority, higher first, then the order given. */
static void queue_order(int *order)
{
    for (int i = 0; i < N_PODS; i++)
        order[i] = i;
    for (int i = 1; i < N_PODS; i++) /* insertion sort: stable */
        for (int j = i; j > 0 && pod_priority(order[j]) > pod_priority(order[j - 1]); j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

/* A List file of @n JSON objects from @make(i). */
static void write_list(const char *path, size_t n, char *(*make)(size_t i))
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[", f);
    for (size_t i = 0; i < n; i++) {
        char *o = make(i);
        fprintf(f, "%s%s", i ? ",\n" : "\n", o);
        free(o);
    }
    fputs("]}\n", f);
    fclose(f);
}

static char *make_node(size_t i)
{
    return node_json(&nodes[i]);
}

static char *make_existing(size_t i)
{
    return existing_json(&existing[i]);
}

static char *make_pod(size_t i)
{
    return pod_json((int)i, NULL);
}

/* One placement: node index (-1: none), value, score. */
struct placed {
    int node, value, score;
};

static int node_index(const char *name)
{
    for (size_t i = 0; i < N_NODES; i++)
        if (strcmp(nodes[i].name, name) == 0)
            return (int)i;
    ck_abort_msg("no node %s", name);
    return -1;
}

static char *post(int port, const char *verb, const char *body)
{
    struct http_response r;
    char path[64];
    snprintf(path, sizeof(path), "/scheduler/%s", verb);
    ck_assert_int_eq(http_request(port, "POST", path, body, strlen(body), &r), 0);
    ck_assert_msg(r.status == 200, "%s: %d %s", verb, r.status, r.body);
    char *out = strdup(r.body);
    http_response_free(&r);
    return out;
}

/* The ExtenderArgs of pod @i with the NodeNames @names (@n of them). */
static char *args_json(int i, const char *const *names, size_t n)
{
    cJSON *a = cJSON_CreateObject();
    char *pod = pod_json(i, NULL);
    cJSON_AddItemToObject(a, "Pod", cJSON_Parse(pod));
    cJSON *arr = cJSON_AddArrayToObject(a, "NodeNames");
    for (size_t k = 0; k < n; k++)
        cJSON_AddItemToArray(arr, cJSON_CreateString(names[k]));
    char *s = cJSON_PrintUnformatted(a);
    cJSON_Delete(a);
    free(pod);
    return s;
}

/* Waits until the binary's state holds @want pods. */
static void wait_pods(int port, int want)
{
    for (int i = 0; i < 2500; i++) {
        char *m = metrics_get(port);
        double have = metrics_must(m, "cpu_extender_cluster_pods");
        free(m);
        if ((int)have == want)
            return;
        usleep(2000);
    }
    ck_abort_msg("the state never held %d pods", want);
}

/* Waits until /readyz says the first lists of nodes and pods are in. */
static void wait_ready(int port)
{
    for (int i = 0; i < 500; i++) {
        struct http_response r;
        ck_assert_int_eq(http_request(port, "GET", "/readyz", NULL, 0, &r), 0);
        int status = r.status;
        http_response_free(&r);
        if (status == 200)
            return;
        usleep(20000);
    }
    ck_abort_msg("/readyz never answered 200");
}

/* kube-scheduler's own plugins, for this cluster: the nodes pod @i may go
 * to with @count pods on each (names in name order, into @cand). */
static size_t scheduler_candidates(int i, const int *count, const char **cand)
{
    size_t nc = 0;
    for (size_t k = 0; k < N_NODES; k++) {
        const struct tnode *n = &nodes[k];
        if (n->cordoned || (n->tainted && !pod_tolerates(i)) ||
            (pod_zone(i) != NULL && strcmp(pod_zone(i), n->zone) != 0) || count[k] >= n->max_pods)
            continue;
        cand[nc++] = n->name;
    }
    return nc;
}

/* The service's filter of pod @i over @cand: the names it passes, into
 * @pass (pointing into nodes[]). */
static size_t filter_call(int port, int i, const char *const *cand, size_t nc, const char **pass)
{
    char *body = args_json(i, cand, nc);
    char *ans = post(port, "filter", body);
    free(body);
    cJSON *f = cJSON_Parse(ans);
    free(ans);
    const cJSON *p;
    size_t np = 0;
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(f, "NodeNames")) pass[np++] =
        nodes[node_index(p->valuestring)].name;
    cJSON_Delete(f);
    return np;
}

/* The service's prioritize of pod @i over @pass, checked against the
 * decision it recorded (scored from the state); the best node, ties to
 * the first name. */
static struct placed prioritize_call(int port, int i, const char *const *pass, size_t np)
{
    char *body = args_json(i, pass, np);
    char *ans = post(port, "prioritize", body);
    free(body);
    cJSON *prio = cJSON_Parse(ans);
    free(ans);
    struct http_response r;
    ck_assert_int_eq(http_request(port, "GET", "/debug/decisions?limit=1", NULL, 0, &r), 0);
    cJSON *dec = cJSON_Parse(r.body);
    http_response_free(&r);
    const cJSON *rec = cJSON_GetArrayItem(cJSON_GetObjectItem(dec, "decisions"), 0);
    ck_assert_str_eq(cJSON_GetObjectItem(rec, "verb")->valuestring, "prioritize");
    const cJSON *rnodes = cJSON_GetObjectItem(rec, "nodes");
    struct placed best = {-1, -1, -1};
    for (size_t k = 0; k < np; k++) {
        const cJSON *h = cJSON_GetArrayItem(prio, (int)k), *rn = cJSON_GetArrayItem(rnodes, (int)k);
        ck_assert_str_eq(cJSON_GetObjectItem(h, "Host")->valuestring, pass[k]);
        ck_assert_str_eq(cJSON_GetObjectItem(rn, "name")->valuestring, pass[k]);
        int score = cJSON_GetObjectItem(h, "Score")->valueint;
        int value = cJSON_GetObjectItem(rn, "value")->valueint;
        ck_assert_int_eq(cJSON_GetObjectItem(rn, "score")->valueint, score);
        /* scored from the state, not passed as a node it does not know */
        ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(rn, "unknown")));
        ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(rn, "forcedZero")));
        if (score > best.score ||
            (score == best.score && value > best.value)) /* ties: the first name */
            best = (struct placed){node_index(pass[k]), value, score};
    }
    cJSON_Delete(dec);
    cJSON_Delete(prio);
    return best;
}

/* Places every pod through the service under @flags; results by pod. */
static void through_service(const char *kubeconfig, struct fake_apiserver *fake,
                            const char *const *flags, struct placed *out)
{
    const char *args[16] = {"--kubeconfig", kubeconfig, "--debug-endpoints", "--decisions-kept",
                            "4"};
    size_t na = 5;
    for (; *flags != NULL; flags++)
        args[na++] = *flags;
    args[na] = NULL;
    struct server_proc s;
    server_start(&s, args);
    int pods_known = (int)N_EXISTING;
    wait_ready(s.port);
    wait_pods(s.port, pods_known);
    int count[N_NODES] = {0};
    for (size_t x = 0; x < N_EXISTING; x++)
        if (strcmp(existing[x].phase, "Succeeded") != 0)
            count[node_index(existing[x].node)]++;
    int order[N_PODS];
    queue_order(order);
    for (int q = 0; q < N_PODS; q++) {
        int i = order[q];
        const char *cand[N_NODES], *pass[N_NODES];
        size_t nc = scheduler_candidates(i, count, cand), np = 0;
        out[i] = (struct placed){-1, 0, 0};
        if (nc > 0)
            np = filter_call(s.port, i, cand, nc, pass);
        if (np == 0)
            continue;
        out[i] = prioritize_call(s.port, i, pass, np);
        int best = out[i].node;
        /* bind: the API server now holds the pod on that node */
        char *bound = pod_json(i, nodes[best].name);
        ck_assert_int_eq(fake_put(fake, FAKE_POD, bound, NULL), 0);
        free(bound);
        count[best]++;
        wait_pods(s.port, ++pods_known);
    }
    ck_assert_int_eq(server_stop(&s), 0);
}

/* The placements `simulate` prints for the same files under @flags. */
static void through_simulate(const char *dir, const char *flags, struct placed *out)
{
    char cmd[8192], abs[4096], path[256];
    ck_assert_ptr_nonnull(realpath(server_binary(), abs));
    snprintf(cmd, sizeof(cmd),
             "cd '%s' && env -u KUBECONFIG HOME=/nonexistent '%s' simulate --nodes nodes.json "
             "--existing existing.json --pods pods.json %s --placements p.csv >out 2>err",
             dir, abs, flags);
    int rc = system(cmd);
    ck_assert_msg(WIFEXITED(rc) && (WEXITSTATUS(rc) == 0 || WEXITSTATUS(rc) == 3), "%s: %d", cmd,
                  rc);
    size_t len;
    snprintf(path, sizeof(path), "%s/p.csv", dir);
    char *csv = file_slurp(path, &len);
    for (int i = 0; i < N_PODS; i++) {
        char key[32];
        snprintf(key, sizeof(key), ",new/p%02d,", i);
        const char *row = strstr(csv, key);
        ck_assert_msg(row != NULL, "no row for p%02d", i);
        row += strlen(key);
        char node[32] = "";
        int value = 0, score = 0;
        if (*row == ',') {
            out[i] = (struct placed){-1, 0, 0};
            continue;
        }
        ck_assert_int_eq(sscanf(row, "%31[^,],%d,%d", node, &value, &score), 3);
        out[i] = (struct placed){node_index(node), value, score};
    }
    free(csv);
}

static void write_kubeconfig(const char *path, int port)
{
    char ca[256], text[2048];
    snprintf(text, sizeof(text),
             "apiVersion: v1\nkind: Config\ncurrent-context: t\nclusters:\n- name: fake\n"
             "  cluster:\n    server: https://127.0.0.1:%d\n    certificate-authority: %s\n"
             "users:\n- name: u\n  user:\n    token: " TOKEN "\n"
             "contexts:\n- name: t\n  context:\n    cluster: fake\n    user: u\n",
             port, test_pki_path(&pki, "ca.pem", ca, sizeof(ca)));
    write_text(path, text);
}

static void equivalent(const char *label, const char *const *serve_flags, const char *sim_flags)
{
    char dir[64], path[256], cert[256], key[256];
    snprintf(dir, sizeof(dir), "/tmp/simsvc-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/nodes.json", dir);
    write_list(path, N_NODES, make_node);
    snprintf(path, sizeof(path), "%s/existing.json", dir);
    write_list(path, N_EXISTING, make_existing);
    snprintf(path, sizeof(path), "%s/pods.json", dir);
    write_list(path, N_PODS, make_pod);

    struct fake_params fp = {
        .cert_file = test_pki_path(&pki, "server.pem", cert, sizeof(cert)),
        .key_file = test_pki_path(&pki, "server.key", key, sizeof(key)),
        .token = TOKEN,
    };
    struct fake_apiserver *fake = NULL;
    ck_assert_int_eq(fake_start(&fp, &fake), 0);
    for (size_t i = 0; i < N_NODES; i++) {
        char *n = node_json(&nodes[i]);
        ck_assert_int_eq(fake_put(fake, FAKE_NODE, n, NULL), 0);
        free(n);
    }
    for (size_t i = 0; i < N_EXISTING; i++) {
        char *x = existing_json(&existing[i]);
        ck_assert_int_eq(fake_put(fake, FAKE_POD, x, NULL), 0);
        free(x);
    }
    snprintf(path, sizeof(path), "%s/kubeconfig", dir);
    write_kubeconfig(path, fake_port(fake));

    struct placed svc[N_PODS], sim[N_PODS];
    through_service(path, fake, serve_flags, svc);
    fake_stop(fake);
    through_simulate(dir, sim_flags, sim);
    int placed = 0, unplaced = 0;
    for (int i = 0; i < N_PODS; i++) {
        ck_assert_msg(svc[i].node == sim[i].node && svc[i].value == sim[i].value &&
                          svc[i].score == sim[i].score,
                      "%s, p%02d: service %s,%d,%d; simulate %s,%d,%d", label, i,
                      svc[i].node >= 0 ? nodes[svc[i].node].name : "-", svc[i].value, svc[i].score,
                      sim[i].node >= 0 ? nodes[sim[i].node].name : "-", sim[i].value, sim[i].score);
        placed += svc[i].node >= 0;
        unplaced += svc[i].node < 0;
    }
    /* the cluster is sized so that both happen, and more than one node is used */
    ck_assert_msg(placed >= 20 && unplaced >= 2, "%s: %d placed, %d not", label, placed, unplaced);
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

START_TEST(simulate_equals_service_spread)
{
    const char *const f[] = {"--strategy", "spread", NULL};
    equivalent("spread", f, "--strategy spread");
}
END_TEST

START_TEST(simulate_equals_service_pack)
{
    const char *const f[] = {"--strategy", "pack", NULL};
    equivalent("pack", f, "--strategy pack");
}
END_TEST

START_TEST(simulate_equals_service_balanced)
{
    const char *const f[] = {"--strategy", "balanced", NULL};
    equivalent("balanced", f, "--strategy balanced");
}
END_TEST

START_TEST(simulate_equals_service_target)
{
    const char *const f[] = {"--strategy", "target", "--target-percent", "70", NULL};
    equivalent("target", f, "--strategy target --target-percent 70");
}
END_TEST

START_TEST(simulate_equals_service_normalized_weighted_threshold)
{
    const char *const f[] = {"--strategy",  "spread",
                             "--normalize", "--cpu-weight",
                             "1",           "--memory-weight",
                             "2",           "--cpu-threshold-percent",
                             "90",          NULL};
    equivalent("spread normalized", f,
               "--strategy spread --normalize --cpu-weight 1 --memory-weight 2 "
               "--cpu-threshold-percent 90");
}
END_TEST

Suite *sim_service_suite(void)
{
    Suite *s = suite_create("sim_service");
    TCase *tc = tcase_create("sim_service");
    tcase_add_unchecked_fixture(tc, make_pki, remove_pki);
    tcase_set_timeout(tc, 180);
    tcase_add_test(tc, simulate_equals_service_spread);
    tcase_add_test(tc, simulate_equals_service_pack);
    tcase_add_test(tc, simulate_equals_service_balanced);
    tcase_add_test(tc, simulate_equals_service_target);
    tcase_add_test(tc, simulate_equals_service_normalized_weighted_threshold);
    suite_add_tcase(s, tc);
    return s;
}

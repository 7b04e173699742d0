/*
 * The decoder over every request kube-scheduler sent in tests/fixtures/captured,
 * and Go's decoding rules on small documents. Pod requests expected from
 * the pods' YAML:
 *   cap-requests   {500m, 256Mi}
 *   cap-norequests {} -> real 0/0, scoring 100m / 200Mi
 *   cap-complex    init 1/128Mi, 200m/64Mi; containers 250m/128Mi + 100m/32Mi
 *                  -> cpu max(350, 1000) = 1000, memory max(160Mi, 128Mi) = 160Mi
 *   cap-preemptor  {1, 256Mi}
 */
#include "server/codec.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/suites.h"
#include "tests/support/arena_fixture.h"
#include "tests/support/fixtures.h"

#define MI (1024LL * 1024)

static const struct {
    const char *pod;
    int64_t cpu, memory, cpu_nz, memory_nz;
} expected[] = {
    {"cap-requests", 500, 256 * MI, 500, 256 * MI},
    {"cap-norequests", 0, 0, 100, 200 * MI},
    {"cap-complex", 1000, 160 * MI, 1000, 160 * MI},
    {"cap-preemptor", 1000, 256 * MI, 1000, 256 * MI},
};

static void check_pod(const struct codec_pod *p, const char *file)
{
    for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++) {
        if (strcmp(p->name, expected[i].pod) != 0)
            continue;
        ck_assert_msg(p->request.real[SCORE_CPU] == expected[i].cpu, "%s cpu", file);
        ck_assert_msg(p->request.real[SCORE_MEMORY] == expected[i].memory, "%s memory", file);
        ck_assert_msg(p->request.non_zero[SCORE_CPU] == expected[i].cpu_nz, "%s cpu nz", file);
        ck_assert_msg(p->request.non_zero[SCORE_MEMORY] == expected[i].memory_nz, "%s mem nz",
                      file);
        ck_assert_str_eq(p->ns, "default");
        return;
    }
    ck_abort_msg("%s: unexpected pod %s", file, p->name);
}

/* Filter and prioritize bodies: the pod, the mode, every node's capacity. */
static void check_args(const char *file, const char *body, size_t len)
{
    struct codec_args a;
    struct cfg c;
    char err[CODEC_ERR_LEN];
    cfg_defaults(&c);
    ck_assert_msg(srv_decode_args(body, len, &c, &a, err) == 0, "%s: %s", file, err);
    check_pod(&a.pod, file);
    ck_assert_int_eq(a.node_names_mode,
                     strstr(file, "cache-3nodes") == file || strstr(file, "preempt-cache") == file);
    ck_assert_uint_ge(a.n_nodes, 1);
    for (size_t i = 0; i < a.n_nodes; i++) {
        const struct codec_node *n = &a.nodes[i];
        ck_assert_ptr_null(n->invalid);
        ck_assert_int_eq(strncmp(n->name, "node-", 5), 0);
        if (a.node_names_mode)
            continue;
        /* captured allocatables: 1920m/7574524Ki, 3900m/15963132Ki, 7860m/32740348Ki */
        switch (n->res.alloc[SCORE_CPU]) {
        case 1920:
            ck_assert_int_eq(n->res.alloc[SCORE_MEMORY], 7574524LL * 1024);
            break;
        case 3900:
            ck_assert_int_eq(n->res.alloc[SCORE_MEMORY], 15963132LL * 1024);
            break;
        case 7860:
            ck_assert_int_eq(n->res.alloc[SCORE_MEMORY], 32740348LL * 1024);
            break;
        default:
            ck_abort_msg("%s: %s has cpu %lld", file, n->name, (long long)n->res.alloc[0]);
        }
        ck_assert_int_eq(n->res.used[SCORE_CPU], 0);
    }
}

/* Preempt bodies: the preemptor and, in NodeNameToVictims, every victim pod
 * decode; each victim asks 1500m (the pods that filled the nodes). */
static void check_preempt(const char *file, const char *body)
{
    cJSON *root = cJSON_Parse(body);
    struct codec_pod p;
    char err[CODEC_ERR_LEN];
    ck_assert_int_eq(srv_decode_pod(srv_json_member(root, "Pod"), &p, err), 0);
    check_pod(&p, file);
    const cJSON *victims = srv_json_member(root, "NodeNameToVictims"), *node, *pod;
    int seen = 0;
    cJSON_ArrayForEach(node, victims)
    {
        cJSON_ArrayForEach(pod, srv_json_member(node, "Pods"))
        {
            struct codec_pod v;
            ck_assert_msg(srv_decode_pod(pod, &v, err) == 0, "%s: %s", file, err);
            ck_assert_int_eq(v.request.real[SCORE_CPU], 1500);
            seen++;
        }
    }
    ck_assert(seen > 0 || srv_json_member(root, "NodeNameToMetaVictims") != NULL);
    cJSON_Delete(root);
}

START_TEST(codec_every_fixture_request_decodes)
{
    const char *cases[] = {"nocache-3nodes", "cache-3nodes", "preempt-nocache", "preempt-cache",
                           "bind-nocache"};
    int files = 0;
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        char dir[512];
        snprintf(dir, sizeof(dir), "%s/%s/raw", fixture_dir(), cases[k]);
        DIR *d = opendir(dir);
        ck_assert_msg(d != NULL, "missing %s", dir);
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strstr(e->d_name, ".req.json") == NULL)
                continue;
            char rel[512];
            size_t len;
            snprintf(rel, sizeof(rel), "%s/raw/%s", cases[k], e->d_name);
            char *body = fixture_read(rel, &len);
            if (strstr(e->d_name, "-filter.") || strstr(e->d_name, "-prioritize."))
                check_args(rel, body, len);
            else if (strstr(e->d_name, "-preempt."))
                check_preempt(rel, body);
            else
                ck_assert_ptr_nonnull(strstr(body, "\"PodName\":\"cap-requests\""));
            free(body);
            files++;
        }
        closedir(d);
    }
    ck_assert_int_eq(files, 6 + 6 + 2 + 2 + 3);
}
END_TEST

static int decode(const char *json, struct codec_args *a, char err[CODEC_ERR_LEN])
{
    struct cfg c;
    cfg_defaults(&c);
    return srv_decode_args(json, strlen(json), &c, a, err);
}

START_TEST(codec_keys_fold_case_and_last_duplicate_wins)
{
    struct codec_args a;
    char err[CODEC_ERR_LEN];
    ck_assert_int_eq(decode("{\"pOD\":{},\"NODENAMES\":[\"x\"]}", &a, err), 0);
    ck_assert_int_eq(a.n_nodes, 1);
    ck_assert_int_eq(decode("{\"Pod\":{\"spec\":{\"containers\":[{\"resources\":{\"requests\":"
                            "{\"cpu\":\"1\",\"cpu\":\"250m\"}}}]}},\"NodeNames\":[\"x\"]}",
                            &a, err),
                     0);
    ck_assert_int_eq(a.pod.request.real[SCORE_CPU], 250);
    /* keys inside Kubernetes objects are exact: "Spec" is not "spec" */
    ck_assert_int_eq(decode("{\"Pod\":{\"Spec\":{\"containers\":3}},\"NodeNames\":[]}", &a, err),
                     0);
}
END_TEST

START_TEST(codec_quantity_strings_are_trimmed_and_null_is_zero)
{
    struct codec_args a;
    char err[CODEC_ERR_LEN];
    ck_assert_int_eq(decode("{\"Pod\":{\"spec\":{\"containers\":[{\"resources\":{\"requests\":"
                            "{\"cpu\":\" 1.5 \",\"memory\":null}}}]}},\"NodeNames\":[\"x\"]}",
                            &a, err),
                     0);
    ck_assert_int_eq(a.pod.request.real[SCORE_CPU], 1500);
    /* memory: null is present and zero, so no 200Mi default */
    ck_assert_int_eq(a.pod.request.non_zero[SCORE_MEMORY], 0);
}
END_TEST

START_TEST(codec_sidecar_overhead_and_pod_level)
{
    struct codec_args a;
    char err[CODEC_ERR_LEN];
    /* sidecar 100m runs beside the 500m app: max(600, init 1 + 100m) = 1100,
     * + overhead 50m; memory from pod-level 1Gi + overhead 0 */
    ck_assert_int_eq(
        decode("{\"Pod\":{\"spec\":{"
               "\"initContainers\":[{\"restartPolicy\":\"Always\",\"resources\":{\"requests\":"
               "{\"cpu\":\"100m\"}}},{\"resources\":{\"requests\":{\"cpu\":\"1\"}}}],"
               "\"containers\":[{\"resources\":{\"requests\":{\"cpu\":\"500m\"}}}],"
               "\"overhead\":{\"cpu\":\"50m\"},"
               "\"resources\":{\"requests\":{\"memory\":\"1Gi\"}}}},\"NodeNames\":[\"x\"]}",
               &a, err),
        0);
    ck_assert_int_eq(a.pod.request.real[SCORE_CPU], 1150);
    ck_assert_int_eq(a.pod.request.real[SCORE_MEMORY], 1024 * MI);
}
END_TEST

START_TEST(codec_node_problems_stay_on_the_node)
{
    struct codec_args a;
    char err[CODEC_ERR_LEN];
    ck_assert_int_eq(
        decode(
            "{\"Pod\":{},\"Nodes\":{\"items\":["
            "{\"metadata\":{\"name\":\"a\"},\"status\":{\"allocatable\":{\"cpu\":\"-1\"}}},"
            "{\"metadata\":{\"name\":\"b\"},\"status\":{\"allocatable\":[]}},"
            "{\"metadata\":{\"name\":\"c\",\"annotations\":{\"cpu-extender.io/cpu-used\":\"2\"}},"
            "\"status\":{\"allocatable\":{\"cpu\":\"4\",\"memory\":\"1Gi\"}}},"
            "{\"metadata\":{\"name\":\"d\"},\"status\":\"x\"}]}}",
            &a, err),
        0);
    ck_assert_int_eq(a.n_nodes, 4);
    ck_assert_str_eq(a.nodes[0].invalid, "invalid allocatable cpu");
    ck_assert_str_eq(a.nodes[1].invalid, "invalid allocatable");
    ck_assert_ptr_null(a.nodes[2].invalid);
    ck_assert_int_eq(a.nodes[2].res.used[SCORE_CPU], 2000);
    ck_assert_int_eq(a.nodes[2].res.alloc[SCORE_MEMORY], 1024 * MI);
    ck_assert_str_eq(a.nodes[3].invalid, "invalid node status");
}
END_TEST

Suite *codec_suite(void)
{
    Suite *s = suite_create("codec");
    TCase *tc = tcase_create("codec");
    tcase_add_checked_fixture(tc, arena_fixture_setup, arena_fixture_teardown);
    tcase_add_test(tc, codec_every_fixture_request_decodes);
    tcase_add_test(tc, codec_keys_fold_case_and_last_duplicate_wins);
    tcase_add_test(tc, codec_quantity_strings_are_trimmed_and_null_is_zero);
    tcase_add_test(tc, codec_sidecar_overhead_and_pod_level);
    tcase_add_test(tc, codec_node_problems_stay_on_the_node);
    suite_add_tcase(s, tc);
    return s;
}

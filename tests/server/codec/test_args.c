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
#include "server/codec/args.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "server/codec/preempt_args.h"
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

/* What the verbs compute from a decoded pod: decoding does not score. */
static struct score_pod_request request_of(const struct score_pod *spec)
{
    struct score_pod_request r;
    ck_assert_int_eq(score_pod_request(spec, &r), 0);
    return r;
}

static void check_pod(const struct codec_pod *p, const char *file)
{
    for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++) {
        if (strcmp(p->name, expected[i].pod) != 0)
            continue;
        ck_assert_msg(request_of(&p->spec).real[SCORE_CPU] == expected[i].cpu, "%s cpu", file);
        ck_assert_msg(request_of(&p->spec).real[SCORE_MEMORY] == expected[i].memory, "%s memory",
                      file);
        ck_assert_msg(request_of(&p->spec).non_zero[SCORE_CPU] == expected[i].cpu_nz, "%s cpu nz",
                      file);
        ck_assert_msg(request_of(&p->spec).non_zero[SCORE_MEMORY] == expected[i].memory_nz,
                      "%s mem nz", file);
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
    char err[ERR_LEN];
    cfg_defaults(&c);
    ck_assert_msg(codec_args_decode(test_arena, body, len, &c, &a, err) == 0, "%s: %s", file, err);
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

/* Preempt bodies, through the preempt decoder: the preemptor and, in
 * NodeNameToVictims, every victim pod; each victim asks 1500m (the pods
 * that filled the nodes). */
static void check_preempt(const char *file, const char *body, size_t len)
{
    struct codec_preempt_args p;
    struct cfg c;
    char err[ERR_LEN];
    cfg_defaults(&c);
    ck_assert_msg(codec_preempt_decode(test_arena, body, len, &c, &p, err) == 0, "%s: %s", file,
                  err);
    check_pod(&p.pod, file);
    ck_assert_int_eq(p.meta_form, strstr(file, "preempt-cache") == file);
    ck_assert_uint_ge(p.n_nodes, 1);
    for (size_t i = 0; i < p.n_nodes; i++) {
        ck_assert_uint_eq(p.nodes[i].n, 1);
        ck_assert_int_eq(p.nodes[i].pods == NULL, p.meta_form);
        if (!p.meta_form)
            ck_assert_int_eq(request_of(&p.nodes[i].pods[0]).real[SCORE_CPU], 1500);
    }
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
                check_preempt(rel, body, len);
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

static int decode(const char *json, struct codec_args *a, char *err)
{
    struct cfg c;
    cfg_defaults(&c);
    return codec_args_decode(test_arena, json, strlen(json), &c, a, err);
}

START_TEST(codec_keys_fold_case_and_last_duplicate_wins)
{
    struct codec_args a;
    char err[ERR_LEN];
    ck_assert_int_eq(decode("{\"pOD\":{},\"NODENAMES\":[\"x\"]}", &a, err), 0);
    ck_assert_int_eq(a.n_nodes, 1);
    ck_assert_int_eq(decode("{\"Pod\":{\"spec\":{\"containers\":[{\"resources\":{\"requests\":"
                            "{\"cpu\":\"1\",\"cpu\":\"250m\"}}}]}},\"NodeNames\":[\"x\"]}",
                            &a, err),
                     0);
    ck_assert_int_eq(request_of(&a.pod.spec).real[SCORE_CPU], 250);
    /* struct fields fold inside the objects too, as encoding/json matches
     * them ("Spec" is spec, U+017F folds to "s"); map keys do not ("CPU"
     * is another resource) */
    ck_assert_int_eq(decode("{\"Pod\":{\"Spec\":{\"containers\":3}},\"NodeNames\":[]}", &a, err),
                     -EINVAL);
    ck_assert_str_eq(err, "Pod.spec.containers: want an array");
    ck_assert_int_eq(decode("{\"Pod\":{\"\xc5\xbfpec\":{\"containers\":[{\"re\xc5\xbfources\":"
                            "{\"requests\":{\"CPU\":\"1\",\"memory\":\"1Ki\"}}}]}},"
                            "\"NodeNames\":[\"x\"]}",
                            &a, err),
                     0);
    ck_assert_int_eq(request_of(&a.pod.spec).real[SCORE_CPU], 0);
    ck_assert_int_eq(request_of(&a.pod.spec).real[SCORE_MEMORY], 1024);
    /* two Pod objects: Go would merge them; refused */
    ck_assert_int_eq(
        decode("{\"Pod\":{\"spec\":{}},\"pod\":{\"metadata\":{}},\"NodeNames\":[]}", &a, err),
        -EINVAL);
    ck_assert_str_eq(err, "Pod: given twice");
    /* into an empty one, the second is what Go reads */
    ck_assert_int_eq(
        decode("{\"Pod\":{ },\"pod\":{\"metadata\":{\"name\":\"p\"}},\"NodeNames\":[]}", &a, err),
        0);
    ck_assert_str_eq(a.pod.name, "p");
    ck_assert_int_eq(decode("{\"Pod\":null,\"pod\":{},\"NodeNames\":[]}", &a, err), 0);
}
END_TEST

START_TEST(codec_quantity_strings_are_trimmed_and_null_is_zero)
{
    struct codec_args a;
    char err[ERR_LEN];
    ck_assert_int_eq(decode("{\"Pod\":{\"spec\":{\"containers\":[{\"resources\":{\"requests\":"
                            "{\"cpu\":\" 1.5 \",\"memory\":null}}}]}},\"NodeNames\":[\"x\"]}",
                            &a, err),
                     0);
    ck_assert_int_eq(request_of(&a.pod.spec).real[SCORE_CPU], 1500);
    /* memory: null is present and zero, so no 200Mi default */
    ck_assert_int_eq(request_of(&a.pod.spec).non_zero[SCORE_MEMORY], 0);
}
END_TEST

START_TEST(codec_sidecar_overhead_and_pod_level)
{
    struct codec_args a;
    char err[ERR_LEN];
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
    ck_assert_int_eq(request_of(&a.pod.spec).real[SCORE_CPU], 1150);
    ck_assert_int_eq(request_of(&a.pod.spec).real[SCORE_MEMORY], 1024 * MI);
}
END_TEST

/* A pod-level request of hugepages alone still makes the pod a pod-level
 * one for the node's sums (upstream IsPodLevelRequestsSet): memory is
 * named by a container, so no container gets the 200Mi default: 100Mi, not
 * 100Mi + 200Mi. The pod being scored keeps the per-container defaults. */
START_TEST(codec_pod_level_hugepages_alone_counts_as_pod_level)
{
    struct codec_args a;
    char err[ERR_LEN];
    ck_assert_int_eq(
        decode("{\"Pod\":{\"spec\":{\"containers\":["
               "{\"resources\":{\"requests\":{\"memory\":\"100Mi\"}}},{\"resources\":{}}],"
               "\"resources\":{\"requests\":{\"hugepages-2Mi\":\"4Mi\"}}}},\"NodeNames\":[\"x\"]}",
               &a, err),
        0);
    ck_assert_int_eq(request_of(&a.pod.spec).real[SCORE_MEMORY], 100 * MI);
    ck_assert_int_eq(request_of(&a.pod.spec).non_zero[SCORE_MEMORY], 100 * MI);
    ck_assert_int_eq(request_of(&a.pod.spec).non_zero_scored[SCORE_MEMORY], 300 * MI);
}
END_TEST

START_TEST(codec_node_problems_stay_on_the_node)
{
    struct codec_args a;
    char err[ERR_LEN];
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

/* A node named twice: Go's map keeps the last value; ours keeps it in the
 * first key's place. Many keys stay linear (a hash of the names). */
START_TEST(codec_preempt_duplicate_nodes_keep_the_last)
{
    struct codec_preempt_args p;
    struct cfg c;
    char err[ERR_LEN];
    cfg_defaults(&c);
    const char *body = "{\"Pod\":{},\"NodeNameToMetaVictims\":{"
                       "\"a\":{\"Pods\":[{\"UID\":\"1\"}]},\"b\":{\"Pods\":[{\"UID\":\"2\"}]},"
                       "\"a\":{\"Pods\":[{\"UID\":\"3\"},{\"UID\":\"4\"}]}}}";
    ck_assert_int_eq(codec_preempt_decode(test_arena, body, strlen(body), &c, &p, err), 0);
    ck_assert_uint_eq(p.n_nodes, 2);
    ck_assert_str_eq(p.nodes[0].node, "a");
    ck_assert_uint_eq(p.nodes[0].n, 2);
    ck_assert_str_eq(p.nodes[0].uids[1], "4");
    ck_assert_str_eq(p.nodes[1].node, "b");

    /* 10 000 distinct names, then every one again: 10 000 nodes. */
    size_t cap = 64 + 2 * 10000 * 40;
    char *big = malloc(cap), *w = big;
    w += sprintf(w, "{\"Pod\":{},\"NodeNameToMetaVictims\":{");
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < 10000; i++)
            w += sprintf(w, "%s\"node-%05d\":{\"Pods\":[{\"UID\":\"u%d\"}]}",
                         round == 0 && i == 0 ? "" : ",", i, round);
    w += sprintf(w, "}}");
    c.max_nodes = 20000;
    ck_assert_int_eq(codec_preempt_decode(test_arena, big, (size_t)(w - big), &c, &p, err), 0);
    ck_assert_uint_eq(p.n_nodes, 10000);
    ck_assert_str_eq(p.nodes[9999].node, "node-09999");
    ck_assert_str_eq(p.nodes[9999].uids[0], "u1");
    free(big);
}
END_TEST

/* Out of memory while parsing is the server's fault, not malformed JSON. */
START_TEST(codec_out_of_memory_is_not_malformed_json)
{
    struct codec_args a;
    char err[ERR_LEN];
    arena_set_limit(test_arena, 4096);
    char body[8192];
    int n = snprintf(body, sizeof(body), "{\"Pod\":{},\"NodeNames\":[");
    for (int i = 0; i < 500; i++)
        n += snprintf(body + n, sizeof(body) - (size_t)n, "%s\"n%d\"", i ? "," : "", i);
    snprintf(body + n, sizeof(body) - (size_t)n, "]}");
    ck_assert_int_eq(decode(body, &a, err), -ENOMEM);
    ck_assert_str_eq(err, "out of memory");
    arena_set_limit(test_arena, 0);
    ck_assert_int_eq(decode(body, &a, err), 0);
    ck_assert_uint_eq(a.n_nodes, 500);
}
END_TEST

START_TEST(codec_pod_resize_status)
{
    /* A running pod after an in-place resize: the container's status (by
     * name) and the Infeasible condition reach score_pod_request. */
    struct codec_args a;
    char err[ERR_LEN];
    ck_assert_int_eq(
        decode("{\"Pod\":{\"spec\":{\"containers\":[{\"name\":\"app\",\"resources\":"
               "{\"requests\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}}}]},\"status\":{"
               "\"containerStatuses\":[{\"name\":\"other\",\"allocatedResources\":{\"cpu\":\"9\"}},"
               "{\"name\":\"app\",\"allocatedResources\":{\"cpu\":\"2\"},"
               "\"resources\":{\"requests\":{\"cpu\":\"1500m\",\"memory\":\"2Gi\"}}}]}},"
               "\"NodeNames\":[\"x\"]}",
               &a, err),
        0);
    ck_assert_int_eq(request_of(&a.pod.spec).fit[SCORE_CPU], 1000);
    ck_assert_int_eq(request_of(&a.pod.spec).real[SCORE_CPU], 2000);
    ck_assert_int_eq(request_of(&a.pod.spec).real[SCORE_MEMORY], 2 * 1024 * MI);
    ck_assert_int_eq(
        decode("{\"Pod\":{\"spec\":{\"containers\":[{\"name\":\"app\",\"resources\":"
               "{\"requests\":{\"cpu\":\"4\"}}}]},\"status\":{\"conditions\":["
               "{\"type\":\"PodResizePending\",\"reason\":\"Infeasible\"}],"
               "\"containerStatuses\":[{\"name\":\"app\",\"allocatedResources\":{\"cpu\":\"1\"}}],"
               "\"allocatedResources\":null}},\"NodeNames\":[\"x\"]}",
               &a, err),
        0);
    ck_assert_int_eq(request_of(&a.pod.spec).fit[SCORE_CPU], 4000);
    ck_assert_int_eq(request_of(&a.pod.spec).real[SCORE_CPU], 1000);
    ck_assert_int_eq(
        decode("{\"Pod\":{\"status\":{\"containerStatuses\":{}}},\"NodeNames\":[]}", &a, err),
        -EINVAL);
    ck_assert_str_eq(err, "Pod.status.containerStatuses: want an array");
}
END_TEST

/* findContainerStatus through JSON: the regular statuses before the init
 * ones, the first entry of a name, a sidecar's status among the init
 * statuses. */
START_TEST(codec_pod_status_found_by_name_first_wins)
{
    struct codec_args a;
    char err[ERR_LEN];
    ck_assert_int_eq(
        decode(
            "{\"Pod\":{\"spec\":{\"initContainers\":[{\"name\":\"sc\",\"restartPolicy\":\"Always\","
            "\"resources\":{\"requests\":{\"cpu\":\"100m\"}}}],"
            "\"containers\":[{\"name\":\"app\",\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]},"
            "\"status\":{\"initContainerStatuses\":[{\"name\":\"app\",\"allocatedResources\":{"
            "\"cpu\":\"7\"}},"
            "{\"name\":\"sc\",\"allocatedResources\":{\"cpu\":\"500m\"}}],"
            "\"containerStatuses\":[{\"name\":\"app\",\"allocatedResources\":{\"cpu\":\"3\"}},"
            "{\"name\":\"app\",\"allocatedResources\":{\"cpu\":\"9\"}}]}},\"NodeNames\":[\"x\"]}",
            &a, err),
        0);
    /* app: 3 (the first regular entry, not 9, not the init list's 7);
     * sc: 500m from the init statuses. */
    ck_assert_int_eq(request_of(&a.pod.spec).real[SCORE_CPU], 3500);
    ck_assert_int_eq(request_of(&a.pod.spec).fit[SCORE_CPU], 1100);
}
END_TEST

/* Many containers with their statuses in reverse order: each still finds
 * its own (the lookup is an index, not a scan per container). */
START_TEST(codec_pod_status_many_containers_reversed)
{
    enum { N = 4000 };
    struct codec_args a;
    char err[ERR_LEN];
    size_t cap = (size_t)N * 160 + 256, len = 0;
    char *body = malloc(cap);
    ck_assert_ptr_nonnull(body);
    len += (size_t)snprintf(body + len, cap - len, "{\"Pod\":{\"spec\":{\"containers\":[");
    for (int i = 0; i < N; i++)
        len += (size_t)snprintf(
            body + len, cap - len,
            "%s{\"name\":\"c%d\",\"resources\":{\"requests\":{\"cpu\":\"1m\"}}}", i ? "," : "", i);
    len += (size_t)snprintf(body + len, cap - len, "]},\"status\":{\"containerStatuses\":[");
    for (int i = N - 1; i >= 0; i--)
        len += (size_t)snprintf(body + len, cap - len,
                                "{\"name\":\"c%d\",\"allocatedResources\":{\"cpu\":\"%dm\"}}%s", i,
                                i % 2 ? 2 : 1, i ? "," : "");
    snprintf(body + len, cap - len, "]}},\"NodeNames\":[\"x\"]}");
    ck_assert_int_eq(decode(body, &a, err), 0);
    /* Half the containers allocated 2m, half 1m (their spec): 3 * N / 2. */
    ck_assert_int_eq(request_of(&a.pod.spec).real[SCORE_CPU], 3 * N / 2);
    free(body);
}
END_TEST

Suite *codec_suite(void)
{
    Suite *s = suite_create("codec");
    TCase *tc = tcase_create("codec");
    tcase_add_checked_fixture(tc, arena_fixture_setup, arena_fixture_teardown);
    tcase_add_test(tc, codec_every_fixture_request_decodes);
    tcase_add_test(tc, codec_keys_fold_case_and_last_duplicate_wins);
    tcase_add_test(tc, codec_pod_resize_status);
    tcase_add_test(tc, codec_pod_status_found_by_name_first_wins);
    tcase_add_test(tc, codec_pod_status_many_containers_reversed);
    tcase_add_test(tc, codec_quantity_strings_are_trimmed_and_null_is_zero);
    tcase_add_test(tc, codec_sidecar_overhead_and_pod_level);
    tcase_add_test(tc, codec_pod_level_hugepages_alone_counts_as_pod_level);
    tcase_add_test(tc, codec_node_problems_stay_on_the_node);
    tcase_add_test(tc, codec_preempt_duplicate_nodes_keep_the_last);
    tcase_add_test(tc, codec_out_of_memory_is_not_malformed_json);
    suite_add_tcase(s, tc);
    return s;
}

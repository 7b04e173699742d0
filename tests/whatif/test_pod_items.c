/*
 * whatif/pod_items.c: the pods of a file, whatever kubectl printed
 * (a List, a PodList, a Pod, several of them in a row), each one's exact
 * bytes, and the refusals: another kind, not an object, malformed JSON
 * anywhere (nothing is returned from a file that fails).
 */
#include "whatif/pod_items.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/err.h"
#include "tests/suites.h"

static bool span_is(struct codec_span s, const char *text)
{
    return s.len == strlen(text) && memcmp(s.p, text, s.len) == 0;
}

static int items(const char *text, struct whatif_item **it, size_t *n, char *err)
{
    return whatif_pod_items(text, strlen(text), it, n, err);
}

START_TEST(pod_items_of_lists_pods_and_streams)
{
    struct whatif_item *it;
    size_t n;
    char err[ERR_LEN], name[64];
    /* kubectl get pods -o json: kind List, after the items */
    ck_assert_int_eq(items("{\"apiVersion\":\"v1\",\"items\":[{\"metadata\":{\"name\":\"a\"}},"
                           " {\"metadata\":{\"name\":\"b\"}}],\"kind\":\"List\"}",
                           &it, &n, err),
                     0);
    ck_assert_uint_eq(n, 2);
    ck_assert(span_is(it[1].json, "{\"metadata\":{\"name\":\"b\"}}"));
    whatif_item_name(&it[1], 1, name, sizeof(name));
    ck_assert_str_eq(name, "items[1]");
    free(it);
    /* a bare Pod; several objects in a row, one a PodList */
    ck_assert_int_eq(items("{\"kind\":\"Pod\",\"metadata\":{\"name\":\"a\"}}\n"
                           "{\"kind\":\"PodList\",\"items\":[{\"kind\":\"Pod\"}]}\n"
                           "{\"metadata\":{\"name\":\"c\"}}\n",
                           &it, &n, err),
                     0);
    ck_assert_uint_eq(n, 3);
    ck_assert(span_is(it[0].json, "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"a\"}}"));
    ck_assert(span_is(it[1].json, "{\"kind\":\"Pod\"}"));
    ck_assert(span_is(it[2].json, "{\"metadata\":{\"name\":\"c\"}}"));
    whatif_item_name(&it[0], 3, name, sizeof(name));
    ck_assert_str_eq(name, "object 1");
    whatif_item_name(&it[1], 3, name, sizeof(name));
    ck_assert_str_eq(name, "object 2 items[0]");
    free(it);
    /* an empty list, a null items, a repeated items (the last one) */
    ck_assert_int_eq(items("{\"kind\":\"List\",\"items\":[]}", &it, &n, err), 0);
    ck_assert_uint_eq(n, 0);
    ck_assert_ptr_null(it);
    ck_assert_int_eq(items("{\"items\":null}", &it, &n, err), 0);
    ck_assert_uint_eq(n, 0);
    ck_assert_int_eq(items("{\"items\":[{},{}],\"items\":[{\"x\":1}]}", &it, &n, err), 0);
    ck_assert_uint_eq(n, 1);
    ck_assert(span_is(it[0].json, "{\"x\":1}"));
    free(it);
}
END_TEST

START_TEST(pod_items_refusals)
{
    struct whatif_item *it;
    size_t n;
    char err[ERR_LEN];
    const struct {
        const char *text, *err;
    } cases[] = {
        {"{\"kind\":\"NodeList\",\"items\":[]}",
         "object 1: a NodeList, not pods (want a Pod, a PodList or a List of pods)"},
        {"{\"kind\":\"Pod\"}{\"kind\":\"Node\",\"metadata\":{}}",
         "object 2: a Node, not pods (want a Pod, a PodList or a List of pods)"},
        {"[{\"kind\":\"Pod\"}]", "object 1: want a Pod or a PodList object"},
        {"{\"items\":[{},\"pod\"]}", "object 1 items[1]: want a Pod object"},
        {"", "empty: want a Pod or a PodList"},
        {"  \n", "empty: want a Pod or a PodList"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        ck_assert_int_eq(items(cases[i].text, &it, &n, err), -EINVAL);
        ck_assert_str_eq(err, cases[i].err);
        ck_assert_ptr_null(it);
        ck_assert_uint_eq(n, 0);
    }
    /* malformed JSON after good pods: nothing comes back, the byte named */
    ck_assert_int_eq(items("{\"items\":[{\"metadata\":{}},{\"metadata\":{]}", &it, &n, err),
                     -EINVAL);
    ck_assert_ptr_null(it);
    ck_assert_msg(strstr(err, "malformed JSON at byte 39") != NULL, "%s", err);
    ck_assert_int_eq(items("{\"kind\":\"Pod\"} x", &it, &n, err), -EINVAL);
    ck_assert_msg(strstr(err, "byte 15") != NULL, "%s", err);
}
END_TEST

START_TEST(pod_kind_check_takes_pod_or_none)
{
    char err[ERR_LEN];
    cJSON *p = cJSON_Parse("{\"kind\":\"Pod\"}");
    ck_assert_int_eq(whatif_pod_kind_check(p, err), 0);
    cJSON_Delete(p);
    p = cJSON_Parse("{}");
    ck_assert_int_eq(whatif_pod_kind_check(p, err), 0);
    cJSON_Delete(p);
    p = cJSON_Parse("{\"kind\":\"Node\"}");
    ck_assert_int_eq(whatif_pod_kind_check(p, err), -EINVAL);
    ck_assert_str_eq(err, "a Node, not a Pod");
    cJSON_Delete(p);
}
END_TEST

START_TEST(pod_one_check_refuses_lists_and_other_kinds)
{
    char err[ERR_LEN];
    const struct {
        const char *json, *err;
    } cases[] = {
        {"{\"kind\":\"Pod\",\"items\":[]}", NULL},
        {"{\"metadata\":{},\"spec\":{\"containers\":[]}}", NULL},
        /* issue 24: no kind and no pod's spec */
        {"{\"metadata\":{}}", "neither kind Pod nor spec.containers, not a Pod: give one pod "
                              "(kubectl get pod NAME -o json)"},
        {"{}", "neither kind Pod nor spec.containers, not a Pod: give one pod (kubectl get pod "
               "NAME -o json)"},
        {"{\"Pod\":{},\"Nodes\":{\"items\":[]},\"NodeNames\":null}",
         "an ExtenderArgs (Pod, Nodes), not a Pod: give one pod (kubectl get pod NAME -o json)"},
        {"{\"kind\":\"List\",\"items\":[]}",
         "a List, not a Pod: give one pod (kubectl get pod NAME -o json)"},
        {"{\"kind\":\"PodList\"}",
         "a PodList, not a Pod: give one pod (kubectl get pod NAME -o json)"},
        {"{\"items\":[{}]}", "a list, not a Pod: give one pod (kubectl get pod NAME -o json)"},
        {"{\"kind\":\"NodeList\",\"items\":[]}",
         "a NodeList, not a Pod: give one pod (kubectl get pod NAME -o json)"},
        {"{\"kind\":7}", "kind: want a string"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cJSON *p = cJSON_Parse(cases[i].json);
        int rc = whatif_pod_one_check(p, err);
        cJSON_Delete(p);
        if (cases[i].err == NULL) {
            ck_assert_int_eq(rc, 0);
            continue;
        }
        ck_assert_int_eq(rc, -EINVAL);
        ck_assert_str_eq(err, cases[i].err);
    }
}
END_TEST

START_TEST(pod_item_decode_names_the_item_and_pod)
{
    struct whatif_item *it;
    size_t n;
    char err[ERR_LEN];
    const char *text = "{\"items\":[{\"metadata\":{\"name\":\"a\",\"namespace\":\"x\"},"
                       "\"spec\":{\"priority\":7,\"containers\":[{\"resources\":{\"requests\":"
                       "{\"cpu\":\"250m\"}}}]}},{\"metadata\":{\"name\":\"b\"},\"spec\":{"
                       "\"containers\":[{\"resources\":{\"requests\":{\"cpu\":\"-1\"}}}]}}]}";
    ck_assert_int_eq(whatif_pod_items(text, strlen(text), &it, &n, err), 0);
    ck_assert_uint_eq(n, 2);
    struct arena *a = arena_acquire();
    const cJSON *tree;
    struct codec_pod pod;
    struct score_pod_request req;
    ck_assert_int_eq(whatif_pod_item_decode(a, &it[0], 1, &tree, &pod, &req, err), 0);
    ck_assert_str_eq(pod.name, "a");
    ck_assert_int_eq(pod.priority, 7);
    ck_assert_int_eq(req.real[SCORE_CPU], 250);
    ck_assert_ptr_nonnull(tree);
    ck_assert_int_eq(whatif_pod_item_decode(a, &it[1], 1, &tree, &pod, &req, err), -EINVAL);
    ck_assert_msg(strncmp(err,
                          "items[1] (default/b): Pod.spec.containers[0].resources.requests.cpu",
                          66) == 0,
                  "%s", err);
    arena_release(a);
    free(it);
}
END_TEST

Suite *pod_items_suite(void)
{
    Suite *s = suite_create("pod_items");
    TCase *tc = tcase_create("pod_items");
    tcase_add_test(tc, pod_items_of_lists_pods_and_streams);
    tcase_add_test(tc, pod_items_refusals);
    tcase_add_test(tc, pod_kind_check_takes_pod_or_none);
    tcase_add_test(tc, pod_one_check_refuses_lists_and_other_kinds);
    tcase_add_test(tc, pod_item_decode_names_the_item_and_pod);
    suite_add_tcase(s, tc);
    return s;
}

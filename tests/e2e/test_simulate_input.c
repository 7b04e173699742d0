/*
 * `cpu-extender simulate`, the real binary on files: every malformed input
 * refused with its file, object and field, nothing placed (no CSV written)
 * from a file that fails; the --html page's data. (The page rendered in
 * Chromium: test_browser.c.)
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/suites.h"
#include "tests/support/sim_files.h"

/* One malformed input: the files that replace the good ones (NULL: the
 * good one), the flags, and what the message must say. TRUNCATED: the good
 * pods cut in half. */
#define TRUNCATED "(truncated)"
static const struct bad_case {
    const char *nodes, *pods, *existing, *args, *want;
} cases[] = {
    {NULL, NULL, NULL, "--nodes missing.json", "missing.json: No such file or directory"},
    {"{\"items\":[", NULL, NULL, "", "nodes.json: malformed JSON at byte 10 of 10"},
    {"{\"kind\":\"PodList\",\"items\":[]}", NULL, NULL, "",
     "nodes.json: a PodList, not nodes (want a NodeList, a List of nodes or a Node)"},
    {"{\"kind\":\"List\",\"items\":[{\"kind\":\"Pod\",\"metadata\":{\"name\":\"x\"}}]}", NULL, NULL,
     "", "nodes.json: items[0] (x): a Pod, not a Node"},
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
    {"{\"items\":[{\"metadata\":{\"name\":\"n1\"}},{\"metadata\":{\"name\":\"n1\"}}]}", NULL, NULL,
     "", "nodes.json: node n1 is given twice"},
    {"{\"items\":[{\"metadata\":{}}]}", NULL, NULL, "",
     "nodes.json.items[0]: node without a metadata.name string"},
    {NULL, TRUNCATED, NULL, "", "pods.json: malformed JSON at byte"},
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
     "pods.json: items[0] (n): a Node, not a Pod"},
    {NULL, "{\"items\":[{\"metadata\":{\"name\":\"p\"},\"spec\":{\"priority\":1.5}}]}", NULL, "",
     "pods.json: items[0] (default/p): Pod.spec.priority: want a 32-bit integer"},
    {NULL, NULL,
     "{\"items\":[{\"metadata\":{\"name\":\"e\"},\"spec\":{\"nodeName\":\"n1\","
     "\"containers\":[{\"resources\":{\"requests\":{\"memory\":\"-1Gi\"}}}]}}]}",
     "--existing existing.json",
     "existing.json: items[0] (default/e): Pod.spec.containers[0].resources.requests.memory"},
    {NULL, NULL, "[1]", "--existing existing.json",
     "existing.json: object 1: want a Pod or a PodList object"},
    {NULL, NULL, NULL, "--strategy fastest", "--strategy fastest: want spread, pack"},
    {NULL, NULL, NULL, "--cpu-used-source usage",
     "--cpu-used-source usage: node files carry no usage (metrics.k8s.io): simulate against the "
     "cluster"},
    {NULL, NULL, NULL, "--memory-used-source max", "--memory-used-source max: node files carry"},
    {NULL, NULL, NULL, "--cpu-weight 500", "cpu-weight"},
    {NULL, NULL, NULL, "--pods - --nodes -", "only one of --nodes, --pods and --existing"},
    {NULL, NULL, NULL, "--placements nowhere/p.csv", "nowhere/p.csv: No such file"},
};

/* Every malformed input: exit 2, a message naming the file, the object and
 * the field, and nothing placed: no CSV. */
START_TEST(simulate_bad_input_is_refused_and_named)
{
    struct simdir d;
    sim_dir_make(&d);
    char *good_nodes = sim_list(2, sim_node_json("n1", "4", "8Gi", "110", "", ""),
                                sim_node_json("n2", "4", "8Gi", "110", "", ""));
    char *good_pods =
        sim_list(2, sim_pod_json("p1", "1", "1Gi", ""), sim_pod_json("p2", "1", "1Gi", ""));
    char truncated[256];
    snprintf(truncated, sizeof(truncated), "%.*s", (int)(strlen(good_pods) / 2), good_pods);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *out, *err, args[512];
        sim_put(&d, "nodes.json", cases[i].nodes != NULL ? cases[i].nodes : good_nodes);
        const char *pods = cases[i].pods == NULL                   ? good_pods
                           : strcmp(cases[i].pods, TRUNCATED) == 0 ? truncated
                                                                   : cases[i].pods;
        sim_put(&d, "pods.json", pods);
        sim_put(&d, "existing.json",
                cases[i].existing != NULL ? cases[i].existing : "{\"items\":[]}");
        unlink(sim_path(&d, "p.csv", args, sizeof(args)));
        const char *place = strstr(cases[i].args, "--placements") ? "" : "--placements p.csv";
        snprintf(args, sizeof(args), "%s%s %s",
                 strstr(cases[i].args, "--nodes") ? "" : "--nodes nodes.json ",
                 strstr(cases[i].args, "--pods") ? "" : "--pods pods.json", place);
        char all[1024];
        snprintf(all, sizeof(all), "%s %s", args, cases[i].args);
        int rc = sim_run(&d, &out, &err, "%s", all);
        ck_assert_msg(rc == 2, "case %zu (%s): exit %d, %s", i, cases[i].want, rc, err);
        ck_assert_msg(strstr(err, cases[i].want) != NULL, "case %zu: want \"%s\" in: %s", i,
                      cases[i].want, err);
        if (pods == truncated) { /* the message says where the file ends */
            char end[64];
            snprintf(end, sizeof(end), " of %zu: ", strlen(truncated));
            ck_assert_msg(strstr(err, end) != NULL, "case %zu: want \"%s\" in: %s", i, end, err);
        }
        ck_assert_msg(!sim_exists(&d, "p.csv"), "case %zu: a CSV was written", i);
        ck_assert_msg(out[0] == '\0', "case %zu: printed %s", i, out);
        free(out);
        free(err);
    }
    free(good_nodes);
    free(good_pods);
    sim_dir_remove(&d);
}
END_TEST

/* --html: one page, no script, a bar per node and strategy with the CPU
 * requested before and after as data, the summary table. (Rendered in
 * Chromium: test_browser.c.) */
START_TEST(simulate_html_page_holds_bars_and_summary)
{
    struct simdir d;
    char *out, *err;
    sim_dir_make(&d);
    char *nodes = sim_list(2, sim_node_json("n<1>", "4", "8Gi", "110", "", ""),
                           sim_node_json("a-node", "2", "4Gi", "110", "", ""));
    char *pods = sim_list(1, sim_pod_json("p", "1", "1Gi", ""));
    sim_put(&d, "nodes.json", nodes);
    sim_put(&d, "pods.json", pods);
    ck_assert_int_eq(sim_run(&d, &out, &err,
                             "--nodes nodes.json --pods pods.json --strategy spread --html "
                             "s.html"),
                     0);
    char *html = sim_read(&d, "s.html");
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
    sim_dir_remove(&d);
}
END_TEST

Suite *simulate_input_suite(void)
{
    Suite *s = suite_create("simulate_input");
    TCase *tc = tcase_create("simulate_input");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, simulate_bad_input_is_refused_and_named);
    tcase_add_test(tc, simulate_html_page_holds_bars_and_summary);
    suite_add_tcase(s, tc);
    return s;
}

/*
 * `cpu-extender simulate`, the real binary on files: placements worked out
 * by hand from the rules (README "How scores are computed": spread, pack,
 * balanced, target; weights cpu 3, memory 1; integer division throughout;
 * score = (value + 5) / 10) and compared to the last integer, and the
 * summary's figures. Bad input and the page: test_simulate_input.c.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/suites.h"
#include "tests/support/sim_files.h"

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
    sim_dir_make(&d);
    char *nodes = sim_list(3, sim_node_json("n-a", "4", "8Gi", "110", "", ""),
                           sim_node_json("n-b", "4000m", "8192Mi", "110", "", ""),
                           sim_node_json("n-c", "2", "4Gi", "110", "", ""));
    char *pods =
        sim_list(4, sim_pod_json("p1", "1", "1Gi", ""), sim_pod_json("p2", "1000m", "1Gi", ""),
                 sim_pod_json("p3", "2", "2Gi", ""), sim_pod_json("p4", "8", "1Gi", ""));
    sim_put(&d, "nodes.json", nodes);
    sim_put(&d, "pods.json", pods);
    ck_assert_int_eq(
        sim_run(&d, &out, &err, "--nodes nodes.json --pods pods.json --placements p.csv"), 3);
    char *csv = sim_read(&d, "p.csv");
    ck_assert_msg(strncmp(csv, "strategy,pod,node,value,score\n", 30) == 0, "%s", csv);
    sim_expect_row(csv, "spread", "t/p1", "n-a,78,8");
    sim_expect_row(csv, "spread", "t/p2", "n-b,78,8");
    sim_expect_row(csv, "spread", "t/p3", "n-a,34,3");
    sim_expect_row(csv, "spread", "t/p4", ",,");
    sim_expect_row(csv, "pack", "t/p1", "n-c,43,4");
    sim_expect_row(csv, "pack", "t/p2", "n-c,87,9");
    sim_expect_row(csv, "pack", "t/p3", "n-a,43,4");
    sim_expect_row(csv, "pack", "t/p4", ",,");
    sim_expect_row(csv, "balanced", "t/p1", "n-a,93,9");
    sim_expect_row(csv, "balanced", "t/p2", "n-b,93,9");
    sim_expect_row(csv, "balanced", "t/p3", "n-a,81,8");
    sim_expect_row(csv, "target", "t/p1", "n-c,88,9");
    sim_expect_row(csv, "target", "t/p2", "n-a,74,7");
    sim_expect_row(csv, "target", "t/p3", "n-b,88,9");
    sim_expect_row(csv, "target", "t/p4", ",,");
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
    ck_assert_int_eq(sim_run(&d, &out, &err,
                             "--nodes nodes.json --pods pods.json --strategy pack --normalize "
                             "--placements p.csv"),
                     3);
    csv = sim_read(&d, "p.csv");
    sim_expect_row(csv, "pack", "t/p2", "n-c,87,10");
    ck_assert_ptr_null(strstr(csv, "spread,"));
    free(csv);
    free(out);
    free(err);
    /* without p4 everything fits: exit 0 */
    free(pods);
    pods = sim_list(1, sim_pod_json("p1", "1", "1Gi", ""));
    sim_put(&d, "pods.json", pods);
    ck_assert_int_eq(sim_run(&d, &out, &err, "--nodes nodes.json --pods pods.json"), 0);
    ck_assert_msg(strstr(out, "every pod placed under every strategy") != NULL, "%s", out);
    free(out);
    free(err);
    free(pods);
    free(nodes);
    sim_dir_remove(&d);
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
    sim_dir_make(&d);
    char *nodes =
        sim_list(4, sim_node_json("w1", "4", "8Gi", "2", "", ""),
                 sim_node_json("w2", "8", "16Gi", "110", "",
                               "\"taints\":[{\"key\":\"dedicated\",\"value\":\"batch\",\"effect\":"
                               "\"NoSchedule\"}]"),
                 sim_node_json("w3", "8", "16Gi", "110", "", "\"unschedulable\":true"),
                 sim_node_json("w4", "2", "4Gi", "110", "", ""));
    char *existing =
        sim_list(2,
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
    char *pods =
        sim_list(5, q1, sim_pod_json("q2", "500m", "512Mi", ""),
                 sim_pod_json("q3", "4", "1Gi",
                              "\"tolerations\":[{\"key\":\"dedicated\",\"operator\":\"Equal\","
                              "\"value\":\"batch\",\"effect\":\"NoSchedule\"}],"),
                 sim_pod_json("q4", "500m", "128Mi", ""), sim_pod_json("q5", "1500m", "128Mi", ""));
    sim_put(&d, "nodes.json", nodes);
    sim_put(&d, "existing.json", existing);
    sim_put(&d, "pods.json", pods);
    ck_assert_int_eq(sim_run(&d, &out, &err,
                             "--nodes nodes.json --existing existing.json --pods pods.json "
                             "--strategy spread --placements p.csv"),
                     3);
    char *csv = sim_read(&d, "p.csv");
    sim_expect_row(csv, "spread", "t/q1", "w1,53,5");
    sim_expect_row(csv, "spread", "t/q2", "w4,78,8");
    sim_expect_row(csv, "spread", "t/q3", "w2,60,6");
    sim_expect_row(csv, "spread", "t/q4", "w4,58,6");
    sim_expect_row(csv, "spread", "t/q5", ",,");
    ck_assert_msg(strstr(out, "0/4 nodes are available: 1 Insufficient cpu, 1 Too many pods, 1 "
                              "node(s) had untolerated taint {dedicated: batch}, 1 node(s) were "
                              "unschedulable.\n      t/q5\n") != NULL,
                  "%s", out);
    ck_assert_msg(strstr(out, "with 1 pod bound to them from existing.json") != NULL, "%s", out);
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
    sim_dir_remove(&d);
}
END_TEST

/* Priority orders the queue (higher first), then the file order; several
 * `kubectl get pod -o json` objects in a row are one input. */
START_TEST(simulate_priority_then_file_order)
{
    struct simdir d;
    char *out, *err;
    sim_dir_make(&d);
    char *nodes = sim_list(1, sim_node_json("only", "2", "2Gi", "110", "", ""));
    sim_put(&d, "nodes.json", nodes);
    /* three pods of 1 CPU on a 2-CPU node: the later, higher-priority one
     * goes first, the first of the two others second, the third fits nowhere */
    char *a = sim_pod_json("a", "1", "1Mi", ""), *b = sim_pod_json("b", "1", "1Mi", ""),
         *c = sim_pod_json("c", "1", "1Mi", "\"priority\":1000,");
    char stream[4096];
    snprintf(stream, sizeof(stream), "%s\n%s\n%s\n", a, b, c);
    sim_put(&d, "pods.json", stream);
    ck_assert_int_eq(sim_run(&d, &out, &err,
                             "--nodes nodes.json --pods pods.json --strategy pack --placements "
                             "p.csv"),
                     3);
    char *csv = sim_read(&d, "p.csv");
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
    sim_dir_remove(&d);
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
    sim_dir_make(&d);
    char *nodes = sim_list(2, sim_node_json("n-a", "4", "8Gi", "110", "", ""),
                           sim_node_json("n-b", "4", "8Gi", "110", "", ""));
    char *pods = sim_list(3, sim_pod_json("bound", "1", "1Gi", "\"nodeName\":\"n-b\","),
                          sim_pod_json("free", "1", "1Gi", ""),
                          sim_pod_json("lost", "1", "1Gi", "\"nodeName\":\"gone\","));
    sim_put(&d, "nodes.json", nodes);
    sim_put(&d, "pods.json", pods);
    ck_assert_int_eq(sim_run(&d, &out, &err,
                             "--nodes nodes.json --pods pods.json --strategy spread "
                             "--placements p.csv"),
                     3);
    char *csv = sim_read(&d, "p.csv");
    sim_expect_row(csv, "spread", "t/bound", "n-b,78,8");
    sim_expect_row(csv, "spread", "t/free", "n-a,78,8");
    sim_expect_row(csv, "spread", "t/lost", ",,");
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
    pods = sim_list(1, sim_pod_json("free", "1", "1Gi", ""));
    sim_put(&d, "pods.json", pods);
    ck_assert_int_eq(sim_run(&d, &out, &err, "--nodes nodes.json --pods pods.json"), 0);
    ck_assert_msg(strstr(err, "spec.nodeName") == NULL, "%s", err);
    free(out);
    free(err);
    free(pods);
    free(nodes);
    sim_dir_remove(&d);
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
    tcase_add_test(tc, simulate_pods_with_node_name_are_held_there_and_warned_about);
    suite_add_tcase(s, tc);
    return s;
}

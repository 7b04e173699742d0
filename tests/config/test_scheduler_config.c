/* config/scheduler_config.c: the extender's entry of kube-scheduler's file. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/err.h"
#include "config/scheduler_config.h"
#include "tests/suites.h"

/* Go's time.ParseDuration, then Duration.Milliseconds() (truncation). */
START_TEST(scheduler_config_go_durations)
{
    static const struct {
        const char *text;
        long long ms;
    } ok[] = {
        {"5s", 5000},        {"0", 0},       {"0s", 0},          {"1m30s", 90000},
        {"1.5s", 1500},      {"250ms", 250}, {"1500us", 1},      {"999999ns", 0},
        {"-1s", -1000},      {"+2s", 2000},  {"1h", 3600000},    {"1h2m3s4ms", 3723004},
        {".5s", 500},        {"2.s", 2000},  {"10\xc2\xb5s", 0}, {"1.0000001s", 1000},
        {"300ms500us", 300},
    };
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        long long ms = -42;
        ck_assert_msg(cfg_go_duration_ms(ok[i].text, &ms) == 0, "%s refused", ok[i].text);
        ck_assert_msg(ms == ok[i].ms, "%s: %lld, want %lld", ok[i].text, ms, ok[i].ms);
    }
    /* what Go refuses: no unit, an unknown unit, nothing, a lone dot */
    static const char *const bad[] = {"5", "5 s", "5sec",   "",   "-",
                                      ".", "s",   "1.2.3s", "5S", "3000000h"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        long long ms;
        ck_assert_msg(cfg_go_duration_ms(bad[i], &ms) == -EINVAL, "\"%s\" accepted", bad[i]);
    }
}
END_TEST

static int find(const char *yaml, int port, const char *prefix, struct cfg_extender_entry *e,
                char *err)
{
    return cfg_scheduler_extender(yaml, strlen(yaml), "sched.yaml", port, prefix, e, err);
}

#define HEAD "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"

START_TEST(scheduler_config_finds_this_extenders_entry)
{
    struct cfg_extender_entry e;
    char err[ERR_LEN];
    const char *two = HEAD "extenders:\n"
                           "- urlPrefix: http://127.0.0.1:9999/other\n  weight: 7\n"
                           "- urlPrefix: \"http://127.0.0.1:8888//scheduler/\"\n"
                           "  prioritizeVerb: prioritize\n  weight: 3\n  httpTimeout: 1m30s\n";
    ck_assert_msg(find(two, 8888, "/scheduler", &e, err) == 0, "%s", err);
    ck_assert_int_eq(e.weight, 3);
    ck_assert_int_eq(e.timeout_ms, 90000);
    ck_assert_int_eq(e.index, 1);
    /* a Service may map the port: one entry of this path is ours */
    ck_assert_int_eq(find(two, 80, "/scheduler", &e, err), 0);
    ck_assert_int_eq(e.weight, 3);
    /* absent httpTimeout (and 0) is kube-scheduler's 5 s; negative: none */
    const char *bare = HEAD "extenders:\n- urlPrefix: https://ext.example/\n  weight: 2\n";
    ck_assert_msg(find(bare, 443, "", &e, err) == 0, "%s", err);
    ck_assert_int_eq(e.timeout_ms, KUBE_EXTENDER_DEFAULT_TIMEOUT_MS);
    const char *neg = HEAD "extenders:\n- urlPrefix: http://a/x\n  weight: 1\n  httpTimeout: -1s\n";
    ck_assert_int_eq(find(neg, 8888, "/x", &e, err), 0);
    ck_assert_int_eq(e.timeout_ms, 0);
    /* JSON is YAML too; a beta version has the same stanza */
    const char *json = "{\"apiVersion\":\"kubescheduler.config.k8s.io/v1beta3\",\"kind\":"
                       "\"KubeSchedulerConfiguration\",\"extenders\":[{\"urlPrefix\":"
                       "\"http://127.0.0.1:8888/scheduler\",\"weight\":4,\"httpTimeout\":\"2s\"}]}";
    ck_assert_int_eq(find(json, 8888, "/scheduler", &e, err), 0);
    ck_assert_int_eq(e.weight, 4);
    ck_assert_int_eq(e.timeout_ms, 2000);
    /* two entries of our path: the port decides */
    const char *same_path = HEAD "extenders:\n"
                                 "- urlPrefix: http://127.0.0.1:8888/scheduler\n  weight: 1\n"
                                 "- urlPrefix: http://127.0.0.1:9999/scheduler\n  weight: 9\n";
    ck_assert_int_eq(find(same_path, 9999, "/scheduler", &e, err), 0);
    ck_assert_int_eq(e.weight, 9);
    ck_assert_int_eq(find(same_path, 0, "/scheduler", &e, err), -EINVAL);
    ck_assert_msg(strstr(err, "cannot tell which") != NULL, "%s", err);
    ck_assert_int_eq(find(same_path, 7777, "/scheduler", &e, err), -EINVAL);
}
END_TEST

START_TEST(scheduler_config_refusals_name_the_file_and_field)
{
    static const struct {
        const char *yaml, *says;
    } cases[] = {
        {"kind: Policy\napiVersion: v1\n", "not a KubeSchedulerConfiguration"},
        {HEAD, "no extenders list"},
        {HEAD "extenders: []\n", "no extenders entry whose urlPrefix has the path \"/scheduler\""},
        {HEAD "extenders:\n- urlPrefix: http://h:8888/elsewhere\n", "no extenders entry"},
        {HEAD "extenders:\n- urlPrefix: http://h:8888/scheduler\n  weight: heavy\n",
         "extenders[0].weight: \"heavy\" is not a whole number"},
        {HEAD "extenders:\n- urlPrefix: http://h:8888/scheduler\n  weight: [1]\n",
         "extenders[0].weight: want a whole number"},
        {HEAD "extenders:\n- urlPrefix: http://h:8888/scheduler\n  httpTimeout: 5\n",
         "extenders[0].httpTimeout: \"5\" is not a duration"},
        {"a: [\n", "YAML error at line"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct cfg_extender_entry e;
        char err[ERR_LEN];
        ck_assert_int_eq(find(cases[i].yaml, 8888, "/scheduler", &e, err), -EINVAL);
        ck_assert_msg(strncmp(err, "scheduler-config sched.yaml: ", 29) == 0, "%s", err);
        ck_assert_msg(strstr(err, cases[i].says) != NULL, "%s: %s", cases[i].yaml, err);
    }
}
END_TEST

/* The shipped files: what the Deployment's extender reads from the same
 * ConfigMap key kube-scheduler reads. */
/* A KubeSchedulerConfiguration nested 30 000 deep took libyaml seconds;
 * it is refused at the 65th level, at once, with where (issue 23,
 * finding 9). */
START_TEST(scheduler_config_nested_too_deep_is_refused_at_once)
{
    struct cfg_extender_entry e;
    char err[ERR_LEN];
    size_t depth = 30000, head = strlen(HEAD "extenders: ");
    char *doc = malloc(head + 2 * depth + 1);
    ck_assert_ptr_nonnull(doc);
    memcpy(doc, HEAD "extenders: ", head);
    memset(doc + head, '[', depth);
    memset(doc + head + depth, ']', depth);
    doc[head + 2 * depth] = '\0';
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = find(doc, 8888, "/scheduler", &e, err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    free(doc);
    double took = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    ck_assert_int_eq(rc, -EINVAL);
    ck_assert_str_eq(err, "scheduler-config sched.yaml:3:75: nested deeper than 64 levels");
    ck_assert_msg(took < 0.5, "took %.2f s", took);
}
END_TEST

START_TEST(scheduler_config_reads_the_shipped_files)
{
    static const char *const files[] = {"manifests/scheduler/scheduler-config.yaml",
                                        "manifests/scheduler/scheduler-config-v1beta3.yaml",
                                        "manifests/kubeadm/scheduler-config.yaml"};
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        FILE *f = fopen(files[i], "r");
        ck_assert_ptr_nonnull(f);
        static char text[65536];
        size_t n = fread(text, 1, sizeof(text) - 1, f);
        fclose(f);
        text[n] = '\0';
        struct cfg_extender_entry e;
        char err[ERR_LEN];
        ck_assert_msg(cfg_scheduler_extender(text, n, files[i], 8888, "/scheduler", &e, err) == 0,
                      "%s", err);
        ck_assert_int_ge(e.weight, 1);
        ck_assert_int_gt(e.timeout_ms, 0);
    }
}
END_TEST

Suite *scheduler_config_suite(void)
{
    Suite *s = suite_create("scheduler_config");
    TCase *tc = tcase_create("scheduler_config");
    tcase_add_test(tc, scheduler_config_go_durations);
    tcase_add_test(tc, scheduler_config_finds_this_extenders_entry);
    tcase_add_test(tc, scheduler_config_refusals_name_the_file_and_field);
    tcase_add_test(tc, scheduler_config_reads_the_shipped_files);
    tcase_add_test(tc, scheduler_config_nested_too_deep_is_refused_at_once);
    suite_add_tcase(s, tc);
    return s;
}

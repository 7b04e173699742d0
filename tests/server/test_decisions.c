/* server/decisions.c (the ring), selector.c and deadline.c. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "server/decisions.h"
#include "server/verbs.h"
#include "tests/suites.h"
#include "tests/support/arena_fixture.h"

/* A record for pod @ns/@name with @nodes nodes named n0, n1, ... */
static struct srv_decision *make(const char *ns, const char *name, size_t nodes)
{
    struct srv_decision *rec = srv_decision_new(nodes, strlen(ns) + strlen(name) + 2 + 24 * nodes);
    ck_assert_ptr_nonnull(rec);
    rec->pod_ns = srv_decision_strdup(rec, ns);
    rec->pod_name = srv_decision_strdup(rec, name);
    for (size_t i = 0; i < nodes; i++) {
        char n[24];
        snprintf(n, sizeof(n), "n%zu", i);
        rec->nodes[i].name = srv_decision_strdup(rec, n);
    }
    return rec;
}

static size_t count(struct srv_decisions *d, const struct srv_decision_query *q, uint64_t *first)
{
    struct srv_decision **found;
    size_t n;
    ck_assert_int_eq(srv_decisions_find(d, q, &found, &n), 0);
    if (first != NULL)
        *first = n > 0 ? found[0]->id : 0;
    for (size_t i = 0; i < n; i++)
        srv_decision_release(found[i]);
    free(found);
    return n;
}

START_TEST(decisions_keep_the_newest_by_count)
{
    struct srv_decisions d;
    uint64_t first;
    ck_assert_int_eq(srv_decisions_init(&d, 3, 1 << 20), 0);
    for (int i = 1; i <= 5; i++)
        ck_assert_uint_eq(srv_decisions_add(&d, make("ns", i % 2 ? "odd" : "even", 2)),
                          (uint64_t)i);
    struct srv_decision_query all = {0};
    ck_assert_uint_eq(count(&d, &all, &first), 3);
    ck_assert_uint_eq(first, 5);
    struct srv_decision_query odd = {.pod = "odd"}, even = {.pod = "ns/even"};
    ck_assert_uint_eq(count(&d, &odd, &first), 2); /* 5 and 3 */
    ck_assert_uint_eq(first, 5);
    ck_assert_uint_eq(count(&d, &even, &first), 1);
    ck_assert_uint_eq(first, 4);
    struct srv_decision_query other_ns = {.pod = "other/odd"}, gone = {.id = 2};
    ck_assert_uint_eq(count(&d, &other_ns, NULL), 0);
    ck_assert_uint_eq(count(&d, &gone, NULL), 0);
    struct srv_decision_query one = {.limit = 1}, id3 = {.id = 3};
    ck_assert_uint_eq(count(&d, &one, &first), 1);
    ck_assert_uint_eq(count(&d, &id3, &first), 1);
    ck_assert_uint_eq(first, 3);
    srv_decisions_destroy(&d);
}
END_TEST

START_TEST(decisions_keep_within_the_byte_bound)
{
    struct srv_decisions d;
    size_t kept, bytes;
    struct srv_decision *probe = make("ns", "p", 10);
    size_t one = probe->bytes;
    srv_decision_release(probe);

    /* what the README promises: about 200 bytes a node (a 10-character
     * name, an empty reason), the record's header spread over 1000 nodes */
    struct srv_decision *big = srv_decision_new(1000, 1000 * (11 + 1));
    ck_assert_ptr_nonnull(big);
    ck_assert_uint_le(big->bytes / 1000, 200);
    srv_decision_release(big);

    ck_assert_int_eq(srv_decisions_init(&d, 100, (long long)(2 * one + one / 2)), 0);
    for (int i = 0; i < 4; i++)
        srv_decisions_add(&d, make("ns", "p", 10));
    srv_decisions_usage(&d, &kept, &bytes);
    ck_assert_uint_eq(kept, 2);
    ck_assert_uint_eq(bytes, 2 * one);
    /* a record larger than the whole bound is not kept (id 0) */
    ck_assert_uint_eq(srv_decisions_add(&d, make("ns", "big", 100)), 0);
    srv_decisions_usage(&d, &kept, &bytes);
    ck_assert_uint_eq(kept, 2);
    srv_decisions_destroy(&d);
}
END_TEST

START_TEST(decisions_reconfigure_keeps_the_newest_and_readers_keep_theirs)
{
    struct srv_decisions d;
    struct srv_decision **found;
    size_t n, kept, bytes;
    uint64_t first;
    ck_assert_int_eq(srv_decisions_init(&d, 10, 1 << 20), 0);
    for (int i = 0; i < 6; i++)
        srv_decisions_add(&d, make("ns", "p", 1));
    struct srv_decision_query all = {0};
    ck_assert_int_eq(srv_decisions_find(&d, &all, &found, &n), 0); /* a reader holds all 6 */
    ck_assert_int_eq(srv_decisions_configure(&d, 2, 1 << 20), 0);
    ck_assert_uint_eq(count(&d, &all, &first), 2);
    ck_assert_uint_eq(first, 6);
    ck_assert_uint_eq(srv_decisions_add(&d, make("ns", "p", 1)), 7);
    ck_assert_uint_eq(count(&d, &all, &first), 2);
    /* the reader's records outlive their eviction (ASan checks the reads) */
    for (size_t i = 0; i < n; i++) {
        ck_assert_str_eq(found[i]->pod_name, "p");
        srv_decision_release(found[i]);
    }
    free(found);
    /* growing again keeps what is there; 0 keeps nothing */
    ck_assert_int_eq(srv_decisions_configure(&d, 5, 1 << 20), 0);
    ck_assert_uint_eq(count(&d, &all, NULL), 2);
    ck_assert_int_eq(srv_decisions_configure(&d, 0, 1 << 20), 0);
    ck_assert_uint_eq(srv_decisions_add(&d, make("ns", "p", 1)), 0);
    srv_decisions_usage(&d, &kept, &bytes);
    ck_assert_uint_eq(kept, 0);
    ck_assert_uint_eq(bytes, 0);
    srv_decisions_destroy(&d);
}
END_TEST

static struct codec_pod pod(const char *ns, const char *labels_json, long long priority)
{
    struct codec_pod p = {.ns = ns, .name = "p", .priority = priority};
    p.labels = labels_json != NULL ? cJSON_Parse(labels_json) : NULL;
    return p;
}

START_TEST(selector_namespaces_labels_priority)
{
    struct cfg c;
    cfg_defaults(&c);
    struct codec_pod any = pod("default", NULL, 0);
    ck_assert(srv_pod_selected(&c, &any)); /* the defaults select every pod */
    snprintf(c.select_namespaces, sizeof(c.select_namespaces), "prod,web");
    ck_assert(!srv_pod_selected(&c, &any));
    struct codec_pod web = pod("web", NULL, 0), we = pod("we", NULL, 0);
    ck_assert(srv_pod_selected(&c, &web));
    ck_assert(!srv_pod_selected(&c, &we)); /* whole names only */
    snprintf(c.select_labels, sizeof(c.select_labels), "app=x,tier=");
    struct codec_pod both = pod("web", "{\"app\":\"x\",\"tier\":\"\"}", 0);
    struct codec_pod wrong = pod("web", "{\"app\":\"xy\",\"tier\":\"\"}", 0);
    struct codec_pod one = pod("web", "{\"app\":\"x\"}", 0);
    ck_assert(srv_pod_selected(&c, &both));
    ck_assert(!srv_pod_selected(&c, &wrong));
    ck_assert(!srv_pod_selected(&c, &one));
    ck_assert(!srv_pod_selected(&c, &web)); /* no labels at all */
    c.select_priority_min = -5;
    c.select_priority_max = 0;
    ck_assert(srv_pod_selected(&c, &both));
    both.priority = 1;
    ck_assert(!srv_pod_selected(&c, &both));
    both.priority = -6;
    ck_assert(!srv_pod_selected(&c, &both));
    cJSON_Delete((cJSON *)(uintptr_t)both.labels);
    cJSON_Delete((cJSON *)(uintptr_t)wrong.labels);
    cJSON_Delete((cJSON *)(uintptr_t)one.labels);
}
END_TEST

START_TEST(deadline_is_80_percent_of_the_timeout)
{
    struct cfg c;
    struct srv_deadline d;
    struct timespec now;
    cfg_defaults(&c);
    c.scheduler_timeout_ms = 1000;
    clock_gettime(CLOCK_MONOTONIC, &now);
    srv_deadline_init(&d, &c, &now);
    ck_assert(d.on);
    long long ns =
        (long long)(d.at.tv_sec - now.tv_sec) * 1000000000LL + (d.at.tv_nsec - now.tv_nsec);
    ck_assert_int_eq(ns, 800000000LL);
    ck_assert(!srv_deadline_passed(&d));
    /* a start 900 ms ago has passed it */
    now.tv_sec -= 1;
    now.tv_nsec += 100000000L;
    if (now.tv_nsec >= 1000000000L) {
        now.tv_sec++;
        now.tv_nsec -= 1000000000L;
    }
    srv_deadline_init(&d, &c, &now);
    ck_assert(srv_deadline_passed(&d));
    ck_assert(srv_deadline_would_miss(&d, 1));
    /* off: timeout 0, or no start */
    c.scheduler_timeout_ms = 0;
    srv_deadline_init(&d, &c, &now);
    ck_assert(!srv_deadline_passed(&d) && !srv_deadline_would_miss(&d, 1000000));
    struct timespec zero = {0, 0};
    c.scheduler_timeout_ms = 1000;
    srv_deadline_init(&d, &c, &zero);
    ck_assert(!srv_deadline_passed(&d));
}
END_TEST

START_TEST(deadline_predicts_from_the_measured_cost)
{
    struct cfg c;
    struct srv_deadline d;
    struct timespec now;
    cfg_defaults(&c);
    c.scheduler_timeout_ms = 1000; /* 800 ms to go */
    for (int i = 0; i < 200; i++)
        srv_deadline_learn(1000, 0.001); /* 1 us a node */
    clock_gettime(CLOCK_MONOTONIC, &now);
    srv_deadline_init(&d, &c, &now);
    /* twice the scoring time (the answer is written after): 2 us a node */
    ck_assert(!srv_deadline_would_miss(&d, 100000)); /* about 200 ms */
    ck_assert(srv_deadline_would_miss(&d, 1000000)); /* about 2 s */
    srv_deadline_learn(0, 5);                        /* no nodes: ignored */
    ck_assert(!srv_deadline_would_miss(&d, 100000));
}
END_TEST

/* A spike of slow scoring must not switch scoring off for good: requests
 * answered neutral are not measured, so each predicted miss lowers the
 * estimate until one is scored again. */
START_TEST(deadline_estimate_recovers_after_a_spike)
{
    struct cfg c;
    struct srv_deadline d;
    struct timespec now;
    int misses = 0;
    cfg_defaults(&c); /* 5000 ms: 4 s to go */
    for (int i = 0; i < 100; i++)
        srv_deadline_learn(5000, 2.2); /* 2.2 s for 5000 nodes: predicted 4.4 s */
    clock_gettime(CLOCK_MONOTONIC, &now);
    srv_deadline_init(&d, &c, &now);
    while (srv_deadline_would_miss(&d, 5000) && misses < 100)
        misses++;
    /* 4.4 s -> 3.85 s after one eighth off: the next request is scored */
    ck_assert_int_eq(misses, 1);
    for (int i = 0; i < 100; i++)
        srv_deadline_learn(5000, 20.0); /* a worse spike: 40 s predicted */
    misses = 0;
    while (srv_deadline_would_miss(&d, 5000) && misses < 100)
        misses++;
    ck_assert_int_gt(misses, 1);
    ck_assert_int_lt(misses, 30); /* (7/8)^k * 40 s < 4 s within 18 */
}
END_TEST

START_TEST(evaluate_gives_up_past_the_deadline)
{
    struct cfg c;
    struct codec_args args;
    struct srv_deadline d = {.on = true, .at = {0, 1}}; /* long past */
    cfg_defaults(&c);
    memset(&args, 0, sizeof(args));
    args.n_nodes = 1000;
    args.nodes = calloc(args.n_nodes, sizeof(*args.nodes));
    struct node_eval *eval = calloc(args.n_nodes, sizeof(*eval));
    for (size_t i = 0; i < args.n_nodes; i++) {
        args.nodes[i].name = "n";
        args.nodes[i].res.alloc[SCORE_CPU] = 4000;
        args.nodes[i].res.alloc[SCORE_MEMORY] = 1 << 30;
    }
    ck_assert_int_eq(srv_evaluate(&c, NULL, &args, &d, eval), -ETIMEDOUT);
    d.on = false;
    ck_assert_int_eq(srv_evaluate(&c, NULL, &args, &d, eval), 0);
    ck_assert_int_eq(eval[999].explain.score, 10);
    /* fewer nodes than one stride finish: the clock is read every 256 */
    args.n_nodes = 255;
    d.on = true;
    ck_assert_int_eq(srv_evaluate(&c, NULL, &args, &d, eval), 0);
    free(args.nodes);
    free(eval);
}
END_TEST

Suite *decisions_suite(void)
{
    Suite *s = suite_create("decisions");
    TCase *tc = tcase_create("decisions");
    tcase_add_checked_fixture(tc, arena_fixture_setup, arena_fixture_teardown);
    tcase_add_test(tc, decisions_keep_the_newest_by_count);
    tcase_add_test(tc, decisions_keep_within_the_byte_bound);
    tcase_add_test(tc, decisions_reconfigure_keeps_the_newest_and_readers_keep_theirs);
    tcase_add_test(tc, selector_namespaces_labels_priority);
    tcase_add_test(tc, deadline_is_80_percent_of_the_timeout);
    tcase_add_test(tc, deadline_predicts_from_the_measured_cost);
    tcase_add_test(tc, deadline_estimate_recovers_after_a_spike);
    tcase_add_test(tc, evaluate_gives_up_past_the_deadline);
    suite_add_tcase(s, tc);
    return s;
}

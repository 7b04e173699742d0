/*
 * server/ops/shadow.c: a decision against its pod's binding. Ranks and
 * differences are worked out from the rule (fitting nodes first, then by
 * score; rank = 1 + the nodes strictly ahead; difference = ours' score
 * minus the bound node's), not read from the code.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/ops/shadow.h"
#include "tests/suites.h"
#include "tests/support/metrics_scrape.h"

struct spec {
    const char *name;
    enum score_verdict verdict;
    int score;
};

/* A prioritize decision of default/web with UID @uid over @n nodes. */
static struct ops_record *decision(const char *uid, const struct spec *nodes, size_t n, long best,
                                   enum ops_answer answer)
{
    struct ops_record *rec = ops_record_new(n, 64 + 32 * n);
    ck_assert_ptr_nonnull(rec);
    rec->verb = OPS_VERB_PRIORITIZE;
    rec->answer = answer;
    rec->pod_ns = ops_record_strdup(rec, "default");
    rec->pod_name = ops_record_strdup(rec, "web");
    rec->pod_uid = ops_record_strdup(rec, uid);
    rec->best = best;
    for (size_t i = 0; i < n; i++) {
        rec->nodes[i].name = ops_record_strdup(rec, nodes[i].name);
        rec->nodes[i].reason = "";
        rec->nodes[i].verdict = nodes[i].verdict;
        rec->nodes[i].explain.score = nodes[i].score;
    }
    return rec;
}

/* n1 and n4 tie at 9 (n1 is the best: the first offered); n3 scores 10 but
 * fails the filter. */
static const struct spec five[] = {
    {"n0", SCORE_FITS, 3},   {"n1", SCORE_FITS, 9}, {"n2", SCORE_FITS, 7},
    {"n3", SCORE_UNFIT, 10}, {"n4", SCORE_FITS, 9},
};

/* The decision over @nodes (@best its best) compared with a binding of
 * its pod to @bound, as the ring compares it when the binding is seen. */
static struct ops_comparison compare(const struct spec *nodes, size_t n, long best,
                                     const char *bound)
{
    struct ops_ring d;
    ck_assert_int_eq(ops_ring_init(&d, 1, 1 << 20), 0);
    struct ops_record *rec = decision("u", nodes, n, best, OPS_ANSWER_SHADOW);
    ck_assert_uint_ne(ops_shadow_add(&d, NULL, rec), 0); /* the ring holds it */
    ops_shadow_bound(&d, NULL, "u", bound);
    const struct ops_comparison *c = ops_record_comparison(rec);
    ck_assert_ptr_nonnull(c);
    struct ops_comparison out = *c;
    ops_ring_destroy(&d);
    return out;
}

static void expect(const struct spec *nodes, size_t n, long best, const char *bound, long index,
                   int rank, int diff, bool agreed)
{
    struct ops_comparison c = compare(nodes, n, best, bound);
    ck_assert_str_eq(c.bound_name, bound);
    ck_assert_int_eq(c.bound, index);
    ck_assert_int_eq(c.rank, rank);
    ck_assert_int_eq(c.score_difference, diff);
    ck_assert_int_eq(c.agreed, agreed);
    ck_assert_msg(c.time.tv_sec > 0, "the binding is dated");
}

START_TEST(shadow_rank_and_difference_follow_the_rule)
{
    expect(five, 5, 1, "n1", 1, 1, 0, true); /* our best */
    expect(five, 5, 1, "n4", 4, 1, 0, true); /* tied with it: the same score would have been sent */
    expect(five, 5, 1, "n2", 2, 3, 2, false); /* behind n1 and n4 */
    expect(five, 5, 1, "n0", 0, 4, 6, false);
    expect(five, 5, 1, "n3", 3, 5, -1, false); /* every fitting node is ahead; it scores higher */
    expect(five, 5, 1, "n9", -1, 0, 0, false); /* not a candidate */
    ck_assert_int_eq(compare(five, 5, 1, "n2").ours, 1);

    /* nothing fits: ours is the highest score, and no binding agrees */
    const struct spec none[] = {{"a", SCORE_UNFIT, 4}, {"b", SCORE_UNRESOLVABLE, 6}};
    expect(none, 2, -1, "b", 1, 1, 0, false);
    expect(none, 2, -1, "a", 0, 2, 2, false);
    ck_assert_int_eq(compare(none, 2, -1, "a").ours, 1);
}
END_TEST

START_TEST(shadow_kept_while_debugging_or_shadowing)
{
    struct cfg c;
    cfg_defaults(&c);
    c.decisions_kept = 7;
    ck_assert_int_eq(ops_shadow_kept(&c), 0); /* enforce, no debug endpoints: nothing to keep */
    c.mode = CFG_MODE_SHADOW;
    ck_assert_int_eq(ops_shadow_kept(&c), 7);
    c.mode = CFG_MODE_PASSTHROUGH;
    ck_assert_int_eq(ops_shadow_kept(&c), 0);
    c.debug_endpoints = true;
    ck_assert_int_eq(ops_shadow_kept(&c), 7);
}
END_TEST

static char *render(struct ops_metrics *m)
{
    struct ops_cluster_gauges g = {0};
    char *text;
    size_t len;
    ck_assert_int_eq(ops_metrics_render(m, &g, 0, 0, &text, &len), 0);
    return text;
}

/* Through the ring: bindings counted by the decision's mode, the rank
 * histogram cumulative, a binding elsewhere and one without a decision. */
START_TEST(shadow_bindings_are_counted_by_mode)
{
    struct ops_ring d;
    struct ops_metrics m;
    ops_metrics_init(&m);
    ck_assert_int_eq(ops_ring_init(&d, 20, 1 << 20), 0);
    const char *uids[] = {"a", "b", "c", "d", "e"};
    for (int i = 0; i < 5; i++)
        ops_shadow_add(&d, &m, decision(uids[i], five, 5, 1, OPS_ANSWER_SHADOW));
    ops_shadow_add(&d, &m, decision("f", five, 5, 1, OPS_ANSWER_SCORED));
    ops_shadow_bound(&d, &m, "a", "n1"); /* rank 1 */
    ops_shadow_bound(&d, &m, "b", "n2"); /* rank 3 */
    ops_shadow_bound(&d, &m, "c", "n3"); /* rank 5, unfit */
    ops_shadow_bound(&d, &m, "d", "elsewhere");
    ops_shadow_bound(&d, &m, "a", "n1");       /* seen again: compared once */
    ops_shadow_bound(&d, &m, "unknown", "n1"); /* never scored */
    ops_shadow_bound(&d, &m, "f", "n0");       /* enforce, rank 4 */
    char *t = render(&m);
    ck_assert_double_eq(
        metrics_must(t, "cpu_extender_shadow_decisions_compared_total{mode=\"shadow\"}"), 3);
    ck_assert_double_eq(
        metrics_must(t, "cpu_extender_shadow_decisions_agreed_total{mode=\"shadow\"}"), 1);
    ck_assert_double_eq(
        metrics_must(t, "cpu_extender_shadow_bound_elsewhere_total{mode=\"shadow\"}"), 1);
    const char *le[] = {"1", "2", "3", "5", "10", "+Inf"};
    const double want[] = {1, 1, 2, 3, 3, 3};
    for (int i = 0; i < 6; i++) {
        char series[128];
        snprintf(series, sizeof(series),
                 "cpu_extender_shadow_bound_rank_bucket{mode=\"shadow\",le=\"%s\"}", le[i]);
        ck_assert_double_eq(metrics_must(t, series), want[i]);
    }
    ck_assert_double_eq(metrics_must(t, "cpu_extender_shadow_bound_rank_sum{mode=\"shadow\"}"),
                        1 + 3 + 5);
    ck_assert_double_eq(
        metrics_must(t, "cpu_extender_shadow_decisions_compared_total{mode=\"enforce\"}"), 1);
    ck_assert_double_eq(
        metrics_must(t, "cpu_extender_shadow_decisions_agreed_total{mode=\"enforce\"}"), 0);
    ck_assert_double_eq(
        metrics_must(t, "cpu_extender_shadow_bound_rank_bucket{mode=\"enforce\",le=\"3\"}"), 0);
    ck_assert_double_eq(
        metrics_must(t, "cpu_extender_shadow_bound_rank_bucket{mode=\"enforce\",le=\"5\"}"), 1);
    /* cumulative and consistent: duration (200 of the four verbs), body bytes (four), nodes
     * (three), the score spread, and the rank in both modes */
    ck_assert_int_eq(metrics_assert_histograms(t), 4 + 4 + 3 + 1 + 2);
    free(t);

    /* the comparison is in the decision, for /debug */
    struct ops_record **found;
    size_t n;
    struct ops_query q = {.disagreed = true};
    ck_assert_int_eq(ops_ring_find(&d, &q, &found, &n), 0);
    ck_assert_uint_eq(n, 4); /* f, d, c, b */
    const struct ops_comparison *c = ops_record_comparison(found[2]);
    ck_assert_ptr_nonnull(c);
    ck_assert_str_eq(c->bound_name, "n3");
    ck_assert_int_eq(c->rank, 5);
    ck_assert_str_eq(found[2]->pod_uid, "c");
    for (size_t i = 0; i < n; i++)
        ops_record_release(found[i]);
    free(found);

    /* the binding first, then the decision (a late answer): compared on adding */
    ops_shadow_bound(&d, &m, "late", "n4");
    ops_shadow_add(&d, &m, decision("late", five, 5, 1, OPS_ANSWER_SHADOW));
    t = render(&m);
    ck_assert_double_eq(
        metrics_must(t, "cpu_extender_shadow_decisions_compared_total{mode=\"shadow\"}"), 4);
    ck_assert_double_eq(
        metrics_must(t, "cpu_extender_shadow_decisions_agreed_total{mode=\"shadow\"}"), 2);
    free(t);
    ops_ring_destroy(&d);
}
END_TEST

Suite *shadow_suite(void)
{
    Suite *s = suite_create("shadow");
    TCase *tc = tcase_create("shadow");
    tcase_add_test(tc, shadow_rank_and_difference_follow_the_rule);
    tcase_add_test(tc, shadow_kept_while_debugging_or_shadowing);
    tcase_add_test(tc, shadow_bindings_are_counted_by_mode);
    suite_add_tcase(s, tc);
    return s;
}

/* server/verbs/selector.c: which pods are scored, and what is answered. */
#include <check.h>
#include <stdio.h>

#include "server/verbs/selector.h"
#include "tests/suites.h"

static struct codec_pod pod(const char *ns, const struct codec_label *labels, size_t n,
                            long long priority)
{
    struct codec_pod p = {
        .ns = ns, .name = "p", .priority = priority, .labels = labels, .n_labels = n};
    return p;
}

/* Is @p inside the selector? In mode enforce (the default) the pods it
 * selects, and they alone, are scored. */
static bool selected(const struct cfg *c, const struct codec_pod *p)
{
    return verb_answer_kind(c, p) == OPS_ANSWER_SCORED;
}

START_TEST(selector_namespaces_labels_priority)
{
    struct cfg c;
    cfg_defaults(&c);
    struct codec_pod any = pod("default", NULL, 0, 0);
    ck_assert(selected(&c, &any)); /* the defaults select every pod */
    snprintf(c.select_namespaces, sizeof(c.select_namespaces), "prod,web");
    ck_assert(!selected(&c, &any));
    struct codec_pod web = pod("web", NULL, 0, 0), we = pod("we", NULL, 0, 0);
    ck_assert(selected(&c, &web));
    ck_assert(!selected(&c, &we)); /* whole names only */
    snprintf(c.select_labels, sizeof(c.select_labels), "app=x,tier=");
    const struct codec_label lb[] = {{"app", "x"}, {"tier", ""}};
    const struct codec_label lw[] = {{"app", "xy"}, {"tier", ""}};
    const struct codec_label lo[] = {{"app", "x"}};
    /* a duplicate key: the last value is the label's, as a Go map keeps it */
    const struct codec_label ld[] = {{"app", "y"}, {"tier", ""}, {"app", "x"}};
    const struct codec_label ln[] = {{"app", NULL}, {"tier", ""}}; /* not a string */
    struct codec_pod both = pod("web", lb, 2, 0), wrong = pod("web", lw, 2, 0);
    struct codec_pod one = pod("web", lo, 1, 0), dup = pod("web", ld, 3, 0);
    struct codec_pod nonstr = pod("web", ln, 2, 0);
    ck_assert(selected(&c, &both));
    ck_assert(!selected(&c, &wrong));
    ck_assert(!selected(&c, &one));
    ck_assert(selected(&c, &dup));
    ck_assert(!selected(&c, &nonstr));
    ck_assert(!selected(&c, &web)); /* no labels at all */
    c.select_priority_min = -5;
    c.select_priority_max = 0;
    ck_assert(selected(&c, &both));
    both.priority = 1;
    ck_assert(!selected(&c, &both));
    both.priority = -6;
    ck_assert(!selected(&c, &both));
}
END_TEST

START_TEST(selector_answer_kind_by_mode_then_selector)
{
    struct cfg c;
    cfg_defaults(&c);
    struct codec_pod p = pod("default", NULL, 0, 0);
    ck_assert_int_eq(verb_answer_kind(&c, &p), OPS_ANSWER_SCORED);
    c.mode = CFG_MODE_SHADOW;
    ck_assert_int_eq(verb_answer_kind(&c, &p), OPS_ANSWER_SHADOW);
    snprintf(c.select_namespaces, sizeof(c.select_namespaces), "prod");
    ck_assert_int_eq(verb_answer_kind(&c, &p), OPS_ANSWER_PASSTHROUGH_SELECTOR);
    c.mode = CFG_MODE_PASSTHROUGH; /* the mode is looked at first */
    ck_assert_int_eq(verb_answer_kind(&c, &p), OPS_ANSWER_PASSTHROUGH_MODE);
}
END_TEST

Suite *selector_suite(void)
{
    Suite *s = suite_create("selector");
    TCase *tc = tcase_create("selector");
    tcase_add_test(tc, selector_namespaces_labels_priority);
    tcase_add_test(tc, selector_answer_kind_by_mode_then_selector);
    suite_add_tcase(s, tc);
    return s;
}

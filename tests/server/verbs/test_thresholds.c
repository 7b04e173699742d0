/*
 * The thresholds' escapes (issue 22): a DaemonSet's pod is never refused
 * by them (thresholdExempt: daemonsets, the default), and under
 * thresholdPolicy unlessAllFail every candidate passes when every one
 * would fail on a threshold alone; a candidate that fits, or one failed
 * for another reason, keeps the others failed.
 */
#include "server/verbs/context.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/verbs/filter.h"
#include "server/verbs/reply.h"
#include "tests/suites.h"
#include "tests/support/arena_fixture.h"
#include "tests/support/reply_join.h"

/* Node @name: @alloc CPU, @used of it by the used-annotation. */
#define NODE(name, alloc, used)                                                                    \
    "{\"metadata\":{\"name\":\"" name "\",\"annotations\":{\"cpu-extender.io/cpu-used\":\"" used   \
    "\"}},\"status\":{\"allocatable\":{\"cpu\":\"" alloc                                           \
    "\",\"memory\":\"8Gi\",\"pods\":\"110\"}}}"

#define POD_200M "\"spec\":{\"containers\":[{\"resources\":{\"requests\":{\"cpu\":\"200m\"}}}]}"
#define PLAIN    "{\"metadata\":{\"name\":\"web\"}," POD_200M "}"
#define DAEMON                                                                                     \
    "{\"metadata\":{\"name\":\"agent\",\"ownerReferences\":[null,{\"apiVersion\":\"apps/v1\","     \
    "\"kind\":\"DaemonSet\",\"name\":\"agent\",\"controller\":true}]}," POD_200M "}"
#define HOT NODE("a", "1", "900m") "," NODE("b", "2", "1900m")

/* The filter's answer for @pod on @nodes under @argv (flags). */
static char *filter(const char *pod, const char *nodes, char **argv, int argc)
{
    static struct cfg c;
    char err[ERR_LEN], body[4096];
    int positional[1], n;
    ck_assert_int_eq(cfg_load(&c, argc, argv, NULL, positional, 0, &n, err), 0);
    snprintf(body, sizeof(body), "{\"Pod\":%s,\"Nodes\":{\"items\":[%s]}}", pod, nodes);
    const struct verb_ctx ctx = {.cfg = &c, .arena = test_arena};
    struct verb_reply r;
    verb_filter(&ctx, body, strlen(body), &r);
    ck_assert_int_eq(r.status, 200);
    char *s = reply_join(&r, NULL);
    ck_assert_ptr_nonnull(s);
    return s;
}

static bool failed(const char *answer, const char *node)
{
    char want[64];
    snprintf(want, sizeof(want), "\"%s\":\"Insufficient cpu\"", node);
    return strstr(answer, want) != NULL;
}

START_TEST(thresholds_every_candidate_over_passes_unless_policy_always)
{
    char *always = filter(PLAIN, HOT, NULL, 0);
    ck_assert(failed(always, "a") && failed(always, "b"));
    char *policy[] = {"--threshold-policy=unlessAllFail"};
    char *all = filter(PLAIN, HOT, policy, 1);
    ck_assert_ptr_nonnull(strstr(all, "\"FailedNodes\":{}"));
    ck_assert_ptr_nonnull(strstr(all, "\"name\":\"a\""));
    ck_assert_ptr_nonnull(strstr(all, "\"name\":\"b\""));
    /* one that fits: the others stay failed */
    char *mixed = filter(PLAIN, HOT "," NODE("c", "2", "100m"), policy, 1);
    ck_assert(failed(mixed, "a") && failed(mixed, "b"));
    free(always);
    free(all);
    free(mixed);
}
END_TEST

START_TEST(thresholds_a_daemonsets_pod_is_exempt_by_default)
{
    char *daemon = filter(DAEMON, HOT, NULL, 0);
    ck_assert_ptr_nonnull(strstr(daemon, "\"FailedNodes\":{}"));
    char *none[] = {"--threshold-exempt="};
    char *held = filter(DAEMON, HOT, none, 1);
    ck_assert(failed(held, "a") && failed(held, "b"));
    free(daemon);
    free(held);
}
END_TEST

START_TEST(thresholds_options_are_checked)
{
    static struct cfg c;
    char err[ERR_LEN];
    int positional[1], n;
    char *bad_policy[] = {"--threshold-policy=sometimes"};
    ck_assert_int_ne(cfg_load(&c, 1, bad_policy, NULL, positional, 0, &n, err), 0);
    ck_assert_ptr_nonnull(strstr(err, "want always or unlessAllFail"));
    char *bad_exempt[] = {"--threshold-exempt=jobs"};
    ck_assert_int_ne(cfg_load(&c, 1, bad_exempt, NULL, positional, 0, &n, err), 0);
    ck_assert_ptr_nonnull(strstr(err, "want daemonsets"));
}
END_TEST

Suite *thresholds_suite(void)
{
    Suite *s = suite_create("thresholds");
    TCase *tc = tcase_create("thresholds");
    tcase_add_checked_fixture(tc, arena_fixture_setup, arena_fixture_teardown);
    tcase_add_test(tc, thresholds_every_candidate_over_passes_unless_policy_always);
    tcase_add_test(tc, thresholds_a_daemonsets_pod_is_exempt_by_default);
    tcase_add_test(tc, thresholds_options_are_checked);
    suite_add_tcase(s, tc);
    return s;
}

/*
 * The memory a verb request uses against what it is charged
 * (server/verbs/memory.c): each verb runs on bodies of the shapes
 * kube-scheduler sends, in an arena held to the charge as the server holds
 * it (the body copied into it first), and must answer 200 without asking
 * for more. With MEMORY_REPORT=1 each case prints its bytes of arena per
 * body byte (docs/reliability.md, "Memory"):
 *
 *   MEMORY_REPORT=1 CK_RUN_SUITE=memory build/release/run-tests
 */
#include "server/verbs/memory.h"

#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "server/verbs/bind.h"
#include "server/verbs/filter.h"
#include "server/verbs/preempt.h"
#include "server/verbs/prioritize.h"
#include "server/verbs/reply.h"
#include "tests/suites.h"
#include "tests/support/bodies.h"

typedef void (*verb_fn)(const struct verb_ctx *, const char *, size_t, struct verb_reply *);

/* What the arena was asked for beyond its limit, and whether it was given. */
struct grow_log {
    size_t asked, granted;
    bool give;
};

static size_t grow(void *ctx, size_t want)
{
    struct grow_log *g = ctx;
    g->asked += want;
    if (!g->give)
        return 0;
    g->granted += want;
    return want;
}

/* Runs @verb on @body as the server does: an arena held to the charge
 * (growing through @g, may be NULL), the body copied in. Returns the
 * status; *@used the arena's bytes per body byte. */
static unsigned run(verb_fn verb, enum ops_verb v, const char *what, const char *body, size_t len,
                    struct grow_log *g, double *used)
{
    struct cfg c;
    struct verb_reply r;
    cfg_defaults(&c);
    size_t charge = verb_memory_charge(v, len, &c);
    struct arena *a = arena_acquire();
    ck_assert_ptr_nonnull(a);
    arena_set_limit(a, charge);
    if (g != NULL)
        arena_set_grow(a, grow, g);
    char *copy = arena_alloc(a, len + 1);
    ck_assert_ptr_nonnull(copy);
    memcpy(copy, body, len);
    copy[len] = '\0';
    const struct verb_ctx ctx = {.cfg = &c, .arena = a};
    verb(&ctx, copy, len, &r);
    size_t bytes = arena_used(a);
    if (used != NULL)
        *used = (double)bytes / (double)len;
    if (getenv("MEMORY_REPORT") != NULL)
        printf("memory: %-10s %-34s body %10zu  arena %10zu  %6.3f x body  charge %10zu  %s\n",
               ops_verb_name(v), what, len, bytes, (double)bytes / (double)len, charge,
               r.status == 200 ? "200" : r.error);
    fflush(stdout);
    unsigned status = r.status;
    /* A filter's NodeList answer is the body's own bytes, not a copy. */
    if (v == OPS_VERB_FILTER && strstr(what, "NodeList") != NULL && status == 200) {
        bool from_body = false;
        for (size_t i = 0; i < r.n_pieces; i++)
            from_body = from_body || (r.pieces[i].p >= copy && r.pieces[i].p < copy + len);
        ck_assert_msg(from_body, "%s: the answer copies the Node objects", what);
    }
    arena_release(a);
    return status;
}

/* Filter and prioritize on NodeLists and NodeNames of every size the
 * default max-nodes allows: within the charge, never asking for more. */
START_TEST(memory_filter_and_prioritize_fit_their_charge)
{
    static const struct {
        const char *what;
        size_t n, name_len;
        bool list;
    } shapes[] = {
        {"NodeList, 100 nodes", 100, 0, true},
        {"NodeList, 1000 nodes", 1000, 0, true},
        {"NodeList, 5000 nodes", 5000, 0, true},
        {"NodeNames, 100 names", 100, 13, false},
        {"NodeNames, 5000 names", 5000, 13, false},
        {"NodeNames, 10000 names", 10000, 13, false},
        {"NodeNames, 10000 names of 253 bytes", 10000, 253, false},
    };
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
        size_t len;
        char *body = shapes[i].list ? bodies_nodelist(shapes[i].n, 0, &len)
                                    : bodies_names(shapes[i].n, shapes[i].name_len, &len);
        ck_assert_ptr_nonnull(body);
        struct grow_log g = {0};
        double used;
        ck_assert_uint_eq(run(verb_filter, OPS_VERB_FILTER, shapes[i].what, body, len, &g, &used),
                          200);
        ck_assert_msg(g.asked == 0, "filter %s asked for %zu more", shapes[i].what, g.asked);
        /* the NodeList filter holds about its body: no copy of the items */
        if (shapes[i].list)
            ck_assert_msg(used < 1.15, "filter %s: %.3f x body", shapes[i].what, used);
        ck_assert_uint_eq(
            run(verb_prioritize, OPS_VERB_PRIORITIZE, shapes[i].what, body, len, &g, NULL), 200);
        ck_assert_msg(g.asked == 0, "prioritize %s asked for %zu more", shapes[i].what, g.asked);
        free(body);
    }
}
END_TEST

/* Preempt by UID and bind fit theirs; full pods as victims need more than
 * most preempt requests and take it while the budget has it, else the
 * request fails alone, with 500 "out of memory". */
START_TEST(memory_preempt_grows_when_it_needs_more)
{
    size_t len;
    struct grow_log g = {0};
    char *body = bodies_preempt(1000, 1, true, &len);
    ck_assert_uint_eq(
        run(verb_preempt, OPS_VERB_PREEMPT, "by UID, 1000 nodes x 1", body, len, &g, NULL), 200);
    ck_assert_uint_eq(g.asked, 0);
    free(body);
    body = bodies_preempt(3000, 5, false, &len);
    g = (struct grow_log){.give = true};
    ck_assert_uint_eq(
        run(verb_preempt, OPS_VERB_PREEMPT, "full pods, 3000 nodes x 5", body, len, &g, NULL), 200);
    ck_assert_uint_gt(g.granted, 0);
    g = (struct grow_log){.give = false};
    ck_assert_uint_eq(
        run(verb_preempt, OPS_VERB_PREEMPT, "full pods, refused more", body, len, &g, NULL), 500);
    ck_assert_uint_gt(g.asked, 0);
    free(body);
    const char *bind = "{\"PodName\":\"web-0\",\"PodNamespace\":\"shop\",\"PodUID\":\"u\","
                       "\"Node\":\"node-00001\"}";
    g = (struct grow_log){0};
    ck_assert_uint_eq(run(verb_bind, OPS_VERB_BIND, "bind", bind, strlen(bind), &g, NULL), 200);
    ck_assert_uint_eq(g.asked, 0);
}
END_TEST

/* The charge grows with the body, is bounded by max-nodes, and does not
 * wrap at the largest body max-body-bytes allows. */
START_TEST(memory_charge_grows_with_the_body_and_stays_bounded)
{
    struct cfg c;
    cfg_defaults(&c);
    for (int v = 0; v < OPS_VERB_COUNT; v++) {
        size_t last = 0;
        for (size_t len = 0; len <= (1u << 30); len = len * 4 + 1) {
            size_t charge = verb_memory_charge(v, len, &c);
            ck_assert_uint_ge(charge, last);
            ck_assert_uint_gt(charge, len);
            last = charge;
        }
        ck_assert_uint_lt(verb_memory_charge(v, 1u << 30, &c), 6ULL << 30);
    }
    /* A 32 MiB NodeList (the shipped cap) filter: the body, an eighth, and
     * per node (1024 bytes and two names) as many as max-nodes allows. */
    size_t want = (256u << 10) + (32u << 20) + (32u << 20) / 8 + 10000 * (1024 + 512);
    ck_assert_uint_eq(verb_memory_charge(OPS_VERB_FILTER, 32u << 20, &c), want);
    c.max_nodes = 100;
    ck_assert_uint_eq(verb_memory_charge(OPS_VERB_FILTER, 32u << 20, &c),
                      want - (10000 - 100) * (1024 + 512));
}
END_TEST

Suite *memory_suite(void)
{
    Suite *s = suite_create("memory");
    TCase *tc = tcase_create("memory");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, memory_filter_and_prioritize_fit_their_charge);
    tcase_add_test(tc, memory_preempt_grows_when_it_needs_more);
    tcase_add_test(tc, memory_charge_grows_with_the_body_and_stays_bounded);
    suite_add_tcase(s, tc);
    return s;
}

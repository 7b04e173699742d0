/* server/ops/ring.c: the decisions ring. */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "server/ops/ring.h"
#include "tests/suites.h"

/* A record for pod @ns/@name with @nodes nodes named n0, n1, ... */
static struct ops_record *make(const char *ns, const char *name, size_t nodes)
{
    struct ops_record *rec = ops_record_new(nodes, strlen(ns) + strlen(name) + 2 + 24 * nodes);
    ck_assert_ptr_nonnull(rec);
    rec->pod_ns = ops_record_strdup(rec, ns);
    rec->pod_name = ops_record_strdup(rec, name);
    for (size_t i = 0; i < nodes; i++) {
        char n[24];
        snprintf(n, sizeof(n), "n%zu", i);
        rec->nodes[i].name = ops_record_strdup(rec, n);
    }
    return rec;
}

/* Gives @rec to the ring as the product does (ops_ring_add_claim), with no
 * binding waiting for its pod. */
static uint64_t add(struct ops_ring *d, struct ops_record *rec)
{
    struct ops_record *claimed;
    char node[64];
    uint64_t id = ops_ring_add_claim(d, rec, &claimed, node, sizeof(node));
    ck_assert_ptr_null(claimed);
    return id;
}

static size_t count(struct ops_ring *d, const struct ops_query *q, uint64_t *first)
{
    struct ops_record **found;
    size_t n;
    ck_assert_int_eq(ops_ring_find(d, q, &found, &n), 0);
    if (first != NULL)
        *first = n > 0 ? found[0]->id : 0;
    for (size_t i = 0; i < n; i++)
        ops_record_release(found[i]);
    free(found);
    return n;
}

START_TEST(decisions_keep_the_newest_by_count)
{
    struct ops_ring d;
    uint64_t first;
    ck_assert_int_eq(ops_ring_init(&d, 3, 1 << 20), 0);
    for (int i = 1; i <= 5; i++)
        ck_assert_uint_eq(add(&d, make("ns", i % 2 ? "odd" : "even", 2)), (uint64_t)i);
    struct ops_query all = {0};
    ck_assert_uint_eq(count(&d, &all, &first), 3);
    ck_assert_uint_eq(first, 5);
    struct ops_query odd = {.pod = "odd"}, even = {.pod = "ns/even"};
    ck_assert_uint_eq(count(&d, &odd, &first), 2); /* 5 and 3 */
    ck_assert_uint_eq(first, 5);
    ck_assert_uint_eq(count(&d, &even, &first), 1);
    ck_assert_uint_eq(first, 4);
    struct ops_query other_ns = {.pod = "other/odd"}, gone = {.id = 2};
    ck_assert_uint_eq(count(&d, &other_ns, NULL), 0);
    ck_assert_uint_eq(count(&d, &gone, NULL), 0);
    struct ops_query one = {.limit = 1}, id3 = {.id = 3};
    ck_assert_uint_eq(count(&d, &one, &first), 1);
    ck_assert_uint_eq(count(&d, &id3, &first), 1);
    ck_assert_uint_eq(first, 3);
    ops_ring_destroy(&d);
}
END_TEST

START_TEST(decisions_keep_within_the_byte_bound)
{
    struct ops_ring d;
    size_t kept, bytes;
    struct ops_record *probe = make("ns", "p", 10);
    size_t one = probe->bytes;
    ops_record_release(probe);

    /* what the README promises: about 200 bytes a node (a 10-character
     * name, an empty reason), the record's header spread over 1000 nodes */
    struct ops_record *big = ops_record_new(1000, 1000 * (11 + 1));
    ck_assert_ptr_nonnull(big);
    ck_assert_uint_le(big->bytes / 1000, 200);
    ops_record_release(big);

    ck_assert_int_eq(ops_ring_init(&d, 100, (long long)(2 * one + one / 2)), 0);
    for (int i = 0; i < 4; i++)
        add(&d, make("ns", "p", 10));
    ops_ring_usage(&d, &kept, &bytes);
    ck_assert_uint_eq(kept, 2);
    ck_assert_uint_eq(bytes, 2 * one);
    /* a record larger than the whole bound is not kept (id 0) */
    ck_assert_uint_eq(add(&d, make("ns", "big", 100)), 0);
    ops_ring_usage(&d, &kept, &bytes);
    ck_assert_uint_eq(kept, 2);
    ops_ring_destroy(&d);
}
END_TEST

START_TEST(decisions_reconfigure_keeps_the_newest_and_readers_keep_theirs)
{
    struct ops_ring d;
    struct ops_record **found;
    size_t n, kept, bytes;
    uint64_t first;
    ck_assert_int_eq(ops_ring_init(&d, 10, 1 << 20), 0);
    for (int i = 0; i < 6; i++)
        add(&d, make("ns", "p", 1));
    struct ops_query all = {0};
    ck_assert_int_eq(ops_ring_find(&d, &all, &found, &n), 0); /* a reader holds all 6 */
    ck_assert_int_eq(ops_ring_configure(&d, 2, 1 << 20), 0);
    ck_assert_uint_eq(count(&d, &all, &first), 2);
    ck_assert_uint_eq(first, 6);
    ck_assert_uint_eq(add(&d, make("ns", "p", 1)), 7);
    ck_assert_uint_eq(count(&d, &all, &first), 2);
    /* the reader's records outlive their eviction (ASan checks the reads) */
    for (size_t i = 0; i < n; i++) {
        ck_assert_str_eq(found[i]->pod_name, "p");
        ops_record_release(found[i]);
    }
    free(found);
    /* growing again keeps what is there; 0 keeps nothing */
    ck_assert_int_eq(ops_ring_configure(&d, 5, 1 << 20), 0);
    ck_assert_uint_eq(count(&d, &all, NULL), 2);
    ck_assert_int_eq(ops_ring_configure(&d, 0, 1 << 20), 0);
    ck_assert_uint_eq(add(&d, make("ns", "p", 1)), 0);
    ops_ring_usage(&d, &kept, &bytes);
    ck_assert_uint_eq(kept, 0);
    ck_assert_uint_eq(bytes, 0);
    ops_ring_destroy(&d);
}
END_TEST

/* A prioritize decision of pod default/p with @uid and nodes n0, n1, ... */
static struct ops_record *prio(const char *uid, size_t nodes)
{
    struct ops_record *rec = ops_record_new(nodes, strlen(uid) + 16 + 24 * nodes);
    ck_assert_ptr_nonnull(rec);
    rec->verb = OPS_VERB_PRIORITIZE;
    rec->pod_ns = ops_record_strdup(rec, "default");
    rec->pod_name = ops_record_strdup(rec, "p");
    rec->pod_uid = ops_record_strdup(rec, uid);
    for (size_t i = 0; i < nodes; i++) {
        char n[24];
        snprintf(n, sizeof(n), "n%zu", i);
        rec->nodes[i].name = ops_record_strdup(rec, n);
    }
    return rec;
}

/* Claims pod @uid's decision for a binding to @node; the claimed id (0: none) and rc. */
static int claim_id(struct ops_ring *d, const char *uid, const char *node, uint64_t *id)
{
    struct ops_record *rec;
    int rc = ops_ring_claim(d, uid, node, &rec);
    *id = rec != NULL ? rec->id : 0;
    if (rec != NULL) {
        struct ops_comparison c = {.bound = 0, .rank = 1, .agreed = true};
        ops_record_set_comparison(rec, &c);
        ops_record_release(rec);
    }
    return rc;
}

START_TEST(ring_claim_takes_the_newest_prioritize_of_the_uid_once)
{
    struct ops_ring d;
    uint64_t id;
    ck_assert_int_eq(ops_ring_init(&d, 10, 1 << 20), 0);
    struct ops_record *filter = prio("u1", 2);
    filter->verb = OPS_VERB_FILTER; /* the prioritize of the same cycle is compared */
    ck_assert_uint_eq(add(&d, filter), 1);
    ck_assert_uint_eq(add(&d, prio("u1", 2)), 2);
    ck_assert_uint_eq(add(&d, prio("u1", 2)), 3); /* a later cycle of the same pod */
    ck_assert_uint_eq(add(&d, prio("u2", 2)), 4);
    ck_assert_uint_eq(add(&d, prio("", 2)), 5);   /* no UID: nothing to match */
    ck_assert_uint_eq(add(&d, prio("u3", 0)), 6); /* not scored */
    ck_assert_int_eq(claim_id(&d, "u1", "n0", &id), 0);
    ck_assert_uint_eq(id, 3);
    /* a pod is compared once: the older decision is not taken instead */
    ck_assert_int_eq(claim_id(&d, "u1", "n0", &id), -EALREADY);
    ck_assert_uint_eq(id, 0);
    ck_assert_int_eq(claim_id(&d, "u2", "n1", &id), 0);
    ck_assert_uint_eq(id, 4);
    ck_assert_int_eq(claim_id(&d, "u3", "n0", &id), -ENOENT);
    ck_assert_int_eq(claim_id(&d, "", "n0", &id), -ENOENT);
    /* only the published comparisons that disagree match ?disagreed */
    struct ops_query disagreed = {.disagreed = true};
    ck_assert_uint_eq(count(&d, &disagreed, NULL), 0);
    struct ops_record **found;
    size_t n;
    struct ops_query two = {.id = 4};
    ck_assert_int_eq(ops_ring_find(&d, &two, &found, &n), 0);
    ck_assert_uint_eq(n, 1);
    ck_assert_ptr_nonnull(ops_record_comparison(found[0]));
    ops_record_release(found[0]);
    free(found);
    two.id = 2;
    ck_assert_int_eq(ops_ring_find(&d, &two, &found, &n), 0);
    ck_assert_ptr_null(ops_record_comparison(found[0]));
    ops_record_release(found[0]);
    free(found);
    ops_ring_destroy(&d);
}
END_TEST

START_TEST(ring_binding_before_decision_is_claimed_when_it_is_added)
{
    struct ops_ring d;
    struct ops_record *claimed;
    char node[OPS_NODE_NAME_MAX + 1];
    uint64_t id;
    ck_assert_int_eq(ops_ring_init(&d, 3, 1 << 20), 0);
    ck_assert_int_eq(claim_id(&d, "u9", "n1", &id), -ENOENT); /* remembered */
    ck_assert_uint_eq(d.n_early, 1);
    /* a filter decision of that pod does not take it */
    struct ops_record *filter = prio("u9", 2);
    filter->verb = OPS_VERB_FILTER;
    ck_assert_uint_eq(ops_ring_add_claim(&d, filter, &claimed, node, sizeof(node)), 1);
    ck_assert_ptr_null(claimed);
    struct ops_record *rec = prio("u9", 2);
    ck_assert_uint_eq(ops_ring_add_claim(&d, rec, &claimed, node, sizeof(node)), 2);
    ck_assert_ptr_eq(claimed, rec);
    ck_assert_str_eq(node, "n1");
    ck_assert_uint_eq(d.n_early, 0);
    ops_record_release(claimed);
    /* claimed once: the binding is not found again */
    ck_assert_int_eq(claim_id(&d, "u9", "n1", &id), -EALREADY);
    ck_assert_uint_eq(ops_ring_add_claim(&d, prio("u9", 2), &claimed, node, sizeof(node)), 3);
    ck_assert_ptr_null(claimed);

    /* remembered bindings are bounded by the ring's size: the oldest go */
    for (int i = 0; i < 4; i++) {
        char uid[16];
        snprintf(uid, sizeof(uid), "e%d", i);
        ck_assert_int_eq(claim_id(&d, uid, "n0", &id), -ENOENT);
    }
    ck_assert_uint_eq(d.n_early, 3);
    ck_assert_uint_eq(ops_ring_add_claim(&d, prio("e0", 1), &claimed, node, sizeof(node)), 4);
    ck_assert_ptr_null(claimed);
    ck_assert_uint_eq(ops_ring_add_claim(&d, prio("e2", 1), &claimed, node, sizeof(node)), 5);
    ck_assert_ptr_nonnull(claimed);
    ops_record_release(claimed);
    ck_assert_uint_eq(d.n_early, 2); /* e1 and e3 */
    /* a ring that keeps nothing remembers nothing */
    ck_assert_int_eq(ops_ring_configure(&d, 0, 1 << 20), 0);
    ck_assert_uint_eq(d.n_early, 0);
    ck_assert_int_eq(claim_id(&d, "e3", "n0", &id), -ENOENT);
    ck_assert_uint_eq(d.n_early, 0);
    ops_ring_destroy(&d);
}
END_TEST

START_TEST(ring_index_follows_evictions_and_reconfiguration)
{
    struct ops_ring d;
    uint64_t id;
    ck_assert_int_eq(ops_ring_init(&d, 2, 1 << 20), 0);
    add(&d, prio("a", 1));
    add(&d, prio("b", 1));
    add(&d, prio("c", 1)); /* a goes */
    ck_assert_int_eq(claim_id(&d, "a", "n0", &id), -ENOENT);
    ck_assert_int_eq(ops_ring_configure(&d, 8, 1 << 20), 0);
    ck_assert_int_eq(claim_id(&d, "b", "n0", &id), 0);
    ck_assert_uint_eq(id, 2);
    for (int i = 0; i < 20; i++) /* chains of many UIDs in a few buckets */
        add(&d, prio(i % 2 ? "odd" : "even", 1));
    ck_assert_int_eq(claim_id(&d, "odd", "n0", &id), 0);
    ck_assert_uint_eq(id, 23);
    ck_assert_int_eq(claim_id(&d, "even", "n0", &id), 0);
    ck_assert_uint_eq(id, 22);
    ck_assert_int_eq(ops_ring_configure(&d, 1, 1 << 20), 0); /* keeps 23 only */
    add(&d, prio("odd", 1));                                 /* 24 replaces it */
    ck_assert_int_eq(claim_id(&d, "odd", "n0", &id), 0);
    ck_assert_uint_eq(id, 24);
    ops_ring_destroy(&d);
}
END_TEST

/* A binding and its decision arriving at once, from two threads: the
 * binding is compared exactly once, whichever comes first. */
struct race {
    struct ops_ring *d;
    pthread_barrier_t *go;
    const char *uid;
    int claimed;
};

static void *race_binding(void *arg)
{
    struct race *r = arg;
    uint64_t id;
    pthread_barrier_wait(r->go);
    r->claimed = claim_id(r->d, r->uid, "n0", &id) == 0;
    return NULL;
}

START_TEST(ring_binding_racing_its_decision_is_compared_once)
{
    struct ops_ring d;
    pthread_barrier_t go;
    int by_binding = 0, by_add = 0;
    ck_assert_int_eq(ops_ring_init(&d, 64, 1 << 24), 0);
    ck_assert_int_eq(pthread_barrier_init(&go, NULL, 2), 0);
    for (int i = 0; i < 2000; i++) {
        char uid[16], node[OPS_NODE_NAME_MAX + 1];
        snprintf(uid, sizeof(uid), "r%d", i);
        struct race r = {.d = &d, .go = &go, .uid = uid};
        struct ops_record *claimed, *rec = prio(uid, 1);
        pthread_t t;
        ck_assert_int_eq(pthread_create(&t, NULL, race_binding, &r), 0);
        pthread_barrier_wait(&go);
        ops_ring_add_claim(&d, rec, &claimed, node, sizeof(node));
        pthread_join(t, NULL);
        if (claimed != NULL) {
            ck_assert_str_eq(node, "n0");
            ops_record_release(claimed);
        }
        ck_assert_int_eq(r.claimed + (claimed != NULL), 1);
        by_binding += r.claimed;
        by_add += claimed != NULL;
    }
    ck_assert_int_eq(by_binding + by_add, 2000);
    pthread_barrier_destroy(&go);
    ops_ring_destroy(&d);
}
END_TEST

Suite *ring_suite(void)
{
    Suite *s = suite_create("ring");
    TCase *tc = tcase_create("ring");
    tcase_add_test(tc, decisions_keep_the_newest_by_count);
    tcase_add_test(tc, decisions_keep_within_the_byte_bound);
    tcase_add_test(tc, decisions_reconfigure_keeps_the_newest_and_readers_keep_theirs);
    tcase_add_test(tc, ring_claim_takes_the_newest_prioritize_of_the_uid_once);
    tcase_add_test(tc, ring_binding_before_decision_is_claimed_when_it_is_added);
    tcase_add_test(tc, ring_index_follows_evictions_and_reconfiguration);
    tcase_add_test(tc, ring_binding_racing_its_decision_is_compared_once);
    suite_add_tcase(s, tc);
    return s;
}

/* server/ops/ring.c: the decisions ring. */
#include <check.h>
#include <errno.h>
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
        ck_assert_uint_eq(ops_ring_add(&d, make("ns", i % 2 ? "odd" : "even", 2)), (uint64_t)i);
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
        ops_ring_add(&d, make("ns", "p", 10));
    ops_ring_usage(&d, &kept, &bytes);
    ck_assert_uint_eq(kept, 2);
    ck_assert_uint_eq(bytes, 2 * one);
    /* a record larger than the whole bound is not kept (id 0) */
    ck_assert_uint_eq(ops_ring_add(&d, make("ns", "big", 100)), 0);
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
        ops_ring_add(&d, make("ns", "p", 1));
    struct ops_query all = {0};
    ck_assert_int_eq(ops_ring_find(&d, &all, &found, &n), 0); /* a reader holds all 6 */
    ck_assert_int_eq(ops_ring_configure(&d, 2, 1 << 20), 0);
    ck_assert_uint_eq(count(&d, &all, &first), 2);
    ck_assert_uint_eq(first, 6);
    ck_assert_uint_eq(ops_ring_add(&d, make("ns", "p", 1)), 7);
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
    ck_assert_uint_eq(ops_ring_add(&d, make("ns", "p", 1)), 0);
    ops_ring_usage(&d, &kept, &bytes);
    ck_assert_uint_eq(kept, 0);
    ck_assert_uint_eq(bytes, 0);
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
    suite_add_tcase(s, tc);
    return s;
}

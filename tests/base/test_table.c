/* base/table.c: the one hash table. Growing and string-keyed (the
 * cluster state's nodes and pods): found by key, grown past its first 64
 * buckets without losing an entry, unlinked without touching the others;
 * fixed over the caller's buckets (table_link, table_chain). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/table.h"
#include "tests/suites.h"

struct item {
    struct table_entry e;
    int value;
};

static struct item *item_new(const char *key, int value)
{
    struct item *it = table_entry_new(sizeof(*it), key);
    ck_assert_ptr_nonnull(it);
    it->value = value;
    return it;
}

/* The published FNV-1a 64 test vectors: the hash is the standard one,
 * so a value computed elsewhere (a log, a tool) matches. */
START_TEST(table_hash_is_fnv1a)
{
    ck_assert_uint_eq(hash_fnv1a_str(""), 0xcbf29ce484222325ULL);
    ck_assert_uint_eq(hash_fnv1a_str("a"), 0xaf63dc4c8601ec8cULL);
    ck_assert_uint_eq(hash_fnv1a_str("foobar"), 0x85944171f73967e8ULL);
    ck_assert_uint_eq(hash_fnv1a_bytes(HASH_FNV1A_SEED, "foobar", 6), 0x85944171f73967e8ULL);
}
END_TEST

START_TEST(table_finds_every_key_after_growing)
{
    struct table t = {0};
    char key[32];
    ck_assert_ptr_null(table_find(&t, "node-1")); /* empty: no buckets yet */
    for (int i = 0; i < 1000; i++) {
        snprintf(key, sizeof(key), "node-%d", i);
        ck_assert_int_eq(table_insert(&t, &item_new(key, i)->e), 0);
    }
    ck_assert_uint_eq(t.count, 1000);
    ck_assert_uint_ge(t.n_buckets, 1000); /* load factor at most 1 */
    for (int i = 0; i < 1000; i++) {
        snprintf(key, sizeof(key), "node-%d", i);
        const struct item *it = (const struct item *)(const void *)table_find(&t, key);
        ck_assert_ptr_nonnull(it);
        ck_assert_int_eq(it->value, i);
        ck_assert_str_eq(it->e.key, key);
    }
    ck_assert_ptr_null(table_find(&t, "node-1000"));
    ck_assert_ptr_null(table_find(&t, "node-"));
    table_free_all(&t, NULL);
}
END_TEST

START_TEST(table_unlink_takes_out_one_entry)
{
    struct table t = {0};
    struct item *a = item_new("a", 1), *b = item_new("b", 2), *c = item_new("c", 3);
    ck_assert_int_eq(table_insert(&t, &a->e), 0);
    ck_assert_int_eq(table_insert(&t, &b->e), 0);
    ck_assert_int_eq(table_insert(&t, &c->e), 0);
    table_unlink(&t, &b->e);
    ck_assert_uint_eq(t.count, 2);
    ck_assert_ptr_null(table_find(&t, "b"));
    ck_assert_ptr_eq(table_find(&t, "a"), &a->e);
    ck_assert_ptr_eq(table_find(&t, "c"), &c->e);
    /* An entry with the same key that is not the one in the table stays
     * out: the table keeps what it holds. */
    struct item *a2 = item_new("a", 9);
    table_unlink(&t, &a2->e);
    ck_assert_uint_eq(t.count, 2);
    ck_assert_ptr_eq(table_find(&t, "a"), &a->e);
    free(a2);
    free(b);
    table_free_all(&t, NULL);
}
END_TEST

/* The fixed form (the ring's UID index, preempt's name index, the
 * simulation's grouping): buckets of the caller's, entries linked under
 * the caller's hash, an entry of a key already there found first, and the
 * older one of two with the same key taken out by itself. */
START_TEST(table_fixed_links_newest_first)
{
    struct table_entry *buckets[16] = {0}, e[3] = {{0}};
    struct table t = table_fixed(buckets, table_buckets(3));
    ck_assert_uint_eq(t.n_buckets, 16);
    ck_assert_uint_eq(table_buckets(17), 32);
    e[0].key = e[1].key = "uid-1";
    e[2].key = "uid-2";
    for (int i = 0; i < 3; i++)
        table_link(&t, &e[i], hash_fnv1a_str(e[i].key));
    ck_assert_uint_eq(t.count, 3);
    ck_assert_ptr_eq(table_find(&t, "uid-1"), &e[1]); /* the newest */
    ck_assert_ptr_eq(table_find(&t, "uid-2"), &e[2]);
    table_unlink(&t, &e[0]); /* the older duplicate: the newer stays */
    ck_assert_ptr_eq(table_find(&t, "uid-1"), &e[1]);
    table_unlink(&t, &e[1]);
    ck_assert_ptr_null(table_find(&t, "uid-1"));
    ck_assert_uint_eq(t.count, 1);
    /* A key the caller compares: walk the chain of its hash. */
    struct table_entry k = {0};
    table_link(&t, &k, 42);
    const struct table_entry *found = table_chain(&t, 42);
    while (found != NULL && found->hash != 42)
        found = found->next;
    ck_assert_ptr_eq(found, &k);
}
END_TEST

Suite *table_suite(void)
{
    Suite *s = suite_create("table");
    TCase *tc = tcase_create("table");
    tcase_add_test(tc, table_hash_is_fnv1a);
    tcase_add_test(tc, table_finds_every_key_after_growing);
    tcase_add_test(tc, table_unlink_takes_out_one_entry);
    tcase_add_test(tc, table_fixed_links_newest_first);
    suite_add_tcase(s, tc);
    return s;
}

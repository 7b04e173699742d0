/*
 * The one hash table of the tree: chained, intrusive. An entry embeds
 * struct table_entry (its chain link, its hash, its key) and the table
 * holds pointers only, so an entry is found, added and taken out without
 * an allocation of the table's own.
 *
 * Two ways to own one:
 *  - growing, string-keyed (the cluster state's nodes and pods): start it
 *    zeroed, add by table_insert(), free it by table_free_all();
 *  - fixed, in memory of any allocator (the decisions ring's UID index,
 *    the preempt name index in a request's arena, the simulation's
 *    grouping): table_fixed() over a zeroed array of table_buckets(n)
 *    pointers, add by table_link() under a hash of the caller's choosing
 *    (any key, compared by the caller along table_chain()), never grown,
 *    its buckets freed by their owner.
 * The inline part needs no object file: the pure rooms (placement) use it.
 * No locking: the owner locks.
 */
#ifndef BASE_TABLE_H
#define BASE_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct table_entry {
    struct table_entry *next;
    uint64_t hash;   /* compared before the key, kept for growth */
    const char *key; /* table_find()'s key; NULL for a key the caller compares */
};

struct table {
    struct table_entry **buckets; /* walk them to visit every entry */
    size_t n_buckets;             /* a power of two, or 0 while empty */
    size_t count;
};

/* Buckets for @n entries at a load factor of at most 1: a power of two. */
static inline size_t table_buckets(size_t n)
{
    size_t b = 16;
    while (b < n)
        b *= 2;
    return b;
}

/* A fixed table over the zeroed @buckets, table_buckets() of them. */
static inline struct table table_fixed(struct table_entry **buckets, size_t n_buckets)
{
    return (struct table){.buckets = buckets, .n_buckets = n_buckets};
}

/* The first entry of the chain of @hash (NULL: none); walk on by ->next,
 * comparing ->hash before the key. */
static inline struct table_entry *table_chain(const struct table *t, uint64_t hash)
{
    return t->n_buckets == 0 ? NULL : t->buckets[hash & (t->n_buckets - 1)];
}

/* The newest entry of the string @key, whose hash is @hash, or NULL. On
 * the request path once per node name: the hash check skips most key
 * comparisons, each a cache miss at 5000 nodes; inline, as a call would
 * cost more than the usual one-entry chain. */
static inline struct table_entry *table_find_hashed(const struct table *t, const char *key,
                                                    uint64_t hash)
{
    struct table_entry *e = table_chain(t, hash);
    while (e != NULL && (e->hash != hash || strcmp(e->key, key) != 0))
        e = e->next;
    return e;
}

/* Visits every entry of @t as @e (a struct table_entry *), which the body
 * may unlink and free: the next one is read before the body runs. */
#define TABLE_EACH(t, e)                                                                           \
    for (size_t e##_bucket = 0; e##_bucket < (t)->n_buckets; e##_bucket++)                         \
        for (struct table_entry *e = (t)->buckets[e##_bucket], *e##_next;                          \
             e != NULL && (e##_next = e->next, true); e = e##_next)

/* Adds @e under @hash at the head of its chain (found before an older
 * entry of the same key), without growing: @t has buckets. */
static inline void table_link(struct table *t, struct table_entry *e, uint64_t hash)
{
    struct table_entry **head = &t->buckets[hash & (t->n_buckets - 1)];
    e->hash = hash;
    e->next = *head;
    *head = e;
    t->count++;
}

/* A zeroed entry of @size bytes (the owner's struct, table_entry first)
 * with @key copied after it; NULL when out of memory. free() frees it. */
void *table_entry_new(size_t size, const char *key);

/* The newest entry of @key (hashed by hash_fnv1a_str), or NULL. */
struct table_entry *table_find(const struct table *t, const char *key);

/* Adds @e, whose key is not in the growing @t, growing it to keep the
 * load factor at most 1: 0 or -ENOMEM (@e is then not added). */
int table_insert(struct table *t, struct table_entry *e);

/* Takes @e out of @t if it is there (this entry, not another of its key);
 * the entry itself is the caller's. */
void table_unlink(struct table *t, const struct table_entry *e);

/* Frees every entry of a growing table with @free_entry (free() when
 * NULL), then its buckets. */
void table_free_all(struct table *t, void (*free_entry)(void *));

#endif

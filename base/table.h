/*
 * A chained hash table keyed by string, intrusive: an entry embeds struct
 * table_entry as its first member and its key is stored right after it,
 * in the same allocation (table_entry_new). The cluster state keeps its
 * nodes and pods in two of these. No locking: the owner locks.
 */
#ifndef BASE_TABLE_H
#define BASE_TABLE_H

#include <stddef.h>
#include <stdint.h>

struct table_entry {
    struct table_entry *next;
    uint64_t hash; /* of key: compared before the key, kept for growth */
    char *key;
};

struct table {
    struct table_entry **buckets; /* walk them to visit every entry */
    size_t n_buckets;             /* a power of two, or 0 while empty */
    size_t count;
};

/* A zeroed entry of @size bytes (the owner's struct, table_entry first)
 * with @key copied after it; NULL when out of memory. free() frees it. */
void *table_entry_new(size_t size, const char *key);

/* The entry of @key, or NULL. */
struct table_entry *table_find(const struct table *t, const char *key);

/* Adds @e, whose key is not in @t: 0 or -ENOMEM (@e is then not added). */
int table_insert(struct table *t, struct table_entry *e);

/* Takes @e out of @t if it is there; the entry itself is the caller's. */
void table_unlink(struct table *t, const struct table_entry *e);

/* Frees the bucket array; the entries must have been freed or handed on. */
void table_release(struct table *t);

#endif

#include "base/table.h"

#include "base/hash.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void *table_entry_new(size_t size, const char *key)
{
    size_t len = strlen(key);
    char *e = calloc(1, size + len + 1);
    if (e == NULL)
        return NULL;
    memcpy(e + size, key, len + 1);
    ((struct table_entry *)(void *)e)->key = e + size;
    return e;
}

/* A lookup is on the request path once per node name: the hash check
 * skips most key comparisons, each a cache miss at 5000 nodes. */
static struct table_entry **slot_of(const struct table *t, const char *key, uint64_t h)
{
    struct table_entry **p = &t->buckets[h & (t->n_buckets - 1)];
    while (*p != NULL && ((*p)->hash != h || strcmp((*p)->key, key) != 0))
        p = &(*p)->next;
    return p;
}

struct table_entry *table_find(const struct table *t, const char *key)
{
    return t->n_buckets == 0 ? NULL : *slot_of(t, key, hash_fnv1a_str(key));
}

/* Keeps the load factor at most 1 so lookups stay O(1). */
static int table_grow(struct table *t)
{
    size_t n = t->n_buckets ? t->n_buckets * 2 : 64;
    struct table_entry **b = calloc(n, sizeof(*b));
    if (b == NULL)
        return -ENOMEM;
    for (size_t i = 0; i < t->n_buckets; i++) {
        struct table_entry *e = t->buckets[i];
        while (e != NULL) {
            struct table_entry *next = e->next;
            size_t k = e->hash & (n - 1);
            e->next = b[k];
            b[k] = e;
            e = next;
        }
    }
    free(t->buckets);
    t->buckets = b;
    t->n_buckets = n;
    return 0;
}

int table_insert(struct table *t, struct table_entry *e)
{
    if (t->count + 1 > t->n_buckets && table_grow(t) != 0)
        return -ENOMEM;
    e->hash = hash_fnv1a_str(e->key);
    struct table_entry **head = &t->buckets[e->hash & (t->n_buckets - 1)];
    e->next = *head;
    *head = e;
    t->count++;
    return 0;
}

void table_unlink(struct table *t, const struct table_entry *e)
{
    if (t->n_buckets == 0)
        return;
    struct table_entry **p = slot_of(t, e->key, e->hash);
    if (*p == e) {
        *p = e->next;
        t->count--;
    }
}

void table_release(struct table *t)
{
    free(t->buckets);
    t->buckets = NULL;
    t->n_buckets = 0;
    t->count = 0;
}

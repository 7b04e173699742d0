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

struct table_entry *table_find(const struct table *t, const char *key)
{
    return table_find_hashed(t, key, hash_fnv1a_str(key));
}

/* Keeps the load factor at most 1 so lookups stay O(1). */
static int table_grow(struct table *t)
{
    size_t n = t->n_buckets ? t->n_buckets * 2 : 64;
    struct table grown = table_fixed(calloc(n, sizeof(*grown.buckets)), n);
    if (grown.buckets == NULL)
        return -ENOMEM;
    for (size_t i = 0; i < t->n_buckets; i++) {
        struct table_entry *e = t->buckets[i];
        while (e != NULL) {
            struct table_entry *next = e->next;
            table_link(&grown, e, e->hash);
            e = next;
        }
    }
    free(t->buckets);
    *t = grown;
    return 0;
}

int table_insert(struct table *t, struct table_entry *e)
{
    if (t->count + 1 > t->n_buckets && table_grow(t) != 0)
        return -ENOMEM;
    table_link(t, e, hash_fnv1a_str(e->key));
    return 0;
}

void table_unlink(struct table *t, const struct table_entry *e)
{
    if (t->n_buckets == 0)
        return;
    struct table_entry **p = &t->buckets[e->hash & (t->n_buckets - 1)];
    while (*p != NULL && *p != e)
        p = &(*p)->next;
    if (*p == e) {
        *p = e->next;
        t->count--;
    }
}

void table_free_all(struct table *t, void (*free_entry)(void *))
{
    TABLE_EACH(t, e)
        (free_entry != NULL ? free_entry : free)(e);
    free(t->buckets);
    *t = (struct table){0};
}

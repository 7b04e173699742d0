#include "server/ops/ring.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A record is one allocation: the struct, its nodes, then its strings.
 * strings_used is kept in the tail so that strdup needs no extra field in
 * the public struct. */
struct record {
    struct ops_record d;
    size_t strings_cap, strings_used;
    char *strings;
};

struct ops_record *ops_record_new(size_t n_nodes, size_t strings)
{
    size_t size = sizeof(struct record) + n_nodes * sizeof(struct ops_record_node) + strings;
    struct record *r = calloc(1, size);
    if (r == NULL)
        return NULL;
    r->d.nodes = (struct ops_record_node *)(void *)(r + 1);
    r->d.n_nodes = n_nodes;
    r->d.bytes = size;
    r->d.best = -1;
    r->strings = (char *)(r->d.nodes + n_nodes);
    r->strings_cap = strings;
    atomic_init(&r->d.refs, 1);
    return &r->d;
}

const char *ops_record_strdup(struct ops_record *rec, const char *s)
{
    struct record *r = (struct record *)(void *)rec;
    size_t len = strlen(s) + 1;
    if (len > r->strings_cap - r->strings_used)
        return ""; /* the caller sized it wrong: an empty name, never an overrun */
    char *copy = r->strings + r->strings_used;
    memcpy(copy, s, len);
    r->strings_used += len;
    return copy;
}

void ops_record_release(struct ops_record *rec)
{
    if (rec != NULL && atomic_fetch_sub_explicit(&rec->refs, 1, memory_order_acq_rel) == 1)
        free(rec);
}

int ops_ring_init(struct ops_ring *d, int kept, long long max_bytes)
{
    memset(d, 0, sizeof(*d));
    if (pthread_mutex_init(&d->lock, NULL) != 0)
        return -ENOMEM;
    d->next_id = 1;
    return ops_ring_configure(d, kept, max_bytes);
}

/* The record @age places back from the newest (0 = newest). Under the lock. */
static struct ops_record **slot(struct ops_ring *d, size_t age)
{
    return &d->ring[(d->head + d->count - 1 - age) % d->cap];
}

static void drop_oldest(struct ops_ring *d)
{
    struct ops_record *old = d->ring[d->head];
    d->ring[d->head] = NULL;
    d->head = (d->head + 1) % d->cap;
    d->count--;
    d->bytes -= old->bytes;
    ops_record_release(old);
}

int ops_ring_configure(struct ops_ring *d, int kept, long long max_bytes)
{
    size_t cap = kept > 0 ? (size_t)kept : 0;
    struct ops_record **ring = cap > 0 ? calloc(cap, sizeof(*ring)) : NULL;
    if (cap > 0 && ring == NULL)
        return -ENOMEM;
    pthread_mutex_lock(&d->lock);
    d->max_bytes = max_bytes > 0 ? (size_t)max_bytes : 0;
    /* Keep the newest that fit both new bounds, oldest first in the new ring. */
    while (d->count > cap || (d->count > 0 && d->bytes > d->max_bytes))
        drop_oldest(d);
    for (size_t i = 0; i < d->count; i++)
        ring[i] = *slot(d, d->count - 1 - i);
    free(d->ring);
    d->ring = ring;
    d->cap = cap;
    d->head = 0;
    pthread_mutex_unlock(&d->lock);
    return 0;
}

void ops_ring_destroy(struct ops_ring *d)
{
    while (d->count > 0)
        drop_oldest(d);
    free(d->ring);
    pthread_mutex_destroy(&d->lock);
}

uint64_t ops_ring_add(struct ops_ring *d, struct ops_record *rec)
{
    uint64_t id = 0;
    pthread_mutex_lock(&d->lock);
    if (d->cap > 0 && rec->bytes <= d->max_bytes) {
        while (d->count == d->cap || (d->count > 0 && d->bytes + rec->bytes > d->max_bytes))
            drop_oldest(d);
        id = d->next_id++;
        rec->id = id;
        d->count++;
        *slot(d, 0) = rec;
        d->bytes += rec->bytes;
        rec = NULL;
    }
    pthread_mutex_unlock(&d->lock);
    ops_record_release(rec); /* not kept */
    return id;
}

/* "ns/name" matches that pod; "name" matches it in any namespace. */
static bool pod_matches(const struct ops_record *rec, const char *pod)
{
    const char *slash = strchr(pod, '/');
    if (slash == NULL)
        return strcmp(rec->pod_name, pod) == 0;
    size_t ns_len = (size_t)(slash - pod);
    return strlen(rec->pod_ns) == ns_len && strncmp(rec->pod_ns, pod, ns_len) == 0 &&
           strcmp(rec->pod_name, slash + 1) == 0;
}

int ops_ring_find(struct ops_ring *d, const struct ops_query *q, struct ops_record ***out,
                  size_t *n)
{
    *out = NULL;
    *n = 0;
    pthread_mutex_lock(&d->lock);
    struct ops_record **found = malloc((d->count + 1) * sizeof(*found));
    if (found == NULL) {
        pthread_mutex_unlock(&d->lock);
        return -ENOMEM;
    }
    for (size_t age = 0; age < d->count; age++) {
        struct ops_record *rec = *slot(d, age);
        if ((q->id != 0 && rec->id != q->id) || (q->pod != NULL && !pod_matches(rec, q->pod)))
            continue;
        if (q->limit != 0 && *n >= q->limit)
            break;
        atomic_fetch_add_explicit(&rec->refs, 1, memory_order_relaxed);
        found[(*n)++] = rec;
    }
    pthread_mutex_unlock(&d->lock);
    *out = found;
    return 0;
}

void ops_ring_usage(struct ops_ring *d, size_t *count, size_t *bytes)
{
    pthread_mutex_lock(&d->lock);
    *count = d->count;
    *bytes = d->bytes;
    pthread_mutex_unlock(&d->lock);
}

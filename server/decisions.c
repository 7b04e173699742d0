#include "server/decisions.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A record is one allocation: the struct, its nodes, then its strings.
 * strings_used is kept in the tail so that strdup needs no extra field in
 * the public struct. */
struct record {
    struct srv_decision d;
    size_t strings_cap, strings_used;
    char *strings;
};

struct srv_decision *srv_decision_new(size_t n_nodes, size_t strings)
{
    size_t size = sizeof(struct record) + n_nodes * sizeof(struct srv_decision_node) + strings;
    struct record *r = calloc(1, size);
    if (r == NULL)
        return NULL;
    r->d.nodes = (struct srv_decision_node *)(void *)(r + 1);
    r->d.n_nodes = n_nodes;
    r->d.bytes = size;
    r->d.best = -1;
    r->strings = (char *)(r->d.nodes + n_nodes);
    r->strings_cap = strings;
    atomic_init(&r->d.refs, 1);
    return &r->d;
}

const char *srv_decision_strdup(struct srv_decision *rec, const char *s)
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

void srv_decision_release(struct srv_decision *rec)
{
    if (rec != NULL && atomic_fetch_sub_explicit(&rec->refs, 1, memory_order_acq_rel) == 1)
        free(rec);
}

int srv_decisions_init(struct srv_decisions *d, int kept, long long max_bytes)
{
    memset(d, 0, sizeof(*d));
    if (pthread_mutex_init(&d->lock, NULL) != 0)
        return -ENOMEM;
    d->next_id = 1;
    return srv_decisions_configure(d, kept, max_bytes);
}

/* The record @age places back from the newest (0 = newest). Under the lock. */
static struct srv_decision **slot(struct srv_decisions *d, size_t age)
{
    return &d->ring[(d->head + d->count - 1 - age) % d->cap];
}

static void drop_oldest(struct srv_decisions *d)
{
    struct srv_decision *old = d->ring[d->head];
    d->ring[d->head] = NULL;
    d->head = (d->head + 1) % d->cap;
    d->count--;
    d->bytes -= old->bytes;
    srv_decision_release(old);
}

int srv_decisions_configure(struct srv_decisions *d, int kept, long long max_bytes)
{
    size_t cap = kept > 0 ? (size_t)kept : 0;
    struct srv_decision **ring = cap > 0 ? calloc(cap, sizeof(*ring)) : NULL;
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

void srv_decisions_destroy(struct srv_decisions *d)
{
    while (d->count > 0)
        drop_oldest(d);
    free(d->ring);
    pthread_mutex_destroy(&d->lock);
}

uint64_t srv_decisions_add(struct srv_decisions *d, struct srv_decision *rec)
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
    srv_decision_release(rec); /* not kept */
    return id;
}

/* "ns/name" matches that pod; "name" matches it in any namespace. */
static bool pod_matches(const struct srv_decision *rec, const char *pod)
{
    const char *slash = strchr(pod, '/');
    if (slash == NULL)
        return strcmp(rec->pod_name, pod) == 0;
    size_t ns_len = (size_t)(slash - pod);
    return strlen(rec->pod_ns) == ns_len && strncmp(rec->pod_ns, pod, ns_len) == 0 &&
           strcmp(rec->pod_name, slash + 1) == 0;
}

int srv_decisions_find(struct srv_decisions *d, const struct srv_decision_query *q,
                       struct srv_decision ***out, size_t *n)
{
    *out = NULL;
    *n = 0;
    pthread_mutex_lock(&d->lock);
    struct srv_decision **found = malloc((d->count + 1) * sizeof(*found));
    if (found == NULL) {
        pthread_mutex_unlock(&d->lock);
        return -ENOMEM;
    }
    for (size_t age = 0; age < d->count; age++) {
        struct srv_decision *rec = *slot(d, age);
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

void srv_decisions_usage(struct srv_decisions *d, size_t *count, size_t *bytes)
{
    pthread_mutex_lock(&d->lock);
    *count = d->count;
    *bytes = d->bytes;
    pthread_mutex_unlock(&d->lock);
}

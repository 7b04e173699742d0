#include "server/ops/ring.h"

#include "base/hash.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* comparison_state: nobody has claimed the record, a claimer is writing
 * the comparison, it is published. */
enum { OPEN = 0, CLAIMED, COMPARED };

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
    r->d.pod_uid = "";
    r->strings = (char *)(r->d.nodes + n_nodes);
    r->strings_cap = strings;
    atomic_init(&r->d.refs, 1);
    atomic_init(&r->d.comparison_state, OPEN);
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

const struct ops_usage_window *ops_record_window(struct ops_record *rec,
                                                 const struct ops_usage_window *w)
{
    struct record *r = (struct record *)(void *)rec;
    size_t at = (r->strings_used + 7) & ~(size_t)7; /* the space starts 8-aligned */
    if (at > r->strings_cap || sizeof(*w) > r->strings_cap - at)
        return NULL;
    struct ops_usage_window *copy = (struct ops_usage_window *)(void *)(r->strings + at);
    *copy = *w;
    r->strings_used = at + sizeof(*w);
    return copy;
}

void ops_record_release(struct ops_record *rec)
{
    if (rec != NULL && atomic_fetch_sub_explicit(&rec->refs, 1, memory_order_acq_rel) == 1)
        free(rec);
}

void ops_record_set_comparison(struct ops_record *rec, const struct ops_comparison *c)
{
    rec->comparison = *c;
    /* Readers see the fields once they see the state (acquire below). */
    atomic_store_explicit(&rec->comparison_state, COMPARED, memory_order_release);
}

const struct ops_comparison *ops_record_comparison(const struct ops_record *rec)
{
    int state = atomic_load_explicit(&rec->comparison_state, memory_order_acquire);
    return state == COMPARED ? &rec->comparison : NULL;
}

/* Whether a binding can be compared with @rec (it has the scores and the
 * pod's UID). Filter decisions are not: the prioritize of the same cycle
 * follows them, and a pod is compared once. */
static bool is_comparable(const struct ops_record *rec)
{
    return rec->verb == OPS_VERB_PRIORITIZE && rec->n_nodes > 0 && rec->pod_uid[0] != '\0';
}

/* ---- the UID index and the early bindings, under the lock ---- */

static void index_add(struct ops_ring *d, struct ops_record *rec)
{
    if (d->by_uid.n_buckets > 0 && is_comparable(rec))
        table_link(&d->by_uid, &rec->by_uid, rec->by_uid.hash); /* newest first */
}

static void index_remove(struct ops_ring *d, const struct ops_record *rec)
{
    if (is_comparable(rec))
        table_unlink(&d->by_uid, &rec->by_uid);
}

/* The newest comparable decision of pod @uid, or NULL. */
static struct ops_record *index_find(struct ops_ring *d, const char *uid, uint64_t hash)
{
    struct table_entry *e = table_find_hashed(&d->by_uid, uid, hash);
    return e != NULL
               ? (struct ops_record *)(void *)((char *)e - offsetof(struct ops_record, by_uid))
               : NULL;
}

static void early_drop_oldest(struct ops_ring *d)
{
    free(d->early[d->early_head].uid);
    d->early[d->early_head] = (struct ops_early_binding){0};
    d->early_head = (d->early_head + 1) % d->cap_early;
    d->n_early--;
}

/* Remembers a binding with no decision yet; the oldest goes when full. An
 * allocation that fails forgets it: a comparison less, never a wrong one. */
static void early_remember(struct ops_ring *d, const char *uid, uint64_t hash, const char *node)
{
    if (d->cap_early == 0)
        return;
    size_t ulen = strlen(uid) + 1, nlen = strlen(node) + 1;
    char *block = malloc(ulen + nlen);
    if (block == NULL)
        return;
    memcpy(block, uid, ulen);
    memcpy(block + ulen, node, nlen);
    if (d->n_early == d->cap_early)
        early_drop_oldest(d);
    d->early[(d->early_head + d->n_early) % d->cap_early] =
        (struct ops_early_binding){.hash = hash, .uid = block, .node = block + ulen};
    d->n_early++;
}

/* Takes the binding remembered for @uid out of the table into @node (@n
 * bytes); false when there is none. */
static bool early_take(struct ops_ring *d, const char *uid, uint64_t hash, char *node, size_t n)
{
    for (size_t k = 0; k < d->n_early; k++) {
        struct ops_early_binding *e = &d->early[(d->early_head + k) % d->cap_early];
        if (e->hash != hash || strcmp(e->uid, uid) != 0)
            continue;
        snprintf(node, n, "%s", e->node);
        free(e->uid);
        /* Close the gap: the newer entries move back one. */
        for (size_t j = k; j + 1 < d->n_early; j++)
            d->early[(d->early_head + j) % d->cap_early] =
                d->early[(d->early_head + j + 1) % d->cap_early];
        d->early[(d->early_head + d->n_early - 1) % d->cap_early] = (struct ops_early_binding){0};
        d->n_early--;
        return true;
    }
    return false;
}

/* Claims @rec for its comparison (one claimer wins) and takes a reference. */
static bool claim(struct ops_record *rec)
{
    int open = OPEN;
    if (!atomic_compare_exchange_strong(&rec->comparison_state, &open, CLAIMED))
        return false;
    atomic_fetch_add_explicit(&rec->refs, 1, memory_order_relaxed);
    return true;
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
    index_remove(d, old);
    d->ring[d->head] = NULL;
    d->head = (d->head + 1) % d->cap;
    d->count--;
    d->bytes -= old->bytes;
    ops_record_release(old);
}

int ops_ring_configure(struct ops_ring *d, int kept, long long max_bytes)
{
    size_t cap = kept > 0 ? (size_t)kept : 0;
    size_t n_by_uid = cap > 0 ? table_buckets(cap) : 0, cap_early = cap;
    if (cap_early > OPS_EARLY_BINDINGS_MAX)
        cap_early = OPS_EARLY_BINDINGS_MAX;
    struct ops_record **ring = cap > 0 ? calloc(cap, sizeof(*ring)) : NULL;
    struct table by_uid =
        table_fixed(n_by_uid > 0 ? calloc(n_by_uid, sizeof(*by_uid.buckets)) : NULL, n_by_uid);
    struct ops_early_binding *early = cap_early > 0 ? calloc(cap_early, sizeof(*early)) : NULL;
    if (cap > 0 && (ring == NULL || by_uid.buckets == NULL || early == NULL)) {
        free(ring);
        free(by_uid.buckets);
        free(early);
        return -ENOMEM;
    }
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
    /* The index again, oldest first so that chains stay newest first. */
    free(d->by_uid.buckets);
    d->by_uid = by_uid;
    for (size_t i = 0; i < d->count; i++)
        index_add(d, d->ring[i]);
    /* The newest early bindings that fit. */
    while (d->n_early > cap_early)
        early_drop_oldest(d);
    for (size_t i = 0; early != NULL && i < d->n_early; i++)
        early[i] = d->early[(d->early_head + i) % d->cap_early];
    free(d->early);
    d->early = early;
    d->cap_early = cap_early;
    d->early_head = 0;
    pthread_mutex_unlock(&d->lock);
    return 0;
}

void ops_ring_destroy(struct ops_ring *d)
{
    while (d->count > 0)
        drop_oldest(d);
    while (d->n_early > 0)
        early_drop_oldest(d);
    free(d->ring);
    free(d->by_uid.buckets);
    free(d->early);
    pthread_mutex_destroy(&d->lock);
}

/* Adds @rec under the lock; returns its id, 0 when it is not kept (the
 * caller's reference is then still the caller's). */
static uint64_t add_locked(struct ops_ring *d, struct ops_record *rec)
{
    if (d->cap == 0 || rec->bytes > d->max_bytes)
        return 0;
    while (d->count == d->cap || (d->count > 0 && d->bytes + rec->bytes > d->max_bytes))
        drop_oldest(d);
    rec->id = d->next_id++;
    rec->by_uid.key = rec->pod_uid;
    rec->by_uid.hash = hash_fnv1a_str(rec->pod_uid);
    d->count++;
    *slot(d, 0) = rec;
    d->bytes += rec->bytes;
    index_add(d, rec);
    return rec->id;
}

uint64_t ops_ring_add_claim(struct ops_ring *d, struct ops_record *rec, struct ops_record **claimed,
                            char *node, size_t n)
{
    *claimed = NULL;
    pthread_mutex_lock(&d->lock);
    uint64_t id = add_locked(d, rec);
    /* Under the same lock as ops_ring_claim(): a binding is either found
     * there or remembered here, never both, never neither. */
    if (id != 0 && is_comparable(rec) && early_take(d, rec->pod_uid, rec->by_uid.hash, node, n) &&
        claim(rec))
        *claimed = rec;
    pthread_mutex_unlock(&d->lock);
    if (id == 0)
        ops_record_release(rec);
    return id;
}

int ops_ring_claim(struct ops_ring *d, const char *uid, const char *node, struct ops_record **out)
{
    uint64_t hash = hash_fnv1a_str(uid);
    int rc = -ENOENT;

    *out = NULL;
    pthread_mutex_lock(&d->lock);
    struct ops_record *rec = index_find(d, uid, hash);
    if (rec == NULL) {
        early_remember(d, uid, hash, node);
    } else if (claim(rec)) {
        *out = rec;
        rc = 0;
    } else {
        rc = -EALREADY;
    }
    pthread_mutex_unlock(&d->lock);
    return rc;
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
        const struct ops_comparison *c = q->disagreed ? ops_record_comparison(rec) : NULL;
        if (q->disagreed && (c == NULL || c->agreed))
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

uint64_t ops_ring_newest_id(struct ops_ring *d)
{
    pthread_mutex_lock(&d->lock);
    uint64_t newest = d->next_id - 1;
    pthread_mutex_unlock(&d->lock);
    return newest;
}

#include "kube/state.h"

#include "base/hash.h"
#include "base/table.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct placement {
    char uid[64];
    double at;
    int64_t estimate[SCORE_NRES]; /* what it counts in flight (inFlightEstimate) */
};

struct snode {
    struct table_entry h; /* key: node name, the name below */
    /* What only writers read. */
    size_t keep; /* usage samples kept (the history's size) */
    /* Recent placements, oldest first; only nodes that had one pay for
     * the array, and entries past KUBE_PLACEMENT_KEEP_SECONDS go at the
     * next placement. */
    struct placement *placed;
    size_t cap_placed;
    unsigned gen;
    /* What a view reads, together and just before the name, which a
     * request's memo compares: at 5000 nodes a view costs the cache lines
     * from here to the name's end (about four) and no more. */
    bool present; /* a Node object exists (else only pods refer to it) */
    bool has_usage;
    size_t n_pods;
    const char *invalid; /* a static text (kube_node_info) */
    int64_t alloc[SCORE_NRES];
    int64_t annotation[SCORE_NRES];
    int64_t req_real[SCORE_NRES];
    int64_t req_non_zero[SCORE_NRES];
    int64_t usage[SCORE_NRES]; /* the history's aggregate */
    double usage_time, usage_window;
    size_t usage_samples;
    /* The usage history, oldest first (a sliding array: kept <= keep,
     * allocated at the first sample). */
    struct score_usage_sample *hist;
    size_t n_hist;
    size_t n_placed; /* in placed */
    /* The last placement added (placed[n_placed - 1]) held here too, and
     * the latest time among the others: a view reads the array (a cache
     * miss per node at 5000 nodes) only when one of the others may still
     * be in flight. INFINITY when unknown (the array is then read). */
    double last_at, others_latest;
    int64_t last_estimate[SCORE_NRES];
    char name[]; /* h.key */
};

/* Where a view's reads of @n begin (prefetch_node). */
#define SNODE_HOT offsetof(struct snode, present)

struct spod {
    struct table_entry h; /* key: uid */
    struct snode *node;   /* charged to this node, NULL when not charged */
    int64_t real[SCORE_NRES];
    int64_t non_zero[SCORE_NRES];
    /* What a placement of this pod counts in flight: kept with the pod,
     * because our own bind knows only its uid and the limits are gone by
     * then. */
    int64_t estimate[SCORE_NRES];
    bool assigned; /* had a node name, charged or not (terminal) */
    unsigned gen;
};

/* A node's InternalIP, what a Prometheus instance label names: a table of
 * its own, so that only nodes with one pay for it, and none of the
 * per-node figures moves. */
struct sip {
    struct table_entry h; /* key: node name */
    char ip[KUBE_IP_LEN];
};

struct kube_state {
    pthread_rwlock_t lock;
    struct table nodes, pods;
    struct table ips; /* struct sip by node name */
    unsigned node_gen, pod_gen;
    /* Which node entries are present and alive: moved on when an entry is
     * dropped or a Node object comes or goes (a new entry is not present:
     * no memo holds it), so that a request thread's memo of entries
     * (struct memo_slot) is known alive while it holds. */
    unsigned long set_gen;
    unsigned long long id;    /* never reused: a memo of a freed state matches none */
    bool pods_synced;         /* the first pod list is complete */
    bool pods_listing;        /* inside the first list: assignments are not placements */
    double pods_broken_since; /* 0 while in sync */
};

static void free_node(void *entry)
{
    struct snode *n = entry;
    free(n->placed);
    free(n->hist);
    free(n);
}

struct kube_state *kube_state_new(void)
{
    struct kube_state *st = calloc(1, sizeof(*st));
    if (st == NULL)
        return NULL;
    /* Writers first: request threads read all the time, and the informer
     * must not wait behind a stream of them (readers hold the lock for at
     * most KUBE_VIEW_BATCH lookups at a time). */
    pthread_rwlockattr_t attr;
    int rc = pthread_rwlockattr_init(&attr);
    if (rc == 0)
        rc = pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    if (rc == 0)
        rc = pthread_rwlock_init(&st->lock, &attr);
    pthread_rwlockattr_destroy(&attr);
    if (rc != 0) {
        free(st);
        return NULL;
    }
    static atomic_ullong ids;
    st->id = atomic_fetch_add(&ids, 1) + 1;
    return st;
}

void kube_state_free(struct kube_state *st)
{
    if (st == NULL)
        return;
    table_free_all(&st->pods, free);
    table_free_all(&st->nodes, free_node);
    table_free_all(&st->ips, free);
    pthread_rwlock_destroy(&st->lock);
    free(st);
}

/* Finds or creates the entry of node @name (not present until a Node
 * object is put). */
static struct snode *node_entry(struct kube_state *st, const char *name)
{
    struct snode *n = (struct snode *)(void *)table_find(&st->nodes, name);
    if (n != NULL)
        return n;
    /* The name right after the fields a view reads (table_entry_new()
     * would put it after the struct's padding). */
    size_t len = strlen(name);
    n = calloc(1, offsetof(struct snode, name) + len + 1);
    if (n == NULL)
        return NULL;
    memcpy(n->name, name, len + 1);
    n->h.key = n->name;
    if (table_insert(&st->nodes, &n->h) != 0) {
        free_node(n);
        return NULL;
    }
    /* No set_gen move: a new entry is not present (a memo holds present
     * entries only), and node_put() moves it when a Node object comes. */
    return n;
}

/* Drops a node entry nothing refers to any more. */
static void node_maybe_drop(struct kube_state *st, struct snode *n)
{
    if (n->present || n->n_pods > 0)
        return;
    table_unlink(&st->nodes, &n->h);
    free_node(n);
    st->set_gen++;
}

/* Empties @n's usage history: stale until new samples come. */
static void forget_usage(struct snode *n)
{
    n->n_hist = 0;
    n->usage_samples = 0;
    n->has_usage = false;
}

/* @sum with @v added (@sign > 0) or taken off. Sums of values >= 0 that
 * saturate stay >= the true sum; the subtraction clamps so that a
 * saturated node never goes negative. */
static int64_t moved(int64_t sum, int64_t v, int sign)
{
    return sign > 0 ? score_add_sat(sum, v) : sum > v ? sum - v : 0;
}

static void charge(struct snode *n, const struct spod *p, int sign)
{
    for (int r = 0; r < SCORE_NRES; r++) {
        n->req_real[r] = moved(n->req_real[r], p->real[r], sign);
        n->req_non_zero[r] = moved(n->req_non_zero[r], p->non_zero[r], sign);
    }
    n->n_pods = sign > 0 ? n->n_pods + 1 : n->n_pods - 1;
}

/* Returns 0 or -ENOMEM (the placement is then not counted: damping is a
 * refinement, never a reason to fail an event). */
static int add_placement(struct snode *n, const char *uid, const int64_t estimate[SCORE_NRES],
                         double now)
{
    size_t keep = 0;
    /* API server UIDs are 36 characters; a longer one could not be told
     * from another with the same first 63 bytes, so it is not damped. */
    if (strlen(uid) >= sizeof(n->placed->uid))
        return 0;
    for (size_t i = 0; i < n->n_placed; i++)
        if (strcmp(n->placed[i].uid, uid) == 0)
            return 0; /* our bind, confirmed by the watch: keep the first time */
    /* Old ones go only once the uid is known to be new: compacting while
     * searching, then returning on a match, left copies of the entries it
     * had moved, counted twice in flight (fuzz_watch). */
    double others = 0;
    for (size_t i = 0; i < n->n_placed; i++)
        if (now - n->placed[i].at < KUBE_PLACEMENT_KEEP_SECONDS) {
            others = n->placed[i].at > others ? n->placed[i].at : others;
            n->placed[keep++] = n->placed[i];
        }
    n->n_placed = keep;
    n->others_latest = INFINITY; /* until the new one is in */
    if (n->n_placed == n->cap_placed) {
        size_t cap = n->cap_placed ? n->cap_placed * 2 : 4;
        struct placement *p = realloc(n->placed, cap * sizeof(*p));
        if (p == NULL)
            return -ENOMEM;
        n->placed = p;
        n->cap_placed = cap;
    }
    struct placement *pl = &n->placed[n->n_placed++];
    snprintf(pl->uid, sizeof(pl->uid), "%s", uid);
    pl->at = now;
    memcpy(pl->estimate, estimate, sizeof(pl->estimate));
    n->last_at = now;
    memcpy(n->last_estimate, estimate, sizeof(n->last_estimate));
    n->others_latest = others;
    return 0;
}

void kube_state_nodes_begin(struct kube_state *st)
{
    pthread_rwlock_wrlock(&st->lock);
    st->node_gen++;
    pthread_rwlock_unlock(&st->lock);
}

/* Forgets node @name's InternalIP. Under the write lock. */
static void ip_forget(struct kube_state *st, const char *name)
{
    struct table_entry *e = table_find(&st->ips, name);
    if (e != NULL) {
        table_unlink(&st->ips, e);
        free(e);
    }
}

/* Keeps @ip ("" or too long: none) as node @name's InternalIP. Under the
 * write lock. Returns 0 or -ENOMEM. */
static int ip_keep(struct kube_state *st, const char *name, const char *ip)
{
    if (ip == NULL || ip[0] == '\0' || strlen(ip) >= KUBE_IP_LEN) {
        ip_forget(st, name); /* too long to be an IP: it could match nothing */
        return 0;
    }
    struct sip *p = (struct sip *)(void *)table_find(&st->ips, name);
    if (p == NULL) {
        p = table_entry_new(sizeof(*p), name);
        if (p == NULL || table_insert(&st->ips, &p->h) != 0) {
            free(p);
            return -ENOMEM;
        }
    }
    memcpy(p->ip, ip, strlen(ip) + 1);
    return 0;
}

void kube_state_nodes_end(struct kube_state *st)
{
    pthread_rwlock_wrlock(&st->lock);
    TABLE_EACH(&st->nodes, e) {
        struct snode *n = (struct snode *)(void *)e;
        if (n->present && n->gen != st->node_gen) {
            n->present = false;
            st->set_gen++;
            ip_forget(st, n->h.key);
            node_maybe_drop(st, n);
        }
    }
    pthread_rwlock_unlock(&st->lock);
}

int kube_state_node_put(struct kube_state *st, const struct kube_node_info *info)
{
    int rc = -ENOMEM;
    pthread_rwlock_wrlock(&st->lock);
    struct snode *n = node_entry(st, info->name);
    if (n == NULL || ip_keep(st, info->name, info->internal_ip) != 0)
        goto out_unlock;
    n->invalid = info->invalid;
    memcpy(n->alloc, info->alloc, sizeof(n->alloc));
    memcpy(n->annotation, info->annotation, sizeof(n->annotation));
    st->set_gen += !n->present;
    n->present = true;
    n->gen = st->node_gen;
    rc = 0;
out_unlock:
    pthread_rwlock_unlock(&st->lock);
    return rc;
}

void kube_state_node_delete(struct kube_state *st, const char *name)
{
    pthread_rwlock_wrlock(&st->lock);
    struct snode *n = (struct snode *)(void *)table_find(&st->nodes, name);
    ip_forget(st, name);
    if (n != NULL) {
        st->set_gen += n->present;
        n->present = false;
        forget_usage(n);
        node_maybe_drop(st, n);
    }
    pthread_rwlock_unlock(&st->lock);
}

/* Takes @p off its node's sums. */
static void uncharge(struct kube_state *st, struct spod *p)
{
    if (p->node == NULL)
        return;
    charge(p->node, p, -1);
    struct snode *n = p->node;
    p->node = NULL;
    node_maybe_drop(st, n);
}

void kube_state_pods_begin(struct kube_state *st)
{
    pthread_rwlock_wrlock(&st->lock);
    st->pod_gen++;
    st->pods_listing = !st->pods_synced;
    pthread_rwlock_unlock(&st->lock);
}

void kube_state_pods_end(struct kube_state *st)
{
    pthread_rwlock_wrlock(&st->lock);
    TABLE_EACH(&st->pods, e) {
        struct spod *p = (struct spod *)(void *)e;
        if (p->gen != st->pod_gen) {
            uncharge(st, p);
            table_unlink(&st->pods, &p->h);
            free(p);
        }
    }
    st->pods_synced = true;
    st->pods_listing = false;
    st->pods_broken_since = 0;
    pthread_rwlock_unlock(&st->lock);
}

int kube_state_pod_put(struct kube_state *st, const struct kube_pod_info *info, double now)
{
    int rc = -ENOMEM;
    bool assigned = info->node[0] != '\0';
    bool counted = assigned && !info->terminal;

    pthread_rwlock_wrlock(&st->lock);
    struct spod *p = (struct spod *)(void *)table_find(&st->pods, info->uid);
    bool was_assigned = p != NULL && p->assigned;
    if (p == NULL) {
        p = table_entry_new(sizeof(*p), info->uid);
        if (p == NULL || table_insert(&st->pods, &p->h) != 0) {
            free(p);
            goto out_unlock;
        }
    }
    uncharge(st, p);
    memcpy(p->real, info->real, sizeof(p->real));
    memcpy(p->non_zero, info->non_zero, sizeof(p->non_zero));
    memcpy(p->estimate, info->estimated ? info->estimate : info->non_zero, sizeof(p->estimate));
    p->assigned = assigned;
    p->gen = st->pod_gen;
    if (counted) {
        struct snode *n = node_entry(st, info->node);
        if (n == NULL) {
            /* The pod stays known but uncharged; the next event retries. */
            p->assigned = false;
            goto out_unlock;
        }
        charge(n, p, +1);
        p->node = n;
        if (!was_assigned && !st->pods_listing)
            add_placement(n, info->uid, p->estimate, now);
    }
    rc = 0;
out_unlock:
    pthread_rwlock_unlock(&st->lock);
    return rc;
}

void kube_state_pod_delete(struct kube_state *st, const char *uid)
{
    pthread_rwlock_wrlock(&st->lock);
    struct spod *p = (struct spod *)(void *)table_find(&st->pods, uid);
    if (p != NULL) {
        uncharge(st, p);
        table_unlink(&st->pods, &p->h);
        free(p);
    }
    pthread_rwlock_unlock(&st->lock);
}

bool kube_state_pod_is_assigned(struct kube_state *st, const char *uid)
{
    pthread_rwlock_rdlock(&st->lock);
    const struct spod *p = (const struct spod *)(const void *)table_find(&st->pods, uid);
    bool assigned = p != NULL && p->assigned;
    pthread_rwlock_unlock(&st->lock);
    return assigned;
}

int kube_state_placed(struct kube_state *st, const char *node, const char *uid, double now)
{
    int rc = -ENOENT;
    pthread_rwlock_wrlock(&st->lock);
    const struct spod *p = (const struct spod *)(const void *)table_find(&st->pods, uid);
    if (p != NULL) {
        struct snode *n = node_entry(st, node);
        rc = n != NULL ? add_placement(n, uid, p->estimate, now) : -ENOMEM;
    }
    pthread_rwlock_unlock(&st->lock);
    return rc;
}

size_t kube_usage_keep(int window_seconds, int interval_seconds)
{
    /* The samples (newest - window, newest] can hold, one per poll, and
     * one more for a poll that came early. */
    size_t interval = interval_seconds > 0 ? (size_t)interval_seconds : 1;
    size_t keep = (size_t)(window_seconds > 0 ? window_seconds : 0) / interval + 2;
    return keep < SCORE_USAGE_MAX_SAMPLES ? keep : SCORE_USAGE_MAX_SAMPLES;
}

/* Appends @s to @n's history, the oldest going when @keep is reached (and
 * the history resized when @keep changed). Returns 0 or -ENOMEM. */
static int history_add(struct snode *n, const struct score_usage_sample *s, size_t keep)
{
    if (keep != n->keep || n->hist == NULL) {
        struct score_usage_sample *h = malloc(keep * sizeof(*h));
        if (h == NULL)
            return -ENOMEM;
        size_t stay = n->n_hist < keep ? n->n_hist : keep;
        if (stay > 0)
            memcpy(h, n->hist + (n->n_hist - stay), stay * sizeof(*h));
        free(n->hist);
        n->hist = h;
        n->n_hist = stay;
        n->keep = keep;
    }
    if (n->n_hist == keep) {
        memmove(n->hist, n->hist + 1, (keep - 1) * sizeof(*n->hist));
        n->n_hist--;
    }
    n->hist[n->n_hist++] = *s;
    return 0;
}

int kube_state_usage_put(struct kube_state *st, const char *node, const int64_t usage[SCORE_NRES],
                         double timestamp, double window, const struct kube_usage_rules *rules)
{
    struct score_usage_sample sample = {.time = timestamp};
    size_t keep = rules->keep < 1                         ? 1
                  : rules->keep > SCORE_USAGE_MAX_SAMPLES ? SCORE_USAGE_MAX_SAMPLES
                                                          : rules->keep;
    int rc = -ENOENT;

    memcpy(sample.value, usage, sizeof(sample.value));
    pthread_rwlock_wrlock(&st->lock);
    struct snode *n = (struct snode *)(void *)table_find(&st->nodes, node);
    /* Metrics of a node whose Node object is gone are not worth a slot. */
    if (n != NULL && n->present) {
        rc = 0;
        bool newer = n->n_hist == 0 || timestamp > n->hist[n->n_hist - 1].time;
        if (newer && (rc = history_add(n, &sample, keep)) == 0)
            n->usage_window = window;
        /* Aggregated again even for a sample seen before: the rules may
         * have changed with a reload. */
        if (n->n_hist > 0) {
            int64_t scratch[SCORE_USAGE_MAX_SAMPLES];
            n->usage_samples = score_usage_aggregate(n->hist, n->n_hist, rules->window_seconds,
                                                     rules->agg, n->usage, scratch);
            n->usage_time = n->hist[n->n_hist - 1].time;
            n->has_usage = n->usage_samples >= (rules->min_samples > 0 ? rules->min_samples : 1);
        }
    }
    pthread_rwlock_unlock(&st->lock);
    return rc;
}

void kube_state_usage_forget(struct kube_state *st)
{
    pthread_rwlock_wrlock(&st->lock);
    TABLE_EACH(&st->nodes, e)
        forget_usage((struct snode *)(void *)e);
    pthread_rwlock_unlock(&st->lock);
}

void kube_state_pods_health(struct kube_state *st, bool in_sync, double now)
{
    pthread_rwlock_wrlock(&st->lock);
    if (in_sync)
        st->pods_broken_since = 0;
    else if (st->pods_broken_since == 0)
        st->pods_broken_since = now;
    pthread_rwlock_unlock(&st->lock);
}

/* Whether a pod placed at @at is still in flight at @now: recent, and
 * after the usage sample's window began. */
static bool in_flight(double at, double now, int in_flight_seconds, double window_start)
{
    return !(at <= 0 || now - at >= in_flight_seconds || at <= window_start);
}

/* What the state knows of node @n at @now into *@out. Under the lock. */
static void view_of(const struct kube_state *st, const struct snode *n, double now,
                    int in_flight_seconds, struct kube_node_view *out)
{
    memcpy(out->alloc, n->alloc, sizeof(out->alloc));
    memcpy(out->annotation, n->annotation, sizeof(out->annotation));
    out->invalid = n->invalid;
    memcpy(out->req_real, n->req_real, sizeof(out->req_real));
    memcpy(out->req_non_zero, n->req_non_zero, sizeof(out->req_non_zero));
    out->n_pods = n->n_pods;
    out->pods_synced = st->pods_synced;
    out->requests_age = st->pods_broken_since > 0 ? now - st->pods_broken_since : 0;
    out->has_usage = n->has_usage;
    memcpy(out->usage, n->usage, sizeof(out->usage));
    out->usage_age = n->has_usage ? now - n->usage_time : 0;
    out->usage_samples = n->usage_samples;
    for (int r = 0; r < SCORE_NRES; r++)
        out->usage_newest[r] = n->n_hist > 0 ? n->hist[n->n_hist - 1].value[r] : 0;
    memset(out->in_flight, 0, sizeof(out->in_flight));
    out->n_in_flight = 0;
    /* A pod placed after the sample's window began is not (fully) in it. */
    double window_start = n->has_usage ? n->usage_time - n->usage_window : 0;
    if (n->n_placed == 0)
        return;
    /* The others are all at or before others_latest: when a placement
     * that late would not count, none of them does (each condition holds
     * for every earlier time), and only the last one, held in the node,
     * is looked at. */
    if (!in_flight(n->others_latest, now, in_flight_seconds, window_start)) {
        if (in_flight(n->last_at, now, in_flight_seconds, window_start)) {
            memcpy(out->in_flight, n->last_estimate, sizeof(out->in_flight));
            out->n_in_flight = 1;
        }
        return;
    }
    for (size_t i = 0; i < n->n_placed; i++) {
        const struct placement *pl = &n->placed[i];
        if (!in_flight(pl->at, now, in_flight_seconds, window_start))
            continue;
        for (int r = 0; r < SCORE_NRES; r++)
            out->in_flight[r] = score_add_sat(out->in_flight[r], pl->estimate[r]);
        out->n_in_flight++;
    }
}

/* How far ahead kube_state_view_list asks for memory, so that several
 * misses are in flight at once: at 5000 nodes the entry a memo names
 * (about four lines; 8 ahead measured a few ns a name better than 4 on a
 * cold cache), or for a name looked up its bucket. */
#define VIEW_AHEAD 8

/* Asks for the bucket of @hash in @t. */
static void prefetch_bucket(const struct table *t, uint64_t hash)
{
    __builtin_prefetch(&t->buckets[hash & (t->n_buckets - 1)]);
}

/* Asks for what a view of @n reads: its fields from SNODE_HOT to the first
 * bytes of its name. */
static void prefetch_node(const struct snode *n)
{
    const char *p = (const char *)n;
    for (size_t off = SNODE_HOT; off < offsetof(struct snode, name) + 16; off += 64)
        __builtin_prefetch(p + off);
    __builtin_prefetch(n->name + 15);
}

/*
 * A request thread's memo of the node entries the names of its recent
 * lists resolved to, by position: kube-scheduler sends the same names in
 * the same order call after call, and the entry remembered at a position
 * costs one comparison with its key where a lookup costs a hash of the
 * name and a cache miss on its bucket. An entry is used only while the
 * state's set_gen is the one it was found under (no entry dropped,
 * no Node object come or gone since: the pointer is alive and present)
 * and its key is the name asked for (a reordered or changed list looks up
 * what moved); a miss is looked up and remembered. One slot per list
 * length seen last (a filter's list and the shorter prioritize list after
 * it), 8 bytes a name, freed when the thread ends.
 */
#define MEMO_SLOTS 2

struct memo_slot {
    unsigned long long state_id; /* the state the entries are in, 0: none */
    unsigned long gen;           /* its set_gen when they were found */
    size_t total;                /* the list's length: the entries' count */
    unsigned long used;          /* when last used (the slot to reuse is the oldest) */
    const struct snode **node;   /* by position, NULL: look it up */
};

struct memo {
    struct memo_slot slot[MEMO_SLOTS];
    unsigned long clock;
};

static pthread_key_t memo_key;
static bool memo_key_made;
static pthread_once_t memo_once = PTHREAD_ONCE_INIT;

static void memo_free(void *p)
{
    struct memo *m = p;
    for (int i = 0; i < MEMO_SLOTS; i++)
        free(m->slot[i].node);
    free(m);
}

static void memo_key_make(void)
{
    memo_key_made = pthread_key_create(&memo_key, memo_free) == 0;
}

/* The calling thread's slot for lists of @total names, emptied when it was
 * another length's; NULL when out of memory (the names are then looked
 * up, as without a memo). */
static struct memo_slot *memo_slot(size_t total)
{
    pthread_once(&memo_once, memo_key_make);
    if (!memo_key_made)
        return NULL;
    struct memo *m = pthread_getspecific(memo_key);
    if (m == NULL) {
        if ((m = calloc(1, sizeof(*m))) == NULL || pthread_setspecific(memo_key, m) != 0) {
            free(m);
            return NULL;
        }
    }
    struct memo_slot *s = &m->slot[0];
    for (int i = 0; i < MEMO_SLOTS; i++) {
        if (m->slot[i].total == total && m->slot[i].node != NULL) {
            s = &m->slot[i];
            break;
        }
        if (m->slot[i].used < s->used)
            s = &m->slot[i];
    }
    s->used = ++m->clock;
    if (s->total != total || s->node == NULL) {
        free(s->node);
        /* state_id 0: emptied by the caller, under the lock. */
        *s = (struct memo_slot){.used = s->used, .total = total};
        if ((s->node = malloc(total * sizeof(*s->node))) == NULL)
            return NULL;
    }
    return s;
}

/* Asks for what the name at @at of the memo, @name, will read: the entry
 * remembered there, else (its hash kept in *@hash) the bucket. */
static void look_ahead(const struct table *t, const struct memo_slot *memo, size_t at,
                       const char *name, uint64_t *hash)
{
    const struct snode *n = memo != NULL ? memo->node[at] : NULL;
    if (n != NULL) {
        prefetch_node(n);
        return;
    }
    *hash = hash_fnv1a_str(name);
    if (t->n_buckets != 0)
        prefetch_bucket(t, *hash);
}

/* The entry of @name, the memo's at @at (NULL: none) when it has that key,
 * else looked up (by @hash, look_ahead's when the memo had none there)
 * and remembered; NULL when no Node object of that name is known. Under
 * the lock. */
static const struct snode *resolve(const struct kube_state *st, struct memo_slot *memo, size_t at,
                                   const char *name, uint64_t hash)
{
    const struct snode *n = memo != NULL ? memo->node[at] : NULL;
    if (n != NULL) {
        if (n->present && strcmp(n->name, name) == 0)
            return n;
        hash = hash_fnv1a_str(name); /* look_ahead saw an entry: no hash */
    }
    n = (const struct snode *)(const void *)table_find_hashed(&st->nodes, name, hash);
    if (n != NULL && !n->present)
        n = NULL;
    if (memo != NULL)
        memo->node[at] = n;
    return n;
}

void kube_state_view_list(struct kube_state *st, const char *const *names, size_t n, size_t first,
                          size_t total, double now, int in_flight_seconds,
                          struct kube_node_view *out, bool *found)
{
    struct memo_slot *memo = total > 0 && first + n <= total ? memo_slot(total) : NULL;
    uint64_t hash[KUBE_VIEW_BATCH];
    for (size_t i = 0; i < n; i += KUBE_VIEW_BATCH) {
        size_t stop = n - i < KUBE_VIEW_BATCH ? n : i + KUBE_VIEW_BATCH;
        pthread_rwlock_rdlock(&st->lock);
        if (memo != NULL && (memo->state_id != st->id || memo->gen != st->set_gen)) {
            /* Entries found before a change may be gone: none is used. */
            memset(memo->node, 0, memo->total * sizeof(*memo->node));
            memo->state_id = st->id;
            memo->gen = st->set_gen;
        }
        const struct table *t = &st->nodes;
        for (size_t k = i; k < stop && k < i + VIEW_AHEAD; k++)
            look_ahead(t, memo, first + k, names[k], &hash[k - i]);
        for (size_t k = i; k < stop; k++) {
            if (k + VIEW_AHEAD < stop)
                look_ahead(t, memo, first + k + VIEW_AHEAD, names[k + VIEW_AHEAD],
                           &hash[k + VIEW_AHEAD - i]);
            const struct snode *node = resolve(st, memo, first + k, names[k], hash[k - i]);
            found[k] = node != NULL;
            if (node != NULL)
                view_of(st, node, now, in_flight_seconds, &out[k]);
        }
        pthread_rwlock_unlock(&st->lock);
    }
}

int kube_state_view(struct kube_state *st, const char *name, double now, int in_flight_seconds,
                    struct kube_node_view *out)
{
    bool found;
    kube_state_view_list(st, &name, 1, 0, 0, now, in_flight_seconds, out, &found);
    return found ? 0 : -ENOENT;
}

int kube_state_pod_request(struct kube_state *st, const char *uid, const char *node,
                           int64_t real[SCORE_NRES], int64_t non_zero[SCORE_NRES])
{
    int rc = -ENOENT;
    pthread_rwlock_rdlock(&st->lock);
    const struct spod *p = (const struct spod *)(const void *)table_find(&st->pods, uid);
    if (p != NULL && p->node != NULL && strcmp(p->node->h.key, node) == 0) {
        memcpy(real, p->real, sizeof(p->real));
        memcpy(non_zero, p->non_zero, sizeof(p->non_zero));
        rc = 0;
    }
    pthread_rwlock_unlock(&st->lock);
    return rc;
}

void kube_state_cpu_spread(struct kube_state *st, struct score_spread_sums *sums)
{
    pthread_rwlock_rdlock(&st->lock);
    TABLE_EACH(&st->nodes, e) {
        const struct snode *n = (const struct snode *)(const void *)e;
        if (n->present)
            score_spread_add(sums, n->req_real[SCORE_CPU], n->alloc[SCORE_CPU]);
    }
    pthread_rwlock_unlock(&st->lock);
}

void kube_state_each_node(struct kube_state *st,
                          void (*fn)(void *ctx, const char *name, const char *internal_ip),
                          void *ctx)
{
    pthread_rwlock_rdlock(&st->lock);
    TABLE_EACH(&st->nodes, e) {
        if (!((const struct snode *)(const void *)e)->present)
            continue;
        const struct sip *p = (const struct sip *)(const void *)table_find(&st->ips, e->key);
        fn(ctx, e->key, p != NULL ? p->ip : "");
    }
    pthread_rwlock_unlock(&st->lock);
}

void kube_state_counts(struct kube_state *st, size_t *nodes, size_t *pods)
{
    size_t present = 0;
    pthread_rwlock_rdlock(&st->lock);
    TABLE_EACH(&st->nodes, e)
        present += ((const struct snode *)(const void *)e)->present;
    *nodes = present;
    *pods = st->pods.count;
    pthread_rwlock_unlock(&st->lock);
}

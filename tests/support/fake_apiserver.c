#include "tests/support/fake_apiserver.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cjson/cJSON.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <microhttpd.h>

#define BODY_MAX      (1u << 20) /* a binding is a few hundred bytes */
#define SNAPSHOTS_MAX 64         /* paged lists in flight; older ones expire */
#define METRICS_MAX   8192       /* bench-apiserver serves the usage of 5000 nodes */
#define BLOCK_SIZE    (16u << 10)
#define STREAM_MAX    (64u << 20) /* /fake/stream: per line and tail */
#define SEGMENTS_MAX  8

static const char *const kind_names[FAKE_KINDS] = {"Node", "Pod"};
static const char *const list_kinds[FAKE_KINDS] = {"NodeList", "PodList"};
static const char *const resources[FAKE_KINDS] = {"nodes", "pods"};

/* A stored object; @json has no kind or apiVersion (added when sent). */
struct object {
    enum fake_kind kind;
    char *ns; /* "" for nodes */
    char *name;
    cJSON *json;
    uint64_t hash; /* of kind, ns and name: the index's key */
    size_t next;   /* index + 1 of the next object in its bucket, 0 at the end */
};

/* One change, kept as the watch line it becomes. */
struct event {
    uint64_t rv;
    enum fake_kind kind;
    char *ns;
    char *line; /* '\n' included */
    size_t len;
};

/* The items of a list at one resourceVersion, kept while continue tokens
 * may point into it: a real server serves every page from one etcd
 * revision, so pages must not see later changes. */
struct snapshot {
    unsigned id;
    uint64_t rv;
    enum fake_kind kind;
    char *ns; /* NULL: every namespace */
    char **items;
    size_t n;
};

struct metric {
    char name[254];
    char cpu[64];
    char memory[64];
};

/* An open watch stream; lives from the watch request until libmicrohttpd
 * frees its response (watch_free). */
struct watch {
    struct fake_apiserver *f;
    struct MHD_Connection *conn;
    struct watch *next;
    enum fake_kind kind;
    char *ns; /* NULL: every namespace */
    bool bookmarks;
    uint64_t pos; /* every event up to this version was sent or skipped */
    unsigned bookmark_gen;
    bool drop;      /* end now */
    bool cut_armed; /* send half of the next line, then end */
    bool end_after; /* end cleanly once @out is sent (after an ERROR event) */
    bool has_deadline;
    struct timespec deadline;
    char **initial; /* synthetic ADDED lines of a watch without a version */
    size_t n_initial, next_initial;
    char *out; /* the line being sent */
    size_t out_len, out_off, out_limit;
};

struct fake_apiserver {
    struct MHD_Daemon *daemon;
    int port;
    char *cert_pem, *key_pem, *trust_pem; /* kept until the daemon stops */
    bool client_ca;

    /* Everything below is guarded by @lock; @cond is broadcast on every
     * change a stream or a waiting test may be waiting for. */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool stopping;
    char *token;
    uint64_t rv;
    uint64_t compact_rv; /* the oldest version a watch or continue may use */
    struct object *objs;
    size_t n_objs, cap_objs;
    /* A hash index over objs (index + 1 per bucket head, 0 empty), so that
     * filling the store with 150 000 pods (make bench) is not quadratic. */
    size_t *buckets;
    size_t n_buckets; /* a power of two, at least twice n_objs; 0: none */
    struct event *log;
    size_t n_log, cap_log;
    struct snapshot *snaps[SNAPSHOTS_MAX];
    size_t n_snaps;
    unsigned next_snap_id;
    unsigned bookmark_gen;
    struct watch *watches;
    enum fake_gone gone;
    unsigned fail_n;
    int fail_status;
    bool hang_bindings; /* binding POSTs wait, unanswered, until switched off or the stop */
    bool ignore_limit;  /* lists answer every object in one page, whatever limit= says */
    char *metrics_pad;  /* a label of this text on every metrics item; NULL: none */
    struct metric metrics[METRICS_MAX];
    size_t n_metrics;
    char timestamp[64], window[32];
    int metrics_status;
    struct fake_counts counts;
    char **bindings;
    size_t n_bindings, cap_bindings;
    unsigned uid_seq;
};

/* Per request: the body of a POST, gathered as it arrives. */
struct request {
    char *body;
    size_t len, cap;
    bool too_big;
};

/* ---- text building ---- */

struct sbuf {
    char *p;
    size_t len, cap;
    bool oom;
};

static void sb_add(struct sbuf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap == 0 ? 256 : b->cap;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (p == NULL) {
            b->oom = true;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void sb_str(struct sbuf *b, const char *s)
{
    sb_add(b, s, strlen(s));
}

__attribute__((format(printf, 2, 3))) static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof(small), fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->oom = true;
        return;
    }
    if ((size_t)n < sizeof(small)) {
        sb_add(b, small, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (big == NULL) {
        b->oom = true;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb_add(b, big, (size_t)n);
    free(big);
}

/* Hands the text over (NULL when anything failed). */
static char *sb_take(struct sbuf *b, size_t *len)
{
    char *p = b->oom ? NULL : b->p;
    if (b->oom)
        free(b->p);
    else if (p == NULL)
        p = calloc(1, 1);
    if (len != NULL)
        *len = b->oom ? 0 : b->len;
    b->p = NULL;
    return p;
}

/* cJSON's text comes from its hooks (the test binary routes them through
 * the arenas); copy it into plain malloc memory the caller may free(). */
static char *print_json(const cJSON *j)
{
    char *t = cJSON_PrintUnformatted(j);
    char *copy = t != NULL ? strdup(t) : NULL;
    cJSON_free(t);
    return copy;
}

static void set_string(cJSON *obj, const char *key, const char *value)
{
    cJSON *v = cJSON_CreateString(value);
    if (v == NULL)
        return;
    if (cJSON_GetObjectItemCaseSensitive(obj, key) != NULL)
        cJSON_ReplaceItemInObjectCaseSensitive(obj, key, v);
    else
        cJSON_AddItemToObject(obj, key, v);
}

/* @obj as the API sends a single object or an event's: with kind and
 * apiVersion (list items have neither). */
static char *print_with_kind(const cJSON *obj, enum fake_kind kind)
{
    cJSON *copy = cJSON_Duplicate(obj, 1);
    char *text = NULL;
    if (copy == NULL)
        return NULL;
    set_string(copy, "kind", kind_names[kind]);
    set_string(copy, "apiVersion", "v1");
    text = print_json(copy);
    cJSON_Delete(copy);
    return text;
}

static const char *reason_of(int code)
{
    switch (code) {
    case 400:
        return "BadRequest";
    case 401:
        return "Unauthorized";
    case 403:
        return "Forbidden";
    case 404:
        return "NotFound";
    case 405:
        return "MethodNotAllowed";
    case 409:
        return "Conflict";
    case 410:
        return "Expired";
    case 413:
        return "RequestEntityTooLarge";
    case 429:
        return "TooManyRequests";
    case 503:
        return "ServiceUnavailable";
    case 504:
        return "Timeout";
    default:
        return "InternalError";
    }
}

/* A metav1.Status as the API server writes it. */
static char *status_json(int code, const char *message)
{
    cJSON *s = cJSON_CreateObject();
    char *text = NULL;
    if (s == NULL)
        return NULL;
    cJSON_AddStringToObject(s, "kind", "Status");
    cJSON_AddStringToObject(s, "apiVersion", "v1");
    cJSON_AddObjectToObject(s, "metadata");
    cJSON_AddStringToObject(s, "status", code / 100 == 2 ? "Success" : "Failure");
    if (message != NULL)
        cJSON_AddStringToObject(s, "message", message);
    if (code / 100 != 2)
        cJSON_AddStringToObject(s, "reason", reason_of(code));
    cJSON_AddNumberToObject(s, "code", code);
    text = print_json(s);
    cJSON_Delete(s);
    return text;
}

/* The ERROR event a watch gets for a version older than the compaction. */
static char *gone_line(uint64_t asked, uint64_t oldest, size_t *len)
{
    struct sbuf b = {0};
    char msg[128], *status;
    snprintf(msg, sizeof(msg), "too old resource version: %" PRIu64 " (%" PRIu64 ")", asked,
             oldest);
    status = status_json(410, msg);
    if (status == NULL)
        return NULL;
    sb_str(&b, "{\"type\":\"ERROR\",\"object\":");
    sb_str(&b, status);
    sb_str(&b, "}\n");
    free(status);
    return sb_take(&b, len);
}

/* ---- replies ---- */

/* Takes ownership of @body (NULL: out of memory, the connection is closed). */
static enum MHD_Result reply(struct MHD_Connection *conn, unsigned status, char *body)
{
    struct MHD_Response *r;
    enum MHD_Result ret;
    if (body == NULL)
        return MHD_NO;
    r = MHD_create_response_from_buffer(strlen(body), body, MHD_RESPMEM_MUST_FREE);
    if (r == NULL) {
        free(body);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
    ret = MHD_queue_response(conn, status, r);
    MHD_destroy_response(r);
    return ret;
}

/* A chunked 200 whose body @reader produces from @ctx; @ctx_free owns @ctx
 * from here, also when the response cannot be made. */
static enum MHD_Result reply_stream(struct MHD_Connection *conn, MHD_ContentReaderCallback reader,
                                    void *ctx, MHD_ContentReaderFreeCallback ctx_free)
{
    struct MHD_Response *r =
        MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, BLOCK_SIZE, reader, ctx, ctx_free);
    if (r == NULL) {
        ctx_free(ctx);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
    enum MHD_Result ret = MHD_queue_response(conn, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result reply_status(struct MHD_Connection *conn, int code, const char *message)
{
    return reply(conn, (unsigned)code, status_json(code, message));
}

/* ---- the store (callers hold the lock) ---- */

static uint64_t object_hash(enum fake_kind kind, const char *ns, const char *name)
{
    uint64_t h = 0xcbf29ce484222325ULL ^ (uint64_t)kind;
    for (const char *p = ns; *p != '\0'; p++)
        h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
    h = (h ^ '/') * 0x100000001b3ULL;
    for (const char *p = name; *p != '\0'; p++)
        h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
    return h;
}

/* Rebuilds the index for the objects as they are now (after a growth or a
 * delete, which moves the last object). Without memory the index is
 * dropped and find() scans. */
static void index_rebuild(struct fake_apiserver *f)
{
    size_t n = 64;
    while (n < 2 * f->n_objs + 2)
        n *= 2;
    free(f->buckets);
    f->buckets = calloc(n, sizeof(*f->buckets));
    f->n_buckets = f->buckets != NULL ? n : 0;
    for (size_t i = 0; i < f->n_objs && f->n_buckets > 0; i++) {
        size_t b = f->objs[i].hash & (f->n_buckets - 1);
        f->objs[i].next = f->buckets[b];
        f->buckets[b] = i + 1;
    }
}

static struct object *find(struct fake_apiserver *f, enum fake_kind kind, const char *ns,
                           const char *name)
{
    uint64_t h = object_hash(kind, ns, name);
    if (f->n_buckets == 0) {
        for (size_t i = 0; i < f->n_objs; i++) {
            struct object *o = &f->objs[i];
            if (o->kind == kind && strcmp(o->ns, ns) == 0 && strcmp(o->name, name) == 0)
                return o;
        }
        return NULL;
    }
    for (size_t j = f->buckets[h & (f->n_buckets - 1)]; j != 0; j = f->objs[j - 1].next) {
        struct object *o = &f->objs[j - 1];
        if (o->hash == h && o->kind == kind && strcmp(o->ns, ns) == 0 && strcmp(o->name, name) == 0)
            return o;
    }
    return NULL;
}

/* Gives @obj the next resourceVersion and logs the event. */
static int record(struct fake_apiserver *f, enum fake_kind kind, const char *ns, cJSON *obj,
                  const char *type, uint64_t *rv_out)
{
    uint64_t rv = f->rv + 1;
    char rv_text[32], *text;
    struct sbuf b = {0};
    struct event *e;
    cJSON *meta = cJSON_GetObjectItemCaseSensitive(obj, "metadata");

    snprintf(rv_text, sizeof(rv_text), "%" PRIu64, rv);
    set_string(meta, "resourceVersion", rv_text);
    if (f->n_log == f->cap_log) {
        size_t cap = f->cap_log == 0 ? 64 : f->cap_log * 2;
        struct event *log = realloc(f->log, cap * sizeof(*log));
        if (log == NULL)
            return -ENOMEM;
        f->log = log;
        f->cap_log = cap;
    }
    text = print_with_kind(obj, kind);
    if (text == NULL)
        return -ENOMEM;
    sb_printf(&b, "{\"type\":\"%s\",\"object\":%s}\n", type, text);
    free(text);
    e = &f->log[f->n_log];
    e->line = sb_take(&b, &e->len);
    e->ns = strdup(ns);
    if (e->line == NULL || e->ns == NULL) {
        free(e->line);
        free(e->ns);
        return -ENOMEM;
    }
    e->rv = rv;
    e->kind = kind;
    f->n_log++;
    f->rv = rv;
    if (rv_out != NULL)
        *rv_out = rv;
    pthread_cond_broadcast(&f->cond);
    return 0;
}

static void snapshot_free(struct snapshot *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->n; i++)
        free(s->items[i]);
    free(s->items);
    free(s->ns);
    free(s);
}

static int object_cmp(const void *a, const void *b)
{
    const struct object *x = *(const struct object *const *)a;
    const struct object *y = *(const struct object *const *)b;
    int c = strcmp(x->ns, y->ns);
    return c != 0 ? c : strcmp(x->name, y->name);
}

/* The objects of @kind (in @ns when not NULL) sorted by namespace/name,
 * as etcd returns a range: list items (no kind), or with @as_events the
 * ADDED lines a watch without a resourceVersion starts with. */
static struct snapshot *snapshot_take(struct fake_apiserver *f, enum fake_kind kind, const char *ns,
                                      bool as_events)
{
    struct snapshot *s = calloc(1, sizeof(*s));
    struct object **sorted = NULL;
    size_t n = 0;

    if (s == NULL)
        return NULL;
    s->rv = f->rv;
    s->kind = kind;
    if (ns != NULL) {
        s->ns = strdup(ns);
        if (s->ns == NULL)
            goto out_free;
    }
    sorted = calloc(f->n_objs + 1, sizeof(*sorted));
    s->items = calloc(f->n_objs + 1, sizeof(*s->items));
    if (sorted == NULL || s->items == NULL)
        goto out_free;
    for (size_t i = 0; i < f->n_objs; i++)
        if (f->objs[i].kind == kind && (ns == NULL || strcmp(f->objs[i].ns, ns) == 0))
            sorted[n++] = &f->objs[i];
    qsort(sorted, n, sizeof(*sorted), object_cmp);
    for (size_t i = 0; i < n; i++) {
        char *text;
        if (as_events) {
            struct sbuf b = {0};
            char *obj = print_with_kind(sorted[i]->json, kind);
            if (obj == NULL)
                goto out_free;
            sb_printf(&b, "{\"type\":\"ADDED\",\"object\":%s}\n", obj);
            free(obj);
            text = sb_take(&b, NULL);
        } else {
            text = print_json(sorted[i]->json);
        }
        if (text == NULL)
            goto out_free;
        s->items[s->n++] = text;
    }
    free(sorted);
    return s;

out_free:
    free(sorted);
    snapshot_free(s);
    return NULL;
}

static void snapshot_keep(struct fake_apiserver *f, struct snapshot *s)
{
    if (f->n_snaps == SNAPSHOTS_MAX) {
        /* The oldest expires, as a compacted revision would. */
        snapshot_free(f->snaps[0]);
        memmove(&f->snaps[0], &f->snaps[1], (SNAPSHOTS_MAX - 1) * sizeof(f->snaps[0]));
        f->n_snaps--;
    }
    s->id = ++f->next_snap_id;
    f->snaps[f->n_snaps++] = s;
}

/* ---- watch streams ---- */

static bool is_ns_match(const struct watch *w, const char *ns)
{
    return w->ns == NULL || strcmp(w->ns, ns) == 0;
}

/* Index of the first event after version @rv. */
static size_t log_after(const struct fake_apiserver *f, uint64_t rv)
{
    size_t lo = 0, hi = f->n_log;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->log[mid].rv <= rv)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void watch_set_out(struct watch *w, char *line, size_t len)
{
    w->out = line;
    w->out_len = len;
    w->out_off = 0;
    w->out_limit = len;
    if (w->cut_armed) {
        w->cut_armed = false;
        w->out_limit = len / 2 > 0 ? len / 2 : 1;
    }
}

/* Makes the stream's next line, if it has one to send now: synthetic
 * ADDED lines first, then logged events in order, then a bookmark.
 * Returns 0 with the line in w->out, -EAGAIN when there is nothing to
 * send yet, or -ENOMEM (the stream must end: it would skip an event).
 * Called with the lock held. */
static int watch_next_line(struct fake_apiserver *f, struct watch *w)
{
    if (w->next_initial < w->n_initial) {
        char *line = w->initial[w->next_initial];
        w->initial[w->next_initial++] = NULL;
        watch_set_out(w, line, strlen(line));
        return 0;
    }
    if (w->pos < f->compact_rv) {
        /* Events this stream still had to send are forgotten: a watcher
         * that fell behind a compaction gets "too old" like a new one. */
        size_t len;
        char *line = gone_line(w->pos, f->compact_rv, &len);
        if (line == NULL)
            return -ENOMEM;
        w->end_after = true;
        watch_set_out(w, line, len);
        return 0;
    }
    for (size_t i = log_after(f, w->pos); i < f->n_log; i++) {
        const struct event *e = &f->log[i];
        if (e->kind != w->kind || !is_ns_match(w, e->ns)) {
            w->pos = e->rv;
            continue;
        }
        char *line = malloc(e->len + 1);
        if (line == NULL)
            return -ENOMEM;
        memcpy(line, e->line, e->len + 1);
        w->pos = e->rv;
        watch_set_out(w, line, e->len);
        return 0;
    }
    /* Caught up: later compactions do not concern this stream. */
    if (w->pos < f->rv)
        w->pos = f->rv;
    if (w->bookmark_gen == f->bookmark_gen)
        return -EAGAIN;
    if (w->bookmarks) {
        /* At the stream's own position, which is past every event it
         * sent: a bookmark must never move a client backwards. */
        struct sbuf b = {0};
        size_t len;
        sb_printf(&b,
                  "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"%s\",\"apiVersion\":\"v1\","
                  "\"metadata\":{\"resourceVersion\":\"%" PRIu64 "\"}}}\n",
                  kind_names[w->kind], w->pos);
        char *line = sb_take(&b, &len);
        if (line == NULL)
            return -ENOMEM;
        f->counts.bookmarks_sent++;
        watch_set_out(w, line, len);
    }
    w->bookmark_gen = f->bookmark_gen;
    return w->bookmarks ? 0 : -EAGAIN;
}

/* True when the client closed its end (a watch that waits for events
 * would not notice otherwise until it writes). */
static bool is_peer_gone(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (ci == NULL)
        return false;
    struct pollfd p = {.fd = ci->connect_fd, .events = POLLRDHUP};
    return poll(&p, 1, 0) == 1 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

static bool is_past(const struct timespec *t)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec > t->tv_sec || (now.tv_sec == t->tv_sec && now.tv_nsec >= t->tv_nsec);
}

static struct timespec in_ms(long ms)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    t.tv_sec += ms / 1000;
    t.tv_nsec += (ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

/* libmicrohttpd's content reader for a watch. With a thread per connection
 * it may block: it waits on the condition variable for something to send,
 * waking at least every 100 ms to notice a client that went away. */
static ssize_t watch_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    struct watch *w = cls;
    struct fake_apiserver *f = w->f;
    (void)pos;

    pthread_mutex_lock(&f->lock);
    for (;;) {
        if (w->out_off < w->out_limit) {
            size_t n = w->out_limit - w->out_off;
            if (n > max)
                n = max;
            memcpy(buf, w->out + w->out_off, n);
            w->out_off += n;
            pthread_mutex_unlock(&f->lock);
            return (ssize_t)n;
        }
        if (w->out != NULL) {
            bool cut = w->out_limit < w->out_len;
            free(w->out);
            w->out = NULL;
            if (cut) {
                pthread_mutex_unlock(&f->lock);
                /* Give the half line time to reach the client before the
                 * connection goes. */
                struct timespec t = {0, 50 * 1000 * 1000};
                nanosleep(&t, NULL);
                return MHD_CONTENT_READER_END_WITH_ERROR;
            }
            if (w->end_after) {
                pthread_mutex_unlock(&f->lock);
                return MHD_CONTENT_READER_END_OF_STREAM;
            }
        }
        if (f->stopping || w->drop) {
            pthread_mutex_unlock(&f->lock);
            return MHD_CONTENT_READER_END_WITH_ERROR; /* no terminating chunk */
        }
        int rc = watch_next_line(f, w);
        if (rc == 0)
            continue;
        if (rc != -EAGAIN) {
            pthread_mutex_unlock(&f->lock);
            return MHD_CONTENT_READER_END_WITH_ERROR;
        }
        if (w->has_deadline && is_past(&w->deadline)) {
            pthread_mutex_unlock(&f->lock);
            return MHD_CONTENT_READER_END_OF_STREAM; /* timeoutSeconds: a clean end */
        }
        if (is_peer_gone(w->conn)) {
            pthread_mutex_unlock(&f->lock);
            return MHD_CONTENT_READER_END_WITH_ERROR;
        }
        struct timespec tick = in_ms(100);
        pthread_cond_timedwait(&f->cond, &f->lock, &tick);
    }
}

static void watch_free(void *cls)
{
    struct watch *w = cls;
    struct fake_apiserver *f = w->f;

    pthread_mutex_lock(&f->lock);
    for (struct watch **p = &f->watches; *p != NULL; p = &(*p)->next) {
        if (*p == w) {
            *p = w->next;
            f->counts.open_watches[w->kind]--;
            break;
        }
    }
    pthread_cond_broadcast(&f->cond);
    pthread_mutex_unlock(&f->lock);
    for (size_t i = 0; i < w->n_initial; i++)
        free(w->initial[i]);
    free(w->initial);
    free(w->out);
    free(w->ns);
    free(w);
}

/* ---- request handlers ---- */

static const char *arg(struct MHD_Connection *conn, const char *key)
{
    return MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, key);
}

static bool is_arg_true(struct MHD_Connection *conn, const char *key)
{
    const char *v = arg(conn, key);
    return v != NULL && (strcmp(v, "1") == 0 || strcmp(v, "true") == 0);
}

/* A decimal number, whole text; -EINVAL otherwise. */
static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    if (s == NULL || s[0] < '0' || s[0] > '9')
        return -EINVAL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0')
        return -EINVAL;
    *out = v;
    return 0;
}

static enum MHD_Result serve_watch(struct fake_apiserver *f, struct MHD_Connection *conn,
                                   enum fake_kind kind, const char *ns)
{
    const char *rv_text = arg(conn, "resourceVersion");
    const char *timeout_text = arg(conn, "timeoutSeconds");
    uint64_t rv = 0, timeout = 0;
    bool from_now = rv_text == NULL || strcmp(rv_text, "") == 0 || strcmp(rv_text, "0") == 0;
    struct watch *w;

    if (!from_now && parse_u64(rv_text, &rv) != 0)
        return reply_status(conn, 400, "resourceVersion: invalid value");
    if (timeout_text != NULL && parse_u64(timeout_text, &timeout) != 0)
        return reply_status(conn, 400, "timeoutSeconds: invalid value");
    w = calloc(1, sizeof(*w));
    if (w == NULL)
        return MHD_NO;
    w->f = f;
    w->conn = conn;
    w->kind = kind;
    w->bookmarks = is_arg_true(conn, "allowWatchBookmarks");
    if (timeout > 0) {
        w->has_deadline = true;
        w->deadline = in_ms(timeout > 86400 ? 86400000L : (long)timeout * 1000L);
    }
    if (ns != NULL) {
        w->ns = strdup(ns);
        if (w->ns == NULL)
            goto out_free;
    }

    pthread_mutex_lock(&f->lock);
    f->counts.watches[kind]++;
    f->counts.last_watch_rv[kind] = rv;
    if (!from_now && rv < f->compact_rv) {
        if (f->gone == FAKE_GONE_HTTP_410) {
            char msg[128];
            snprintf(msg, sizeof(msg), "too old resource version: %" PRIu64 " (%" PRIu64 ")", rv,
                     f->compact_rv);
            pthread_mutex_unlock(&f->lock);
            free(w->ns);
            free(w);
            return reply_status(conn, 410, msg);
        }
        size_t len;
        char *line = gone_line(rv, f->compact_rv, &len);
        if (line == NULL) {
            pthread_mutex_unlock(&f->lock);
            goto out_free;
        }
        watch_set_out(w, line, len);
        w->end_after = true;
    } else if (from_now) {
        /* "Get state and start at most recent": every object as ADDED. */
        struct snapshot *s = snapshot_take(f, kind, ns, true);
        if (s == NULL) {
            pthread_mutex_unlock(&f->lock);
            goto out_free;
        }
        w->initial = s->items;
        w->n_initial = s->n;
        s->items = NULL;
        s->n = 0;
        snapshot_free(s);
        w->pos = f->rv;
    } else {
        w->pos = rv;
    }
    w->bookmark_gen = f->bookmark_gen;
    w->next = f->watches;
    f->watches = w;
    f->counts.open_watches[kind]++;
    pthread_cond_broadcast(&f->cond);
    pthread_mutex_unlock(&f->lock);

    /* From here watch_free owns @w, also when the response cannot be made. */
    return reply_stream(conn, watch_read, w, watch_free);

out_free:
    free(w->out);
    free(w->ns);
    free(w);
    return MHD_NO;
}

static enum MHD_Result serve_list(struct fake_apiserver *f, struct MHD_Connection *conn,
                                  enum fake_kind kind, const char *ns)
{
    const char *limit_text = arg(conn, "limit"), *cont = arg(conn, "continue");
    uint64_t limit = 0;
    size_t off = 0, end;
    struct snapshot *s = NULL;
    bool kept = false;
    struct sbuf b = {0};

    if (is_arg_true(conn, "watch"))
        return serve_watch(f, conn, kind, ns);
    if (limit_text != NULL && parse_u64(limit_text, &limit) != 0)
        return reply_status(conn, 400, "limit: invalid value");
    if (cont != NULL && cont[0] == '\0')
        cont = NULL;

    pthread_mutex_lock(&f->lock);
    f->counts.list_pages[kind]++;
    if (cont == NULL) {
        f->counts.lists[kind]++;
        s = snapshot_take(f, kind, ns, false);
        if (s == NULL) {
            pthread_mutex_unlock(&f->lock);
            return MHD_NO;
        }
    } else {
        /* The token is "<snapshot id>.<offset>": opaque to clients. */
        char *dot;
        unsigned long id = strtoul(cont, &dot, 10);
        uint64_t o;
        if (*dot != '.' || parse_u64(dot + 1, &o) != 0) {
            pthread_mutex_unlock(&f->lock);
            return reply_status(conn, 400, "continue key is not valid");
        }
        off = (size_t)o;
        for (size_t i = 0; i < f->n_snaps; i++)
            if (f->snaps[i]->id == id)
                s = f->snaps[i];
        if (s == NULL || s->rv < f->compact_rv) {
            pthread_mutex_unlock(&f->lock);
            return reply_status(conn, 410,
                                "The provided continue parameter is too old to display a "
                                "consistent list result. You can start a new list without the "
                                "continue parameter.");
        }
        if (s->kind != kind || (s->ns == NULL) != (ns == NULL) ||
            (ns != NULL && strcmp(s->ns, ns) != 0) || off > s->n) {
            pthread_mutex_unlock(&f->lock);
            return reply_status(conn, 400, "continue key does not match the request");
        }
        kept = true;
    }
    end = limit > 0 && limit < s->n - off && !f->ignore_limit ? off + (size_t)limit : s->n;
    if (end < s->n && !kept) {
        snapshot_keep(f, s);
        kept = true;
    }
    sb_printf(&b,
              "{\"kind\":\"%s\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"%" PRIu64
              "\"",
              list_kinds[kind], s->rv);
    if (end < s->n)
        sb_printf(&b, ",\"continue\":\"%u.%zu\",\"remainingItemCount\":%zu", s->id, end,
                  s->n - end);
    sb_str(&b, "},\"items\":[");
    for (size_t i = off; i < end; i++) {
        if (i > off)
            sb_str(&b, ",");
        sb_str(&b, s->items[i]);
    }
    sb_str(&b, "]}");
    if (!kept)
        snapshot_free(s);
    pthread_mutex_unlock(&f->lock);
    return reply(conn, MHD_HTTP_OK, sb_take(&b, NULL));
}

static enum MHD_Result serve_get(struct fake_apiserver *f, struct MHD_Connection *conn,
                                 enum fake_kind kind, const char *ns, const char *name)
{
    char *text = NULL, msg[512];
    pthread_mutex_lock(&f->lock);
    struct object *o = find(f, kind, ns != NULL ? ns : "", name);
    if (o != NULL)
        text = print_with_kind(o->json, kind);
    pthread_mutex_unlock(&f->lock);
    if (o == NULL) {
        snprintf(msg, sizeof(msg), "%s \"%s\" not found", resources[kind], name);
        return reply_status(conn, 404, msg);
    }
    return reply(conn, MHD_HTTP_OK, text);
}

static const char *string_at(const cJSON *obj, const char *a, const char *b)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, a);
    if (b != NULL)
        v = cJSON_GetObjectItemCaseSensitive(v, b);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static enum MHD_Result serve_binding(struct fake_apiserver *f, struct MHD_Connection *conn,
                                     const char *ns, const char *name, const struct request *rq)
{
    cJSON *body = NULL, *pod, *spec;
    const char *target, *body_name, *uid, *pod_uid, *node;
    char msg[1024];
    int code = 201;
    char *copy = malloc(rq->len + 1);

    pthread_mutex_lock(&f->lock);
    f->counts.bindings++;
    /* A hung API server: the request is read, no answer comes. */
    while (f->hang_bindings && !f->stopping)
        pthread_cond_wait(&f->cond, &f->lock);
    if (copy != NULL && f->n_bindings == f->cap_bindings) {
        size_t cap = f->cap_bindings == 0 ? 16 : f->cap_bindings * 2;
        char **more = realloc(f->bindings, cap * sizeof(*more));
        if (more != NULL) {
            f->bindings = more;
            f->cap_bindings = cap;
        }
    }
    if (copy != NULL && f->n_bindings < f->cap_bindings) {
        if (rq->len > 0)
            memcpy(copy, rq->body, rq->len);
        copy[rq->len] = '\0';
        f->bindings[f->n_bindings++] = copy;
        copy = NULL;
    }
    pthread_mutex_unlock(&f->lock);
    free(copy);

    if (rq->too_big)
        return reply_status(conn, 413, "request entity too large");
    body = rq->body != NULL ? cJSON_ParseWithLength(rq->body, rq->len) : NULL;
    target = string_at(body, "target", "name");
    body_name = string_at(body, "metadata", "name");
    uid = string_at(body, "metadata", "uid");
    if (!cJSON_IsObject(body) || target == NULL || target[0] == '\0') {
        cJSON_Delete(body);
        return reply_status(conn, 400,
                            "Binding in version \"v1\" cannot be handled: "
                            "target.name: Required value");
    }
    if (body_name != NULL && strcmp(body_name, name) != 0) {
        cJSON_Delete(body);
        return reply_status(conn, 400, "the name of the object does not match the name on the URL");
    }

    pthread_mutex_lock(&f->lock);
    struct object *o = find(f, FAKE_POD, ns, name);
    if (o == NULL) {
        code = 404;
        snprintf(msg, sizeof(msg), "pods \"%s\" not found", name);
        goto out_unlock;
    }
    pod = o->json;
    pod_uid = string_at(pod, "metadata", "uid");
    node = string_at(pod, "spec", "nodeName");
    if (uid != NULL && uid[0] != '\0' && (pod_uid == NULL || strcmp(uid, pod_uid) != 0)) {
        code = 409;
        snprintf(msg, sizeof(msg),
                 "Operation cannot be fulfilled on pods/binding \"%s\": Precondition failed: UID "
                 "in precondition: %s, UID in object meta: %s",
                 name, uid, pod_uid != NULL ? pod_uid : "");
        goto out_unlock;
    }
    if (node != NULL && node[0] != '\0') {
        code = 409;
        snprintf(msg, sizeof(msg),
                 "Operation cannot be fulfilled on pods/binding \"%s\": pod %s is already "
                 "assigned to node \"%s\"",
                 name, name, node);
        goto out_unlock;
    }
    spec = cJSON_GetObjectItemCaseSensitive(pod, "spec");
    if (!cJSON_IsObject(spec)) {
        cJSON_DeleteItemFromObjectCaseSensitive(pod, "spec");
        spec = cJSON_AddObjectToObject(pod, "spec");
    }
    if (spec == NULL) {
        code = 500;
        snprintf(msg, sizeof(msg), "out of memory");
        goto out_unlock;
    }
    set_string(spec, "nodeName", target);
    if (record(f, FAKE_POD, ns, pod, "MODIFIED", NULL) != 0) {
        code = 500;
        snprintf(msg, sizeof(msg), "out of memory");
    }

out_unlock:
    pthread_mutex_unlock(&f->lock);
    cJSON_Delete(body);
    return reply_status(conn, code, code == 201 ? NULL : msg);
}

static cJSON *metric_item(const struct fake_apiserver *f, const struct metric *m)
{
    cJSON *item = cJSON_CreateObject();
    cJSON *meta = cJSON_AddObjectToObject(item, "metadata");
    cJSON *usage;
    cJSON_AddStringToObject(meta, "name", m->name);
    cJSON_AddStringToObject(meta, "creationTimestamp", f->timestamp);
    if (f->metrics_pad != NULL)
        cJSON_AddStringToObject(cJSON_AddObjectToObject(meta, "labels"), "pad", f->metrics_pad);
    cJSON_AddStringToObject(item, "timestamp", f->timestamp);
    cJSON_AddStringToObject(item, "window", f->window);
    usage = cJSON_AddObjectToObject(item, "usage");
    cJSON_AddStringToObject(usage, "cpu", m->cpu);
    cJSON_AddStringToObject(usage, "memory", m->memory);
    return item;
}

static enum MHD_Result serve_metrics(struct fake_apiserver *f, struct MHD_Connection *conn,
                                     const char *name)
{
    cJSON *out = NULL, *items;
    char *text = NULL, msg[512];
    int status;

    pthread_mutex_lock(&f->lock);
    f->counts.metrics++;
    status = f->metrics_status;
    if (status != 0)
        goto out_unlock;
    if (name != NULL) {
        for (size_t i = 0; i < f->n_metrics && out == NULL; i++)
            if (strcmp(f->metrics[i].name, name) == 0)
                out = metric_item(f, &f->metrics[i]);
        if (out == NULL) {
            status = 404;
            goto out_unlock;
        }
        cJSON_AddStringToObject(out, "kind", "NodeMetrics");
    } else {
        out = cJSON_CreateObject();
        cJSON_AddStringToObject(out, "kind", "NodeMetricsList");
        cJSON_AddObjectToObject(out, "metadata");
        items = cJSON_AddArrayToObject(out, "items");
        for (size_t i = 0; i < f->n_metrics; i++)
            cJSON_AddItemToArray(items, metric_item(f, &f->metrics[i]));
    }
    cJSON_AddStringToObject(out, "apiVersion", "metrics.k8s.io/v1beta1");
    text = print_json(out);
    cJSON_Delete(out);

out_unlock:
    pthread_mutex_unlock(&f->lock);
    if (status == 404 && name != NULL) {
        snprintf(msg, sizeof(msg), "nodemetrics.metrics.k8s.io \"%s\" not found", name);
        return reply_status(conn, 404, msg);
    }
    if (status == 404)
        return reply_status(conn, 404, "the server could not find the requested resource");
    if (status != 0)
        return reply_status(conn, status, "the server is currently unable to handle the request");
    return reply(conn, MHD_HTTP_OK, text);
}

/* /fake/stream: @count lines of @line bytes, then @tail bytes. */
struct stream_gen {
    struct fake_apiserver *f;
    uint64_t line, count, tail;
};

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    const struct stream_gen *g = cls;
    uint64_t body = g->count * (g->line + 1), total = body + g->tail;
    size_t n = 0;
    bool stopping;

    pthread_mutex_lock(&g->f->lock);
    stopping = g->f->stopping;
    pthread_mutex_unlock(&g->f->lock);
    if (stopping)
        return MHD_CONTENT_READER_END_WITH_ERROR;
    if (pos >= total)
        return MHD_CONTENT_READER_END_OF_STREAM;
    while (n < max && pos + n < total) {
        uint64_t p = pos + n;
        buf[n++] = p < body && p % (g->line + 1) == g->line ? '\n' : 'x';
    }
    return (ssize_t)n;
}

static enum MHD_Result serve_stream(struct fake_apiserver *f, struct MHD_Connection *conn)
{
    struct stream_gen *g = calloc(1, sizeof(*g));
    const char *line = arg(conn, "line"), *count = arg(conn, "count"), *tail = arg(conn, "tail");

    if (g == NULL)
        return MHD_NO;
    g->f = f;
    if ((line != NULL && parse_u64(line, &g->line) != 0) ||
        (count != NULL && parse_u64(count, &g->count) != 0) ||
        (tail != NULL && parse_u64(tail, &g->tail) != 0) || g->line > STREAM_MAX ||
        g->count > 100000 || g->tail > STREAM_MAX) {
        free(g);
        return reply_status(conn, 400, "line, count, tail: bad values");
    }
    return reply_stream(conn, stream_read, g, free);
}

/* ---- dispatch ---- */

/* The chain must verify against the configured CA and be meant for TLS
 * clients, as the real server's x509 authenticator requires. */
static bool is_client_verified(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);
    gnutls_session_t s = ci != NULL ? (gnutls_session_t)ci->tls_session : NULL;
    unsigned int n = 0, status = 0;
    gnutls_typed_vdata_st purpose = {.type = GNUTLS_DT_KEY_PURPOSE_OID,
                                     .data = (unsigned char *)(uintptr_t)GNUTLS_KP_TLS_WWW_CLIENT};
    return s != NULL && gnutls_certificate_get_peers(s, &n) != NULL && n > 0 &&
           gnutls_certificate_verify_peers(s, &purpose, 1, &status) == 0 && status == 0;
}

/* Called with the lock held. */
static bool is_authorized(const struct fake_apiserver *f, struct MHD_Connection *conn)
{
    const char *h;
    if (f->client_ca && is_client_verified(conn))
        return true;
    if (f->token == NULL)
        return !f->client_ca;
    h = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    return h != NULL && strncmp(h, "Bearer ", 7) == 0 && strcmp(h + 7, f->token) == 0;
}

enum route {
    ROUTE_NONE = 0,
    ROUTE_LIST,
    ROUTE_GET,
    ROUTE_BINDING,
    ROUTE_METRICS,
    ROUTE_STREAM,
};

struct target {
    enum route route;
    enum fake_kind kind;
    const char *ns;   /* NULL: cluster-scoped or every namespace */
    const char *name; /* NULL: a collection */
};

static bool is_seg(char *const *seg, size_t n, size_t i, const char *want)
{
    return i < n && strcmp(seg[i], want) == 0;
}

/* Splits @path (modified in place) and finds what it names. */
static struct target route_of(char *path)
{
    char *seg[SEGMENTS_MAX + 1], *save = NULL;
    size_t n = 0;
    struct target t = {.route = ROUTE_NONE};

    for (char *s = strtok_r(path, "/", &save); s != NULL; s = strtok_r(NULL, "/", &save)) {
        if (n == SEGMENTS_MAX)
            return t;
        seg[n++] = s;
    }
    if (n == 2 && is_seg(seg, n, 0, "fake") && is_seg(seg, n, 1, "stream")) {
        t.route = ROUTE_STREAM;
    } else if (n >= 4 && is_seg(seg, n, 0, "apis") && is_seg(seg, n, 1, "metrics.k8s.io") &&
               is_seg(seg, n, 2, "v1beta1") && is_seg(seg, n, 3, "nodes") && n <= 5) {
        t.route = ROUTE_METRICS;
        t.name = n == 5 ? seg[4] : NULL;
    } else if (n >= 3 && is_seg(seg, n, 0, "api") && is_seg(seg, n, 1, "v1")) {
        if (is_seg(seg, n, 2, "nodes") && n <= 4) {
            t.kind = FAKE_NODE;
            t.route = n == 4 ? ROUTE_GET : ROUTE_LIST;
            t.name = n == 4 ? seg[3] : NULL;
        } else if (is_seg(seg, n, 2, "pods") && n == 3) {
            t.kind = FAKE_POD;
            t.route = ROUTE_LIST;
        } else if (is_seg(seg, n, 2, "namespaces") && is_seg(seg, n, 4, "pods") && n <= 7) {
            t.kind = FAKE_POD;
            t.ns = seg[3];
            t.name = n >= 6 ? seg[5] : NULL;
            if (n == 5)
                t.route = ROUTE_LIST;
            else if (n == 6)
                t.route = ROUTE_GET;
            else if (is_seg(seg, n, 6, "binding"))
                t.route = ROUTE_BINDING;
        }
    }
    return t;
}

static enum MHD_Result serve(struct fake_apiserver *f, struct MHD_Connection *conn, const char *url,
                             const char *method, const struct request *rq)
{
    char path[2048];
    struct target t;
    int injected = 0;
    bool authorized;

    pthread_mutex_lock(&f->lock);
    if (f->fail_n > 0) {
        f->fail_n--;
        f->counts.injected++;
        /* not in watches[]: the kind is not looked at, but whether the
         * client was resuming a watch or listing is */
        if (is_arg_true(conn, "watch"))
            f->counts.injected_watches++;
        injected = f->fail_status;
    }
    authorized = injected != 0 || is_authorized(f, conn);
    if (!authorized)
        f->counts.unauthorized++;
    pthread_mutex_unlock(&f->lock);
    if (injected != 0)
        return reply_status(conn, injected, "injected failure");
    if (!authorized)
        return reply_status(conn, 401, "Unauthorized");

    if (strlen(url) >= sizeof(path))
        return reply_status(conn, 404, "the server could not find the requested resource");
    snprintf(path, sizeof(path), "%s", url);
    t = route_of(path);
    if (t.route == ROUTE_NONE)
        return reply_status(conn, 404, "the server could not find the requested resource");
    if (strcmp(method, t.route == ROUTE_BINDING ? MHD_HTTP_METHOD_POST : MHD_HTTP_METHOD_GET) != 0)
        return reply_status(conn, 405,
                            "the server does not allow this method on the requested resource");
    switch (t.route) {
    case ROUTE_LIST:
        return serve_list(f, conn, t.kind, t.ns);
    case ROUTE_GET:
        return serve_get(f, conn, t.kind, t.ns, t.name);
    case ROUTE_BINDING:
        return serve_binding(f, conn, t.ns, t.name, rq);
    case ROUTE_METRICS:
        return serve_metrics(f, conn, t.name);
    case ROUTE_STREAM:
        return serve_stream(f, conn);
    default:
        return MHD_NO;
    }
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **req_cls)
{
    struct request *rq = *req_cls;
    (void)version;

    if (rq == NULL) {
        rq = calloc(1, sizeof(*rq));
        if (rq == NULL)
            return MHD_NO;
        *req_cls = rq; /* on_completed frees it */
        return MHD_YES;
    }
    if (*upload_data_size != 0) {
        size_t n = *upload_data_size;
        *upload_data_size = 0;
        if (rq->too_big || rq->len + n > BODY_MAX) {
            rq->too_big = true;
            return MHD_YES;
        }
        if (rq->len + n + 1 > rq->cap) {
            size_t cap = rq->cap == 0 ? 1024 : rq->cap;
            while (cap < rq->len + n + 1)
                cap *= 2;
            char *p = realloc(rq->body, cap);
            if (p == NULL)
                return MHD_NO;
            rq->body = p;
            rq->cap = cap;
        }
        memcpy(rq->body + rq->len, upload_data, n);
        rq->len += n;
        rq->body[rq->len] = '\0';
        return MHD_YES;
    }
    return serve(cls, conn, url, method, rq);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **req_cls,
                         enum MHD_RequestTerminationCode toe)
{
    struct request *rq = *req_cls;
    (void)cls;
    (void)conn;
    (void)toe;
    if (rq == NULL)
        return;
    free(rq->body);
    free(rq);
    *req_cls = NULL;
}

/* ---- the public face ---- */

static char *read_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    struct sbuf b = {0};
    char chunk[4096];
    size_t n;
    if (fp == NULL)
        return NULL;
    do {
        n = fread(chunk, 1, sizeof(chunk), fp);
        sb_add(&b, chunk, n);
    } while (n > 0);
    fclose(fp);
    return sb_take(&b, NULL);
}

static void fake_free(struct fake_apiserver *f)
{
    for (size_t i = 0; i < f->n_objs; i++) {
        free(f->objs[i].ns);
        free(f->objs[i].name);
        cJSON_Delete(f->objs[i].json);
    }
    free(f->objs);
    free(f->buckets);
    free(f->metrics_pad);
    for (size_t i = 0; i < f->n_log; i++) {
        free(f->log[i].ns);
        free(f->log[i].line);
    }
    free(f->log);
    for (size_t i = 0; i < f->n_snaps; i++)
        snapshot_free(f->snaps[i]);
    for (size_t i = 0; i < f->n_bindings; i++)
        free(f->bindings[i]);
    free(f->bindings);
    free(f->token);
    free(f->cert_pem);
    free(f->key_pem);
    free(f->trust_pem);
    pthread_cond_destroy(&f->cond);
    pthread_mutex_destroy(&f->lock);
    free(f);
}

int fake_start(const struct fake_params *p, struct fake_apiserver **out)
{
    struct fake_apiserver *f = calloc(1, sizeof(*f));
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    pthread_condattr_t ca;
    unsigned flags =
        MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC | MHD_USE_TLS;
    int rc = -ENOMEM;

    if (f == NULL)
        return -ENOMEM;
    pthread_mutex_init(&f->lock, NULL);
    /* Streams wait with deadlines: on the monotonic clock, not the wall. */
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&f->cond, &ca);
    pthread_condattr_destroy(&ca);
    f->rv = 1;
    f->compact_rv = 1;
    snprintf(f->timestamp, sizeof(f->timestamp), "2026-12-02T16:00:00Z");
    snprintf(f->window, sizeof(f->window), "20s");
    if (p->token != NULL && (f->token = strdup(p->token)) == NULL)
        goto out_free;
    f->cert_pem = read_file(p->cert_file);
    f->key_pem = read_file(p->key_file);
    if (p->client_ca_file != NULL) {
        f->client_ca = true;
        f->trust_pem = read_file(p->client_ca_file);
    }
    if (f->cert_pem == NULL || f->key_pem == NULL || (f->client_ca && f->trust_pem == NULL)) {
        rc = -ENOENT;
        goto out_free;
    }
    f->daemon = MHD_start_daemon(
        flags, 0, NULL, NULL, on_request, f, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
        MHD_OPTION_HTTPS_MEM_CERT, f->cert_pem, MHD_OPTION_HTTPS_MEM_KEY, f->key_pem,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
        /* With a trust list MHD asks the client for a certificate;
         * is_authorized decides what it is worth. */
        f->client_ca ? MHD_OPTION_HTTPS_MEM_TRUST : MHD_OPTION_END, f->trust_pem, MHD_OPTION_END);
    if (f->daemon == NULL) {
        rc = -EIO;
        goto out_free;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(f->daemon, MHD_DAEMON_INFO_BIND_PORT);
    f->port = info != NULL ? info->port : 0;
    if (f->port == 0) {
        rc = -EIO;
        goto out_stop;
    }
    *out = f;
    return 0;

out_stop:
    MHD_stop_daemon(f->daemon);
out_free:
    fake_free(f);
    return rc;
}

void fake_stop(struct fake_apiserver *f)
{
    if (f == NULL)
        return;
    pthread_mutex_lock(&f->lock);
    f->stopping = true;
    pthread_cond_broadcast(&f->cond);
    pthread_mutex_unlock(&f->lock);
    /* Streams see @stopping and end; MHD shuts the other sockets down and
     * joins every connection thread. */
    MHD_stop_daemon(f->daemon);
    f->daemon = NULL;
    fake_free(f);
}

int fake_port(const struct fake_apiserver *f)
{
    return f->port;
}

uint64_t fake_rv(struct fake_apiserver *f)
{
    pthread_mutex_lock(&f->lock);
    uint64_t rv = f->rv;
    pthread_mutex_unlock(&f->lock);
    return rv;
}

int fake_put(struct fake_apiserver *f, enum fake_kind kind, const char *json, uint64_t *rv)
{
    cJSON *obj = cJSON_Parse(json), *meta = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const char *name = string_at(obj, "metadata", "name"), *ns = "";
    struct object *o;
    int rc;

    if (!cJSON_IsObject(obj) || !cJSON_IsObject(meta) || name == NULL || name[0] == '\0') {
        cJSON_Delete(obj);
        return -EINVAL;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(obj, "kind");
    cJSON_DeleteItemFromObjectCaseSensitive(obj, "apiVersion");
    if (kind == FAKE_POD) {
        ns = string_at(obj, "metadata", "namespace");
        if (ns == NULL || ns[0] == '\0') {
            set_string(meta, "namespace", "default");
            ns = "default";
        }
    }

    pthread_mutex_lock(&f->lock);
    o = find(f, kind, ns, name);
    if (string_at(obj, "metadata", "uid") == NULL) {
        const char *old = o != NULL ? string_at(o->json, "metadata", "uid") : NULL;
        char uid[64];
        if (old != NULL)
            snprintf(uid, sizeof(uid), "%s", old);
        else
            snprintf(uid, sizeof(uid), "00000000-0000-4000-8000-%012u", ++f->uid_seq);
        set_string(meta, "uid", uid);
    }
    if (string_at(obj, "metadata", "creationTimestamp") == NULL) {
        const char *old = o != NULL ? string_at(o->json, "metadata", "creationTimestamp") : NULL;
        set_string(meta, "creationTimestamp", old != NULL ? old : "2026-12-02T15:00:00Z");
    }
    if (o == NULL && f->n_objs == f->cap_objs) {
        size_t cap = f->cap_objs == 0 ? 32 : f->cap_objs * 2;
        struct object *objs = realloc(f->objs, cap * sizeof(*objs));
        if (objs == NULL) {
            rc = -ENOMEM;
            goto out_unlock;
        }
        f->objs = objs;
        f->cap_objs = cap;
    }
    if (o == NULL) {
        struct object fresh = {.kind = kind, .ns = strdup(ns), .name = strdup(name)};
        if (fresh.ns == NULL || fresh.name == NULL) {
            free(fresh.ns);
            free(fresh.name);
            rc = -ENOMEM;
            goto out_unlock;
        }
        rc = record(f, kind, ns, obj, "ADDED", rv);
        if (rc != 0) {
            free(fresh.ns);
            free(fresh.name);
            goto out_unlock;
        }
        fresh.json = obj;
        fresh.hash = object_hash(kind, ns, name);
        f->objs[f->n_objs++] = fresh;
        if (2 * f->n_objs + 2 > f->n_buckets) {
            index_rebuild(f);
        } else {
            size_t b = fresh.hash & (f->n_buckets - 1);
            f->objs[f->n_objs - 1].next = f->buckets[b];
            f->buckets[b] = f->n_objs;
        }
    } else {
        rc = record(f, kind, ns, obj, "MODIFIED", rv);
        if (rc != 0)
            goto out_unlock;
        cJSON_Delete(o->json);
        o->json = obj;
    }
    obj = NULL; /* the store has it */

out_unlock:
    pthread_mutex_unlock(&f->lock);
    cJSON_Delete(obj);
    return rc;
}

int fake_delete(struct fake_apiserver *f, enum fake_kind kind, const char *ns, const char *name,
                uint64_t *rv)
{
    int rc = -ENOENT;
    if (kind == FAKE_NODE)
        ns = "";
    else if (ns == NULL)
        ns = "default";
    pthread_mutex_lock(&f->lock);
    struct object *o = find(f, kind, ns, name);
    if (o != NULL) {
        rc = record(f, kind, ns, o->json, "DELETED", rv);
        if (rc == 0) {
            free(o->ns);
            free(o->name);
            cJSON_Delete(o->json);
            *o = f->objs[--f->n_objs];
            index_rebuild(f); /* the last object moved */
        }
    }
    pthread_mutex_unlock(&f->lock);
    return rc;
}

char *fake_get(struct fake_apiserver *f, enum fake_kind kind, const char *ns, const char *name)
{
    char *text = NULL;
    if (kind == FAKE_NODE)
        ns = "";
    else if (ns == NULL)
        ns = "default";
    pthread_mutex_lock(&f->lock);
    struct object *o = find(f, kind, ns, name);
    if (o != NULL)
        text = print_with_kind(o->json, kind);
    pthread_mutex_unlock(&f->lock);
    return text;
}

char *fake_dump(struct fake_apiserver *f, enum fake_kind kind)
{
    struct sbuf b = {0};
    pthread_mutex_lock(&f->lock);
    struct snapshot *s = snapshot_take(f, kind, NULL, false);
    pthread_mutex_unlock(&f->lock);
    if (s == NULL)
        return NULL;
    sb_str(&b, "[");
    for (size_t i = 0; i < s->n; i++) {
        if (i > 0)
            sb_str(&b, ",");
        sb_str(&b, s->items[i]);
    }
    sb_str(&b, "]");
    snapshot_free(s);
    return sb_take(&b, NULL);
}

void fake_compact(struct fake_apiserver *f)
{
    pthread_mutex_lock(&f->lock);
    f->compact_rv = f->rv;
    for (size_t i = 0; i < f->n_log; i++) {
        free(f->log[i].ns);
        free(f->log[i].line);
    }
    f->n_log = 0;
    size_t kept = 0;
    for (size_t i = 0; i < f->n_snaps; i++) {
        if (f->snaps[i]->rv < f->compact_rv)
            snapshot_free(f->snaps[i]);
        else
            f->snaps[kept++] = f->snaps[i];
    }
    f->n_snaps = kept;
    pthread_cond_broadcast(&f->cond);
    pthread_mutex_unlock(&f->lock);
}

void fake_bookmark(struct fake_apiserver *f)
{
    pthread_mutex_lock(&f->lock);
    f->bookmark_gen++;
    pthread_cond_broadcast(&f->cond);
    pthread_mutex_unlock(&f->lock);
}

void fake_drop_watches(struct fake_apiserver *f, enum fake_drop how)
{
    pthread_mutex_lock(&f->lock);
    for (struct watch *w = f->watches; w != NULL; w = w->next) {
        if (how == FAKE_DROP_CLOSE) {
            w->drop = true;
        } else if (w->out != NULL && w->out_off < w->out_limit) {
            /* A line is on its way: cut that one. */
            size_t half = w->out_len / 2;
            w->out_limit = half > w->out_off ? half : w->out_off;
            if (w->out_limit == w->out_off)
                w->drop = true;
        } else {
            w->cut_armed = true;
        }
    }
    pthread_cond_broadcast(&f->cond);
    pthread_mutex_unlock(&f->lock);
}

void fake_set_gone_mode(struct fake_apiserver *f, enum fake_gone mode)
{
    pthread_mutex_lock(&f->lock);
    f->gone = mode;
    pthread_mutex_unlock(&f->lock);
}

void fake_set_token(struct fake_apiserver *f, const char *token)
{
    char *copy = token != NULL ? strdup(token) : NULL;
    pthread_mutex_lock(&f->lock);
    free(f->token);
    f->token = copy;
    pthread_mutex_unlock(&f->lock);
}

void fake_hang_bindings(struct fake_apiserver *f, bool hang)
{
    pthread_mutex_lock(&f->lock);
    f->hang_bindings = hang;
    pthread_cond_broadcast(&f->cond);
    pthread_mutex_unlock(&f->lock);
}

int fake_set_metrics_padding(struct fake_apiserver *f, size_t bytes)
{
    char *pad = NULL;
    if (bytes > 0) {
        pad = malloc(bytes + 1);
        if (pad == NULL)
            return -ENOMEM;
        memset(pad, 'x', bytes);
        pad[bytes] = '\0';
    }
    pthread_mutex_lock(&f->lock);
    free(f->metrics_pad);
    f->metrics_pad = pad;
    pthread_mutex_unlock(&f->lock);
    return 0;
}

void fake_ignore_limit(struct fake_apiserver *f, bool ignore)
{
    pthread_mutex_lock(&f->lock);
    f->ignore_limit = ignore;
    pthread_mutex_unlock(&f->lock);
}

void fake_fail_next(struct fake_apiserver *f, unsigned n, int status)
{
    pthread_mutex_lock(&f->lock);
    f->fail_n = n;
    f->fail_status = status;
    pthread_mutex_unlock(&f->lock);
}

int fake_set_node_metrics(struct fake_apiserver *f, const char *name, const char *cpu,
                          const char *memory)
{
    struct metric m;
    int rc = 0;
    size_t i;

    memset(&m, 0, sizeof(m));
    if (strlen(name) >= sizeof(m.name) || (cpu != NULL && strlen(cpu) >= sizeof(m.cpu)) ||
        (memory != NULL && strlen(memory) >= sizeof(m.memory)))
        return -EINVAL;
    snprintf(m.name, sizeof(m.name), "%s", name);
    snprintf(m.cpu, sizeof(m.cpu), "%s", cpu != NULL ? cpu : "");
    snprintf(m.memory, sizeof(m.memory), "%s", memory != NULL ? memory : "");
    pthread_mutex_lock(&f->lock);
    for (i = 0; i < f->n_metrics; i++)
        if (strcmp(f->metrics[i].name, name) == 0)
            break;
    if (cpu == NULL) {
        if (i < f->n_metrics)
            f->metrics[i] = f->metrics[--f->n_metrics];
    } else if (i < f->n_metrics) {
        f->metrics[i] = m;
    } else if (f->n_metrics < METRICS_MAX) {
        f->metrics[f->n_metrics++] = m;
    } else {
        rc = -ENOMEM;
    }
    pthread_mutex_unlock(&f->lock);
    return rc;
}

void fake_set_metrics_time(struct fake_apiserver *f, const char *timestamp, const char *window)
{
    pthread_mutex_lock(&f->lock);
    snprintf(f->timestamp, sizeof(f->timestamp), "%s", timestamp);
    snprintf(f->window, sizeof(f->window), "%s", window);
    pthread_mutex_unlock(&f->lock);
}

void fake_set_metrics_status(struct fake_apiserver *f, int status)
{
    pthread_mutex_lock(&f->lock);
    f->metrics_status = status;
    pthread_mutex_unlock(&f->lock);
}

void fake_counts(struct fake_apiserver *f, struct fake_counts *out)
{
    pthread_mutex_lock(&f->lock);
    *out = f->counts;
    pthread_mutex_unlock(&f->lock);
}

int fake_wait_open_watches(struct fake_apiserver *f, enum fake_kind kind, unsigned n,
                           int timeout_ms)
{
    struct timespec deadline = in_ms(timeout_ms);
    int rc = 0;
    pthread_mutex_lock(&f->lock);
    while (f->counts.open_watches[kind] < n && rc == 0)
        if (pthread_cond_timedwait(&f->cond, &f->lock, &deadline) == ETIMEDOUT)
            rc = f->counts.open_watches[kind] < n ? -ETIMEDOUT : 0;
    pthread_mutex_unlock(&f->lock);
    return rc;
}

char *fake_binding_body(struct fake_apiserver *f, unsigned i)
{
    char *copy = NULL;
    pthread_mutex_lock(&f->lock);
    if (i < f->n_bindings)
        copy = strdup(f->bindings[i]);
    pthread_mutex_unlock(&f->lock);
    return copy;
}

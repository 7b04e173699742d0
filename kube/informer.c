/*
 * List + watch on one thread (client-go's reflector, without its store):
 *
 *   list (paged) --ok--> watch from RV --ends--> watch from RV ...
 *        ^                   |  410 Gone (HTTP or ERROR event)
 *        +-------------------+
 *
 * Failures (transport, 5xx, 401/403, a malformed event) report
 * on_health(false) and retry the same step after a capped, jittered
 * exponential backoff. The thread parses with cJSON on plain malloc (it has
 * no arena attached), so trees are freed with cJSON_Delete.
 */
#include "base/heap.h"
#include "base/clock.h"
#include "base/err.h"
#include "base/log.h"
#include "kube/informer.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include <curl/curl.h>

#define INF_NAME_LEN      64
#define INF_RV_LEN        128  /* longest resourceVersion kept */
#define INF_CONTINUE_MAX  4096 /* longest continue token kept */
#define INF_LIST_RESTARTS 3    /* list restarts after an expired continue token */
#define INF_WHY_LEN       (ERR_LEN + 128)
#define INF_URL_LEN       (KUBE_PATH_LEN + 3 * INF_CONTINUE_MAX + 256)
#define INF_IDLE_EXTRA    30 /* seconds past timeoutSeconds before a watch is dead */

/* What a list page and a watch event may weigh. Its JSON tree costs
 * several times the text, and nothing else bounds what a server sends (one
 * that ignores limit= sends the whole list as one page): a page is taken
 * up to its limit's worth of objects of the largest size etcd stores (1.5
 * MiB of protobuf; as JSON up to about twice that), and never over
 * INF_PAGE_MAX; an event line up to one such object. A page over its bound
 * is refused and asked for again with half the limit. */
#define INF_OBJECT_MAX   (3u << 20)
#define INF_PAGE_MAX     (8u << 20)
#define INF_PAGE_FRAMING (64u << 10) /* kind, metadata, continue token */

/* What a watch line callback tells the watch loop (via kube_stream_bounded). */
enum inf_watch_end {
    INF_WATCH_GONE = 1, /* 410: the resourceVersion is too old, list again */
    INF_WATCH_BROKEN,   /* malformed or ERROR event: reconnect from the last good RV */
};

struct kube_informer {
    struct kube_client *c;
    struct kube_informer_params p; /* name and path point into the arrays below */
    char name[INF_NAME_LEN];
    char path[KUBE_PATH_LEN];
    struct kube_informer_ops ops;
    void *ctx;
    pthread_t thread;
    atomic_bool stop;
    pthread_mutex_t lock; /* with wake: the backoff sleep, so that stop is prompt */
    pthread_cond_t wake;
    /* Used by the informer thread only: */
    char rv[INF_RV_LEN];
    int health;   /* last reported: -1 none yet, 0 failing, 1 ok */
    int delay_ms; /* the next backoff */
    unsigned int seed;
    /* Written by the informer thread, read by any (kube_informer_get_counts). */
    atomic_ullong watch_restarts, relists, errors, pages_shrunk;
};

/* One watch connection. */
struct inf_watch {
    struct kube_informer *inf;
    unsigned long events;
    char why[INF_WHY_LEN];
};

static void report(struct kube_informer *inf, bool ok, const char *why)
{
    inf->health = ok ? 1 : 0;
    if (inf->ops.on_health != NULL)
        inf->ops.on_health(inf->ctx, ok, why);
}

static bool is_stopping(struct kube_informer *inf)
{
    return atomic_load(&inf->stop);
}

/* xorshift32: jitter needs spread, not quality, and no shared state. */
static unsigned int next_random(struct kube_informer *inf)
{
    unsigned int x = inf->seed;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    inf->seed = x;
    return x;
}

/* Sleeps the current backoff plus up to 50 % jitter, or until stopped,
 * then doubles the backoff up to its cap. */
static void backoff(struct kube_informer *inf)
{
    int d = inf->delay_ms;
    long ms = d + (long)(next_random(inf) % ((unsigned int)d / 2 + 1));
    inf->delay_ms = d > inf->p.backoff_max_ms / 2 ? inf->p.backoff_max_ms : d * 2;

    struct timespec until =
        clock_timespec_of(clock_add_ns(clock_mono_ns(), (uint64_t)ms * CLOCK_NS_PER_MS));
    pthread_mutex_lock(&inf->lock);
    while (!is_stopping(inf) && pthread_cond_timedwait(&inf->wake, &inf->lock, &until) == 0)
        ;
    pthread_mutex_unlock(&inf->lock);
}

static void backoff_reset(struct kube_informer *inf)
{
    inf->delay_ms = inf->p.backoff_initial_ms;
}

/* Appends @v to @url percent-encoded (RFC 3986 unreserved kept); it fits,
 * INF_URL_LEN bounds the path and the continue token. Should libcurl run
 * out of memory, nothing is appended: a list starts over, a watch starts
 * from the current state. */
static void append_escaped(char *url, size_t cap, const char *v)
{
    char *e = curl_easy_escape(NULL, v, 0);
    size_t l = strlen(url);
    snprintf(url + l, cap - l, "%s", e != NULL ? e : "");
    curl_free(e);
}

/* "HTTP 403: <Status message>" for a failed answer. */
static void status_why(char *why, size_t n, const char *what, const struct kube_informer *inf,
                       const struct kube_response *r)
{
    cJSON *root = r->body != NULL ? cJSON_ParseWithLength(r->body, r->len) : NULL;
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(root, "message");
    const char *msg = cJSON_IsString(m) ? m->valuestring : "";
    snprintf(why, n, "%s %s: HTTP %ld%s%.200s", what, inf->name, r->status, msg[0] ? ": " : "",
             msg);
    cJSON_Delete(root);
}

/* Copies a string member @key of @obj into @dst (@cap bytes); "" when
 * absent. Returns -EINVAL when it is not a string or too long. */
static int copy_member(const cJSON *obj, const char *key, char *dst, size_t cap)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    dst[0] = '\0';
    if (v == NULL || cJSON_IsNull(v))
        return 0;
    if (!cJSON_IsString(v) || strlen(v->valuestring) >= cap)
        return -EINVAL;
    memcpy(dst, v->valuestring, strlen(v->valuestring) + 1);
    return 0;
}

/* One page: delivers its items and stores its resourceVersion and continue
 * token. Takes the answer's body. */
static int list_page(struct kube_informer *inf, struct kube_response *r, char *cont, size_t *count,
                     char *why, size_t n)
{
    int rc = -EPROTO;
    cJSON *root = cJSON_ParseWithLength(r->body, r->len);
    free(r->body);
    r->body = NULL;
    /* A tree that is not an object has no members: all are NULL then. */
    const cJSON *items = cJSON_GetObjectItemCaseSensitive(root, "items");
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(root, "metadata");
    char rv[INF_RV_LEN];
    if (!cJSON_IsObject(root)) {
        snprintf(why, n, "list %s: answer is not a JSON object", inf->name);
    } else if ((!cJSON_IsArray(items) && !cJSON_IsNull(items) && items != NULL) ||
               !cJSON_IsObject(meta)) {
        snprintf(why, n, "list %s: answer has no items or metadata", inf->name);
    } else if (copy_member(meta, "resourceVersion", rv, sizeof(rv)) != 0 || rv[0] == '\0' ||
               copy_member(meta, "continue", cont, INF_CONTINUE_MAX) != 0) {
        snprintf(why, n, "list %s: bad metadata.resourceVersion or metadata.continue", inf->name);
    } else {
        const cJSON *item;
        cJSON_ArrayForEach(item, items)
        {
            if (!cJSON_IsObject(item))
                continue;
            inf->ops.on_object(inf->ctx, KUBE_ADDED, item);
            (*count)++;
        }
        memcpy(inf->rv, rv, sizeof(rv));
        rc = 0;
    }
    cJSON_Delete(root);
    return rc;
}

size_t kube_informer_page_bound(int limit)
{
    size_t objects = limit > 0 ? (size_t)limit : 1;
    if (objects > (INF_PAGE_MAX - INF_PAGE_FRAMING) / INF_OBJECT_MAX)
        return INF_PAGE_MAX;
    return objects * INF_OBJECT_MAX + INF_PAGE_FRAMING;
}

/* Lists every page, delivering the objects. Returns 0 (*@count objects),
 * -ECANCELED, or another negative errno with @why. */
static int list_all(struct kube_informer *inf, size_t *count, char *why, size_t n)
{
    char err[ERR_LEN];
    char cont[INF_CONTINUE_MAX] = "";
    char url[INF_URL_LEN];
    bool begun = false;
    int restarts = 0;
    int limit = inf->p.page_limit; /* halved for each page refused as too large */

    *count = 0;
    for (;;) {
        snprintf(url, sizeof(url), "%s%climit=%d%s", inf->path,
                 strchr(inf->path, '?') != NULL ? '&' : '?', limit,
                 cont[0] != '\0' ? "&continue=" : "");
        append_escaped(url, sizeof(url), cont);
        struct kube_response r;
        const struct kube_bounds b = {.body_max = kube_informer_page_bound(limit),
                                      .stop = &inf->stop};
        int rc = kube_get_bounded(inf->c, url, inf->p.request_timeout, &b, &r, err);
        if (rc == -E2BIG && limit > 1) {
            /* The same page again, fewer objects: a continue token does
             * not tie the next request to the last one's limit. */
            atomic_fetch_add(&inf->pages_shrunk, 1);
            LOG(LOG_WARN, "list page over its bound: asking for fewer objects",
                LOG_STR("resource", inf->name), LOG_INT("limit", limit),
                LOG_UINT("boundBytes", b.body_max), LOG_INT("nextLimit", limit / 2));
            limit /= 2;
            continue;
        }
        if (rc != 0) {
            snprintf(why, n, "list %s: %s", inf->name, err);
            return rc;
        }
        if (r.status == 410 && cont[0] != '\0' && restarts < INF_LIST_RESTARTS) {
            /* The continue token expired mid-list: start over. */
            free(r.body);
            cont[0] = '\0';
            restarts++;
            begun = false;
            *count = 0;
            continue;
        }
        if (r.status != 200) {
            status_why(why, n, "list", inf, &r);
            free(r.body);
            return r.status == 401 || r.status == 403 ? -EACCES : -EIO;
        }
        if (!begun && inf->ops.on_list_begin != NULL)
            inf->ops.on_list_begin(inf->ctx);
        begun = true;
        rc = list_page(inf, &r, cont, count, why, n);
        if (rc != 0)
            return rc;
        if (cont[0] == '\0')
            break;
        if (is_stopping(inf)) {
            snprintf(why, n, "list %s: stopped", inf->name);
            return -ECANCELED;
        }
    }
    if (inf->ops.on_list_end != NULL)
        inf->ops.on_list_end(inf->ctx);
    return 0;
}

static int on_line(void *vctx, char *line, size_t len)
{
    struct inf_watch *w = vctx;
    struct kube_informer *inf = w->inf;
    char rv[INF_RV_LEN];
    int rc = INF_WATCH_BROKEN;

    if (line == NULL) {
        /* The watch is open: working, even before its first event. */
        if (inf->health != 1)
            report(inf, true, "watching");
        return 0;
    }
    if (len == 0)
        return 0;
    cJSON *root = cJSON_ParseWithLength(line, len);
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(root, "type");
    const cJSON *obj = cJSON_GetObjectItemCaseSensitive(root, "object");
    if (!cJSON_IsString(type) || !cJSON_IsObject(obj)) {
        snprintf(w->why, sizeof(w->why), "watch %s: malformed event: %.100s", inf->name, line);
        goto out_delete;
    }
    const char *t = type->valuestring;
    if (strcmp(t, "ERROR") == 0) {
        /* A Status: 410 Gone when our resourceVersion was compacted away. */
        const cJSON *code = cJSON_GetObjectItemCaseSensitive(obj, "code");
        const cJSON *msg = cJSON_GetObjectItemCaseSensitive(obj, "message");
        if (cJSON_IsNumber(code) && code->valuedouble == 410) {
            rc = INF_WATCH_GONE;
            goto out_delete;
        }
        snprintf(w->why, sizeof(w->why), "watch %s: ERROR event: %.0f %.200s", inf->name,
                 cJSON_IsNumber(code) ? code->valuedouble : 0.0,
                 cJSON_IsString(msg) ? msg->valuestring : "");
        goto out_delete;
    }
    /* In enum kube_event's order; then the bookmark, which is no event. */
    static const char *const types[] = {"ADDED", "MODIFIED", "DELETED", "BOOKMARK"};
    const size_t n_types = sizeof(types) / sizeof(types[0]);
    size_t ev = 0;
    while (ev < n_types && strcmp(t, types[ev]) != 0)
        ev++;
    bool bookmark = ev == n_types - 1;
    if (ev == n_types) {
        snprintf(w->why, sizeof(w->why), "watch %s: unknown event type \"%.32s\"", inf->name, t);
        goto out_delete;
    }
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    if (copy_member(meta, "resourceVersion", rv, sizeof(rv)) != 0) {
        snprintf(w->why, sizeof(w->why), "watch %s: bad metadata.resourceVersion", inf->name);
        goto out_delete;
    }
    if (!bookmark)
        inf->ops.on_object(inf->ctx, (enum kube_event)ev, obj);
    /* The next watch resumes after this event. */
    if (rv[0] != '\0')
        memcpy(inf->rv, rv, sizeof(rv));
    w->events++;
    if (inf->health != 1)
        report(inf, true, "watching");
    rc = 0;

out_delete:
    cJSON_Delete(root);
    return rc;
}

/* One watch from inf->rv. Returns 0 when the server ended it (normally at
 * timeoutSeconds), INF_WATCH_GONE, -ECANCELED, or another value with
 * w->why for a failure. */
static int watch_once(struct kube_informer *inf, struct inf_watch *w)
{
    char err[ERR_LEN];
    char url[INF_URL_LEN];
    struct kube_response r;

    snprintf(url, sizeof(url), "%s%cwatch=1&allowWatchBookmarks=true&resourceVersion=", inf->path,
             strchr(inf->path, '?') != NULL ? '&' : '?');
    append_escaped(url, sizeof(url), inf->rv);
    size_t l = strlen(url);
    snprintf(url + l, sizeof(url) - l, "&timeoutSeconds=%d", inf->p.watch_seconds);

    const struct kube_bounds b = {.line_max = INF_OBJECT_MAX + INF_PAGE_FRAMING,
                                  .stop = &inf->stop};
    int rc = kube_stream_bounded(inf->c, url, inf->p.watch_seconds + INF_IDLE_EXTRA, &b, on_line, w,
                                 &r, err);
    if (rc == INF_WATCH_GONE || rc == INF_WATCH_BROKEN || rc == -ECANCELED)
        return rc;
    if (rc != 0) {
        snprintf(w->why, sizeof(w->why), "watch %s: %s", inf->name, err);
        return rc;
    }
    if (r.status == 410) {
        free(r.body);
        return INF_WATCH_GONE;
    }
    if (r.status < 200 || r.status > 299) {
        status_why(w->why, sizeof(w->why), "watch", inf, &r);
        free(r.body);
        return -EIO;
    }
    return 0;
}

static void *run(void *arg)
{
    struct kube_informer *inf = arg;
    char why[INF_WHY_LEN];
    bool need_list = true;
    bool watched = false; /* a watch ran since the last list: the next one resumes */
    int gone = 0;         /* 410s since the last working watch */

    while (!is_stopping(inf)) {
        if (need_list) {
            size_t count;
            int rc = list_all(inf, &count, why, sizeof(why));
            /* The pages' trees are freed; give their pages back, or the
             * peak of a list stays the process's size (glibc keeps freed
             * heap for reuse, per thread arena). */
            heap_trim();
            if (rc == -ECANCELED || is_stopping(inf))
                break;
            if (rc != 0) {
                atomic_fetch_add(&inf->errors, 1);
                report(inf, false, why);
                backoff(inf);
                continue;
            }
            need_list = false;
            watched = false;
            backoff_reset(inf);
            snprintf(why, sizeof(why), "listed %zu %s", count, inf->name);
            report(inf, true, why);
            continue;
        }

        struct inf_watch w = {.inf = inf};
        uint64_t started = clock_mono_ns();
        if (watched)
            atomic_fetch_add(&inf->watch_restarts, 1);
        watched = true;
        int rc = watch_once(inf, &w);
        if (rc == -ECANCELED || is_stopping(inf))
            break;
        if (w.events > 0)
            gone = 0;
        if (rc == INF_WATCH_GONE) {
            atomic_fetch_add(&inf->relists, 1);
            need_list = true;
            /* The first 410 relists at once; repeated ones back off. */
            if (gone++ > 0)
                backoff(inf);
            continue;
        }
        if (rc != 0) {
            atomic_fetch_add(&inf->errors, 1);
            report(inf, false, w.why);
            backoff(inf);
            continue;
        }
        /* Ended by the server: resume at once, unless it ends watches
         * straight away (a proxy answering 200 with nothing), which would
         * spin. */
        if (w.events == 0 && clock_mono_ns() - started < CLOCK_NS_PER_SEC) {
            backoff(inf);
            continue;
        }
        backoff_reset(inf);
        if (inf->health != 1)
            report(inf, true, "watching");
    }
    return NULL;
}

int kube_informer_start(struct kube_client *c, const struct kube_informer_params *p,
                        const struct kube_informer_ops *ops, void *ctx, struct kube_informer **out,
                        char *err)
{
    *out = NULL;
    const char *name = p->name != NULL ? p->name : "objects";
    if (p->path == NULL || p->path[0] != '/' || strlen(p->path) >= KUBE_PATH_LEN - 512 ||
        p->page_limit < 1 || p->watch_seconds < 1 || p->request_timeout < 1 ||
        p->backoff_initial_ms < 1 || p->backoff_max_ms < p->backoff_initial_ms ||
        ops->on_object == NULL)
        return err_fail(err, -EINVAL, "informer %s: invalid parameters", name);
    struct kube_informer *inf = calloc(1, sizeof(*inf));
    if (inf == NULL)
        return err_fail(err, -ENOMEM, "informer %s: out of memory", name);
    inf->c = c;
    inf->p = *p;
    snprintf(inf->name, sizeof(inf->name), "%s", name);
    snprintf(inf->path, sizeof(inf->path), "%s", p->path);
    inf->p.name = inf->name;
    inf->p.path = inf->path;
    inf->ops = *ops;
    inf->ctx = ctx;
    inf->health = -1;
    atomic_init(&inf->stop, false);
    atomic_init(&inf->watch_restarts, 0);
    atomic_init(&inf->relists, 0);
    atomic_init(&inf->pages_shrunk, 0);
    atomic_init(&inf->errors, 0);
    backoff_reset(inf);
    if (getrandom(&inf->seed, sizeof(inf->seed), GRND_NONBLOCK) != (ssize_t)sizeof(inf->seed))
        inf->seed = (unsigned int)clock_mono_ns() ^ (unsigned int)(uintptr_t)inf;
    if (inf->seed == 0)
        inf->seed = 1; /* xorshift's one fixed point */

    int rc = -clock_cond_init(&inf->wake);
    if (rc != 0)
        goto out_free;
    rc = pthread_mutex_init(&inf->lock, NULL);
    if (rc != 0)
        goto out_destroy_cond;
    rc = pthread_create(&inf->thread, NULL, run, inf);
    if (rc != 0)
        goto out_destroy_lock;
    *out = inf;
    return 0;

out_destroy_lock:
    pthread_mutex_destroy(&inf->lock);
out_destroy_cond:
    pthread_cond_destroy(&inf->wake);
out_free:
    free(inf);
    return err_fail(err, -rc, "informer %s: %s", name, strerror(rc));
}

void kube_informer_get_counts(const struct kube_informer *inf, struct kube_informer_counts *out)
{
    out->watch_restarts = atomic_load(&inf->watch_restarts);
    out->relists = atomic_load(&inf->relists);
    out->errors = atomic_load(&inf->errors);
    out->pages_shrunk = atomic_load(&inf->pages_shrunk);
}

void kube_informer_stop(struct kube_informer *inf)
{
    if (inf == NULL)
        return;
    /* Under the lock, so the backoff sleep cannot miss the wake-up. */
    pthread_mutex_lock(&inf->lock);
    atomic_store(&inf->stop, true);
    pthread_cond_broadcast(&inf->wake);
    pthread_mutex_unlock(&inf->lock);
    pthread_join(inf->thread, NULL);
    pthread_mutex_destroy(&inf->lock);
    pthread_cond_destroy(&inf->wake);
    free(inf);
}

#include "server/cluster.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "config/live.h"
#include "kube/informer.h"
#include "server/arena.h"
#include "server/codec.h"
#include "server/log.h"

#define WHY_LEN 256

/* What one informer last said, for /readyz. */
struct feed {
    const char *name; /* "nodes" or "pods" */
    struct srv_cluster *cl;
    bool listed; /* a full list has been applied */
    char why[WHY_LEN];
};

struct srv_cluster {
    struct kube_client *client;
    struct kube_state *state;
    struct cfg_live live;
    struct kube_informer *nodes_inf, *pods_inf;
    struct feed nodes, pods;
    pthread_mutex_t lock; /* guards the feeds' listed and why, and metrics_why */
    char metrics_why[WHY_LEN];
    bool metrics_polled; /* a poll has finished, well or not */
    pthread_t metrics_thread;
    bool metrics_started;
    pthread_mutex_t stop_lock;
    pthread_cond_t stop_cond;
    atomic_bool stop;
    atomic_ullong unknown_nodes;
};

double srv_cluster_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct kube_state *srv_cluster_state(struct srv_cluster *cl)
{
    return cl->state;
}

void srv_cluster_count_unknown(struct srv_cluster *cl, const char *node)
{
    unsigned long long n = atomic_fetch_add(&cl->unknown_nodes, 1) + 1;
    /* Every time at debug; at info the first ten and then every 1000th, so
     * a misconfigured cluster is visible without flooding the log. */
    enum cfg_log_level level = n <= 10 || n % 1000 == 0 ? CFG_LOG_INFO : CFG_LOG_DEBUG;
    char clean[256]; /* the name comes from a request */
    log_msg(level, "node not in cluster state: passed with score 0", "node=\"%s\" total=%llu",
            log_clean(clean, sizeof(clean), node), n);
}

unsigned long long srv_cluster_unknown_total(struct srv_cluster *cl)
{
    return atomic_load(&cl->unknown_nodes);
}

/* ---- informer callbacks (one informer thread each) ---- */

int srv_cluster_apply_node(struct kube_state *st, const struct cfg *c, enum kube_event ev,
                           const cJSON *obj)
{
    char err[CODEC_ERR_LEN];
    struct codec_node n;
    int rc = -ENOMEM;
    struct arena *a = arena_acquire(); /* the decoder allocates with cJSON_malloc */

    if (a == NULL) {
        log_msg(CFG_LOG_ERROR, "node event dropped: out of memory", "event=%d", (int)ev);
        return rc;
    }
    /* srv_decode_node only reads the object; its pointer is not const
     * because request nodes keep it for the answer. */
    rc = srv_decode_node((cJSON *)(uintptr_t)obj, c, &n, err);
    if (rc != 0) {
        log_msg(CFG_LOG_WARN, "node from the API server ignored", "error=\"%s\"", err);
        goto out_release_arena;
    }
    if (ev == KUBE_DELETED) {
        kube_state_node_delete(st, n.name);
        goto out_release_arena;
    }
    struct kube_node_info info = {.name = n.name, .invalid = n.invalid};
    memcpy(info.alloc, n.res.alloc, sizeof(info.alloc));
    memcpy(info.annotation, n.res.used, sizeof(info.annotation));
    rc = kube_state_node_put(st, &info);
    if (rc != 0)
        log_msg(CFG_LOG_ERROR, "node event dropped: out of memory", "node=%s", n.name);
out_release_arena:
    arena_release(a);
    return rc;
}

int srv_cluster_apply_pod(struct kube_state *st, enum kube_event ev, const cJSON *obj, double now)
{
    char err[CODEC_ERR_LEN];
    struct codec_pod p;
    struct arena *a = arena_acquire();

    if (a == NULL) {
        log_msg(CFG_LOG_ERROR, "pod event dropped: out of memory", "event=%d", (int)ev);
        return -ENOMEM;
    }
    int rc = srv_decode_pod(obj, &p, err);
    if (rc == 0 && p.uid[0] == '\0') {
        snprintf(err, sizeof(err), "no metadata.uid");
        rc = -EINVAL;
    }
    if (rc != 0) {
        /* The API server validates pods, so this is a bug somewhere: say
         * so and forget the pod rather than charge a guess. */
        log_msg(CFG_LOG_WARN, "pod from the API server ignored", "pod=%s/%s error=\"%s\"",
                p.ns != NULL ? p.ns : "", p.name != NULL ? p.name : "", err);
        if (p.uid != NULL && p.uid[0] != '\0')
            kube_state_pod_delete(st, p.uid);
        goto out_release_arena;
    }
    if (ev == KUBE_DELETED) {
        kube_state_pod_delete(st, p.uid);
        goto out_release_arena;
    }
    struct kube_pod_info info = {
        .uid = p.uid,
        .node = p.node_name,
        .terminal = strcmp(p.phase, "Succeeded") == 0 || strcmp(p.phase, "Failed") == 0,
    };
    memcpy(info.real, p.request.real, sizeof(info.real));
    memcpy(info.non_zero, p.request.non_zero, sizeof(info.non_zero));
    rc = kube_state_pod_put(st, &info, now);
    if (rc != 0)
        log_msg(CFG_LOG_ERROR, "pod event dropped: out of memory", "pod=%s/%s", p.ns, p.name);
out_release_arena:
    arena_release(a);
    return rc;
}

static void on_object(void *ctx, enum kube_event ev, const cJSON *obj)
{
    struct feed *f = ctx;
    if (f == &f->cl->nodes) {
        const struct cfg *c = cfg_live_acquire(&f->cl->live);
        srv_cluster_apply_node(f->cl->state, c, ev, obj);
        cfg_live_release(c);
    } else {
        srv_cluster_apply_pod(f->cl->state, ev, obj, srv_cluster_now());
    }
}

static void on_list_begin(void *ctx)
{
    struct feed *f = ctx;
    if (f == &f->cl->nodes)
        kube_state_nodes_begin(f->cl->state);
    else
        kube_state_pods_begin(f->cl->state);
}

static void on_list_end(void *ctx)
{
    struct feed *f = ctx;
    size_t nodes, pods;
    bool first;

    if (f == &f->cl->nodes)
        kube_state_nodes_end(f->cl->state);
    else
        kube_state_pods_end(f->cl->state);
    pthread_mutex_lock(&f->cl->lock);
    first = !f->listed;
    f->listed = true;
    f->why[0] = '\0';
    pthread_mutex_unlock(&f->cl->lock);
    kube_state_counts(f->cl->state, &nodes, &pods);
    log_msg(first ? CFG_LOG_INFO : CFG_LOG_DEBUG, "cluster list applied",
            "resource=%s nodes=%zu pods=%zu", f->name, nodes, pods);
}

static void on_health(void *ctx, bool ok, const char *why)
{
    struct feed *f = ctx;
    bool changed;

    pthread_mutex_lock(&f->cl->lock);
    changed = strcmp(f->why, ok ? "" : why) != 0;
    snprintf(f->why, sizeof(f->why), "%s", ok ? "" : why);
    pthread_mutex_unlock(&f->cl->lock);
    if (f == &f->cl->pods)
        kube_state_pods_health(f->cl->state, ok, srv_cluster_now());
    if (changed && !ok) {
        char text[WHY_LEN];
        snprintf(text, sizeof(text), "%s", why);
        log_unquote(text);
        log_msg(CFG_LOG_WARN, "cluster watch failing, retrying", "resource=%s error=\"%s\"",
                f->name, text);
    } else if (changed)
        log_msg(CFG_LOG_INFO, "cluster watch recovered", "resource=%s", f->name);
}

static const struct kube_informer_ops informer_ops = {
    .on_list_begin = on_list_begin,
    .on_list_end = on_list_end,
    .on_object = on_object,
    .on_health = on_health,
};

/* ---- metrics.k8s.io ---- */

/* Parses RFC 3339 "2026-12-02T16:00:00Z" with optional fraction; returns
 * 0 or -EINVAL. */
static int parse_time(const char *s, double *out)
{
    struct tm tm;
    memset(&tm, 0, sizeof(tm));
    const char *rest = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
    double frac = 0;
    if (rest == NULL)
        return -EINVAL;
    if (*rest == '.') {
        double scale = 0.1;
        for (rest++; *rest >= '0' && *rest <= '9'; rest++, scale /= 10)
            frac += (*rest - '0') * scale;
    }
    if (strcmp(rest, "Z") != 0)
        return -EINVAL;
    time_t t = timegm(&tm);
    if (t == (time_t)-1)
        return -EINVAL;
    *out = (double)t + frac;
    return 0;
}

/* Parses a Go duration ("20s", "1m0.5s", "500ms") into seconds. */
static int parse_duration(const char *s, double *out)
{
    double total = 0;
    if (*s == '\0')
        return -EINVAL;
    while (*s != '\0') {
        char *end;
        double v = strtod(s, &end);
        if (end == s || v < 0)
            return -EINVAL;
        s = end;
        static const struct {
            const char *unit;
            double seconds;
        } units[] = {{"ns", 1e-9}, {"us", 1e-6}, {"\xc2\xb5s", 1e-6}, {"ms", 1e-3},
                     {"s", 1},     {"m", 60},    {"h", 3600}};
        size_t i;
        for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
            size_t n = strlen(units[i].unit);
            /* "m" must not take the "m" of "ms": longer units come first. */
            if (strncmp(s, units[i].unit, n) == 0) {
                total += v * units[i].seconds;
                s += n;
                break;
            }
        }
        if (i == sizeof(units) / sizeof(units[0]))
            return -EINVAL;
    }
    *out = total;
    return 0;
}

/* Applies one NodeMetricsList; returns the number of samples stored, or
 * -EINVAL with @err. */
static int apply_metrics(struct srv_cluster *cl, const char *body, size_t len,
                         char err[KUBE_ERR_LEN])
{
    char why[CODEC_ERR_LEN];
    int stored = 0;
    cJSON *root = cJSON_ParseWithLength(body, len);
    const cJSON *items = srv_json_member(root, "items"), *item;

    if (!cJSON_IsArray(items)) {
        snprintf(err, KUBE_ERR_LEN, "metrics.k8s.io answer without an items array");
        cJSON_Delete(root);
        return -EINVAL;
    }
    cJSON_ArrayForEach(item, items)
    {
        const cJSON *name = srv_json_member(srv_json_member(item, "metadata"), "name");
        const cJSON *ts = srv_json_member(item, "timestamp");
        const cJSON *window = srv_json_member(item, "window");
        int64_t usage[SCORE_NRES];
        double t, w = 0;
        if (!cJSON_IsString(name) || !cJSON_IsString(ts) || parse_time(ts->valuestring, &t) != 0 ||
            (cJSON_IsString(window) && parse_duration(window->valuestring, &w) != 0) ||
            srv_decode_quantities(srv_json_member(item, "usage"), usage, why) != 0) {
            log_msg(CFG_LOG_DEBUG, "node metrics sample ignored", "node=%s",
                    cJSON_IsString(name) ? name->valuestring : "?");
            continue;
        }
        if (kube_state_usage_put(cl->state, name->valuestring, usage, t, w) == 0)
            stored++;
    }
    cJSON_Delete(root);
    return stored;
}

static bool metrics_needed(const struct cfg *c)
{
    for (int r = 0; r < SCORE_NRES; r++)
        if (c->used_source[r] == SCORE_USED_USAGE || c->used_source[r] == SCORE_USED_MAX)
            return true;
    return false;
}

static void poll_metrics(struct srv_cluster *cl)
{
    char err[KUBE_ERR_LEN] = "";
    char why[WHY_LEN] = "";
    struct kube_response r = {0};
    int rc = kube_get(cl->client, "/apis/metrics.k8s.io/v1beta1/nodes", 30, &r, err);

    if (rc != 0)
        snprintf(why, sizeof(why), "%.250s", err);
    else if (r.status != 200)
        snprintf(why, sizeof(why), "metrics.k8s.io answered %ld (is metrics-server installed?)",
                 r.status);
    else if (apply_metrics(cl, r.body, r.len, err) < 0)
        snprintf(why, sizeof(why), "%.250s", err);
    free(r.body);
    pthread_mutex_lock(&cl->lock);
    bool changed = strcmp(why, cl->metrics_why) != 0;
    snprintf(cl->metrics_why, sizeof(cl->metrics_why), "%s", why);
    cl->metrics_polled = true;
    pthread_mutex_unlock(&cl->lock);
    if (changed && why[0] != '\0') {
        log_unquote(why); /* after the copy above, which compares the original */
        log_msg(CFG_LOG_WARN, "node metrics unavailable, usage goes stale", "error=\"%s\"", why);
    } else if (changed) {
        log_msg(CFG_LOG_INFO, "node metrics available", "source=metrics.k8s.io/v1beta1");
    }
}

static void *metrics_main(void *arg)
{
    struct srv_cluster *cl = arg;
    while (!atomic_load(&cl->stop)) {
        const struct cfg *c = cfg_live_acquire(&cl->live);
        bool needed = metrics_needed(c);
        int interval = c->metrics_interval_seconds;
        cfg_live_release(c);
        if (needed)
            poll_metrics(cl);
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += needed ? interval : 1;
        pthread_mutex_lock(&cl->stop_lock);
        while (!atomic_load(&cl->stop) &&
               pthread_cond_timedwait(&cl->stop_cond, &cl->stop_lock, &until) == 0)
            ;
        pthread_mutex_unlock(&cl->stop_lock);
    }
    return NULL;
}

/* ---- life cycle ---- */

static int start_informer(struct srv_cluster *cl, struct feed *f, const char *path,
                          struct kube_informer **out, char err[KUBE_ERR_LEN])
{
    struct kube_informer_params p = {
        .name = f->name,
        .path = path,
        .page_limit = 500,
        .watch_seconds = 300,
        .request_timeout = 60,
        .backoff_initial_ms = 200,
        .backoff_max_ms = 30000,
    };
    return kube_informer_start(cl->client, &p, &informer_ops, f, out, err);
}

/* Frees what srv_cluster_start made before its threads and live config. */
static void free_cluster(struct srv_cluster *cl)
{
    kube_state_free(cl->state);
    kube_client_free(cl->client);
    pthread_cond_destroy(&cl->stop_cond);
    pthread_mutex_destroy(&cl->stop_lock);
    pthread_mutex_destroy(&cl->lock);
    free(cl);
}

int srv_cluster_start(const struct cfg *c, char **envp, const char *incluster_dir,
                      bool home_fallback, struct srv_cluster **out, char err[KUBE_ERR_LEN])
{
    struct kube_target t = {0};
    struct srv_cluster *cl;
    int rc;

    *out = NULL;
    rc = kube_resolve_target(c->kubeconfig, envp, incluster_dir, home_fallback, &t, err);
    if (rc == -ENOENT)
        return 0;
    if (rc != 0)
        return rc;
    rc = -ENOMEM;
    cl = calloc(1, sizeof(*cl));
    if (cl == NULL) {
        snprintf(err, KUBE_ERR_LEN, "out of memory");
        goto out_destroy_target;
    }
    pthread_mutex_init(&cl->lock, NULL);
    pthread_mutex_init(&cl->stop_lock, NULL);
    pthread_cond_init(&cl->stop_cond, NULL);
    cl->nodes = (struct feed){.name = "nodes", .cl = cl, .why = "waiting for the first list"};
    cl->pods = (struct feed){.name = "pods", .cl = cl, .why = "waiting for the first list"};
    if (t.insecure_skip_tls_verify)
        log_msg(CFG_LOG_WARN, "insecure-skip-tls-verify is set: the API server is NOT verified",
                "server=%s source=\"%s\"", t.server, t.source);
    rc = kube_client_new(&t, &cl->client, err);
    if (rc != 0)
        goto out_free;
    cl->state = kube_state_new();
    if (cl->state == NULL || cfg_live_init(&cl->live, c) != 0) {
        rc = -ENOMEM;
        snprintf(err, KUBE_ERR_LEN, "out of memory");
        goto out_free;
    }
    rc = start_informer(cl, &cl->nodes, "/api/v1/nodes", &cl->nodes_inf, err);
    if (rc == 0)
        rc = start_informer(cl, &cl->pods, "/api/v1/pods", &cl->pods_inf, err);
    if (rc == 0 && pthread_create(&cl->metrics_thread, NULL, metrics_main, cl) != 0) {
        rc = -EAGAIN;
        snprintf(err, KUBE_ERR_LEN, "cannot start the metrics thread");
    }
    if (rc != 0) {
        srv_cluster_stop(cl);
        goto out_destroy_target;
    }
    cl->metrics_started = true;
    log_msg(CFG_LOG_INFO, "watching the cluster", "server=%s source=\"%s\"", t.server, t.source);
    *out = cl;
    kube_target_destroy(&t);
    return 0;

out_free:
    free_cluster(cl);
out_destroy_target:
    kube_target_destroy(&t);
    return rc;
}

int srv_cluster_reload(struct srv_cluster *cl, const struct cfg *next)
{
    return cfg_live_swap(&cl->live, next);
}

void srv_cluster_stop(struct srv_cluster *cl)
{
    if (cl == NULL)
        return;
    pthread_mutex_lock(&cl->stop_lock);
    atomic_store(&cl->stop, true);
    pthread_cond_broadcast(&cl->stop_cond);
    pthread_mutex_unlock(&cl->stop_lock);
    if (cl->metrics_started)
        pthread_join(cl->metrics_thread, NULL);
    kube_informer_stop(cl->pods_inf);
    kube_informer_stop(cl->nodes_inf);
    cfg_live_destroy(&cl->live);
    free_cluster(cl);
}

bool srv_cluster_is_ready(struct srv_cluster *cl, char *why, size_t n)
{
    bool ready;
    pthread_mutex_lock(&cl->lock);
    ready = cl->nodes.listed && cl->pods.listed;
    if (!ready)
        snprintf(why, n, "cluster state incomplete: nodes: %s; pods: %s",
                 cl->nodes.listed ? "listed" : cl->nodes.why,
                 cl->pods.listed ? "listed" : cl->pods.why);
    else
        snprintf(why, n, "serving from cluster state");
    pthread_mutex_unlock(&cl->lock);
    return ready;
}

int srv_cluster_wait(struct srv_cluster *cl, int seconds, char err[KUBE_ERR_LEN])
{
    const struct cfg *c = cfg_live_acquire(&cl->live);
    bool need_metrics = metrics_needed(c);
    cfg_live_release(c);
    for (int i = 0; i < seconds * 10; i++) {
        pthread_mutex_lock(&cl->lock);
        bool done = cl->nodes.listed && cl->pods.listed && (!need_metrics || cl->metrics_polled);
        pthread_mutex_unlock(&cl->lock);
        if (done)
            return 0;
        struct timespec tenth = {0, 100 * 1000 * 1000};
        nanosleep(&tenth, NULL);
    }
    char why[WHY_LEN * 3];
    if (srv_cluster_is_ready(cl, why, sizeof(why)))
        snprintf(why, sizeof(why), "no metrics poll finished");
    snprintf(err, KUBE_ERR_LEN, "after %d s: %.400s", seconds, why);
    return -ETIMEDOUT;
}

/* ---- bind ---- */

/* The message of a Status answer, or the HTTP status alone. */
static void status_message(const struct kube_response *r, char *out, size_t n)
{
    cJSON *root = cJSON_ParseWithLength(r->body != NULL ? r->body : "", r->len);
    const cJSON *msg = srv_json_member(root, "message");
    if (cJSON_IsString(msg))
        snprintf(out, n, "API server answered %ld: %s", r->status, msg->valuestring);
    else
        snprintf(out, n, "API server answered %ld", r->status);
    cJSON_Delete(root);
}

/* After a 409: is the pod bound to @node already? */
static bool is_bound_to(struct srv_cluster *cl, const char *path, const char *node)
{
    char err[KUBE_ERR_LEN];
    struct kube_response r = {0};
    bool bound = false;
    if (kube_get(cl->client, path, 10, &r, err) == 0 && r.status == 200) {
        cJSON *root = cJSON_ParseWithLength(r.body, r.len);
        const cJSON *name = srv_json_member(srv_json_member(root, "spec"), "nodeName");
        bound = cJSON_IsString(name) && strcmp(name->valuestring, node) == 0;
        cJSON_Delete(root);
    }
    free(r.body);
    return bound;
}

int srv_cluster_bind(struct srv_cluster *cl, const char *ns, const char *name, const char *uid,
                     const char *node, char err[KUBE_ERR_LEN])
{
    char path[KUBE_PATH_LEN];
    struct kube_response r = {0};
    int rc = -ENOMEM;

    cJSON *b = cJSON_CreateObject();
    cJSON *meta = cJSON_AddObjectToObject(b, "metadata");
    cJSON *target = cJSON_AddObjectToObject(b, "target");
    cJSON_AddStringToObject(b, "apiVersion", "v1");
    cJSON_AddStringToObject(b, "kind", "Binding");
    cJSON_AddStringToObject(meta, "name", name);
    cJSON_AddStringToObject(meta, "namespace", ns);
    if (uid[0] != '\0')
        cJSON_AddStringToObject(meta, "uid", uid);
    cJSON_AddStringToObject(target, "apiVersion", "v1");
    cJSON_AddStringToObject(target, "kind", "Node");
    cJSON_AddStringToObject(target, "name", node);
    char *body = cJSON_PrintUnformatted(b); /* from the request arena: cJSON_free */
    cJSON_Delete(b);
    if (body == NULL) {
        snprintf(err, KUBE_ERR_LEN, "out of memory");
        return rc;
    }
    /* Names are validated DNS names; the caller has checked that they hold
     * no '/', '?' or '%' that could change the path. */
    snprintf(path, sizeof(path), "/api/v1/namespaces/%s/pods/%s/binding", ns, name);
    rc = kube_post(cl->client, path, body, strlen(body), 30, &r, err);
    cJSON_free(body);
    if (rc != 0)
        goto out_free;
    if (r.status == 200 || r.status == 201) {
        if (uid[0] != '\0')
            kube_state_placed(cl->state, node, uid, srv_cluster_now());
        goto out_free;
    }
    path[strlen(path) - strlen("/binding")] = '\0';
    if (r.status == 409 && is_bound_to(cl, path, node)) {
        log_msg(CFG_LOG_INFO, "pod already bound to the node: success", "pod=%s/%s node=%s", ns,
                name, node);
        goto out_free;
    }
    status_message(&r, err, KUBE_ERR_LEN);
    rc = -EPROTO;
out_free:
    free(r.body);
    return rc;
}

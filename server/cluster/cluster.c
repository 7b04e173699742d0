#include "server/cluster/cluster.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "base/log.h"
#include "config/live.h"
#include "kube/discover.h"
#include "kube/informer.h"
#include "server/cluster/feeds.h"
#include "server/cluster/usage.h"

/* What one informer last said, for /readyz. */
struct feed {
    const char *name; /* "nodes" or "pods" */
    struct cluster *cl;
    bool listed; /* a full list has been applied */
    char why[ERR_LEN];
};

struct cluster {
    struct kube_client *client;
    struct kube_state *state;
    struct cfg_live live;
    struct kube_informer *nodes_inf, *pods_inf;
    struct cluster_usage *usage;
    struct feed nodes, pods;
    pthread_mutex_t lock; /* guards the feeds' listed and why */
    atomic_ullong unknown_nodes;
    /* Held by the pod informer while it applies an object, so that a hook
     * being replaced is not running when cluster_on_bound() returns. */
    pthread_mutex_t hook_lock;
    struct cluster_bound_hook bound; /* fn NULL: none */
};

struct kube_state *cluster_state(struct cluster *cl)
{
    return cl->state;
}

struct kube_client *cluster_client(struct cluster *cl)
{
    return cl->client;
}

void cluster_count_unknown(struct cluster *cl, const char *node)
{
    unsigned long long n = atomic_fetch_add(&cl->unknown_nodes, 1) + 1;
    /* Every time at debug; at info the first ten and then every 1000th, so
     * a misconfigured cluster is visible without flooding the log. */
    enum log_level level = n <= 10 || n % 1000 == 0 ? LOG_INFO : LOG_DEBUG;
    LOG(level, "node not in cluster state: passed with score 0", LOG_STR("node", node),
        LOG_UINT("total", n));
}

unsigned long long cluster_unknown_total(struct cluster *cl)
{
    return atomic_load(&cl->unknown_nodes);
}

void cluster_counts(struct cluster *cl, struct cluster_counts *out)
{
    kube_informer_get_counts(cl->nodes_inf, &out->nodes);
    kube_informer_get_counts(cl->pods_inf, &out->pods);
    const struct cfg *c = cfg_live_acquire(&cl->live);
    out->usage_polled = cluster_usage_needed(c);
    cfg_live_release(c);
    cluster_usage_counts(cl->usage, &out->usage_errors, &out->usage_newest);
}

void cluster_on_bound(struct cluster *cl, const struct cluster_bound_hook *hook)
{
    pthread_mutex_lock(&cl->hook_lock);
    cl->bound = hook != NULL ? *hook : (struct cluster_bound_hook){0};
    pthread_mutex_unlock(&cl->hook_lock);
}

/* ---- informer callbacks (one informer thread each) ---- */

static void on_object(void *ctx, enum kube_event ev, const cJSON *obj)
{
    struct feed *f = ctx;
    if (f == &f->cl->nodes) {
        const struct cfg *c = cfg_live_acquire(&f->cl->live);
        cluster_apply_node(f->cl->state, c, ev, obj);
        cfg_live_release(c);
    } else {
        struct score_in_flight_rules est;
        const struct cfg *c = cfg_live_acquire(&f->cl->live);
        cfg_in_flight_rules(c, &est);
        cfg_live_release(c);
        pthread_mutex_lock(&f->cl->hook_lock);
        cluster_apply_pod(f->cl->state, ev, obj, clock_wall(), &f->cl->bound, &est);
        pthread_mutex_unlock(&f->cl->hook_lock);
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
    LOG(first ? LOG_INFO : LOG_DEBUG, "cluster list applied", LOG_STR("resource", f->name),
        LOG_UINT("nodes", nodes), LOG_UINT("pods", pods));
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
        kube_state_pods_health(f->cl->state, ok, clock_wall());
    if (changed && !ok)
        LOG(LOG_WARN, "cluster watch failing, retrying", LOG_STR("resource", f->name),
            LOG_STR("error", why));
    else if (changed)
        LOG(LOG_INFO, "cluster watch recovered", LOG_STR("resource", f->name));
}

static const struct kube_informer_ops informer_ops = {
    .on_list_begin = on_list_begin,
    .on_list_end = on_list_end,
    .on_object = on_object,
    .on_health = on_health,
};

/* ---- life cycle ---- */

static int start_informer(struct cluster *cl, struct feed *f, const char *path,
                          struct kube_informer **out, char *err)
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

int cluster_start(const struct cfg *c, const struct kube_target *t, struct cluster **out, char *err)
{
    struct cluster *cl = calloc(1, sizeof(*cl));
    int rc = -ENOMEM;

    *out = NULL;
    if (cl == NULL)
        return err_fail(err, rc, "out of memory");
    pthread_mutex_init(&cl->lock, NULL);
    pthread_mutex_init(&cl->hook_lock, NULL);
    cl->nodes = (struct feed){.name = "nodes", .cl = cl, .why = "waiting for the first list"};
    cl->pods = (struct feed){.name = "pods", .cl = cl, .why = "waiting for the first list"};
    if (t->insecure_skip_tls_verify)
        LOG(LOG_WARN, "insecure-skip-tls-verify is set: the API server is NOT verified",
            LOG_STR("server", t->server), LOG_STR("source", t->source));
    rc = kube_client_new(t, &cl->client, err);
    if (rc == 0 && ((cl->state = kube_state_new()) == NULL || cfg_live_init(&cl->live, c) != 0))
        rc = err_fail(err, -ENOMEM, "out of memory");
    /* What watches the cluster, once the client and state exist. */
    if (rc == 0)
        rc = start_informer(cl, &cl->nodes, "/api/v1/nodes", &cl->nodes_inf, err);
    if (rc == 0)
        rc = start_informer(cl, &cl->pods, "/api/v1/pods", &cl->pods_inf, err);
    if (rc == 0)
        rc = cluster_usage_start(cl->client, cl->state, &cl->live, &cl->usage, err);
    if (rc != 0) {
        /* What did not start is NULL or zeroed, which cluster_stop() skips. */
        cluster_stop(cl);
        return rc;
    }
    LOG(LOG_INFO, "watching the cluster", LOG_STR("server", t->server),
        LOG_STR("source", t->source));
    *out = cl;
    return 0;
}

int cluster_reload(struct cluster *cl, const struct cfg *next)
{
    return cfg_live_swap(&cl->live, next);
}

void cluster_stop(struct cluster *cl)
{
    if (cl == NULL)
        return;
    cluster_usage_stop(cl->usage);
    kube_informer_stop(cl->pods_inf);
    kube_informer_stop(cl->nodes_inf);
    cfg_live_destroy(&cl->live);
    kube_state_free(cl->state);
    kube_client_free(cl->client);
    pthread_mutex_destroy(&cl->hook_lock);
    pthread_mutex_destroy(&cl->lock);
    free(cl);
}

bool cluster_is_ready(struct cluster *cl, char *why, size_t n)
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
    /* Ready either way; the usage provider's state is said beside it. */
    char usage[ERR_LEN + 64];
    cluster_usage_describe(cl->usage, usage, sizeof(usage));
    size_t len = strlen(why);
    if (ready && usage[0] != '\0' && len < n)
        snprintf(why + len, n - len, "; %s", usage);
    return ready;
}

int cluster_wait(struct cluster *cl, int seconds, char *err)
{
    const struct cfg *c = cfg_live_acquire(&cl->live);
    bool need_usage = cluster_usage_needed(c);
    cfg_live_release(c);
    for (int i = 0; i < seconds * 10; i++) {
        pthread_mutex_lock(&cl->lock);
        bool listed = cl->nodes.listed && cl->pods.listed;
        pthread_mutex_unlock(&cl->lock);
        if (listed && (!need_usage || cluster_usage_polled(cl->usage)))
            return 0;
        struct timespec tenth = {0, 100 * 1000 * 1000};
        nanosleep(&tenth, NULL);
    }
    char why[ERR_LEN];
    if (cluster_is_ready(cl, why, sizeof(why)))
        snprintf(why, sizeof(why), "no metrics poll finished");
    err_set(err, "after %d s: %s", seconds, why);
    return -ETIMEDOUT;
}

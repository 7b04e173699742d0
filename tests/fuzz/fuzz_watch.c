/*
 * libFuzzer target: the informer's handling of watch streams and list
 * pages (kube/informer.c on_line and list_page, reached by including the
 * .c, as h2o's unit tests do), applied to a real kube_state through
 * cluster_apply_node / cluster_apply_pod, the callbacks the
 * extender's informers use.
 *
 * Input: a selector byte, then newline-terminated lines; each complete
 * line goes to on_line as kube_stream_bounded hands it over (without the '\n',
 * NUL-terminated, in an exactly sized malloc'd copy), after the NULL line
 * that says each watch is open; a last line without '\n' is dropped, as
 * kube_stream_bounded drops it. The selector:
 *   'N' / 'n'  a node watch;
 *   'M' / 'm'  both: a line starting with 'N' goes (without it) to the node
 *              informer, every other line to the pod informer;
 *   otherwise  a pod watch.
 * Upper case starts watching after an empty first list; lower case starts
 * with the first list, so the first lines are list pages.
 * The harness runs the informer thread's loop (run(), list_all()) by hand:
 * a malformed or ERROR event reconnects from the kept resourceVersion; a
 * 410 (ERROR event) lists again, each following line being one page
 * ({"metadata": {"resourceVersion", "continue"}, "items": [...]}), until a
 * page without a continue token ends the list.
 * Lines starting with '#' are the harness's own: "#<seconds>" moves the
 * clock on (each pod event moves it 1 s), "#B<uid> <node>" is our bind
 * (kube_state_placed, as the bind verb calls it).
 *
 * Properties, besides ASan, UBSan and LSan, after every line and at the end
 * (where every node name seen is given a Node object, so that all can be
 * viewed):
 *  - the resourceVersion kept is that of the last accepted event or list
 *    page (a BOOKMARK included, an empty one excluded); a refused line
 *    leaves it and says why; an opened watch and an accepted event leave
 *    the informer healthy;
 *  - apply returns 0 or -EINVAL; an accepted Pod is stored with the
 *    request of what codec_pod_decode read, an accepted Node with its allocatable,
 *    annotations and reason;
 *  - a model of which pod is charged to which node, kept from each
 *    accepted object's metadata.uid, spec.nodeName and status.phase (a
 *    refused pod with a readable uid is forgotten, a list end forgets the
 *    pods and nodes it did not deliver), agrees with the state: the pods
 *    counts, each pod charged where the model says and nowhere else,
 *    n_pods of every node, which nodes can be viewed and the sorted node
 *    names;
 *  - per node the sums are >= 0, equal the sum of its pods' stored
 *    requests while that sum fits in int64 (no more than it once it
 *    saturated) and are 0 when it has no pods; non_zero >= real per pod;
 *  - the pods in flight on each node (count and sum) are those a model of
 *    the placements gives: a pod that becomes assigned outside the first
 *    list, or our bind, placed once per uid and node, kept
 *    KUBE_PLACEMENT_KEEP_SECONDS, counted for in_flight_seconds, and gone
 *    with the node's entry (no Node object and no pods left).
 *
 * tests/fuzz/regressions/watch/ holds the input that found a placement
 * counted twice: a bind confirmed by the watch when an older placement had
 * just expired (kube/state.c add_placement compacted while searching).
 */
#ifdef FUZZ_TARGET
/* The informer's exported functions are linked from kube/informer.o too:
 * the included copy gets other names (its statics are what is tested). */
#define kube_informer_start      fuzz_watch_informer_start
#define kube_informer_stop       fuzz_watch_informer_stop
#define kube_informer_get_counts fuzz_watch_informer_get_counts
#define kube_informer_page_bound fuzz_watch_informer_page_bound
#include "kube/informer.c"
#undef kube_informer_start
#undef kube_informer_stop
#undef kube_informer_get_counts
#undef kube_informer_page_bound

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "config/config.h"
#include "kube/state.h"
#include "base/arena.h"
#include "server/cluster/feeds.h"
#include "server/codec/json.h"
#include "server/codec/nodelist.h"
#include "server/codec/pod.h"
#include "server/codec/scan.h"
#include "base/log.h"
#include "tests/fuzz/fuzz.h"

/* A recent placement: a pod that became assigned, or our bind. */
struct m_placement {
    char uid[64]; /* as kube/state.c keeps it: longer ones are not placed */
    double at;
    int64_t non_zero[SCORE_NRES];
};

/* A node name the harness has seen (Node object, spec.nodeName, a bind). */
struct m_node {
    char *name;
    bool present;   /* a Node object is in, per the model */
    bool entry;     /* the state has an entry (present, pods or placements) */
    unsigned gen;   /* list generation of the last put */
    bool saturated; /* its pods' sum overflowed since it last had none */
    struct m_placement *placed;
    size_t n_placed, cap_placed;
};

/* A pod the state should know. */
struct m_pod {
    char *uid;
    char *node;   /* spec.nodeName, "" when unassigned */
    bool charged; /* assigned and not terminal */
    unsigned gen;
    int64_t non_zero[SCORE_NRES]; /* its request, as decoded */
};

struct harness;

/* One informer: its struct as kube_informer_start would fill it, the watch
 * in progress and where run()/list_all() would be. */
struct feed {
    struct harness *h;
    bool nodes;
    struct kube_informer inf;
    struct inf_watch w;
    bool listing; /* the next line is a list page */
    bool begun;   /* on_list_begin was called for this list */
    bool open;    /* the watch w has been told it is open */
    char cont[INF_CONTINUE_MAX];
};

struct harness {
    struct cfg cfg;
    struct kube_state *st;
    double now;
    struct feed nodes, pods;
    struct m_node *mn;
    size_t n_mn, cap_mn;
    struct m_pod *mp;
    size_t n_mp, cap_mp;
    unsigned node_gen, pod_gen;
    bool pods_synced;     /* a pod list has ended */
    bool pods_listing;    /* inside the first pod list: no placements */
    unsigned bound_calls; /* calls of the binding hook, and the last one's arguments */
    char bound_uid[256], bound_node[256];
};

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_watch: %s\n%.2000s\n", what, detail != NULL ? detail : "");
    abort();
}

static char *xstrdup(const char *s)
{
    char *d = strdup(s);
    if (d == NULL)
        abort();
    return d;
}

static void *grow(void *p, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return p;
    *cap = *cap ? *cap * 2 : 16;
    p = realloc(p, *cap * size);
    if (p == NULL)
        abort();
    return p;
}

/* The last member named @key of object @obj, null counting as absent: how
 * Go decodes a struct field (and how the kube objects are read), the name
 * case folded as Go folds it ("nodEName" is spec.nodeName). */
static const cJSON *member(const cJSON *obj, const char *key)
{
    const cJSON *found = NULL, *item;
    if (!cJSON_IsObject(obj))
        return NULL;
    cJSON_ArrayForEach(item, obj)
    {
        if (item->string != NULL && codec_name_folds(item->string, strlen(item->string), key))
            found = item;
    }
    return cJSON_IsNull(found) ? NULL : found;
}

static const char *string_member(const cJSON *obj, const char *key)
{
    const cJSON *v = member(obj, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* metadata.name of a Node as Go reads it into the typed Node: a repeated
 * "metadata" merges into the earlier one, a null name leaves it alone. */
static const char *node_name(const cJSON *obj)
{
    const char *name = "";
    const cJSON *meta, *n;
    if (!cJSON_IsObject(obj))
        return "";
    cJSON_ArrayForEach(meta, obj)
    {
        if (meta->string == NULL ||
            !codec_name_folds(meta->string, strlen(meta->string), "metadata") ||
            !cJSON_IsObject(meta))
            continue;
        cJSON_ArrayForEach(n, meta)
        {
            if (n->string != NULL && codec_name_folds(n->string, strlen(n->string), "name") &&
                cJSON_IsString(n))
                name = n->valuestring;
        }
    }
    return name;
}

/* ---- the model ---- */

static struct m_node *model_node(struct harness *h, const char *name)
{
    for (size_t i = 0; i < h->n_mn; i++)
        if (strcmp(h->mn[i].name, name) == 0)
            return &h->mn[i];
    h->mn = grow(h->mn, &h->cap_mn, h->n_mn, sizeof(*h->mn));
    struct m_node *n = &h->mn[h->n_mn++];
    memset(n, 0, sizeof(*n));
    n->name = xstrdup(name);
    return n;
}

static struct m_pod *model_pod(struct harness *h, const char *uid)
{
    for (size_t i = 0; i < h->n_mp; i++)
        if (strcmp(h->mp[i].uid, uid) == 0)
            return &h->mp[i];
    return NULL;
}

static size_t pods_charged_to(const struct harness *h, const char *name)
{
    size_t count = 0;
    for (size_t k = 0; k < h->n_mp; k++)
        count += h->mp[k].charged && strcmp(h->mp[k].node, name) == 0;
    return count;
}

/* The state drops a node entry without Node object and pods, with its
 * placements, when a pod leaves it or its Node object goes. */
static void model_node_maybe_drop(struct harness *h, struct m_node *n)
{
    if (!n->entry || n->present || pods_charged_to(h, n->name) > 0)
        return;
    n->entry = false;
    n->n_placed = 0;
}

/* Takes @p off its node, as kube/state.c's uncharge. */
static void model_uncharge(struct harness *h, struct m_pod *p)
{
    if (!p->charged)
        return;
    p->charged = false;
    model_node_maybe_drop(h, model_node(h, p->node));
}

static void model_pod_forget(struct harness *h, const char *uid)
{
    struct m_pod *p = model_pod(h, uid);
    if (p == NULL)
        return;
    model_uncharge(h, p);
    free(p->uid);
    free(p->node);
    *p = h->mp[--h->n_mp];
}

/* A placement on @n at h->now, unless @uid has one there already (the
 * first is kept: our bind, then the watch confirming it); placements older
 * than KUBE_PLACEMENT_KEEP_SECONDS go (they no longer count). */
static void model_place(struct harness *h, struct m_node *n, const char *uid,
                        const int64_t non_zero[SCORE_NRES])
{
    char cut[sizeof(n->placed->uid)];
    size_t keep = 0;

    if (strlen(uid) >= sizeof(cut))
        return; /* too long to tell apart: not damped */
    snprintf(cut, sizeof(cut), "%s", uid);
    for (size_t i = 0; i < n->n_placed; i++)
        if (strcmp(n->placed[i].uid, uid) == 0)
            return;
    for (size_t i = 0; i < n->n_placed; i++)
        if (h->now - n->placed[i].at < KUBE_PLACEMENT_KEEP_SECONDS)
            n->placed[keep++] = n->placed[i];
    n->n_placed = keep;
    n->placed = grow(n->placed, &n->cap_placed, n->n_placed, sizeof(*n->placed));
    struct m_placement *pl = &n->placed[n->n_placed++];
    memcpy(pl->uid, cut, sizeof(cut));
    pl->at = h->now;
    memcpy(pl->non_zero, non_zero, sizeof(pl->non_zero));
}

static void model_pod_put(struct harness *h, const char *uid, const char *node, bool charged,
                          const int64_t non_zero[SCORE_NRES])
{
    struct m_pod *p = model_pod(h, uid);
    bool was_assigned = p != NULL && p->node[0] != '\0';
    if (p == NULL) {
        h->mp = grow(h->mp, &h->cap_mp, h->n_mp, sizeof(*h->mp));
        p = &h->mp[h->n_mp++];
        memset(p, 0, sizeof(*p));
        p->uid = xstrdup(uid);
        p->node = xstrdup("");
    }
    /* Off its old node first: that entry may go even if the pod comes
     * back to it. */
    model_uncharge(h, p);
    free(p->node);
    p->node = xstrdup(node);
    p->gen = h->pod_gen;
    memcpy(p->non_zero, non_zero, sizeof(p->non_zero));
    if (node[0] == '\0')
        return;
    struct m_node *n = model_node(h, node);
    if (!charged)
        return;
    p->charged = true;
    n->entry = true;
    if (!was_assigned && !h->pods_listing)
        model_place(h, n, uid, non_zero);
}

/* ---- checks ---- */

static void check_request(const int64_t real[SCORE_NRES], const int64_t non_zero[SCORE_NRES],
                          const char *uid)
{
    for (int r = 0; r < SCORE_NRES; r++)
        if (real[r] < 0 || non_zero[r] < real[r])
            fail("a pod's stored request is negative or non_zero < real", uid);
}

/* Compares the state with the model. */
static void check_state(struct harness *h)
{
    size_t present = 0, nodes, pods;

    for (size_t i = 0; i < h->n_mp; i++) {
        const struct m_pod *p = &h->mp[i];
        int64_t real[SCORE_NRES], nz[SCORE_NRES];
        int rc =
            p->node[0] != '\0' ? kube_state_pod_request(h->st, p->uid, p->node, real, nz) : -ENOENT;
        if (p->charged && rc != 0)
            fail("a pod is not charged to its node", p->uid);
        if (!p->charged && rc != -ENOENT)
            fail("a terminal pod is charged", p->uid);
        if (rc == 0)
            check_request(real, nz, p->uid);
    }
    for (size_t i = 0; i < h->n_mn; i++) {
        struct m_node *n = &h->mn[i];
        struct kube_node_view v;
        int64_t real[SCORE_NRES] = {0}, nz[SCORE_NRES] = {0};
        bool overflow = false;
        size_t count = 0;

        for (size_t k = 0; k < h->n_mp; k++) {
            int64_t r1[SCORE_NRES], n1[SCORE_NRES];
            if (!h->mp[k].charged || strcmp(h->mp[k].node, n->name) != 0)
                continue;
            count++;
            if (kube_state_pod_request(h->st, h->mp[k].uid, n->name, r1, n1) != 0)
                fail("a pod is not charged to its node", h->mp[k].uid);
            for (int r = 0; r < SCORE_NRES; r++)
                if (__builtin_add_overflow(real[r], r1[r], &real[r]) ||
                    __builtin_add_overflow(nz[r], n1[r], &nz[r]))
                    overflow = true;
        }
        if (overflow)
            n->saturated = true;
        if (count == 0)
            n->saturated = false;
        present += n->present;
        int rc = kube_state_view(h->st, n->name, h->now, h->cfg.in_flight_seconds, &v);
        if ((rc == 0) != n->present)
            fail(n->present ? "a node with a Node object cannot be viewed"
                            : "a node without Node object can be viewed",
                 n->name);
        if (rc != 0)
            continue;
        if (v.n_pods != count)
            fail("n_pods differs from the pods charged to the node", n->name);
        if (v.requests_age < 0 || (v.invalid != NULL && v.invalid[0] == '\0'))
            fail("view out of range", n->name);
        /* In flight: the placements of the last in_flight_seconds (there
         * is no usage sample here, so none is older than its window). */
        int64_t flight[SCORE_NRES] = {0};
        size_t n_flight = 0;
        for (size_t k = 0; k < n->n_placed; k++) {
            if (h->now - n->placed[k].at >= h->cfg.in_flight_seconds)
                continue;
            n_flight++;
            for (int r = 0; r < SCORE_NRES; r++)
                if (__builtin_add_overflow(flight[r], n->placed[k].non_zero[r], &flight[r]))
                    flight[r] = INT64_MAX;
        }
        if (v.n_in_flight != n_flight || memcmp(v.in_flight, flight, sizeof(flight)) != 0) {
            char why[512];
            snprintf(why, sizeof(why), "node %.200s: %zu in flight (cpu %lld), want %zu (cpu %lld)",
                     n->name, v.n_in_flight, (long long)v.in_flight[SCORE_CPU], n_flight,
                     (long long)flight[SCORE_CPU]);
            fail("the pods in flight differ from the placements", why);
        }
        for (int r = 0; r < SCORE_NRES; r++) {
            /* (allocatable and annotations only count when valid) */
            if (v.req_real[r] < 0 || v.req_non_zero[r] < 0 || v.in_flight[r] < 0 ||
                (v.invalid == NULL && (v.alloc[r] < 0 || v.annotation[r] < 0)))
                fail("negative value in a node view", n->name);
            if (count == 0 && (v.req_real[r] != 0 || v.req_non_zero[r] != 0))
                fail("a node without pods has non-zero sums", n->name);
            if (!n->saturated && (v.req_real[r] != real[r] || v.req_non_zero[r] != nz[r]))
                fail("a node's sums differ from its pods' requests", n->name);
            if (n->saturated && !overflow && (v.req_real[r] > real[r] || v.req_non_zero[r] > nz[r]))
                fail("a saturated node's sums exceed its pods' requests", n->name);
        }
    }
    kube_state_counts(h->st, &nodes, &pods);
    if (pods != h->n_mp)
        fail("the state knows another number of pods than the model", "");
    if (nodes != present)
        fail("the state counts another number of nodes than the model", "");
}

/* ---- the informer callbacks ---- */

static void apply_node(struct harness *h, enum kube_event ev, const cJSON *obj)
{
    char err[ERR_LEN];
    struct codec_node d;
    struct kube_node_view v;

    int rc = cluster_apply_node(h->st, &h->cfg, ev, obj);
    if (rc == -EINVAL)
        return;
    if (rc != 0)
        fail("cluster_apply_node: neither 0 nor -EINVAL", "");
    const char *name = node_name(obj);
    if (name[0] == '\0')
        fail("a node without metadata.name was accepted", "");
    struct m_node *m = model_node(h, name);
    if (ev == KUBE_DELETED) {
        m->present = false;
        model_node_maybe_drop(h, m);
        return;
    }
    m->present = true;
    m->entry = true;
    m->gen = h->node_gen;

    /* What the state holds is what the decoder read. */
    struct arena *a = arena_acquire();
    if (a == NULL)
        abort();
    char *text = cJSON_PrintUnformatted(obj);
    if (text == NULL)
        abort();
    rc = codec_node_decode(a, text, strlen(text), &h->cfg, &d, err);
    cJSON_free(text);
    if (rc != 0 || strcmp(d.name, name) != 0)
        fail("the decoder reads another node name", name);
    if (kube_state_view(h->st, name, h->now, h->cfg.in_flight_seconds, &v) != 0)
        fail("an accepted node cannot be viewed", name);
    if (memcmp(v.alloc, d.res.alloc, sizeof(v.alloc)) != 0 ||
        memcmp(v.annotation, d.res.used, sizeof(v.annotation)) != 0 || v.invalid != d.invalid)
        fail("the state holds other node data than the decoder read", name);
    arena_release(a);
}

/* The uid codec_pod_decode has read when it refuses a pod: "" when the
 * object, its metadata, name or namespace stopped it first. */
static const char *refused_uid(const cJSON *obj)
{
    const cJSON *meta = member(obj, "metadata");
    if (!cJSON_IsObject(obj) || (meta != NULL && !cJSON_IsObject(meta)))
        return "";
    for (const char *const *k = (const char *const[]){"name", "namespace", NULL}; *k; k++) {
        const cJSON *v = member(meta, *k);
        if (v != NULL && !cJSON_IsString(v))
            return "";
    }
    return string_member(meta, "uid");
}

/* The binding hook: what the shadow report is told. */
static void on_bound_cb(void *ctx, const char *uid, const char *node)
{
    struct harness *h = ctx;
    h->bound_calls++;
    snprintf(h->bound_uid, sizeof(h->bound_uid), "%s", uid);
    snprintf(h->bound_node, sizeof(h->bound_node), "%s", node);
}

static void apply_pod(struct harness *h, enum kube_event ev, const cJSON *obj)
{
    char err[ERR_LEN];
    struct codec_pod d;
    const struct cluster_bound_hook hook = {.fn = on_bound_cb, .ctx = h};
    unsigned calls = h->bound_calls;
    const cJSON *meta = member(obj, "metadata");
    const char *uid = string_member(meta, "uid");
    const char *node = string_member(member(obj, "spec"), "nodeName");
    const struct m_pod *before = model_pod(h, uid);
    /* A binding: a node name on a pod the model knew without one, or not at all. */
    bool binding =
        ev != KUBE_DELETED && node[0] != '\0' && (before == NULL || before->node[0] == '\0');

    h->now += 1;
    int rc = cluster_apply_pod(h->st, ev, obj, h->now, &hook, NULL);
    if (rc == -EINVAL) {
        if (h->bound_calls != calls)
            fail("a refused pod was told as a binding", refused_uid(obj));
        model_pod_forget(h, refused_uid(obj));
        return;
    }
    if (rc != 0)
        fail("cluster_apply_pod: neither 0 nor -EINVAL", "");
    const char *phase = string_member(member(obj, "status"), "phase");
    if (uid[0] == '\0')
        fail("a pod without metadata.uid was accepted", "");
    if (h->bound_calls - calls != (binding ? 1u : 0u))
        fail(binding ? "a binding was not told" : "an event that binds nothing was told", uid);
    if (binding && (strncmp(h->bound_uid, uid, sizeof(h->bound_uid) - 1) != 0 ||
                    strncmp(h->bound_node, node, sizeof(h->bound_node) - 1) != 0))
        fail("the binding hook was told another pod or node", uid);
    if (ev == KUBE_DELETED) {
        model_pod_forget(h, uid);
        return;
    }
    bool terminal = strcmp(phase, "Succeeded") == 0 || strcmp(phase, "Failed") == 0;
    bool charged = node[0] != '\0' && !terminal;

    /* Charged with the request of what the decoder read. */
    int64_t real[SCORE_NRES], nz[SCORE_NRES];
    struct arena *a = arena_acquire();
    if (a == NULL)
        abort();
    struct score_pod_request req;
    if (codec_pod_decode(a, obj, &d, err) != 0 || score_pod_request(&d.spec, &req) != 0 ||
        strcmp(d.uid, uid) != 0 || strcmp(d.node_name, node) != 0 || strcmp(d.phase, phase) != 0)
        fail("the decoder reads another uid, node or phase", uid);
    model_pod_put(h, uid, node, charged, req.non_zero);
    if (charged) {
        if (kube_state_pod_request(h->st, uid, node, real, nz) != 0)
            fail("an accepted pod is not charged to its node", uid);
        if (memcmp(real, req.real, sizeof(real)) != 0 || memcmp(nz, req.non_zero, sizeof(nz)) != 0)
            fail("a pod is charged another request than the decoder computed", uid);
    }
    arena_release(a);
}

static void on_object_cb(void *ctx, enum kube_event ev, const cJSON *obj)
{
    struct feed *f = ctx;
    if (f->nodes)
        apply_node(f->h, ev, obj);
    else
        apply_pod(f->h, ev, obj);
}

static void on_list_begin_cb(void *ctx)
{
    struct feed *f = ctx;
    if (f->nodes) {
        f->h->node_gen++;
        kube_state_nodes_begin(f->h->st);
    } else {
        f->h->pod_gen++;
        f->h->pods_listing = !f->h->pods_synced;
        kube_state_pods_begin(f->h->st);
    }
}

static void on_list_end_cb(void *ctx)
{
    struct feed *f = ctx;
    struct harness *h = f->h;
    if (f->nodes) {
        kube_state_nodes_end(h->st);
        for (size_t i = 0; i < h->n_mn; i++) {
            if (h->mn[i].present && h->mn[i].gen != h->node_gen) {
                h->mn[i].present = false;
                model_node_maybe_drop(h, &h->mn[i]);
            }
        }
        return;
    }
    kube_state_pods_end(h->st);
    for (size_t i = 0; i < h->n_mp;) {
        if (h->mp[i].gen != h->pod_gen)
            model_pod_forget(h, h->mp[i].uid);
        else
            i++;
    }
    h->pods_synced = true;
    h->pods_listing = false;
}

static void on_health_cb(void *ctx, bool ok, const char *why)
{
    struct feed *f = ctx;
    if (why == NULL || (!ok && why[0] == '\0'))
        fail("health reported without a reason", "");
    if (!f->nodes)
        kube_state_pods_health(f->h->st, ok, f->h->now);
}

static const struct kube_informer_ops fuzz_ops = {
    .on_list_begin = on_list_begin_cb,
    .on_list_end = on_list_end_cb,
    .on_object = on_object_cb,
    .on_health = on_health_cb,
};

/* ---- the informer loop, by hand ---- */

static void feed_init(struct feed *f, struct harness *h, bool nodes, bool list_first)
{
    f->h = h;
    f->nodes = nodes;
    snprintf(f->inf.name, sizeof(f->inf.name), "%s", nodes ? "nodes" : "pods");
    snprintf(f->inf.path, sizeof(f->inf.path), "/api/v1/%s", f->inf.name);
    f->inf.p.name = f->inf.name;
    f->inf.p.path = f->inf.path;
    f->inf.ops = fuzz_ops;
    f->inf.ctx = f;
    f->inf.health = -1;
    f->w = (struct inf_watch){.inf = &f->inf};
    if (list_first) {
        f->listing = true;
        return;
    }
    /* The first list was empty, at resourceVersion "1". */
    on_list_begin_cb(f);
    on_list_end_cb(f);
    snprintf(f->inf.rv, sizeof(f->inf.rv), "1");
    report(&f->inf, true, "listed 0");
}

/* The resourceVersion on_line / list_page keep for @line: what they read
 * (the first member of each name, as cJSON_GetObjectItemCaseSensitive
 * finds), or @before when it is empty. Returns false when it does not fit
 * (the line must then be refused). */
static bool expected_rv(const char *line, size_t len, bool list, const char *before, char *out)
{
    cJSON *root = cJSON_ParseWithLength(line, len);
    const cJSON *obj = list ? root : cJSON_GetObjectItemCaseSensitive(root, "object");
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const cJSON *rv = cJSON_GetObjectItemCaseSensitive(meta, "resourceVersion");
    const char *v = cJSON_IsString(rv) && rv->valuestring[0] != '\0' ? rv->valuestring : before;
    bool fits = strlen(v) < INF_RV_LEN;
    snprintf(out, INF_RV_LEN, "%s", v);
    cJSON_Delete(root);
    return fits;
}

static void check_why(const char *why, size_t n, const char *line)
{
    if (memchr(why, '\0', n) == NULL || why[0] == '\0')
        fail("a refused line without a reason", line);
}

static void watch_line(struct feed *f, char *line, size_t len)
{
    struct kube_informer *inf = &f->inf;
    char before[INF_RV_LEN], want[INF_RV_LEN];
    unsigned long events = f->w.events;

    memcpy(before, inf->rv, sizeof(before));
    if (!f->open) {
        /* kube_stream_bounded's NULL line: the 2xx answer to a new watch is in. */
        if (on_line(&f->w, NULL, 0) != 0 || inf->health != 1 || f->w.events != 0 ||
            strcmp(inf->rv, before) != 0)
            fail("an opened watch is not healthy or changed the watch", "");
        f->open = true;
    }
    f->w.why[0] = '\0';
    int rc = on_line(&f->w, line, len);
    if (rc == 0) {
        if (len == 0) {
            if (strcmp(inf->rv, before) != 0 || f->w.events != events)
                fail("an empty line changed the watch", "");
            return;
        }
        if (!expected_rv(line, len, false, before, want) || strcmp(inf->rv, want) != 0)
            fail("the resourceVersion kept is not the last accepted one", line);
        if (f->w.events != events + 1 || inf->health != 1)
            fail("an accepted event is not counted or health is not reported", line);
        return;
    }
    if (strcmp(inf->rv, before) != 0)
        fail("a refused line changed the resourceVersion", line);
    if (rc == INF_WATCH_BROKEN) {
        /* run(): report, back off, watch again from the same version. */
        check_why(f->w.why, sizeof(f->w.why), line);
        report(inf, false, f->w.why);
    } else if (rc == INF_WATCH_GONE) {
        f->listing = true;
        f->begun = false;
        f->cont[0] = '\0';
    } else {
        fail("on_line returned an unknown value", line);
    }
    f->w = (struct inf_watch){.inf = inf};
    f->open = false;
}

/* One page of list_all(); takes @line. */
static void list_line(struct feed *f, char *line, size_t len)
{
    struct kube_informer *inf = &f->inf;
    char before[INF_RV_LEN], want[INF_RV_LEN], why[INF_WHY_LEN] = "";
    struct kube_response r = {.status = 200, .body = line, .len = len};
    size_t count = 0;

    memcpy(before, inf->rv, sizeof(before));
    bool fits = expected_rv(line, len, true, before, want);
    if (!f->begun)
        inf->ops.on_list_begin(inf->ctx);
    f->begun = true;
    int rc = list_page(inf, &r, f->cont, &count, why, sizeof(why));
    if (r.body != NULL)
        fail("list_page did not take the body", "");
    if (rc != 0) {
        /* list_all() fails; run() reports, backs off and lists anew. */
        if (rc != -EPROTO || strcmp(inf->rv, before) != 0)
            fail("a refused page changed the resourceVersion or returned another error", why);
        check_why(why, sizeof(why), "list page");
        report(inf, false, why);
        f->begun = false;
        f->cont[0] = '\0';
        return;
    }
    if (!fits || strcmp(inf->rv, want) != 0)
        fail("the resourceVersion kept is not the page's", want);
    if (f->cont[0] != '\0')
        return;
    inf->ops.on_list_end(inf->ctx);
    f->listing = false;
    backoff_reset(inf);
    report(inf, true, "listed");
}

static void feed_line(struct feed *f, const uint8_t *data, size_t len)
{
    /* An exactly sized copy, so that ASan sees reads past the line. */
    char *line = malloc(len + 1);
    if (line == NULL)
        abort();
    memcpy(line, data, len);
    line[len] = '\0';
    if (f->listing) {
        list_line(f, line, len);
    } else {
        watch_line(f, line, len);
        free(line);
    }
    check_state(f->h);
}

/* A line "#<seconds>" moves the clock on (up to a day); "#B<uid> <node>"
 * records our bind of pod <uid> to <node>, as the bind verb does. */
static void directive(struct harness *h, const uint8_t *line, size_t len)
{
    char buf[512];

    if (len >= sizeof(buf))
        return;
    memcpy(buf, line, len);
    buf[len] = '\0';
    if (buf[1] != 'B') {
        unsigned long s = strtoul(buf + 1, NULL, 10);
        h->now += (double)(s < 86400 ? s : 86400);
        check_state(h);
        return;
    }
    char *sp = strrchr(buf + 2, ' ');
    if (sp == NULL || sp[1] == '\0')
        return;
    *sp = '\0';
    const char *uid = buf + 2, *node = sp + 1;
    int rc = kube_state_placed(h->st, node, uid, h->now);
    struct m_pod *p = model_pod(h, uid);
    if (rc != (p != NULL ? 0 : -ENOENT))
        fail("kube_state_placed: another answer than 0 for a known pod, -ENOENT else", uid);
    if (p != NULL) {
        struct m_node *n = model_node(h, node);
        n->entry = true;
        model_place(h, n, uid, p->non_zero);
    }
    check_state(h);
}

/* Gives every node name seen a Node object, so that all can be viewed. */
static void check_final(struct harness *h)
{
    for (size_t i = 0; i < h->n_mn; i++) {
        if (h->mn[i].present)
            continue;
        struct kube_node_info info = {.name = h->mn[i].name};
        if (kube_state_node_put(h->st, &info) != 0)
            abort();
        h->mn[i].present = true;
        h->mn[i].entry = true;
    }
    check_state(h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool ready;
    struct harness *h;

    if (!ready) {
        log_set_level(LOG_ERROR); /* refused objects are logged as warnings */
        ready = true;
    }
    if (size == 0)
        return 0;
    h = calloc(1, sizeof(*h));
    if (h == NULL)
        return 0;
    cfg_defaults(&h->cfg);
    h->now = 1e6;
    h->st = kube_state_new();
    if (h->st == NULL)
        abort();
    char sel = (char)data[0];
    bool list_first = sel >= 'a' && sel <= 'z';
    bool mixed = sel == 'M' || sel == 'm';
    bool nodes_only = sel == 'N' || sel == 'n';
    feed_init(&h->nodes, h, true, list_first);
    feed_init(&h->pods, h, false, list_first);

    for (size_t at = 1; at < size;) {
        const uint8_t *nl = memchr(data + at, '\n', size - at);
        if (nl == NULL)
            break; /* a partial last line is dropped */
        size_t len = (size_t)(nl - (data + at));
        const uint8_t *line = data + at;
        struct feed *f = nodes_only ? &h->nodes : &h->pods;
        at += len + 1;
        if (len > 0 && line[0] == '#') {
            directive(h, line, len);
            continue;
        }
        if (mixed && len > 0 && line[0] == 'N') {
            f = &h->nodes;
            line++;
            len--;
        }
        feed_line(f, line, len);
    }
    check_final(h);

    kube_state_free(h->st);
    for (size_t i = 0; i < h->n_mn; i++)
        free(h->mn[i].name);
    for (size_t i = 0; i < h->n_mp; i++) {
        free(h->mp[i].uid);
        free(h->mp[i].node);
    }
    for (size_t i = 0; i < h->n_mn; i++)
        free(h->mn[i].placed);
    free(h->mn);
    free(h->mp);
    free(h);
    return 0;
}
#endif

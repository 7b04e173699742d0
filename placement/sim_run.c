/*
 * One run of the simulation (place_sim_run): the pods in placement order,
 * each given the best node of its shape's max-tree (see the Cost paragraph
 * of placement/simulate.h), the node charged with it, and the node marked
 * dirty in every shape that admits it.
 */
#include "placement/sim_run.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "placement/sim_bound.h"
#include "placement/sim_fit.h"
#include "placement/sim_prepare.h"
#include "placement/sim_summary.h"

/* A shape's tree while it has pods to come. */
struct shape_tree {
    uint32_t *tree; /* 2n keys (index 1 the root, n..2n-1 the leaves); NULL: not built */
    uint32_t *dirty_list;
    uint8_t *dirty;
    uint32_t n, n_dirty;
    uint32_t counts[SIM_RESOURCE_REASONS]; /* admitted nodes rejected per resource reason text */
};

struct run {
    const struct place_sim *sim;
    struct score_params params;
    /* By position: what kube-scheduler counts and our view, and what the
     * resource rules still admit (kept with it). */
    struct place_sim_node_state *node;
    struct sim_fit_room *room;
    struct shape_tree *rt;
    /* The shapes with a tree, per class: live[c->shape_off ..
     * c->shape_off + live_n[class]) (a slot for each shape of the class), and where
     * each stands there, so that a placement marks only the trees that
     * exist (looking at every shape of the class was quadratic in pods
     * when each has its own request). */
    uint32_t *live, *live_n, *live_pos;
    size_t bytes, peak;
};

static void account(struct run *r, size_t add)
{
    r->bytes += add;
    if (r->bytes > r->peak)
        r->peak = r->bytes;
}

static void count(struct shape_tree *rt, uint32_t key, int times)
{
    if (key >= SIM_KEY_FITS)
        return;
    for (int d = 0; d < SIM_RESOURCE_REASONS; d++)
        if (key & (1u << d))
            rt->counts[d] += (uint32_t)times;
}

/* The key of node @pos, leaf @leaf of shape @sh, in the current state: the
 * resource rules, then the value, with the functions the service uses. */
static uint32_t leaf_key(const struct run *r, const struct sim_shape *sh, uint32_t leaf,
                         uint32_t pos)
{
    struct score_explain ex;

    uint32_t reasons = sim_fit_reasons(&r->room[pos], sh->req.fit);
    if (reasons != 0)
        return reasons;
    score_node_value(&r->params, &r->node[pos].res, &sh->req, &ex);
    int v = ex.value < 0 ? 0 : ex.value > SCORE_MAX_VALUE ? SCORE_MAX_VALUE : ex.value;
    return ((uint32_t)(v + 1) << 24) | (SIM_KEY_LEAF - leaf);
}

static uint32_t max_u32(uint32_t a, uint32_t b)
{
    return a > b ? a : b;
}

static int build(struct run *r, uint32_t s)
{
    const struct place_sim *sim = r->sim;
    const struct sim_shape *sh = &sim->shapes[s];
    const struct sim_class *c = &sim->classes[sh->cls];
    struct shape_tree *rt = &r->rt[s];
    uint32_t n = c->n_elig;
    size_t size = (2 * (size_t)n + 2 + n) * sizeof(uint32_t) + n + 1;

    uint32_t *block = malloc(size);
    if (block == NULL)
        return -ENOMEM;
    account(r, size);
    *rt = (struct shape_tree){.tree = block, .dirty_list = block + 2 * (size_t)n + 2, .n = n};
    rt->dirty = (uint8_t *)(rt->dirty_list + n);
    memset(rt->dirty, 0, n + 1);
    rt->tree[0] = rt->tree[1] = 0;
    for (uint32_t leaf = 0; leaf < n; leaf++) {
        uint32_t key = leaf_key(r, sh, leaf, sim->eligible[c->elig_off + leaf]);
        rt->tree[n + leaf] = key;
        count(rt, key, 1);
    }
    for (uint32_t i = n - 1; n > 1 && i >= 1; i--)
        rt->tree[i] = max_u32(rt->tree[2 * i], rt->tree[2 * i + 1]);
    r->live_pos[s] = r->live_n[sh->cls]++;
    r->live[c->shape_off + r->live_pos[s]] = s;
    return 0;
}

/* The best key of shape @s, that has one pod, without a tree: one pass
 * over its nodes, the resource reasons counted into @rt as build() would
 * (the input with a request per pod is all such shapes). A node that fits
 * is valued only when its bound (sim_bound.h) beats the best value so far:
 * a later node needs a higher value to win. */
static uint32_t best_once(const struct run *r, uint32_t s, struct shape_tree *rt)
{
    const struct place_sim *sim = r->sim;
    const struct sim_shape *sh = &sim->shapes[s];
    const struct sim_class *c = &sim->classes[sh->cls];
    const uint32_t *elig = sim->eligible + c->elig_off;
    uint32_t best = 0, by_bits[1u << SIM_RESOURCE_REASONS] = {0};
    bool bounded = sim_bound_usable(&r->params, &sh->req);

    for (uint32_t leaf = 0; leaf < c->n_elig; leaf++) {
        uint32_t pos = elig[leaf], key = sim_fit_reasons(&r->room[pos], sh->req.fit);
        if (key != 0) {
            by_bits[key]++; /* the nodes per set of reasons, counted per reason below */
            continue;
        }
        if (best >= SIM_KEY_FITS && bounded &&
            sim_node_bound(&r->params, &r->node[pos].res, &sh->req) < (int)(best >> 24))
            continue; /* bound <= the best value (key value + 1) */
        best = max_u32(best, leaf_key(r, sh, leaf, pos));
    }
    memset(rt->counts, 0, sizeof(rt->counts));
    for (uint32_t bits = 1; bits < (1u << SIM_RESOURCE_REASONS); bits++)
        count(rt, bits, (int)by_bits[bits]);
    return best;
}

static void release(struct run *r, uint32_t s)
{
    struct shape_tree *rt = &r->rt[s];
    uint32_t cls = r->sim->shapes[s].cls, off = r->sim->classes[cls].shape_off;
    uint32_t last = r->live[off + --r->live_n[cls]];
    r->live[off + r->live_pos[s]] = last;
    r->live_pos[last] = r->live_pos[s];
    r->bytes -= (2 * (size_t)rt->n + 2 + rt->n) * sizeof(uint32_t) + rt->n + 1;
    free(rt->tree); /* dirty_list and dirty with it: nothing reads them without a tree */
    rt->tree = NULL;
}

/* Recomputes the dirty leaves of shape @s: along their paths when few, or
 * every inner key when that is cheaper. */
static void sync(struct run *r, uint32_t s)
{
    const struct place_sim *sim = r->sim;
    const struct sim_shape *sh = &sim->shapes[s];
    const uint32_t *elig = sim->eligible + sim->classes[sh->cls].elig_off;
    struct shape_tree *rt = &r->rt[s];
    uint32_t n = rt->n, depth = 1;

    if (rt->n_dirty == 0)
        return;
    while ((1u << depth) < n)
        depth++;
    bool rebuild = (size_t)rt->n_dirty * depth >= n;
    for (uint32_t d = 0; d < rt->n_dirty; d++) {
        uint32_t leaf = rt->dirty_list[d], i = n + leaf;
        uint32_t key = leaf_key(r, sh, leaf, elig[leaf]);
        rt->dirty[leaf] = 0;
        count(rt, rt->tree[i], -1);
        count(rt, key, 1);
        rt->tree[i] = key;
        if (rebuild)
            continue;
        for (i /= 2; i >= 1; i /= 2) {
            uint32_t m = max_u32(rt->tree[2 * i], rt->tree[2 * i + 1]);
            if (rt->tree[i] == m)
                break;
            rt->tree[i] = m;
        }
    }
    if (rebuild)
        for (uint32_t i = n - 1; n > 1 && i >= 1; i--)
            rt->tree[i] = max_u32(rt->tree[2 * i], rt->tree[2 * i + 1]);
    rt->n_dirty = 0;
}

/* Binds the pod of shape @sh to node @pos and marks the node dirty in every
 * live shape that admits it. */
static void place(struct run *r, const struct sim_shape *sh, uint32_t pos)
{
    const struct place_sim *sim = r->sim;

    struct place_sim_node_state *ns = &r->node[pos];
    struct score_node *n = &ns->res;

    ns->pods = score_add_sat(ns->pods, 1);
    for (int k = 0; k < SCORE_NRES; k++) {
        ns->requested[k] = score_add_sat(ns->requested[k], sh->req.real[k]);
        n->used[k] = score_add_sat(n->used[k], sh->charge_used[k]);
        n->used_non_zero[k] = score_add_sat(n->used_non_zero[k], sh->charge_non_zero[k]);
    }
    place_sim_room_set(&r->room[pos], ns, sim->in.nodes[sim->by_name[pos]].facts.max_pods,
                       r->params.threshold_percent);
    for (uint32_t l = sim->link_off[pos]; l < sim->link_off[pos + 1]; l++) {
        const struct sim_node_link *link = &sim->links[l];
        const uint32_t *live = r->live + sim->classes[link->cls].shape_off;
        for (uint32_t k = 0; k < r->live_n[link->cls]; k++) {
            struct shape_tree *rt = &r->rt[live[k]];
            if (rt->dirty[link->leaf])
                continue;
            rt->dirty[link->leaf] = 1;
            rt->dirty_list[rt->n_dirty++] = link->leaf;
        }
    }
}

int place_sim_run(const struct place_sim *sim, enum score_strategy s, struct place_sim_result *out)
{
    size_t nn = sim->in.n_nodes, np = sim->in.n_pods;
    struct run r = {.sim = sim, .params = sim->in.params};
    uint32_t(*resource_reasons)[SIM_RESOURCE_REASONS] = NULL;
    int rc = -ENOMEM;

    *out = (struct place_sim_result){.strategy = s};
    r.params.strategy = s;
    r.node = malloc((nn + 1) * sizeof(*r.node));
    r.room = malloc((nn + 1) * sizeof(*r.room));
    r.rt = calloc(sim->n_shapes + 1, sizeof(*r.rt));
    r.live = malloc((sim->n_shapes + 1) * sizeof(*r.live));
    r.live_pos = malloc((sim->n_shapes + 1) * sizeof(*r.live_pos));
    r.live_n = calloc(sim->n_classes + 1, sizeof(*r.live_n));
    resource_reasons = calloc(np + 1, sizeof(*resource_reasons));
    out->pods = calloc(np + 1, sizeof(*out->pods));
    out->nodes = calloc(nn + 1, sizeof(*out->nodes));
    if (r.node == NULL || r.room == NULL || r.rt == NULL || r.live == NULL || r.live_pos == NULL ||
        r.live_n == NULL || resource_reasons == NULL || out->pods == NULL || out->nodes == NULL)
        goto out_free;
    account(&r, (nn + 1) * (sizeof(*r.node) + sizeof(*r.room)) +
                    (sim->n_shapes + 1) * (sizeof(*r.rt) + 2 * sizeof(*r.live)) +
                    (sim->n_classes + 1) * sizeof(*r.live_n) +
                    (np + 1) * sizeof(*resource_reasons));
    for (size_t pos = 0; pos < nn; pos++) {
        const struct place_sim_node *node = &sim->in.nodes[sim->by_name[pos]];
        r.node[pos] = (struct place_sim_node_state){
            node->facts.pods, {node->facts.requested[0], node->facts.requested[1]}, node->res};
        place_sim_room_set(&r.room[pos], &r.node[pos], node->facts.max_pods,
                           r.params.threshold_percent);
    }

    for (uint32_t k = 0; k < np; k++) {
        uint32_t pod = sim->order[k], si = sim->pod_shape[pod];
        const struct sim_shape *sh = &sim->shapes[si];
        struct shape_tree *rt = &r.rt[si];
        struct place_sim_placement *pl = &out->pods[pod];

        uint32_t root;
        if (rt->tree == NULL && sh->last == k) {
            root = best_once(&r, si, rt);
        } else {
            if (rt->tree == NULL && build(&r, si) != 0)
                goto out_free;
            sync(&r, si);
            root = rt->n > 0 ? rt->tree[1] : 0;
        }
        if (root >= SIM_KEY_FITS) {
            const struct sim_class *c = &sim->classes[sh->cls];
            uint32_t leaf = SIM_KEY_LEAF - (root & SIM_KEY_LEAF);
            uint32_t pos = sim->eligible[c->elig_off + leaf];
            struct score_explain ex;
            score_node_value(&r.params, &r.node[pos].res, &sh->req, &ex);
            score_finish(&r.params, &ex, 1);
            pl->node = (int32_t)sim->by_name[pos];
            pl->value = ex.value;
            pl->score = ex.score;
            place(&r, sh, pos);
        } else {
            pl->node = -1;
            memcpy(resource_reasons[pod], rt->counts, sizeof(resource_reasons[pod]));
        }
        if (sh->last == k && rt->tree != NULL)
            release(&r, si);
    }
    if (place_sim_collect_reasons(sim, (const uint32_t(*)[SIM_RESOURCE_REASONS])resource_reasons,
                                  out) != 0)
        goto out_free;
    place_sim_summarise(sim, r.node, r.room, out);
    out->peak_bytes = r.peak;
    rc = 0;

out_free:
    for (size_t si = 0; r.rt != NULL && si < sim->n_shapes; si++)
        if (r.rt[si].tree != NULL)
            release(&r, (uint32_t)si);
    free(r.rt);
    free(r.live);
    free(r.live_pos);
    free(r.live_n);
    free(resource_reasons);
    free(r.room);
    free(r.node);
    if (rc != 0)
        place_sim_result_destroy(out);
    return rc;
}

void place_sim_result_destroy(struct place_sim_result *r)
{
    free(r->pods);
    free(r->reasons);
    free(r->nodes);
    memset(r, 0, sizeof(*r));
}

/* Several strategies on threads (place_sim_run_all): the runs only read the
 * prepared data. */
struct job {
    const struct place_sim *sim;
    const enum score_strategy *s;
    struct place_sim_result *out;
    size_t first, step, n;
    int rc;
};

static void *run_jobs(void *arg)
{
    struct job *j = arg;
    for (size_t i = j->first; i < j->n && j->rc == 0; i += j->step)
        j->rc = place_sim_run(j->sim, j->s[i], &j->out[i]);
    return NULL;
}

int place_sim_run_all(const struct place_sim *sim, const enum score_strategy *s, size_t n,
                      unsigned threads, struct place_sim_result *out)
{
    enum { MAX_THREADS = 16 };
    struct job jobs[MAX_THREADS];
    pthread_t tid[MAX_THREADS] = {0};
    size_t t = threads < 1 ? 1 : threads > MAX_THREADS ? MAX_THREADS : threads, started = 1;
    int rc = 0;

    memset(out, 0, n * sizeof(*out));
    if (t > n)
        t = n > 0 ? n : 1;
    for (size_t i = 0; i < t; i++)
        jobs[i] = (struct job){.sim = sim, .s = s, .out = out, .first = i, .step = t, .n = n};
    /* Thread i runs strategies i, i + t, ...; the caller runs the first share. */
    for (; started < t; started++) {
        if (pthread_create(&tid[started], NULL, run_jobs, &jobs[started]) != 0) {
            rc = -EAGAIN;
            break;
        }
    }
    if (rc == 0)
        run_jobs(&jobs[0]);
    for (size_t i = 1; i < started; i++)
        pthread_join(tid[i], NULL);
    for (size_t i = 0; i < t && rc == 0; i++)
        rc = jobs[i].rc;
    if (rc != 0)
        for (size_t i = 0; i < n; i++)
            place_sim_result_destroy(&out[i]);
    return rc;
}

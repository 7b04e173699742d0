#include "scoring/simulate.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "scoring/placement.h"

/*
 * A shape's tree holds one 32-bit key per admitted node (its leaf, in name
 * order). A node that fits has key (value + 1) << 24 | (LEAF_MASK - leaf):
 * the maximum is the highest value, then the lowest leaf, i.e. the first
 * name, and every key is distinct, so the tree can be any shape. A node
 * that does not fit has as key the bits of its resource reasons (below
 * FIT_BASE, so below every fitting key).
 */
#define FIT_BASE  (1u << 24)
#define LEAF_MASK (FIT_BASE - 1)

/* The resource reason texts a shape counts over its admitted nodes. */
enum dyn_reason {
    DYN_TOO_MANY_PODS = 0,
    DYN_CPU,
    DYN_MEMORY,
    DYN_CPU_MEMORY,
    DYN_COUNT,
};

static const enum score_reason dyn_reason_of[DYN_COUNT] = {
    [DYN_TOO_MANY_PODS] = SCORE_REASON_TOO_MANY_PODS,
    [DYN_CPU] = SCORE_REASON_INSUFFICIENT_CPU,
    [DYN_MEMORY] = SCORE_REASON_INSUFFICIENT_MEMORY,
    [DYN_CPU_MEMORY] = SCORE_REASON_INSUFFICIENT_CPU_MEMORY,
};

/* Pods with deeply equal constraints: the nodes they may go to. */
struct sim_class {
    uint32_t rep;                 /* a pod of the class */
    uint32_t elig_off, n_elig;    /* admitted node positions in sim->eligible, ascending */
    uint32_t stat_off, n_stat;    /* static reason counts in sim->stat */
    uint32_t shape_off, n_shapes; /* its shapes in sim->class_shapes */
};

/* Pods of one class with one request. */
struct sim_shape {
    uint32_t cls;
    uint32_t last; /* placement position of its last pod */
    struct score_pod_request req;
};

/* Node position -> (class, leaf) for each class admitting it. */
struct node_link {
    uint32_t cls, leaf;
};

struct score_sim {
    struct score_sim_input in;
    uint32_t *by_name; /* position in name order -> input node index */
    uint32_t *order;   /* placement order -> input pod index */
    uint32_t *pod_shape;
    struct sim_class *classes;
    size_t n_classes;
    struct sim_shape *shapes;
    size_t n_shapes;
    uint32_t *eligible;
    size_t n_eligible;
    struct score_reason_count *stat;
    size_t n_stat;
    uint32_t *class_shapes;
    uint32_t *link_off; /* n_nodes + 1 */
    struct node_link *links;
    int64_t median[SCORE_NRES];
    size_t bytes;
};

/* ---- preparation --------------------------------------------------------- */

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return p;
    size_t n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    void *q = realloc(p, n * elem);
    if (q != NULL)
        *cap = n;
    return q;
}

static uint64_t mix(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

static uint64_t mix_str(uint64_t h, const char *s)
{
    return mix(h, s != NULL ? s : "", strlen(s != NULL ? s : "") + 1);
}

static uint64_t mix_num(uint64_t h, uint64_t v)
{
    return mix(h, &v, sizeof(v));
}

static uint64_t mix_reqs(uint64_t h, const struct score_requirement *r, size_t n)
{
    h = mix_num(h, n);
    for (size_t i = 0; i < n; i++) {
        h = mix_str(h, r[i].key);
        h = mix_num(h, r[i].op);
        h = mix_num(h, r[i].n_values);
        for (size_t v = 0; v < r[i].n_values; v++)
            h = mix_str(h, r[i].values[v]);
    }
    return h;
}

static uint64_t hash_constraints(const struct score_pod_constraints *c)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    h = mix_str(h, c->node_name);
    h = mix_num(h, c->n_node_selector);
    for (size_t i = 0; i < c->n_node_selector; i++) {
        h = mix_str(h, c->node_selector[i].key);
        h = mix_str(h, c->node_selector[i].value);
    }
    h = mix_num(h, c->has_required_affinity);
    h = mix_num(h, c->n_affinity_terms);
    for (size_t i = 0; i < c->n_affinity_terms; i++) {
        h = mix_reqs(h, c->affinity_terms[i].match_expressions,
                     c->affinity_terms[i].n_match_expressions);
        h = mix_reqs(h, c->affinity_terms[i].match_fields, c->affinity_terms[i].n_match_fields);
    }
    h = mix_num(h, c->n_tolerations);
    for (size_t i = 0; i < c->n_tolerations; i++) {
        h = mix_str(h, c->tolerations[i].key);
        h = mix_num(h, c->tolerations[i].op);
        h = mix_str(h, c->tolerations[i].value);
        h = mix_num(h, c->tolerations[i].effect);
    }
    return h;
}

static bool str_eq(const char *a, const char *b)
{
    return strcmp(a != NULL ? a : "", b != NULL ? b : "") == 0;
}

static bool reqs_eq(const struct score_requirement *a, size_t na, const struct score_requirement *b,
                    size_t nb)
{
    if (na != nb)
        return false;
    for (size_t i = 0; i < na; i++) {
        if (!str_eq(a[i].key, b[i].key) || a[i].op != b[i].op || a[i].n_values != b[i].n_values)
            return false;
        for (size_t v = 0; v < a[i].n_values; v++)
            if (!str_eq(a[i].values[v], b[i].values[v]))
                return false;
    }
    return true;
}

static bool constraints_eq(const struct score_pod_constraints *a,
                           const struct score_pod_constraints *b)
{
    if (!str_eq(a->node_name, b->node_name) || a->n_node_selector != b->n_node_selector ||
        a->has_required_affinity != b->has_required_affinity ||
        a->n_affinity_terms != b->n_affinity_terms || a->n_tolerations != b->n_tolerations)
        return false;
    for (size_t i = 0; i < a->n_node_selector; i++)
        if (!str_eq(a->node_selector[i].key, b->node_selector[i].key) ||
            !str_eq(a->node_selector[i].value, b->node_selector[i].value))
            return false;
    for (size_t i = 0; i < a->n_affinity_terms; i++) {
        const struct score_selector_term *x = &a->affinity_terms[i], *y = &b->affinity_terms[i];
        if (!reqs_eq(x->match_expressions, x->n_match_expressions, y->match_expressions,
                     y->n_match_expressions) ||
            !reqs_eq(x->match_fields, x->n_match_fields, y->match_fields, y->n_match_fields))
            return false;
    }
    for (size_t i = 0; i < a->n_tolerations; i++) {
        const struct score_toleration *x = &a->tolerations[i], *y = &b->tolerations[i];
        if (!str_eq(x->key, y->key) || x->op != y->op || !str_eq(x->value, y->value) ||
            x->effect != y->effect)
            return false;
    }
    return true;
}

static int cmp_pods(const void *a, const void *b, void *arg)
{
    const struct score_sim_input *in = *(const struct score_sim_input *const *)arg;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    int32_t px = in->pods[x].priority, py = in->pods[y].priority;
    if (px != py)
        return px > py ? -1 : 1;
    return x < y ? -1 : x > y;
}

static int cmp_names(const void *a, const void *b, void *arg)
{
    const struct score_sim_input *in = *(const struct score_sim_input *const *)arg;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    int c = strcmp(in->nodes[x].facts.name, in->nodes[y].facts.name);
    if (c != 0)
        return c;
    return x < y ? -1 : x > y;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* The position of the node named @name, or -1. */
static long find_node(const struct score_sim *sim, const char *name)
{
    size_t lo = 0, hi = sim->in.n_nodes;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(sim->in.nodes[sim->by_name[mid]].facts.name, name);
        if (c == 0) {
            while (mid > 0 && strcmp(sim->in.nodes[sim->by_name[mid - 1]].facts.name, name) == 0)
                mid--;
            return (long)mid;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* Scratch of the static pass. */
struct prep {
    size_t cap_elig, cap_stat;
    uint32_t *cand;
    uint8_t *seen;
};

static int add_stat(struct score_sim *sim, struct prep *p, const struct sim_class *c,
                    enum score_reason reason, const struct score_taint *taint, size_t count)
{
    if (count == 0)
        return 0;
    for (size_t i = c->stat_off; i < sim->n_stat; i++) {
        struct score_reason_count *e = &sim->stat[i];
        if (e->reason != reason)
            continue;
        if (reason == SCORE_REASON_TAINT &&
            (strcmp(e->taint->key, taint->key) != 0 || strcmp(e->taint->value, taint->value) != 0))
            continue;
        e->count += count;
        return 0;
    }
    struct score_reason_count *q = grow(sim->stat, &p->cap_stat, sim->n_stat + 1, sizeof(*q));
    if (q == NULL)
        return -ENOMEM;
    sim->stat = q;
    sim->stat[sim->n_stat++] = (struct score_reason_count){
        .reason = reason,
        .taint = reason == SCORE_REASON_TAINT ? taint : NULL,
        .count = count,
    };
    return 0;
}

static int add_eligible(struct score_sim *sim, struct prep *p, uint32_t pos)
{
    uint32_t *q = grow(sim->eligible, &p->cap_elig, sim->n_eligible + 1, sizeof(*q));
    if (q == NULL)
        return -ENOMEM;
    sim->eligible = q;
    sim->eligible[sim->n_eligible++] = pos;
    return 0;
}

/* Judges node @pos for class @c: admitted, or counted under its reason. */
static int judge_one(struct score_sim *sim, struct prep *p, struct sim_class *c, uint32_t pos)
{
    struct score_judgement j;
    const struct score_sim_pod *pod = &sim->in.pods[c->rep];
    score_judge_static(&pod->constraints, &sim->in.nodes[sim->by_name[pos]].facts, &j);
    if (j.rule == SCORE_RULE_NONE)
        return add_eligible(sim, p, pos);
    for (int r = 0; r < SCORE_REASON_COUNT; r++)
        if (j.reasons & (1u << r))
            return add_stat(sim, p, c, (enum score_reason)r, j.taint, 1);
    return 0;
}

/* The static pass of one class: which nodes it admits, and why not the
 * others. A matchFields class judges only the nodes it names; the rest are
 * the PreFilter's, as kube-scheduler never filters them. */
static int judge_class(struct score_sim *sim, struct prep *p, struct sim_class *c)
{
    const struct score_pod_constraints *pc = &sim->in.pods[c->rep].constraints;
    size_t n = sim->in.n_nodes, n_cand = 0;
    int rc = 0;

    c->elig_off = (uint32_t)sim->n_eligible;
    c->stat_off = (uint32_t)sim->n_stat;
    switch (score_pod_prefilter(pc)) {
    case SCORE_PREFILTER_CONFLICT:
        rc = add_stat(sim, p, c, SCORE_REASON_AFFINITY_CONFLICT, NULL, n);
        break;
    case SCORE_PREFILTER_NAMES:
        for (size_t t = 0; t < pc->n_affinity_terms; t++) {
            const struct score_selector_term *term = &pc->affinity_terms[t];
            for (size_t f = 0; f < term->n_match_fields; f++) {
                const struct score_requirement *r = &term->match_fields[f];
                if (r->op != SCORE_OP_IN || strcmp(r->key, SCORE_FIELD_NODE_NAME) != 0)
                    continue;
                for (size_t v = 0; v < r->n_values; v++) {
                    long pos = find_node(sim, r->values[v]);
                    if (pos < 0 || p->seen[pos] || !score_prefilter_admits(pc, r->values[v]))
                        continue;
                    p->seen[pos] = 1;
                    p->cand[n_cand++] = (uint32_t)pos;
                }
            }
        }
        qsort(p->cand, n_cand, sizeof(*p->cand), cmp_u32);
        for (size_t i = 0; i < n_cand && rc == 0; i++) {
            p->seen[p->cand[i]] = 0;
            rc = judge_one(sim, p, c, p->cand[i]);
        }
        if (rc == 0)
            rc = add_stat(sim, p, c, SCORE_REASON_PREFILTER_AFFINITY, NULL, n - n_cand);
        break;
    case SCORE_PREFILTER_ALL_NODES:
        for (size_t pos = 0; pos < n && rc == 0; pos++)
            rc = judge_one(sim, p, c, (uint32_t)pos);
        break;
    }
    c->n_elig = (uint32_t)(sim->n_eligible - c->elig_off);
    c->n_stat = (uint32_t)(sim->n_stat - c->stat_off);
    return rc;
}

/* Open-addressing table of ids by hash, for grouping. */
struct table {
    uint32_t *slot; /* id + 1, 0 empty */
    uint64_t *hash;
    size_t mask;
};

static int table_init(struct table *t, size_t n)
{
    size_t cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    t->slot = calloc(cap, sizeof(*t->slot));
    t->hash = calloc(cap, sizeof(*t->hash));
    t->mask = cap - 1;
    return t->slot != NULL && t->hash != NULL ? 0 : -ENOMEM;
}

static void table_destroy(struct table *t)
{
    free(t->slot);
    free(t->hash);
    t->slot = NULL;
    t->hash = NULL;
}

static bool shape_eq(const struct sim_shape *s, uint32_t cls, const struct score_pod_request *r)
{
    /* Every view: non_zero_scored scores the pod, non_zero charges its node. */
    return s->cls == cls && memcmp(s->req.real, r->real, sizeof(r->real)) == 0 &&
           memcmp(s->req.non_zero, r->non_zero, sizeof(r->non_zero)) == 0 &&
           memcmp(s->req.non_zero_scored, r->non_zero_scored, sizeof(r->non_zero_scored)) == 0;
}

static int group(struct score_sim *sim, uint32_t *pod_class)
{
    struct table tc = {0}, ts = {0};
    size_t np = sim->in.n_pods;
    int rc = -ENOMEM;

    if (table_init(&tc, np) != 0 || table_init(&ts, np) != 0)
        goto out_free_tables;
    sim->classes = calloc(np + 1, sizeof(*sim->classes));
    sim->shapes = calloc(np + 1, sizeof(*sim->shapes));
    if (sim->classes == NULL || sim->shapes == NULL)
        goto out_free_tables;
    for (uint32_t i = 0; i < np; i++) {
        const struct score_sim_pod *pod = &sim->in.pods[i];
        uint64_t h = hash_constraints(&pod->constraints);
        size_t k = h & tc.mask;
        while (tc.slot[k] != 0 &&
               (tc.hash[k] != h ||
                !constraints_eq(&sim->in.pods[sim->classes[tc.slot[k] - 1].rep].constraints,
                                &pod->constraints)))
            k = (k + 1) & tc.mask;
        if (tc.slot[k] == 0) {
            sim->classes[sim->n_classes].rep = i;
            tc.slot[k] = (uint32_t)++sim->n_classes;
            tc.hash[k] = h;
        }
        uint32_t cls = tc.slot[k] - 1;
        pod_class[i] = cls;

        uint64_t hs = mix(mix_num(0xcbf29ce484222325ULL, cls), &pod->request, sizeof(pod->request));
        k = hs & ts.mask;
        while (ts.slot[k] != 0 &&
               (ts.hash[k] != hs || !shape_eq(&sim->shapes[ts.slot[k] - 1], cls, &pod->request)))
            k = (k + 1) & ts.mask;
        if (ts.slot[k] == 0) {
            sim->shapes[sim->n_shapes].cls = cls;
            sim->shapes[sim->n_shapes].req = pod->request;
            ts.slot[k] = (uint32_t)++sim->n_shapes;
            ts.hash[k] = hs;
        }
        sim->pod_shape[i] = ts.slot[k] - 1;
    }
    /* Room was made for a class and a shape per pod: give back the rest. */
    struct sim_class *c = realloc(sim->classes, (sim->n_classes + 1) * sizeof(*c));
    struct sim_shape *sh = realloc(sim->shapes, (sim->n_shapes + 1) * sizeof(*sh));
    if (c != NULL)
        sim->classes = c;
    if (sh != NULL)
        sim->shapes = sh;
    rc = 0;

out_free_tables:
    table_destroy(&ts);
    table_destroy(&tc);
    return rc;
}

/* Class -> shapes and node -> (class, leaf), both as offset arrays. */
static int link_up(struct score_sim *sim)
{
    size_t nn = sim->in.n_nodes;
    uint32_t *fill = calloc(nn + sim->n_classes + 1, sizeof(*fill));
    if (fill == NULL)
        return -ENOMEM;
    sim->class_shapes = malloc((sim->n_shapes + 1) * sizeof(*sim->class_shapes));
    sim->link_off = calloc(nn + 1, sizeof(*sim->link_off));
    sim->links = malloc((sim->n_eligible + 1) * sizeof(*sim->links));
    if (sim->class_shapes == NULL || sim->link_off == NULL || sim->links == NULL) {
        free(fill);
        return -ENOMEM;
    }
    for (size_t s = 0; s < sim->n_shapes; s++)
        sim->classes[sim->shapes[s].cls].n_shapes++;
    uint32_t off = 0;
    for (size_t c = 0; c < sim->n_classes; c++) {
        sim->classes[c].shape_off = off;
        off += sim->classes[c].n_shapes;
    }
    for (size_t s = 0; s < sim->n_shapes; s++) {
        struct sim_class *c = &sim->classes[sim->shapes[s].cls];
        sim->class_shapes[c->shape_off + fill[nn + sim->shapes[s].cls]++] = (uint32_t)s;
    }
    for (size_t i = 0; i < sim->n_eligible; i++)
        sim->link_off[sim->eligible[i] + 1]++;
    for (size_t pos = 0; pos < nn; pos++)
        sim->link_off[pos + 1] += sim->link_off[pos];
    for (size_t c = 0; c < sim->n_classes; c++) {
        const struct sim_class *cl = &sim->classes[c];
        for (uint32_t leaf = 0; leaf < cl->n_elig; leaf++) {
            uint32_t pos = sim->eligible[cl->elig_off + leaf];
            sim->links[sim->link_off[pos] + fill[pos]++] = (struct node_link){(uint32_t)c, leaf};
        }
    }
    free(fill);
    return 0;
}

static int medians(struct score_sim *sim)
{
    size_t np = sim->in.n_pods;
    if (np == 0)
        return 0;
    int64_t *v = malloc(np * sizeof(*v));
    if (v == NULL)
        return -ENOMEM;
    for (int r = 0; r < SCORE_NRES; r++) {
        for (size_t i = 0; i < np; i++)
            v[i] = sim->in.pods[i].request.real[r];
        qsort(v, np, sizeof(*v), cmp_i64);
        sim->median[r] = v[(np - 1) / 2];
    }
    free(v);
    return 0;
}

int score_sim_new(const struct score_sim_input *in, struct score_sim **out)
{
    struct prep p = {0};
    uint32_t *pod_class = NULL;
    int rc = -ENOMEM;

    *out = NULL;
    if (in == NULL || in->n_nodes > SCORE_SIM_MAX_NODES || in->n_pods > SCORE_SIM_MAX_PODS ||
        (in->n_nodes > 0 && in->nodes == NULL) || (in->n_pods > 0 && in->pods == NULL))
        return -EINVAL;
    struct score_sim *sim = calloc(1, sizeof(*sim));
    if (sim == NULL)
        return -ENOMEM;
    sim->in = *in;
    size_t nn = in->n_nodes, np = in->n_pods;
    sim->by_name = malloc((nn + 1) * sizeof(*sim->by_name));
    sim->order = malloc((np + 1) * sizeof(*sim->order));
    sim->pod_shape = malloc((np + 1) * sizeof(*sim->pod_shape));
    pod_class = malloc((np + 1) * sizeof(*pod_class));
    p.cand = malloc((nn + 1) * sizeof(*p.cand));
    p.seen = calloc(nn + 1, 1);
    if (sim->by_name == NULL || sim->order == NULL || sim->pod_shape == NULL || pod_class == NULL ||
        p.cand == NULL || p.seen == NULL)
        goto out_free;

    /* qsort_r's argument: the input, for both orders. */
    const struct score_sim_input *ctx = in;
    for (uint32_t i = 0; i < nn; i++)
        sim->by_name[i] = i;
    qsort_r(sim->by_name, nn, sizeof(*sim->by_name), cmp_names, &ctx);
    for (uint32_t i = 0; i < np; i++)
        sim->order[i] = i;
    qsort_r(sim->order, np, sizeof(*sim->order), cmp_pods, &ctx);

    if (group(sim, pod_class) != 0)
        goto out_free;
    for (uint32_t k = 0; k < np; k++)
        sim->shapes[sim->pod_shape[sim->order[k]]].last = k;
    for (size_t c = 0; c < sim->n_classes; c++)
        if (judge_class(sim, &p, &sim->classes[c]) != 0)
            goto out_free;
    if (link_up(sim) != 0 || medians(sim) != 0)
        goto out_free;
    sim->bytes = sizeof(*sim) + (nn + 1) * sizeof(uint32_t) * 2 + (np + 1) * sizeof(uint32_t) * 2 +
                 (sim->n_classes + 1) * sizeof(*sim->classes) +
                 (sim->n_shapes + 1) * (sizeof(*sim->shapes) + sizeof(uint32_t)) +
                 p.cap_elig * sizeof(uint32_t) + (sim->n_eligible + 1) * sizeof(*sim->links) +
                 p.cap_stat * sizeof(*sim->stat);
    *out = sim;
    sim = NULL;
    rc = 0;

out_free:
    free(p.seen);
    free(p.cand);
    free(pod_class);
    score_sim_free(sim);
    return rc;
}

void score_sim_free(struct score_sim *sim)
{
    if (sim == NULL)
        return;
    free(sim->by_name);
    free(sim->order);
    free(sim->pod_shape);
    free(sim->classes);
    free(sim->shapes);
    free(sim->eligible);
    free(sim->stat);
    free(sim->class_shapes);
    free(sim->link_off);
    free(sim->links);
    free(sim);
}

const uint32_t *score_sim_order(const struct score_sim *sim)
{
    return sim->order;
}

size_t score_sim_bytes(const struct score_sim *sim)
{
    return sim->bytes;
}

void score_sim_groups(const struct score_sim *sim, size_t *classes, size_t *shapes)
{
    *classes = sim->n_classes;
    *shapes = sim->n_shapes;
}

/* ---- one run ------------------------------------------------------------- */

/* A shape's tree while it has pods to come. */
struct shape_rt {
    uint32_t *tree; /* 2n keys (index 1 the root, n..2n-1 the leaves); NULL: not built */
    uint32_t *dirty_list;
    uint8_t *dirty;
    uint32_t n, n_dirty;
    uint32_t counts[DYN_COUNT]; /* admitted nodes rejected per resource reason text */
};

struct run {
    const struct score_sim *sim;
    struct score_params params;
    struct score_node_facts *facts; /* by position */
    struct score_node *res;         /* by position */
    struct shape_rt *rt;
    size_t bytes, peak;
};

static void account(struct run *r, size_t add)
{
    r->bytes += add;
    if (r->bytes > r->peak)
        r->peak = r->bytes;
}

static uint32_t dyn_bits(unsigned reasons)
{
    uint32_t bits = 0;
    for (int d = 0; d < DYN_COUNT; d++)
        if (reasons & (1u << dyn_reason_of[d]))
            bits |= 1u << d;
    return bits;
}

static void count(struct shape_rt *rt, uint32_t key, int sign)
{
    if (key >= FIT_BASE)
        return;
    for (int d = 0; d < DYN_COUNT; d++)
        if (key & (1u << d))
            rt->counts[d] += (uint32_t)sign;
}

/* The key of node @pos, leaf @leaf of shape @sh, in the current state: the
 * resource rules, then the value, with the functions the service uses. */
static uint32_t leaf_key(const struct run *r, const struct sim_shape *sh, uint32_t leaf,
                         uint32_t pos)
{
    struct score_judgement j;
    struct score_explain ex;

    score_judge_resources(&sh->req, &r->facts[pos], &r->res[pos], r->params.threshold_percent, &j);
    if (j.rule != SCORE_RULE_NONE)
        return dyn_bits(j.reasons);
    score_node_value(&r->params, &r->res[pos], &sh->req, &ex);
    int v = ex.value < 0 ? 0 : ex.value > SCORE_MAX_VALUE ? SCORE_MAX_VALUE : ex.value;
    return ((uint32_t)(v + 1) << 24) | (LEAF_MASK - leaf);
}

static uint32_t max_u32(uint32_t a, uint32_t b)
{
    return a > b ? a : b;
}

static int build(struct run *r, uint32_t s)
{
    const struct score_sim *sim = r->sim;
    const struct sim_shape *sh = &sim->shapes[s];
    const struct sim_class *c = &sim->classes[sh->cls];
    struct shape_rt *rt = &r->rt[s];
    uint32_t n = c->n_elig;
    size_t size = (2 * (size_t)n + 2 + n) * sizeof(uint32_t) + n + 1;

    uint32_t *block = malloc(size);
    if (block == NULL)
        return -ENOMEM;
    account(r, size);
    rt->tree = block;
    rt->dirty_list = block + 2 * (size_t)n + 2;
    rt->dirty = (uint8_t *)(rt->dirty_list + n);
    memset(rt->dirty, 0, n + 1);
    rt->n = n;
    rt->n_dirty = 0;
    memset(rt->counts, 0, sizeof(rt->counts));
    rt->tree[0] = rt->tree[1] = 0;
    for (uint32_t leaf = 0; leaf < n; leaf++) {
        uint32_t key = leaf_key(r, sh, leaf, sim->eligible[c->elig_off + leaf]);
        rt->tree[n + leaf] = key;
        count(rt, key, 1);
    }
    for (uint32_t i = n - 1; n > 1 && i >= 1; i--)
        rt->tree[i] = max_u32(rt->tree[2 * i], rt->tree[2 * i + 1]);
    return 0;
}

static void release(struct run *r, uint32_t s)
{
    struct shape_rt *rt = &r->rt[s];
    r->bytes -= (2 * (size_t)rt->n + 2 + rt->n) * sizeof(uint32_t) + rt->n + 1;
    free(rt->tree);
    rt->tree = NULL;
    rt->dirty_list = NULL;
    rt->dirty = NULL;
}

/* Recomputes the dirty leaves of shape @s: along their paths when few, or
 * every inner key when that is cheaper. */
static void sync(struct run *r, uint32_t s)
{
    const struct score_sim *sim = r->sim;
    const struct sim_shape *sh = &sim->shapes[s];
    const uint32_t *elig = sim->eligible + sim->classes[sh->cls].elig_off;
    struct shape_rt *rt = &r->rt[s];
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

static void add_sat(int64_t *a, int64_t b)
{
    if (__builtin_add_overflow(*a, b, a))
        *a = INT64_MAX;
}

/* Binds the pod of shape @sh to node @pos and marks the node dirty in every
 * live shape that admits it. */
static void place(struct run *r, const struct sim_shape *sh, uint32_t pos)
{
    const struct score_sim *sim = r->sim;

    add_sat(&r->facts[pos].pods, 1);
    for (int k = 0; k < SCORE_NRES; k++) {
        add_sat(&r->facts[pos].requested[k], sh->req.real[k]);
        add_sat(&r->res[pos].used[k], sh->req.real[k]);
        add_sat(&r->res[pos].used_non_zero[k], sh->req.non_zero[k]);
    }
    for (uint32_t l = sim->link_off[pos]; l < sim->link_off[pos + 1]; l++) {
        const struct node_link *link = &sim->links[l];
        const struct sim_class *c = &sim->classes[link->cls];
        for (uint32_t k = 0; k < c->n_shapes; k++) {
            struct shape_rt *rt = &r->rt[sim->class_shapes[c->shape_off + k]];
            if (rt->tree == NULL || rt->dirty[link->leaf])
                continue;
            rt->dirty[link->leaf] = 1;
            rt->dirty_list[rt->n_dirty++] = link->leaf;
        }
    }
}

static void ratio_stats(const struct run *r, int k, struct score_sim_ratio *out)
{
    struct score_spread_sums sums = {0};
    memset(out, 0, sizeof(*out));
    for (size_t pos = 0; pos < r->sim->in.n_nodes; pos++) {
        int64_t alloc = r->res[pos].alloc[k];
        if (alloc <= 0)
            continue;
        double v = (double)r->facts[pos].requested[k] / (double)alloc;
        if (out->nodes == 0 || v < out->min)
            out->min = v;
        if (out->nodes == 0 || v > out->max)
            out->max = v;
        out->nodes++;
        score_spread_add(&sums, r->facts[pos].requested[k], alloc);
    }
    out->mean = score_spread_mean(&sums);
    out->cv = score_spread_cv(&sums);
}

static void summarise(const struct run *r, struct score_sim_result *out)
{
    const struct score_sim *sim = r->sim;
    struct score_sim_summary *sum = &out->summary;
    struct score_pod_request median;

    for (size_t i = 0; i < sim->in.n_pods; i++) {
        if (out->pods[i].node >= 0)
            sum->placed++;
        else
            sum->not_placed++;
    }
    memcpy(sum->median_request, sim->median, sizeof(sum->median_request));
    memcpy(median.real, sim->median, sizeof(median.real));
    memcpy(median.non_zero, sim->median, sizeof(median.non_zero));
    memcpy(median.non_zero_scored, sim->median, sizeof(median.non_zero_scored));
    for (int k = 0; k < SCORE_NRES; k++)
        ratio_stats(r, k, &sum->ratio[k]);
    for (size_t pos = 0; pos < sim->in.n_nodes; pos++) {
        struct score_sim_node_state *ns = &out->nodes[sim->by_name[pos]];
        ns->pods = r->facts[pos].pods;
        memcpy(ns->requested, r->facts[pos].requested, sizeof(ns->requested));
        ns->res = r->res[pos];
        if (r->facts[pos].pods > 0)
            sum->nodes_used++;
        if (sim->in.n_pods == 0)
            continue;
        struct score_judgement j;
        score_judge_resources(&median, &r->facts[pos], &r->res[pos], r->params.threshold_percent,
                              &j);
        if (j.rule == SCORE_RULE_NONE)
            continue;
        sum->stranded_nodes++;
        for (int k = 0; k < SCORE_NRES; k++) {
            int64_t free_k = r->res[pos].alloc[k] - r->facts[pos].requested[k];
            if (free_k > 0)
                add_sat(&sum->stranded[k], free_k);
        }
    }
}

/* The histograms of the pods not placed: the class's static counts, then
 * the resource reasons of its shape's nodes at the time (@dyn). */
static int collect_reasons(const struct score_sim *sim, const uint32_t (*dyn)[DYN_COUNT],
                           struct score_sim_result *out)
{
    size_t total = 0;
    for (size_t i = 0; i < sim->in.n_pods; i++) {
        if (out->pods[i].node >= 0)
            continue;
        total += sim->classes[sim->shapes[sim->pod_shape[i]].cls].n_stat;
        for (int d = 0; d < DYN_COUNT; d++)
            total += dyn[i][d] != 0;
    }
    out->reasons = malloc((total + 1) * sizeof(*out->reasons));
    if (out->reasons == NULL)
        return -ENOMEM;
    for (size_t i = 0; i < sim->in.n_pods; i++) {
        if (out->pods[i].node >= 0)
            continue;
        const struct sim_class *c = &sim->classes[sim->shapes[sim->pod_shape[i]].cls];
        out->pods[i].first_reason = (uint32_t)out->n_reasons;
        for (uint32_t k = 0; k < c->n_stat; k++)
            out->reasons[out->n_reasons++] = sim->stat[c->stat_off + k];
        for (int d = 0; d < DYN_COUNT; d++)
            if (dyn[i][d] != 0)
                out->reasons[out->n_reasons++] = (struct score_reason_count){
                    .reason = dyn_reason_of[d],
                    .taint = NULL,
                    .count = dyn[i][d],
                };
        out->pods[i].n_reasons = (uint32_t)(out->n_reasons - out->pods[i].first_reason);
    }
    return 0;
}

int score_sim_run(const struct score_sim *sim, enum score_strategy s, struct score_sim_result *out)
{
    size_t nn = sim->in.n_nodes, np = sim->in.n_pods;
    struct run r = {.sim = sim, .params = sim->in.params};
    uint32_t(*dyn)[DYN_COUNT] = NULL;
    int rc = -ENOMEM;

    memset(out, 0, sizeof(*out));
    out->strategy = s;
    r.params.strategy = s;
    r.facts = malloc((nn + 1) * sizeof(*r.facts));
    r.res = malloc((nn + 1) * sizeof(*r.res));
    r.rt = calloc(sim->n_shapes + 1, sizeof(*r.rt));
    dyn = calloc(np + 1, sizeof(*dyn));
    out->pods = calloc(np + 1, sizeof(*out->pods));
    out->nodes = calloc(nn + 1, sizeof(*out->nodes));
    if (r.facts == NULL || r.res == NULL || r.rt == NULL || dyn == NULL || out->pods == NULL ||
        out->nodes == NULL)
        goto out_free;
    account(&r, (nn + 1) * (sizeof(*r.facts) + sizeof(*r.res)) +
                    (sim->n_shapes + 1) * sizeof(*r.rt) + (np + 1) * sizeof(*dyn));
    for (size_t pos = 0; pos < nn; pos++) {
        r.facts[pos] = sim->in.nodes[sim->by_name[pos]].facts;
        r.res[pos] = sim->in.nodes[sim->by_name[pos]].res;
    }

    for (uint32_t k = 0; k < np; k++) {
        uint32_t pod = sim->order[k], si = sim->pod_shape[pod];
        const struct sim_shape *sh = &sim->shapes[si];
        struct shape_rt *rt = &r.rt[si];
        struct score_sim_placement *pl = &out->pods[pod];

        if (rt->tree == NULL) {
            if (build(&r, si) != 0)
                goto out_free;
        } else {
            sync(&r, si);
        }
        uint32_t root = rt->n > 0 ? rt->tree[1] : 0;
        if (root >= FIT_BASE) {
            const struct sim_class *c = &sim->classes[sh->cls];
            uint32_t leaf = LEAF_MASK - (root & LEAF_MASK);
            uint32_t pos = sim->eligible[c->elig_off + leaf];
            struct score_explain ex;
            score_node_value(&r.params, &r.res[pos], &sh->req, &ex);
            score_finish(&r.params, &ex, 1);
            pl->node = (int32_t)sim->by_name[pos];
            pl->value = ex.value;
            pl->score = ex.score;
            place(&r, sh, pos);
        } else {
            pl->node = -1;
            memcpy(dyn[pod], rt->counts, sizeof(dyn[pod]));
        }
        if (sh->last == k)
            release(&r, si);
    }
    if (collect_reasons(sim, (const uint32_t(*)[DYN_COUNT])dyn, out) != 0)
        goto out_free;
    summarise(&r, out);
    out->peak_bytes = r.peak;
    rc = 0;

out_free:
    for (size_t si = 0; r.rt != NULL && si < sim->n_shapes; si++)
        if (r.rt[si].tree != NULL)
            release(&r, (uint32_t)si);
    free(r.rt);
    free(dyn);
    free(r.res);
    free(r.facts);
    if (rc != 0)
        score_sim_result_destroy(out);
    return rc;
}

void score_sim_result_destroy(struct score_sim_result *r)
{
    free(r->pods);
    free(r->reasons);
    free(r->nodes);
    memset(r, 0, sizeof(*r));
}

/* ---- several strategies -------------------------------------------------- */

struct job {
    const struct score_sim *sim;
    const enum score_strategy *s;
    struct score_sim_result *out;
    size_t first, step, n;
    int rc;
};

static void *run_jobs(void *arg)
{
    struct job *j = arg;
    for (size_t i = j->first; i < j->n && j->rc == 0; i += j->step)
        j->rc = score_sim_run(j->sim, j->s[i], &j->out[i]);
    return NULL;
}

int score_sim_run_all(const struct score_sim *sim, const enum score_strategy *s, size_t n,
                      unsigned threads, struct score_sim_result *out)
{
    enum { MAX_THREADS = 16 };
    struct job jobs[MAX_THREADS];
    pthread_t tid[MAX_THREADS] = {0};
    size_t t = threads < 1 ? 1 : threads > MAX_THREADS ? MAX_THREADS : threads, started = 1;
    int rc = 0;

    for (size_t i = 0; i < n; i++)
        memset(&out[i], 0, sizeof(out[i]));
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
            score_sim_result_destroy(&out[i]);
    return rc;
}

#include "placement/sim_judge.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* @p with room for @need elements of @elem bytes (capacity *@cap, doubled
 * as needed); NULL when that fails, @p still valid. */
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

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The position of the node named @name (the first, if several are), or -1:
 * a lower bound, then whether it holds that name. */
static long find_node(const struct place_sim *sim, const char *name)
{
    size_t lo = 0, hi = sim->in.n_nodes;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(sim->in.nodes[sim->by_name[mid]].facts.name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < sim->in.n_nodes && strcmp(sim->in.nodes[sim->by_name[lo]].facts.name, name) == 0
               ? (long)lo
               : -1;
}

/* Scratch of the static pass. */
struct judge_scratch {
    size_t cap_elig, cap_stat;
    uint32_t *cand;
    uint8_t *seen;
};

static int add_stat(struct place_sim *sim, struct judge_scratch *p, const struct sim_class *c,
                    enum place_reason reason, const struct place_taint *taint, size_t count)
{
    if (count == 0)
        return 0;
    for (size_t i = c->stat_off; i < sim->n_stat; i++) {
        struct place_reason_count *e = &sim->stat[i];
        if (e->reason != reason)
            continue;
        if (reason == PLACE_REASON_TAINT &&
            (strcmp(e->taint->key, taint->key) != 0 || strcmp(e->taint->value, taint->value) != 0))
            continue;
        e->count += count;
        return 0;
    }
    struct place_reason_count *q = grow(sim->stat, &p->cap_stat, sim->n_stat + 1, sizeof(*q));
    if (q == NULL)
        return -ENOMEM;
    sim->stat = q;
    sim->stat[sim->n_stat++] = (struct place_reason_count){
        .reason = reason,
        .taint = reason == PLACE_REASON_TAINT ? taint : NULL,
        .count = count,
    };
    return 0;
}

static int add_eligible(struct place_sim *sim, struct judge_scratch *p, uint32_t pos)
{
    uint32_t *q = grow(sim->eligible, &p->cap_elig, sim->n_eligible + 1, sizeof(*q));
    if (q == NULL)
        return -ENOMEM;
    sim->eligible = q;
    sim->eligible[sim->n_eligible++] = pos;
    return 0;
}

/* Judges node @pos for class @c: admitted, or counted under its reason. */
static int judge_one(struct place_sim *sim, struct judge_scratch *p, struct sim_class *c,
                     uint32_t pos)
{
    struct place_judgement j;
    const struct place_sim_pod *pod = &sim->in.pods[c->rep];
    place_judge_static(&pod->constraints, &sim->in.nodes[sim->by_name[pos]].facts, &j);
    if (j.rule == PLACE_RULE_NONE)
        return add_eligible(sim, p, pos);
    /* A static rule rejects with one reason. */
    return add_stat(sim, p, c, (enum place_reason)__builtin_ctz(j.reasons), j.taint, 1);
}

/* The static pass of one class: which nodes it admits, and why not the
 * others. A matchFields class judges only the nodes it names; the rest are
 * the PreFilter's, as kube-scheduler never filters them. */
static int judge_class(struct place_sim *sim, struct judge_scratch *p, struct sim_class *c)
{
    const struct place_pod_constraints *pc = &sim->in.pods[c->rep].constraints;
    size_t n = sim->in.n_nodes, n_cand = 0;
    int rc = 0;

    c->elig_off = (uint32_t)sim->n_eligible;
    c->stat_off = (uint32_t)sim->n_stat;
    switch (place_pod_prefilter(pc)) {
    case PLACE_PREFILTER_CONFLICT:
        rc = add_stat(sim, p, c, PLACE_REASON_AFFINITY_CONFLICT, NULL, n);
        break;
    case PLACE_PREFILTER_NAMES:
        for (size_t t = 0; t < pc->n_affinity_terms; t++) {
            const struct place_selector_term *term = &pc->affinity_terms[t];
            for (size_t f = 0; f < term->n_match_fields; f++) {
                const struct place_requirement *r = &term->match_fields[f];
                if (r->op != PLACE_OP_IN || strcmp(r->key, PLACE_FIELD_NODE_NAME) != 0)
                    continue;
                for (size_t v = 0; v < r->n_values; v++) {
                    long pos = find_node(sim, r->values[v]);
                    if (pos < 0 || p->seen[pos] || !place_prefilter_admits(pc, r->values[v]))
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
            rc = add_stat(sim, p, c, PLACE_REASON_PREFILTER_AFFINITY, NULL, n - n_cand);
        break;
    case PLACE_PREFILTER_ALL_NODES:
        for (size_t pos = 0; pos < n && rc == 0; pos++)
            rc = judge_one(sim, p, c, (uint32_t)pos);
        break;
    }
    c->n_elig = (uint32_t)(sim->n_eligible - c->elig_off);
    c->n_stat = (uint32_t)(sim->n_stat - c->stat_off);
    return rc;
}

int place_sim_judge_classes(struct place_sim *sim, size_t *bytes)
{
    size_t nn = sim->in.n_nodes;
    struct judge_scratch p = {0};
    int rc = -ENOMEM;

    p.cand = malloc((nn + 1) * sizeof(*p.cand));
    p.seen = calloc(nn + 1, 1);
    if (p.cand == NULL || p.seen == NULL)
        goto out_free;
    rc = 0;
    for (size_t c = 0; c < sim->n_classes && rc == 0; c++)
        rc = judge_class(sim, &p, &sim->classes[c]);
    *bytes += p.cap_elig * sizeof(*sim->eligible) + p.cap_stat * sizeof(*sim->stat);

out_free:
    free(p.seen);
    free(p.cand);
    return rc;
}

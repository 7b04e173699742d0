#include "placement/sim_group.h"

#include "base/hash.h"
#include "base/table.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/*
 * One walk over two pods' constraints in a fixed order: it hashes @a's
 * (FNV-1a, base/hash.h) when @b is @a, else compares them with @b's, so
 * that the hash and the equality the grouping needs cannot drift apart.
 * Where a count differs the pair differs, and the rest of @a is walked
 * against itself: nothing past @b's arrays is read.
 */
struct walk {
    uint64_t h;
    bool hashing; /* @a against itself: only the hash is wanted */
    bool differ;
};

static inline void walk_num(struct walk *w, uint64_t a, uint64_t b)
{
    if (w->hashing)
        w->h = hash_fnv1a_bytes(w->h, &a, sizeof(a));
    w->differ |= a != b;
}

static inline void walk_str(struct walk *w, const char *a, const char *b)
{
    a = a != NULL ? a : "";
    if (w->hashing)
        w->h = hash_fnv1a_bytes(w->h, a, strlen(a) + 1);
    else
        w->differ |= strcmp(a, b != NULL ? b : "") != 0;
}

/* Walks the counts @na and @nb; true when @b's array may be walked. */
static inline bool walk_count(struct walk *w, size_t na, size_t nb)
{
    walk_num(w, na, nb);
    return na == nb;
}

static void walk_reqs(struct walk *w, const struct place_requirement *a, size_t na,
                      const struct place_requirement *b, size_t nb)
{
    if (!walk_count(w, na, nb))
        b = a;
    for (size_t i = 0; i < na; i++) {
        walk_str(w, a[i].key, b[i].key);
        walk_num(w, a[i].op, b[i].op);
        const char *const *bv =
            walk_count(w, a[i].n_values, b[i].n_values) ? b[i].values : a[i].values;
        for (size_t v = 0; v < a[i].n_values; v++)
            walk_str(w, a[i].values[v], bv[v]);
    }
}

static struct walk walk_constraints(const struct place_pod_constraints *a,
                                    const struct place_pod_constraints *b)
{
    struct walk w = {HASH_FNV1A_SEED, a == b, false};

    walk_str(&w, a->node_name, b->node_name);
    const struct place_label *sel = walk_count(&w, a->n_node_selector, b->n_node_selector)
                                        ? b->node_selector
                                        : a->node_selector;
    for (size_t i = 0; i < a->n_node_selector; i++) {
        walk_str(&w, a->node_selector[i].key, sel[i].key);
        walk_str(&w, a->node_selector[i].value, sel[i].value);
    }
    walk_num(&w, a->has_required_affinity, b->has_required_affinity);
    const struct place_selector_term *t = walk_count(&w, a->n_affinity_terms, b->n_affinity_terms)
                                              ? b->affinity_terms
                                              : a->affinity_terms;
    for (size_t i = 0; i < a->n_affinity_terms; i++) {
        const struct place_selector_term *x = &a->affinity_terms[i];
        walk_reqs(&w, x->match_expressions, x->n_match_expressions, t[i].match_expressions,
                  t[i].n_match_expressions);
        walk_reqs(&w, x->match_fields, x->n_match_fields, t[i].match_fields, t[i].n_match_fields);
    }
    const struct place_toleration *tol =
        walk_count(&w, a->n_tolerations, b->n_tolerations) ? b->tolerations : a->tolerations;
    for (size_t i = 0; i < a->n_tolerations; i++) {
        walk_str(&w, a->tolerations[i].key, tol[i].key);
        walk_num(&w, a->tolerations[i].op, tol[i].op);
        walk_str(&w, a->tolerations[i].value, tol[i].value);
        walk_num(&w, a->tolerations[i].effect, tol[i].effect);
    }
    return w;
}

/* A fixed table (base/table.h) whose entry i stands for class or shape
 * i: the key is the class's representative pod, or the shape. */
struct group_index {
    struct table t;
    struct table_entry *entries;
};

static int index_init(struct group_index *x, size_t n)
{
    size_t b = table_buckets(n);
    x->t = table_fixed(calloc(b, sizeof(*x->t.buckets)), b);
    x->entries = calloc(n + 1, sizeof(*x->entries));
    return x->t.buckets != NULL && x->entries != NULL ? 0 : -ENOMEM;
}

static void index_free(struct group_index *x)
{
    free(x->t.buckets);
    free(x->entries);
}

/* A shape is hashed and compared as bytes: none may be padding. */
_Static_assert(sizeof(struct sim_shape) == 2 * sizeof(uint32_t) + sizeof(struct score_pod_request) +
                                               2 * SCORE_NRES * sizeof(int64_t),
               "struct sim_shape has padding");
_Static_assert(sizeof(struct score_pod_request) == 4 * SCORE_NRES * sizeof(int64_t),
               "struct score_pod_request has padding or more than its four arrays");

int place_sim_group_pods(struct place_sim *sim, uint32_t *pod_class)
{
    struct group_index tc = {0}, ts = {0};
    size_t np = sim->in.n_pods;
    int rc = -ENOMEM;

    if (index_init(&tc, np) != 0 || index_init(&ts, np) != 0)
        goto out_free_tables;
    sim->classes = calloc(np + 1, sizeof(*sim->classes));
    sim->shapes = calloc(np + 1, sizeof(*sim->shapes));
    if (sim->classes == NULL || sim->shapes == NULL)
        goto out_free_tables;
    for (uint32_t i = 0; i < np; i++) {
        const struct place_sim_pod *pod = &sim->in.pods[i];
        uint64_t h = walk_constraints(&pod->constraints, &pod->constraints).h;
        struct table_entry *e = table_chain(&tc.t, h);
        while (e != NULL &&
               (e->hash != h ||
                walk_constraints(&pod->constraints,
                                 &sim->in.pods[sim->classes[e - tc.entries].rep].constraints)
                    .differ))
            e = e->next;
        if (e == NULL) {
            sim->classes[sim->n_classes].rep = i;
            e = &tc.entries[sim->n_classes++];
            table_link(&tc.t, e, h);
        }
        uint32_t cls = (uint32_t)(e - tc.entries);
        pod_class[i] = cls;

        /* The pod's shape, compared whole (no padding; every last is 0 while
         * grouping), hashed up to its charge (pods of one request share it):
         * its class and every view of its request (fit is checked,
         * non_zero_scored scores the pod, real and non_zero charge its
         * node), or the charge the pod has instead. */
        struct sim_shape cand = {.cls = cls, .req = pod->request};
        memcpy(cand.charge_used, pod->charge_set ? pod->charge_used : pod->request.real,
               sizeof(cand.charge_used));
        memcpy(cand.charge_non_zero, pod->charge_set ? pod->charge_non_zero : pod->request.non_zero,
               sizeof(cand.charge_non_zero));
        uint64_t hs =
            hash_fnv1a_bytes(HASH_FNV1A_SEED, &cand, offsetof(struct sim_shape, charge_used));
        e = table_chain(&ts.t, hs);
        while (e != NULL &&
               (e->hash != hs || memcmp(&sim->shapes[e - ts.entries], &cand, sizeof(cand)) != 0))
            e = e->next;
        if (e == NULL) {
            sim->shapes[sim->n_shapes] = cand;
            e = &ts.entries[sim->n_shapes++];
            table_link(&ts.t, e, hs);
        }
        sim->pod_shape[i] = (uint32_t)(e - ts.entries);
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
    index_free(&ts);
    index_free(&tc);
    return rc;
}

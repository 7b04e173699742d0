#include "placement/sim_group.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* FNV-1a over the bytes of the constraints, in a fixed order. */
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

static uint64_t mix_reqs(uint64_t h, const struct place_requirement *r, size_t n)
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

static uint64_t hash_constraints(const struct place_pod_constraints *c)
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

static bool reqs_eq(const struct place_requirement *a, size_t na, const struct place_requirement *b,
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

static bool constraints_eq(const struct place_pod_constraints *a,
                           const struct place_pod_constraints *b)
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
        const struct place_selector_term *x = &a->affinity_terms[i], *y = &b->affinity_terms[i];
        if (!reqs_eq(x->match_expressions, x->n_match_expressions, y->match_expressions,
                     y->n_match_expressions) ||
            !reqs_eq(x->match_fields, x->n_match_fields, y->match_fields, y->n_match_fields))
            return false;
    }
    for (size_t i = 0; i < a->n_tolerations; i++) {
        const struct place_toleration *x = &a->tolerations[i], *y = &b->tolerations[i];
        if (!str_eq(x->key, y->key) || x->op != y->op || !str_eq(x->value, y->value) ||
            x->effect != y->effect)
            return false;
    }
    return true;
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
    /* Every view: fit is checked, non_zero_scored scores the pod, real and
     * non_zero charge its node. */
    return s->cls == cls && memcmp(s->req.fit, r->fit, sizeof(r->fit)) == 0 &&
           memcmp(s->req.real, r->real, sizeof(r->real)) == 0 &&
           memcmp(s->req.non_zero, r->non_zero, sizeof(r->non_zero)) == 0 &&
           memcmp(s->req.non_zero_scored, r->non_zero_scored, sizeof(r->non_zero_scored)) == 0;
}

int place_sim_group_pods(struct place_sim *sim, uint32_t *pod_class)
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
        const struct place_sim_pod *pod = &sim->in.pods[i];
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

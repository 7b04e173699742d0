#include "placement/sim_group.h"

#include "base/hash.h"
#include "base/table.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* FNV-1a (base/hash.h) over the bytes of the constraints, in a fixed order. */
static uint64_t mix_str(uint64_t h, const char *s)
{
    return hash_fnv1a_bytes(h, s != NULL ? s : "", strlen(s != NULL ? s : "") + 1);
}

static uint64_t mix_num(uint64_t h, uint64_t v)
{
    return hash_fnv1a_bytes(h, &v, sizeof(v));
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
    uint64_t h = HASH_FNV1A_SEED;
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

/* What a pod charges our used view: its charge, or its request. */
static void charge_of(const struct place_sim_pod *pod, int64_t used[SCORE_NRES],
                      int64_t non_zero[SCORE_NRES])
{
    memcpy(used, pod->charge_set ? pod->charge_used : pod->request.real,
           sizeof(int64_t) * SCORE_NRES);
    memcpy(non_zero, pod->charge_set ? pod->charge_non_zero : pod->request.non_zero,
           sizeof(int64_t) * SCORE_NRES);
}

static bool shape_eq(const struct sim_shape *s, uint32_t cls, const struct place_sim_pod *pod)
{
    /* Every view: fit is checked, non_zero_scored scores the pod, real and
     * non_zero charge its node (or the pod's own charge). */
    const struct score_pod_request *r = &pod->request;
    int64_t used[SCORE_NRES], non_zero[SCORE_NRES];
    charge_of(pod, used, non_zero);
    return s->cls == cls && memcmp(s->req.fit, r->fit, sizeof(r->fit)) == 0 &&
           memcmp(s->req.real, r->real, sizeof(r->real)) == 0 &&
           memcmp(s->req.non_zero, r->non_zero, sizeof(r->non_zero)) == 0 &&
           memcmp(s->req.non_zero_scored, r->non_zero_scored, sizeof(r->non_zero_scored)) == 0 &&
           memcmp(s->charge_used, used, sizeof(used)) == 0 &&
           memcmp(s->charge_non_zero, non_zero, sizeof(non_zero)) == 0;
}

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
        uint64_t h = hash_constraints(&pod->constraints);
        struct table_entry *e = table_chain(&tc.t, h);
        while (e != NULL &&
               (e->hash != h ||
                !constraints_eq(&sim->in.pods[sim->classes[e - tc.entries].rep].constraints,
                                &pod->constraints)))
            e = e->next;
        if (e == NULL) {
            sim->classes[sim->n_classes].rep = i;
            e = &tc.entries[sim->n_classes++];
            table_link(&tc.t, e, h);
        }
        uint32_t cls = (uint32_t)(e - tc.entries);
        pod_class[i] = cls;

        uint64_t hs =
            hash_fnv1a_bytes(mix_num(HASH_FNV1A_SEED, cls), &pod->request, sizeof(pod->request));
        e = table_chain(&ts.t, hs);
        while (e != NULL && (e->hash != hs || !shape_eq(&sim->shapes[e - ts.entries], cls, pod)))
            e = e->next;
        if (e == NULL) {
            sim->shapes[sim->n_shapes].cls = cls;
            sim->shapes[sim->n_shapes].req = pod->request;
            charge_of(pod, sim->shapes[sim->n_shapes].charge_used,
                      sim->shapes[sim->n_shapes].charge_non_zero);
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

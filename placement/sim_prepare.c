/*
 * Preparing a simulation (place_sim_new): the pods in queue order, the
 * nodes in name order, the pods grouped (sim_group.c), the static rules
 * judged once per class and node (sim_judge.c), and the links from each
 * node to the shapes whose trees hold it.
 */
#include "placement/simulate.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "placement/sim_group.h"
#include "placement/sim_judge.h"
#include "placement/sim_prepare.h"

static int cmp_pods(const void *a, const void *b, void *arg)
{
    const struct place_sim_input *in = *(const struct place_sim_input *const *)arg;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    int32_t px = in->pods[x].priority, py = in->pods[y].priority;
    if (px != py)
        return px > py ? -1 : 1;
    return x < y ? -1 : x > y;
}

static int cmp_names(const void *a, const void *b, void *arg)
{
    const struct place_sim_input *in = *(const struct place_sim_input *const *)arg;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    int c = strcmp(in->nodes[x].facts.name, in->nodes[y].facts.name);
    if (c != 0)
        return c;
    return x < y ? -1 : x > y;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Where each class's shapes begin (shape_off) and node -> (class, leaf)
 * as an offset array. */
static int link_up(struct place_sim *sim)
{
    size_t nn = sim->in.n_nodes;
    uint32_t *fill = calloc(nn + 1, sizeof(*fill));
    sim->link_off = calloc(nn + 1, sizeof(*sim->link_off));
    sim->links = malloc((sim->n_eligible + 1) * sizeof(*sim->links));
    if (fill == NULL || sim->link_off == NULL || sim->links == NULL) {
        free(fill);
        return -ENOMEM;
    }
    for (size_t s = 0; s < sim->n_shapes; s++)
        sim->classes[sim->shapes[s].cls].shape_off++; /* counted, then summed up */
    uint32_t off = 0;
    for (size_t c = 0; c < sim->n_classes; c++) {
        uint32_t n = sim->classes[c].shape_off;
        sim->classes[c].shape_off = off;
        off += n;
    }
    for (size_t i = 0; i < sim->n_eligible; i++)
        sim->link_off[sim->eligible[i] + 1]++;
    for (size_t pos = 0; pos < nn; pos++)
        sim->link_off[pos + 1] += sim->link_off[pos];
    for (size_t c = 0; c < sim->n_classes; c++) {
        const struct sim_class *cl = &sim->classes[c];
        for (uint32_t leaf = 0; leaf < cl->n_elig; leaf++) {
            uint32_t pos = sim->eligible[cl->elig_off + leaf];
            sim->links[sim->link_off[pos] + fill[pos]++] =
                (struct sim_node_link){(uint32_t)c, leaf};
        }
    }
    free(fill);
    return 0;
}

static int medians(struct place_sim *sim)
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

int place_sim_new(const struct place_sim_input *in, struct place_sim **out)
{
    uint32_t *pod_class = NULL;
    int rc = -ENOMEM;

    *out = NULL;
    if (in == NULL || in->n_nodes > PLACE_SIM_MAX_NODES || in->n_pods > PLACE_SIM_MAX_PODS ||
        (in->n_nodes > 0 && in->nodes == NULL) || (in->n_pods > 0 && in->pods == NULL))
        return -EINVAL;
    struct place_sim *sim = calloc(1, sizeof(*sim));
    if (sim == NULL)
        return -ENOMEM;
    sim->in = *in;
    size_t nn = in->n_nodes, np = in->n_pods;
    sim->by_name = malloc((nn + 1) * sizeof(*sim->by_name));
    sim->order = malloc((np + 1) * sizeof(*sim->order));
    sim->pod_shape = malloc((np + 1) * sizeof(*sim->pod_shape));
    pod_class = malloc((np + 1) * sizeof(*pod_class));
    if (sim->by_name == NULL || sim->order == NULL || sim->pod_shape == NULL || pod_class == NULL)
        goto out_free;

    /* qsort_r's argument, for both orders: where the input pointer is. */
    for (uint32_t i = 0; i < nn; i++)
        sim->by_name[i] = i;
    qsort_r(sim->by_name, nn, sizeof(*sim->by_name), cmp_names, &in);
    for (uint32_t i = 0; i < np; i++)
        sim->order[i] = i;
    qsort_r(sim->order, np, sizeof(*sim->order), cmp_pods, &in);

    if (place_sim_group_pods(sim, pod_class) != 0)
        goto out_free;
    for (uint32_t k = 0; k < np; k++)
        sim->shapes[sim->pod_shape[sim->order[k]]].last = k;
    size_t judged = 0;
    if (place_sim_judge_classes(sim, &judged) != 0 || link_up(sim) != 0 || medians(sim) != 0)
        goto out_free;
    sim->bytes = sizeof(*sim) + (nn + 1) * sizeof(uint32_t) * 2 + (np + 1) * sizeof(uint32_t) * 2 +
                 (sim->n_classes + 1) * sizeof(*sim->classes) +
                 (sim->n_shapes + 1) * sizeof(*sim->shapes) + judged +
                 (sim->n_eligible + 1) * sizeof(*sim->links);
    *out = sim;
    sim = NULL;
    rc = 0;

out_free:
    free(pod_class);
    place_sim_free(sim);
    return rc;
}

void place_sim_free(struct place_sim *sim)
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
    free(sim->link_off);
    free(sim->links);
    free(sim);
}

const uint32_t *place_sim_order(const struct place_sim *sim)
{
    return sim->order;
}

size_t place_sim_bytes(const struct place_sim *sim)
{
    return sim->bytes;
}

void place_sim_groups(const struct place_sim *sim, size_t *classes, size_t *shapes)
{
    *classes = sim->n_classes;
    *shapes = sim->n_shapes;
}

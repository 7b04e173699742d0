#include "placement/sim_summary.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "scoring/placement.h"

/* Resource @k's requested / allocatable over the nodes with allocatable. */
static void ratio_stats(const struct place_sim *sim, const struct place_sim_node_state *node, int k,
                        struct place_sim_ratio *out)
{
    struct score_spread_sums sums = {0};
    memset(out, 0, sizeof(*out));
    for (size_t pos = 0; pos < sim->in.n_nodes; pos++) {
        int64_t alloc = node[pos].res.alloc[k];
        if (alloc <= 0)
            continue;
        double v = (double)node[pos].requested[k] / (double)alloc;
        if (out->nodes == 0 || v < out->min)
            out->min = v;
        if (out->nodes == 0 || v > out->max)
            out->max = v;
        out->nodes++;
        score_spread_add(&sums, node[pos].requested[k], alloc);
    }
    out->mean = score_spread_mean(&sums);
    out->cv = score_spread_cv(&sums);
}

void place_sim_summarise(const struct place_sim *sim, const struct place_sim_node_state *node,
                         const struct sim_fit_room *room, struct place_sim_result *out)
{
    struct place_sim_summary *sum = &out->summary;

    for (size_t i = 0; i < sim->in.n_pods; i++)
        sum->placed += out->pods[i].node >= 0;
    sum->not_placed = sim->in.n_pods - sum->placed;
    memcpy(sum->median_request, sim->median, sizeof(sum->median_request));
    for (int k = 0; k < SCORE_NRES; k++)
        ratio_stats(sim, node, k, &sum->ratio[k]);
    for (size_t pos = 0; pos < sim->in.n_nodes; pos++) {
        out->nodes[sim->by_name[pos]] = node[pos];
        if (node[pos].pods > 0)
            sum->nodes_used++;
        if (sim->in.n_pods == 0)
            continue;
        /* The median pod requests sim->median, real and to fit alike. */
        if (sim_fit_reasons(&room[pos], sim->median) == 0)
            continue;
        sum->stranded_nodes++;
        for (int k = 0; k < SCORE_NRES; k++) {
            int64_t free_k = node[pos].res.alloc[k] - node[pos].requested[k];
            if (free_k > 0)
                sum->stranded[k] = score_add_sat(sum->stranded[k], free_k);
        }
    }
}

int place_sim_collect_reasons(const struct place_sim *sim,
                              const uint32_t (*resource_reasons)[SIM_RESOURCE_REASONS],
                              struct place_sim_result *out)
{
    size_t total = 0;
    for (size_t i = 0; i < sim->in.n_pods; i++) {
        if (out->pods[i].node >= 0)
            continue;
        total += sim->classes[sim->shapes[sim->pod_shape[i]].cls].n_stat;
        for (int d = 0; d < SIM_RESOURCE_REASONS; d++)
            total += resource_reasons[i][d] != 0;
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
        for (int d = 0; d < SIM_RESOURCE_REASONS; d++)
            if (resource_reasons[i][d] != 0)
                out->reasons[out->n_reasons++] = (struct place_reason_count){
                    .reason = sim_resource_reason_of[d],
                    .count = resource_reasons[i][d],
                };
        out->pods[i].n_reasons = (uint32_t)(out->n_reasons - out->pods[i].first_reason);
    }
    return 0;
}

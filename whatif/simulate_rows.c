#include "whatif/simulate_rows.h"

#include <stdio.h>

#include "server/ops/explain.h"

void whatif_sim_cpu_amount(char *buf, size_t n, int64_t milli)
{
    if (milli < 1000) {
        snprintf(buf, n, "%lldm", (long long)milli);
        return;
    }
    int len = snprintf(buf, n, "%lld.%03lld", (long long)(milli / 1000), (long long)(milli % 1000));
    while (len > 0 && (size_t)len < n && buf[len - 1] == '0')
        buf[--len] = '\0';
    if (len > 0 && (size_t)len < n && buf[len - 1] == '.')
        buf[--len] = '\0';
}

void whatif_sim_amount(char *buf, size_t n, int r, int64_t v)
{
    if (r == SCORE_CPU)
        whatif_sim_cpu_amount(buf, n, v);
    else
        ops_amount(buf, n, r, v);
}

/* k: pods placed, not placed, nodes used, stranded nodes. */
static void cell_count(const struct whatif_sim_report *r, const struct place_sim_result *res, int k,
                       char *buf, size_t n)
{
    const size_t count[] = {res->summary.placed, res->summary.not_placed, res->summary.nodes_used,
                            res->summary.stranded_nodes};
    (void)r;
    snprintf(buf, n, "%zu", count[k]);
}

/* Nodes that got at least one of the pods placed: where the strategy put
 * work (nodes used counts the pods already there too, daemons included). */
static void cell_given(const struct whatif_sim_report *r, const struct place_sim_result *res, int k,
                       char *buf, size_t n)
{
    size_t given = 0;
    (void)k;
    for (size_t i = 0; i < r->nodes->n; i++)
        given += res->nodes[i].pods > r->nodes->nodes[i].sim.facts.pods;
    snprintf(buf, n, "%zu", given);
}

/* k: resource * 4 + figure (min, max, mean, cv). */
static void cell_ratio(const struct whatif_sim_report *r, const struct place_sim_result *res, int k,
                       char *buf, size_t n)
{
    (void)r;
    const struct place_sim_ratio *q = &res->summary.ratio[k / 4];
    double v[] = {q->min, q->max, q->mean, q->cv};
    if (k % 4 == 3)
        snprintf(buf, n, "%.3f", v[3]);
    else
        snprintf(buf, n, "%.1f%%", 100 * v[k % 4]);
}

static void cell_stranded(const struct whatif_sim_report *r, const struct place_sim_result *res,
                          int k, char *buf, size_t n)
{
    (void)r;
    whatif_sim_amount(buf, n, k, res->summary.stranded[k]);
}

const struct whatif_sim_row whatif_sim_rows[] = {
    {"pods placed", cell_count, 0},
    {"pods not placed", cell_count, 1},
    {"nodes used", cell_count, 2},
    {"nodes given pods", cell_given, 0},
    {"cpu requested / allocatable", NULL, 0},
    {"  min", cell_ratio, 0},
    {"  max", cell_ratio, 1},
    {"  mean", cell_ratio, 2},
    {"  cv (stddev / mean)", cell_ratio, 3},
    {"memory requested / allocatable", NULL, 0},
    {"  min", cell_ratio, 4},
    {"  max", cell_ratio, 5},
    {"  mean", cell_ratio, 6},
    {"  cv (stddev / mean)", cell_ratio, 7},
    {"stranded: nodes", cell_count, 3},
    {"  cpu free there", cell_stranded, SCORE_CPU},
    {"  memory free there", cell_stranded, SCORE_MEMORY},
};

const size_t whatif_sim_n_rows = sizeof(whatif_sim_rows) / sizeof(whatif_sim_rows[0]);

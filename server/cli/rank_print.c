#include "server/cli/rank_print.h"

#include "server/ops/explain.h"

/* One resource's inputs and term: "4000m 3000m(annotation) 1000m -> 0". */
static void print_term(FILE *out, const struct ops_record *rec, const struct ops_record_node *n,
                       int r)
{
    const struct score_term *t = &n->explain.term[r];
    char alloc[32], used[32], pod[32], cell[160], term[32];
    if (n->unknown) {
        fprintf(out, "  %-40s", "-");
        return;
    }
    ops_amount(alloc, sizeof(alloc), r, t->alloc);
    ops_amount(used, sizeof(used), r, t->used);
    ops_amount(pod, sizeof(pod), r, t->pod);
    if (t->skipped)
        snprintf(term, sizeof(term), "-");
    else if (rec->params.strategy == SCORE_BALANCED)
        snprintf(term, sizeof(term), "%.4f", t->fraction);
    else
        snprintf(term, sizeof(term), "%d", t->value);
    snprintf(cell, sizeof(cell), "%s %s(%s) %s -> %s", alloc, used, ops_used_from(n, r), pod, term);
    fprintf(out, "  %-40s", cell);
}

/* The same breakdown as GET /debug: per node its verdict, each resource's
 * allocatable, used (and where from), pod request and term, the value, the
 * score, the points kube-scheduler adds, and how they were computed. */
static void print_nodes(FILE *out, const struct ops_record *rec)
{
    char how[256];
    fprintf(out, "%-24s  %-16s  %-40s  %-40s  %5s  %5s  %6s\n", "NODE", "VERDICT",
            "CPU: ALLOC USED(FROM) POD -> TERM", "MEMORY: ALLOC USED(FROM) POD -> TERM", "VALUE",
            "SCORE", "POINTS");
    for (size_t i = 0; i < rec->n_nodes; i++) {
        const struct ops_record_node *n = &rec->nodes[i];
        fprintf(out, "%-24s  %-16s", n->name, n->verdict == SCORE_FITS ? "fits" : n->reason);
        print_term(out, rec, n, SCORE_CPU);
        print_term(out, rec, n, SCORE_MEMORY);
        fprintf(out, "  %5d  %5d  %+6lld\n", n->explain.value, n->explain.score,
                OPS_INFLUENCE(n->explain.score, rec->scheduler_weight));
        ops_explain_text(rec, n, how, sizeof(how));
        fprintf(out, "%-24s  %s\n", "", how);
    }
}

void cli_rank_print(FILE *out, const struct cfg *cfg, const struct ops_record *rec)
{
    char cpu[32], mem[32], cpu_nz[32], mem_nz[32];
    const struct score_pod_request *req = &rec->request;
    ops_amount(cpu, sizeof(cpu), SCORE_CPU, req->real[SCORE_CPU]);
    ops_amount(mem, sizeof(mem), SCORE_MEMORY, req->real[SCORE_MEMORY]);
    ops_amount(cpu_nz, sizeof(cpu_nz), SCORE_CPU, req->non_zero_scored[SCORE_CPU]);
    ops_amount(mem_nz, sizeof(mem_nz), SCORE_MEMORY, req->non_zero_scored[SCORE_MEMORY]);
    fprintf(out, "pod %s/%s requests cpu %s, memory %s (scored as %s, %s)\n", rec->pod_ns,
            rec->pod_name, cpu, mem, cpu_nz, mem_nz);
    fprintf(out,
            "strategy %s, weights cpu %d memory %d%s; scheduler weight %d: a node gets score x "
            "%d points, at most %lld against %d for the default plugins\n\n",
            score_strategy_name(cfg->score.strategy), cfg->score.weight[SCORE_CPU],
            cfg->score.weight[SCORE_MEMORY], cfg->score.normalize ? ", normalized" : "",
            cfg->scheduler_weight, cfg->scheduler_weight * 10,
            OPS_INFLUENCE(SCORE_MAX_SCORE, cfg->scheduler_weight), OPS_DEFAULT_PLUGINS_MAX);
    print_nodes(out, rec);
}

#include "whatif/rank_print.h"

#include <stdlib.h>
#include <string.h>

#include "server/cluster/usage.h"
#include "server/ops/explain.h"

enum col {
    COL_NODE = 0,
    COL_VERDICT,
    COL_CPU,
    COL_MEMORY,
    COL_VALUE,
    COL_SCORE,
    COL_POINTS,
    COL_COUNT,
};

/* The cells of one row, and what goes under it. */
struct cells {
    char c[COL_COUNT][160];
    char how[PLACE_REASON_LEN + 320];
};

static const char headers[COL_COUNT][160] = {
    "NODE",
    "VERDICT",
    "CPU: ALLOC USED(FROM) POD -> TERM",
    "MEMORY: ALLOC USED(FROM) POD -> TERM",
    "VALUE",
    "SCORE",
    "POINTS",
};

/* The record node ops_explain_text() and ops_used_from() read. */
static struct ops_record_node record_node(const struct whatif_rank_row *row)
{
    struct ops_record_node n = {
        .name = row->node->sim.facts.name,
        .reason = row->reason,
        .verdict = row->verdict,
        .code = row->forced_zero ? OPS_REASON_STALE : OPS_REASON_FITS,
        .from_state = row->node->from_state,
        .forced_zero = row->forced_zero,
        .explain = row->explain,
    };
    memcpy(n.source, row->node->source, sizeof(n.source));
    memcpy(n.outcome, row->node->outcome, sizeof(n.outcome));
    return n;
}

/* "4000m 3000m(annotation) 1000m -> 0". */
static void term_cell(const struct cfg *cfg, const struct whatif_rank_row *row, int r, char *out,
                      size_t len)
{
    const struct score_term *t = &row->explain.term[r];
    char alloc[32], used[32], pod[32], term[32];
    if (row->node->invalid != NULL) {
        snprintf(out, len, "-");
        return;
    }
    struct ops_record_node n = record_node(row);
    ops_amount(alloc, sizeof(alloc), r, t->alloc);
    ops_amount(used, sizeof(used), r, t->used);
    ops_amount(pod, sizeof(pod), r, t->pod);
    if (t->skipped)
        snprintf(term, sizeof(term), "-");
    else if (cfg->score.strategy == SCORE_BALANCED)
        snprintf(term, sizeof(term), "%.4f", t->fraction);
    else
        snprintf(term, sizeof(term), "%d", t->value);
    snprintf(out, len, "%s %s(%s) %s -> %s", alloc, used, ops_used_from(&n, r), pod, term);
}

/* Under the row, per resource whose used came from usage (or that has
 * samples): the window serve scores by, as /debug shows it: "cpu: usage
 * p90 over 300 s, 12 samples: 1500m, newest 1200m". */
static void window_lines(const struct cfg *cfg, const struct whatif_rank_row *row, char *how,
                         size_t len)
{
    const struct whatif_node *wn = row->node;
    struct ops_record rec = {.usage_window_seconds = cfg->usage_window_seconds};
    struct ops_usage_window w = {.samples = wn->usage_samples};
    struct ops_record_node n = record_node(row);
    memcpy(rec.usage_agg, cfg->usage_agg, sizeof(rec.usage_agg));
    memcpy(rec.asked, cfg->used_source, sizeof(rec.asked));
    memcpy(w.aggregate, wn->usage_aggregate, sizeof(w.aggregate));
    memcpy(w.newest, wn->usage_newest, sizeof(w.newest));
    for (int r = 0; r < SCORE_NRES; r++) {
        bool from_usage =
            cfg->used_source[r] == SCORE_USED_USAGE || cfg->used_source[r] == SCORE_USED_MAX;
        char text[128], agg[32], newest[32];
        n.window = wn->from_state && (from_usage || wn->usage_samples > 0) ? &w : NULL;
        if (!ops_usage_window(&rec, &n, r, text, sizeof(text)))
            continue;
        ops_amount(agg, sizeof(agg), r, w.aggregate[r]);
        ops_amount(newest, sizeof(newest), r, w.newest[r]);
        size_t at = strlen(how);
        if (wn->usage_samples > 0)
            snprintf(how + at, len - at, "; %s: %s: %s, newest %s",
                     score_resource_name((enum score_resource)r), text, agg, newest);
        else
            snprintf(how + at, len - at, "; %s: %s: no sample",
                     score_resource_name((enum score_resource)r), text);
    }
}

static void fill(const struct cfg *cfg, const struct whatif_rank_row *row, struct cells *c)
{
    snprintf(c->c[COL_NODE], sizeof(c->c[COL_NODE]), "%s", row->node->sim.facts.name);
    snprintf(c->c[COL_VERDICT], sizeof(c->c[COL_VERDICT]), "%s", row->fits ? "fits" : row->rule);
    term_cell(cfg, row, SCORE_CPU, c->c[COL_CPU], sizeof(c->c[COL_CPU]));
    term_cell(cfg, row, SCORE_MEMORY, c->c[COL_MEMORY], sizeof(c->c[COL_MEMORY]));
    if (row->fits) {
        snprintf(c->c[COL_VALUE], sizeof(c->c[COL_VALUE]), "%d", row->explain.value);
        snprintf(c->c[COL_SCORE], sizeof(c->c[COL_SCORE]), "%d", row->explain.score);
        snprintf(c->c[COL_POINTS], sizeof(c->c[COL_POINTS]), "%+lld",
                 OPS_INFLUENCE(row->explain.score, cfg->scheduler_weight));
        struct ops_record rec = {.params = cfg->score};
        struct ops_record_node n = record_node(row);
        rec.params.strategy = row->explain.strategy;
        ops_explain_text(&rec, &n, c->how, sizeof(c->how));
    } else {
        for (int k = COL_VALUE; k <= COL_POINTS; k++)
            snprintf(c->c[k], sizeof(c->c[k]), "-");
        snprintf(c->how, sizeof(c->how), "%s: %s", ops_verdict_name(row->verdict), row->reason);
    }
    window_lines(cfg, row, c->how, sizeof(c->how));
    if (row->note != NULL) {
        size_t at = strlen(c->how);
        snprintf(c->how + at, sizeof(c->how) - at, "; %s", row->note);
    }
}

static void print_row(FILE *out, const char cells[COL_COUNT][160], const size_t *width)
{
    for (int k = 0; k < COL_COUNT; k++) {
        bool right = k >= COL_VALUE; /* numbers */
        bool last = k == COL_COUNT - 1;
        if (right)
            fprintf(out, "%*s", (int)width[k], cells[k]);
        else
            fprintf(out, "%-*s", last ? 0 : (int)width[k], cells[k]);
        fputs(last ? "\n" : "  ", out);
    }
}

void whatif_rank_print(FILE *out, const struct cfg *cfg, const struct whatif_rank *r)
{
    char cpu[32], mem[32], cpu_nz[32], mem_nz[32];
    const struct score_pod_request *req = &r->request;
    size_t width[COL_COUNT];

    ops_amount(cpu, sizeof(cpu), SCORE_CPU, req->real[SCORE_CPU]);
    ops_amount(mem, sizeof(mem), SCORE_MEMORY, req->real[SCORE_MEMORY]);
    ops_amount(cpu_nz, sizeof(cpu_nz), SCORE_CPU, req->non_zero_scored[SCORE_CPU]);
    ops_amount(mem_nz, sizeof(mem_nz), SCORE_MEMORY, req->non_zero_scored[SCORE_MEMORY]);
    fprintf(out, "pod %s/%s requests cpu %s, memory %s (scored as %s, %s)\n", r->pod_ns,
            r->pod_name, cpu, mem, cpu_nz, mem_nz);
    fprintf(out,
            "strategy %s, weights cpu %d memory %d%s; scheduler weight %d: a node gets score x "
            "%d points, at most %lld against %d for the default plugins\n",
            score_strategy_name(cfg->score.strategy), cfg->score.weight[SCORE_CPU],
            cfg->score.weight[SCORE_MEMORY], cfg->score.normalize ? ", normalized" : "",
            cfg->scheduler_weight, cfg->scheduler_weight * 10,
            OPS_INFLUENCE(SCORE_MAX_SCORE, cfg->scheduler_weight), OPS_DEFAULT_PLUGINS_MAX);
    const struct whatif_nodes *ns = r->nodes;
    if (ns->with_existing)
        fprintf(out, "%zu node%s from %s; used from %zu pod%s bound to them%s\n\n", ns->n,
                ns->n == 1 ? "" : "s", r->from, ns->charged, ns->charged == 1 ? "" : "s",
                ns->excluded ? " (this pod's own request left out)" : "");
    else
        fprintf(out,
                "%zu node%s from %s; used from their used-annotations (no pods given: "
                "--existing FILE adds them)\n\n",
                ns->n, ns->n == 1 ? "" : "s", r->from);
    char used[512];
    /* The source each resource actually had, node by node, when usage was
     * asked or some node did not get the source asked: a stale usage falls
     * back (stalePolicy requests) without the cells saying why. */
    if (whatif_used_summary(cfg, ns, used, sizeof(used)) || cluster_usage_needed(cfg))
        fprintf(out, "used: %s\n\n", used);

    struct cells *cells = calloc(r->n + 1, sizeof(*cells));
    if (cells == NULL) {
        fprintf(out, "out of memory\n");
        return;
    }
    for (int k = 0; k < COL_COUNT; k++)
        width[k] = strlen(headers[k]);
    for (size_t i = 0; i < r->n; i++) {
        fill(cfg, &r->rows[i], &cells[i]);
        for (int k = 0; k < COL_COUNT; k++)
            if (strlen(cells[i].c[k]) > width[k])
                width[k] = strlen(cells[i].c[k]);
    }
    print_row(out, headers, width);
    for (size_t i = 0; i < r->n; i++) {
        print_row(out, (const char(*)[160])cells[i].c, width);
        fprintf(out, "%*s  %s\n", (int)width[COL_NODE], "", cells[i].how);
    }
    free(cells);
}

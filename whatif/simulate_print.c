/* What simulate prints: the summary side by side per strategy with the pods
 * not placed grouped by message (stdout), and the placements as CSV. */
#include "whatif/simulate_print.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "whatif/simulate_rows.h"

#define LABEL_WIDTH  32
#define NAMES_SHOWN  3
#define GROUPS_SHOWN 10

static size_t col_width(const struct whatif_sim_report *r)
{
    size_t w = 10;
    for (size_t i = 0; i < r->n_results; i++) {
        size_t n = strlen(score_strategy_name(r->results[i].strategy)) + 2;
        w = n > w ? n : w;
    }
    return w;
}

/* One summary row: a label, then one cell per strategy from @cell. */
static void row(FILE *out, const struct whatif_sim_report *r, const char *label,
                void (*cell)(const struct whatif_sim_report *r, const struct place_sim_result *res,
                             int k, char *buf, size_t n),
                int k)
{
    size_t w = col_width(r);
    fprintf(out, "%-*s", LABEL_WIDTH, label);
    for (size_t i = 0; i < r->n_results; i++) {
        char buf[64];
        cell(r, &r->results[i], k, buf, sizeof(buf));
        fprintf(out, "%*s", (int)w, buf);
    }
    fputc('\n', out);
}

static void cell_name(const struct whatif_sim_report *r, const struct place_sim_result *res, int k,
                      char *buf, size_t n)
{
    (void)r;
    (void)k;
    snprintf(buf, n, "%s", score_strategy_name(res->strategy));
}

static void summary_table(FILE *out, const struct whatif_sim_report *r)
{
    row(out, r, "", cell_name, 0);
    for (size_t i = 0; i < whatif_sim_n_rows; i++) {
        if (whatif_sim_rows[i].cell == NULL)
            fprintf(out, "%s\n", whatif_sim_rows[i].label);
        else
            row(out, r, whatif_sim_rows[i].label, whatif_sim_rows[i].cell, whatif_sim_rows[i].k);
    }
}

/* kube-scheduler's message for pod @i of @res, into @buf. */
static void message(const struct whatif_sim_report *r, const struct place_sim_result *res, size_t i,
                    char *buf, size_t len)
{
    const struct place_sim_placement *p = &res->pods[i];
    place_fit_error(r->nodes->n, res->reasons + p->first_reason, p->n_reasons, buf, len);
}

/* A pod not placed and its message, for grouping. */
struct miss {
    char *msg;
    size_t at; /* position in placement order */
    uint32_t pod;
};

static int by_message(const void *x, const void *y)
{
    const struct miss *a = x, *b = y;
    int c = strcmp(a->msg, b->msg);
    return c != 0 ? c : (a->at > b->at) - (a->at < b->at);
}

/* A group: the misses [first, first + n) of the sorted array. */
struct group {
    size_t first, n, at;
};

static int by_first_seen(const void *x, const void *y)
{
    const struct group *a = x, *b = y;
    return (a->at > b->at) - (a->at < b->at);
}

/* The pods @res did not place, grouped by message, in the order the first
 * of each group came. */
static void not_placed(FILE *out, const struct whatif_sim_report *r,
                       const struct place_sim_result *res)
{
    size_t n = res->summary.not_placed, k = 0, ng = 0;
    struct miss *m = calloc(n + 1, sizeof(*m));
    struct group *g = calloc(n + 1, sizeof(*g));
    char buf[4096];

    if (m == NULL || g == NULL)
        goto out_nomem;
    for (size_t at = 0; at < r->n_pods; at++) {
        uint32_t i = r->order[at];
        if (res->pods[i].node >= 0)
            continue;
        message(r, res, i, buf, sizeof(buf));
        if ((m[k].msg = strdup(buf)) == NULL)
            goto out_nomem;
        m[k].at = at;
        m[k++].pod = i;
    }
    qsort(m, k, sizeof(*m), by_message);
    for (size_t i = 0; i < k; i++) {
        if (i == 0 || strcmp(m[i].msg, m[i - 1].msg) != 0)
            g[ng++] = (struct group){.first = i, .at = m[i].at};
        g[ng - 1].n++;
    }
    qsort(g, ng, sizeof(*g), by_first_seen);
    fprintf(out, "\nnot placed under %s (%zu):\n", score_strategy_name(res->strategy), k);
    for (size_t j = 0; j < ng && j < GROUPS_SHOWN; j++) {
        fprintf(out, "  %zu pod%s: %s\n     ", g[j].n, g[j].n == 1 ? "" : "s", m[g[j].first].msg);
        for (size_t i = 0; i < g[j].n && i < NAMES_SHOWN; i++) {
            const struct whatif_pod *p = &r->pods[m[g[j].first + i].pod];
            fprintf(out, "%s %s/%s", i ? "," : "", p->ns, p->name);
        }
        if (g[j].n > NAMES_SHOWN)
            fprintf(out, " and %zu more", g[j].n - NAMES_SHOWN);
        fputc('\n', out);
    }
    if (ng > GROUPS_SHOWN) {
        size_t rest = 0;
        for (size_t j = GROUPS_SHOWN; j < ng; j++)
            rest += g[j].n;
        fprintf(out,
                "  and %zu more pods under %zu other messages (--placements lists every pod)\n",
                rest, ng - GROUPS_SHOWN);
    }
    goto out_free;

out_nomem:
    fprintf(out, "\nnot placed under %s: %zu (out of memory listing them)\n",
            score_strategy_name(res->strategy), n);
out_free:
    for (size_t i = 0; m != NULL && i < k; i++)
        free(m[i].msg);
    free(m);
    free(g);
}

void whatif_sim_print_summary(FILE *out, const struct whatif_sim_report *r)
{
    const struct whatif_nodes *ns = r->nodes;
    bool all_placed = true;

    fprintf(out, "%zu nodes from %s", ns->n, r->nodes_from);
    if (r->existing_from != NULL)
        fprintf(out, ", with %zu pods bound to them from %s", ns->charged, r->existing_from);
    fprintf(out, "\n%zu pods to place from %s, by priority (higher first), then in file order\n",
            r->n_pods, r->pods_from);
    fprintf(out,
            "each goes to the node with the highest value (0..100) under the strategy; ties to "
            "the first in name order\n(kube-scheduler picks at random among equal scores)\n\n");
    summary_table(out, r);
    if (r->n_results > 0 && r->n_pods > 0) {
        const struct place_sim_summary *s = &r->results[0].summary;
        char cpu[32], mem[32];
        whatif_sim_amount(cpu, sizeof(cpu), SCORE_CPU, s->median_request[SCORE_CPU]);
        whatif_sim_amount(mem, sizeof(mem), SCORE_MEMORY, s->median_request[SCORE_MEMORY]);
        fprintf(out,
                "(stranded: nodes where the median pod to place, cpu %s and memory %s, no longer "
                "fits)\n",
                cpu, mem);
    }
    for (size_t i = 0; i < r->n_results; i++) {
        if (r->results[i].summary.not_placed == 0)
            continue;
        all_placed = false;
        not_placed(out, r, &r->results[i]);
    }
    if (all_placed)
        fprintf(out, "\nevery pod placed under %s\n",
                r->n_results == 1 ? score_strategy_name(r->results[0].strategy) : "every strategy");
}

/* ---- CSV ----------------------------------------------------------------- */

/* A CSV field (RFC 4180): quoted when it holds a comma, quote or line end. */
static void csv_field(FILE *out, const char *s)
{
    if (strpbrk(s, ",\"\r\n") == NULL) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s != '\0'; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

int whatif_sim_write_csv(FILE *out, const struct whatif_sim_report *r)
{
    char pod[600];
    fputs("strategy,pod,node,value,score\n", out);
    for (size_t s = 0; s < r->n_results; s++) {
        const struct place_sim_result *res = &r->results[s];
        for (size_t at = 0; at < r->n_pods; at++) {
            uint32_t i = r->order[at];
            const struct place_sim_placement *p = &res->pods[i];
            fprintf(out, "%s,", score_strategy_name(res->strategy));
            snprintf(pod, sizeof(pod), "%s/%s", r->pods[i].ns, r->pods[i].name);
            csv_field(out, pod);
            fputc(',', out);
            if (p->node >= 0) {
                csv_field(out, r->nodes->nodes[p->node].sim.facts.name);
                fprintf(out, ",%d,%d\n", p->value, p->score);
            } else {
                fputs(",,\n", out);
            }
        }
    }
    return ferror(out) ? -EIO : 0;
}

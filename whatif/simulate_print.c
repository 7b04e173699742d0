/* What simulate writes: the summary side by side per strategy with the pods
 * not placed grouped by message (stdout), the placements as CSV and the page. */
#include "whatif/simulate_print.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "server/ops/explain.h"

#define LABEL_WIDTH  32
#define NAMES_SHOWN  3
#define GROUPS_SHOWN 10

/* One row of the summary: its label and how a strategy's cell is written
 * (@k: which figure); a heading has no cell. */
struct summary_row {
    const char *label;
    void (*cell)(const struct whatif_sim_report *r, const struct place_sim_result *res, int k,
                 char *buf, size_t n);
    int k;
};

/* "s" after a count other than one: "1 pod", "2 pods". */
static const char *plural(size_t n)
{
    return n == 1 ? "" : "s";
}

/* CPU as Kubernetes writes a quantity: millicores below a core ("250m"),
 * else cores with the decimals needed ("1.5", "28033.09"). */
static void cpu_amount(char *buf, size_t n, int64_t milli)
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

/* An amount of resource @r (SCORE_CPU millicores, else bytes). */
static void amount(char *buf, size_t n, int r, int64_t v)
{
    if (r == SCORE_CPU)
        cpu_amount(buf, n, v);
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
    amount(buf, n, k, res->summary.stranded[k]);
}

/* The rows in order: pods placed and not, nodes used and given pods, cpu and
 * memory requested / allocatable (min, max, mean, cv), stranded. */
static const struct summary_row summary_rows[] = {
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

static const size_t n_summary_rows = sizeof(summary_rows) / sizeof(summary_rows[0]);

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
    for (size_t i = 0; i < n_summary_rows; i++) {
        if (summary_rows[i].cell == NULL)
            fprintf(out, "%s\n", summary_rows[i].label);
        else
            row(out, r, summary_rows[i].label, summary_rows[i].cell, summary_rows[i].k);
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
                "  and %zu more pod%s under %zu other message%s (--placements lists every pod)\n",
                rest, plural(rest), ng - GROUPS_SHOWN, plural(ng - GROUPS_SHOWN));
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

    fprintf(out, "%zu node%s from %s", ns->n, plural(ns->n), r->nodes_from);
    if (r->existing_from != NULL)
        fprintf(out, ", with %zu pod%s bound to them from %s", ns->charged, plural(ns->charged),
                r->existing_from);
    fprintf(out, "\n%zu pod%s to place from %s, by priority (higher first), then in file order\n",
            r->n_pods, plural(r->n_pods), r->pods_from);
    fprintf(out,
            "each goes to the node with the highest value (0..100) under the strategy; ties to "
            "the first in name order\n(kube-scheduler picks at random among equal scores)\n\n");
    summary_table(out, r);
    if (r->n_results > 0 && r->n_pods > 0) {
        const struct place_sim_summary *s = &r->results[0].summary;
        char cpu[32], mem[32];
        amount(cpu, sizeof(cpu), SCORE_CPU, s->median_request[SCORE_CPU]);
        amount(mem, sizeof(mem), SCORE_MEMORY, s->median_request[SCORE_MEMORY]);
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

/* ---- --html: one self-contained page (no script, as /debug): the summary
 * table, then per strategy a bar per node of CPU requested before and after
 * the simulation. */

static void html_text(FILE *out, const char *s)
{
    static const char special[] = "&<>\"'";
    static const char *const entity[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&#39;"};
    for (; *s != '\0'; s++) {
        const char *e = strchr(special, *s);
        if (e != NULL)
            fputs(entity[e - special], out);
        else
            fputc(*s, out);
    }
}

static double percent(int64_t part, int64_t whole)
{
    if (whole <= 0 || part <= 0)
        return 0;
    double p = 100.0 * (double)part / (double)whole;
    return p > 100 ? 100 : p;
}

static const char *const style =
    "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1b1f24}"
    "h1{font-size:20px}h2{font-size:17px;margin:0 0 4px}"
    "table.summary{border-collapse:collapse;margin-bottom:24px}"
    "table.summary td,table.summary th{padding:3px 10px;border-bottom:1px solid #ddd;"
    "text-align:right}table.summary td:first-child{text-align:left}"
    ".strategies{display:flex;flex-wrap:wrap;gap:28px}"
    ".strategy{width:500px}.strategy p{margin:2px 0 6px}"
    ".legend span{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px;"
    "vertical-align:middle}"
    ".node{display:flex;align-items:center;margin:2px 0}"
    ".node .name{width:140px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;"
    "font:12px monospace}"
    ".bar{display:flex;width:200px;height:12px;background:#eef0f3;border:1px solid #c9ced6}"
    ".before{background:#8c96a3}.added{background:#2f7de1}"
    ".pct{margin-left:8px;font:12px monospace;white-space:nowrap}";

static void html_summary(FILE *out, const struct whatif_sim_report *r)
{
    fputs("<table class=\"summary\"><tr><th></th>", out);
    for (size_t i = 0; i < r->n_results; i++)
        fprintf(out, "<th>%s</th>", score_strategy_name(r->results[i].strategy));
    fputs("</tr>\n", out);
    for (size_t k = 0; k < n_summary_rows; k++) {
        if (summary_rows[k].cell == NULL) {
            fprintf(out, "<tr><th colspan=\"%zu\" style=\"text-align:left\">%s</th></tr>\n",
                    r->n_results + 1, summary_rows[k].label);
            continue;
        }
        fprintf(out, "<tr><td>%s</td>", summary_rows[k].label);
        for (size_t i = 0; i < r->n_results; i++) {
            char buf[64];
            summary_rows[k].cell(r, &r->results[i], summary_rows[k].k, buf, sizeof(buf));
            fprintf(out, "<td>%s</td>", buf);
        }
        fputs("</tr>\n", out);
    }
    fputs("</table>\n", out);
}

static int cmp_names(const void *x, const void *y, void *arg)
{
    const struct whatif_node *nodes = arg;
    size_t a = *(const size_t *)x, b = *(const size_t *)y;
    return strcmp(nodes[a].sim.facts.name, nodes[b].sim.facts.name);
}

static void html_bars(FILE *out, const struct whatif_sim_report *r,
                      const struct place_sim_result *res, const size_t *by_name)
{
    const char *name = score_strategy_name(res->strategy);
    fprintf(out,
            "<section class=\"strategy\" id=\"%s\" data-strategy=\"%s\"><h2>%s</h2>\n"
            "<p>%zu placed, %zu not placed, %zu node%s used; CPU requested over allocatable:</p>\n"
            "<p class=\"legend\"><span class=\"before\"></span>before<span "
            "class=\"added\"></span>added by the simulation</p>\n<div class=\"bars\">\n",
            name, name, name, res->summary.placed, res->summary.not_placed, res->summary.nodes_used,
            plural(res->summary.nodes_used));
    for (size_t k = 0; k < r->nodes->n; k++) {
        size_t i = by_name[k];
        const struct whatif_node *n = &r->nodes->nodes[i];
        int64_t alloc = n->sim.res.alloc[SCORE_CPU];
        int64_t before = n->sim.facts.requested[SCORE_CPU];
        int64_t after = res->nodes[i].requested[SCORE_CPU];
        double wb = percent(before, alloc), wa = percent(after, alloc) - wb;
        char cores[32];
        cpu_amount(cores, sizeof(cores), alloc);
        fputs("<div class=\"node\" data-node=\"", out);
        html_text(out, n->sim.facts.name);
        fprintf(out,
                "\" data-alloc=\"%lld\" data-before=\"%lld\" data-after=\"%lld\">"
                "<span class=\"name\" title=\"",
                (long long)alloc, (long long)before, (long long)after);
        html_text(out, n->sim.facts.name);
        fputs("\">", out);
        html_text(out, n->sim.facts.name);
        fprintf(out,
                "</span><span class=\"bar\"><span class=\"before\" style=\"width:%.2f%%\"></span>"
                "<span class=\"added\" style=\"width:%.2f%%\"></span></span>"
                "<span class=\"pct\">%.1f%% &rarr; %.1f%% of %s CPUs</span></div>\n",
                wb, wa > 0 ? wa : 0, alloc > 0 ? 100.0 * (double)before / (double)alloc : 0,
                alloc > 0 ? 100.0 * (double)after / (double)alloc : 0, cores);
    }
    fputs("</div></section>\n", out);
}

int whatif_sim_write_html(FILE *out, const struct whatif_sim_report *r)
{
    size_t *by_name = malloc((r->nodes->n + 1) * sizeof(*by_name));
    if (by_name == NULL)
        return -ENOMEM;
    for (size_t i = 0; i < r->nodes->n; i++)
        by_name[i] = i;
    qsort_r(by_name, r->nodes->n, sizeof(*by_name), cmp_names, r->nodes->nodes);
    fprintf(out,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<title>cpu-extender simulate</title><style>%s</style></head><body>\n"
            "<h1>cpu-extender simulate: %zu node%s, %zu pod%s to place</h1>\n<p>Nodes from ",
            style, r->nodes->n, plural(r->nodes->n), r->n_pods, plural(r->n_pods));
    html_text(out, r->nodes_from);
    if (r->existing_from != NULL) {
        fprintf(out, ", with %zu pod%s bound to them from ", r->nodes->charged,
                plural(r->nodes->charged));
        html_text(out, r->existing_from);
    }
    fputs("; pods from ", out);
    html_text(out, r->pods_from);
    fputs(", by priority, then in file order; ties go to the first node in name order.</p>\n", out);
    html_summary(out, r);
    fputs("<div class=\"strategies\">\n", out);
    for (size_t i = 0; i < r->n_results; i++)
        html_bars(out, r, &r->results[i], by_name);
    fputs("</div></body></html>\n", out);
    free(by_name);
    return ferror(out) ? -EIO : 0;
}

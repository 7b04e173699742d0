/* simulate --html: one self-contained page (no script, as /debug): the
 * summary table, then per strategy a bar per node of CPU requested before
 * and after the simulation. */
#include "whatif/simulate_print.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "whatif/simulate_rows.h"

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
    for (size_t k = 0; k < whatif_sim_n_rows; k++) {
        if (whatif_sim_rows[k].cell == NULL) {
            fprintf(out, "<tr><th colspan=\"%zu\" style=\"text-align:left\">%s</th></tr>\n",
                    r->n_results + 1, whatif_sim_rows[k].label);
            continue;
        }
        fprintf(out, "<tr><td>%s</td>", whatif_sim_rows[k].label);
        for (size_t i = 0; i < r->n_results; i++) {
            char buf[64];
            whatif_sim_rows[k].cell(r, &r->results[i], whatif_sim_rows[k].k, buf, sizeof(buf));
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
            "<p>%zu placed, %zu not placed, %zu nodes used; CPU requested over allocatable:</p>\n"
            "<p class=\"legend\"><span class=\"before\"></span>before<span "
            "class=\"added\"></span>added by the simulation</p>\n<div class=\"bars\">\n",
            name, name, name, res->summary.placed, res->summary.not_placed,
            res->summary.nodes_used);
    for (size_t k = 0; k < r->nodes->n; k++) {
        size_t i = by_name[k];
        const struct whatif_node *n = &r->nodes->nodes[i];
        int64_t alloc = n->sim.res.alloc[SCORE_CPU];
        int64_t before = n->sim.facts.requested[SCORE_CPU];
        int64_t after = res->nodes[i].requested[SCORE_CPU];
        double wb = percent(before, alloc), wa = percent(after, alloc) - wb;
        char cores[32];
        whatif_sim_cpu_amount(cores, sizeof(cores), alloc);
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
            "<h1>cpu-extender simulate: %zu nodes, %zu pods to place</h1>\n<p>Nodes from ",
            style, r->nodes->n, r->n_pods);
    html_text(out, r->nodes_from);
    if (r->existing_from != NULL) {
        fprintf(out, ", with %zu pods bound to them from ", r->nodes->charged);
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

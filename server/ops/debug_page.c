#include "server/ops/debug_page.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "server/ops/debug_json.h"
#include "server/ops/explain.h"

#define BAR_UNIT     30  /* pixels per score point: a score of 10 is 300 px */
#define NAME_WIDTH   210 /* the node-name column of the chart */
#define ROW_HEIGHT   26
#define RECENT_MAX   50 /* rows of the recent-decisions table */
#define DISAGREE_MAX 10 /* decisions in the last-disagreements table */

/* Appends @s with &, <, >, " and ' escaped: names and reasons come from
 * requests. */
static void html(struct buf *o, const char *s)
{
    static const char special[] = "&<>\"'";
    static const char *const entity[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&#39;"};
    for (; *s != '\0'; s++) {
        const char *e = strchr(special, *s);
        if (e != NULL)
            buf_str(o, entity[e - special]);
        else
            buf_raw(o, s, 1);
    }
}

/* Percent-encodes @s for a query value. */
static void url(struct buf *o, const char *s)
{
    for (; *s != '\0'; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            c == '-' || c == '.' || c == '_' || c == '/')
            buf_raw(o, s, 1);
        else
            buf_printf(o, "%%%02X", c);
    }
}

/* Every page's head, and its heading. */
static const char page_head[] =
    "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
    "<title>cpu-extender decisions</title>"
    "<style>body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#1a1a1a;max-width:72em}"
    "h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}"
    "table{border-collapse:collapse;margin:.5em 0}"
    "th,td{padding:3px 8px;border-bottom:1px solid #ddd;text-align:left;vertical-align:top}"
    "td:first-child{white-space:nowrap}"
    "td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}"
    ".fail{color:#b42318}.muted{color:#666}code{font-size:.95em}"
    "svg text{font:12px ui-monospace,monospace;fill:#1a1a1a}"
    "svg .axis{stroke:#bbb}svg .fits{fill:#2f6fd0}svg .unfit{fill:#c9473d}"
    "svg .unresolvable{fill:#8a1c14}</style>"
    "</head><body><h1>cpu-extender decisions</h1>";

/* One resource's inputs and term, as a table cell. */
static void term_cell(struct buf *o, const struct ops_record *rec, const struct ops_record_node *n,
                      int r)
{
    const struct score_term *t = &n->explain.term[r];
    char alloc[32], used[32], pod[32];
    buf_str(o, "<td>");
    if (n->unknown) {
        buf_str(o, "<span class=\"muted\">not in cluster state</span></td>");
        return;
    }
    ops_amount(alloc, sizeof(alloc), r, t->alloc);
    ops_amount(used, sizeof(used), r, t->used);
    ops_amount(pod, sizeof(pod), r, t->pod);
    buf_printf(o, "alloc %s, used %s <span class=\"muted\">(%s)</span>, pod %s", alloc, used,
               ops_used_from(n, r), pod);
    char window[128];
    if (ops_usage_window(rec, n, r, window, sizeof(window))) {
        char agg[32], newest[32];
        /* Beside the term: what the window holds, so a score on an
         * aggregate can be told from one on the newest sample. */
        ops_amount(agg, sizeof(agg), r, n->window->aggregate[r]);
        ops_amount(newest, sizeof(newest), r, n->window->newest[r]);
        buf_printf(o, "<br><span class=\"muted\">%s: %s, newest %s</span>", window, agg, newest);
    }
    if (t->skipped)
        buf_str(o, " &rarr; <span class=\"muted\">left out</span>");
    else if (rec->params.strategy == SCORE_BALANCED)
        buf_printf(o, " &rarr; fraction <b>%.4f</b>", t->fraction);
    else
        buf_printf(o, " &rarr; term <b>%d</b>", t->value);
    buf_str(o, "</td>");
}

/* How the node's value and score came about, in one line. */
static void explain_line(struct buf *o, const struct ops_record *rec,
                         const struct ops_record_node *n)
{
    char text[256];
    ops_explain_text(rec, n, text, sizeof(text));
    html(o, text);
}

static void chart(struct buf *o, const struct ops_record *rec)
{
    int width = NAME_WIDTH + BAR_UNIT * SCORE_MAX_SCORE + 120;
    int height = ROW_HEIGHT * (int)rec->n_nodes + 30;
    buf_printf(o,
               "<svg id=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "role=\"img\" aria-label=\"score of each node, 0 to 10\">",
               width, height);
    for (int s = 0; s <= SCORE_MAX_SCORE; s += 2) {
        int x = NAME_WIDTH + s * BAR_UNIT;
        buf_printf(o,
                   "<line class=\"axis\" x1=\"%d\" y1=\"0\" x2=\"%d\" y2=\"%d\"/>"
                   "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%d</text>",
                   x, x, height - 22, x, height - 6, s);
    }
    for (size_t i = 0; i < rec->n_nodes; i++) {
        const struct ops_record_node *n = &rec->nodes[i];
        int y = (int)i * ROW_HEIGHT;
        int score = n->explain.score;
        buf_str(o, "<g class=\"node\" data-node=\"");
        html(o, n->name);
        buf_printf(o, "\" data-score=\"%d\" data-value=\"%d\" data-verdict=\"%s\">", score,
                   n->explain.value, ops_verdict_name(n->verdict));
        buf_printf(o, "<text x=\"0\" y=\"%d\">", y + 17);
        html(o, n->name);
        buf_printf(o,
                   "</text><rect class=\"bar %s\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"18\">"
                   "<title>",
                   ops_verdict_name(n->verdict), NAME_WIDTH, y + 4, score * BAR_UNIT);
        explain_line(o, rec, n);
        buf_printf(o, "</title></rect><text x=\"%d\" y=\"%d\">%d &#183; +%lld",
                   NAME_WIDTH + score * BAR_UNIT + 6, y + 17, score,
                   OPS_INFLUENCE(score, rec->scheduler_weight));
        if (n->verdict != SCORE_FITS) {
            buf_str(o, " &#183; ");
            html(o, n->reason);
        }
        buf_str(o, "</text></g>");
    }
    buf_str(o, "</svg>");
}

/* A node's cells after its name: verdict, both terms, value, score,
 * influence and how. */
static void node_cells(struct buf *o, const struct ops_record *rec, const struct ops_record_node *n)
{
    buf_str(o, n->verdict == SCORE_FITS ? "<td>fits" : "<td class=\"fail\">");
    html(o, n->reason);
    buf_str(o, "</td>");
    term_cell(o, rec, n, SCORE_CPU);
    term_cell(o, rec, n, SCORE_MEMORY);
    buf_printf(o, "<td class=\"n\">%d</td><td class=\"n\">%d</td><td class=\"n\">%lld</td><td>",
               n->explain.value, n->explain.score,
               OPS_INFLUENCE(n->explain.score, rec->scheduler_weight));
    explain_line(o, rec, n);
    buf_str(o, "</td>");
}

static void terms_table(struct buf *o, const struct ops_record *rec)
{
    const struct ops_comparison *c = ops_record_comparison(rec);
    buf_str(o, "<table id=\"terms\"><tr><th>node</th><th>verdict</th><th>cpu</th>"
               "<th>memory</th><th class=\"n\">value</th><th class=\"n\">score</th>"
               "<th class=\"n\">influence</th><th>how</th></tr>");
    for (size_t i = 0; i < rec->n_nodes; i++) {
        const struct ops_record_node *n = &rec->nodes[i];
        buf_str(o, "<tr data-node=\"");
        html(o, n->name);
        buf_str(o, "\"><td>");
        html(o, n->name);
        if (c != NULL && c->bound == (long)i)
            buf_str(o, " <span class=\"muted\">(bound here)</span>");
        buf_str(o, "</td>");
        node_cells(o, rec, n);
        buf_str(o, "</tr>");
    }
    buf_str(o, "</table>");
}

/* What kube-scheduler did with the decision's pod, when it was seen. */
static void binding_line(struct buf *o, const struct ops_record *rec)
{
    const struct ops_comparison *c = ops_record_comparison(rec);
    char stamp[32];
    struct tm tm;
    if (c == NULL)
        return;
    gmtime_r(&c->time.tv_sec, &tm);
    strftime(stamp, sizeof(stamp), "%H:%M:%S", &tm);
    buf_printf(o, "<p id=\"binding\" data-agreed=\"%s\">Bound by kube-scheduler to <b>",
               c->agreed ? "true" : "false");
    html(o, c->bound_name);
    buf_printf(o, "</b> (seen %s UTC): ", stamp);
    if (c->bound < 0) {
        buf_str(o, "not among the candidates, so not compared.</p>");
        return;
    }
    buf_printf(o, "%s, rank %d, score difference %d (ours: ", c->agreed ? "agreed" : "disagreed",
               c->rank, c->score_difference);
    html(o, rec->nodes[c->ours].name);
    buf_printf(o, ", score %d).</p>", rec->nodes[c->ours].explain.score);
}

/* The newest decisions whose pod kube-scheduler bound elsewhere than the
 * extender would have, with the terms of both nodes. */
static void disagreements(struct buf *o, struct ops_record **found, size_t n)
{
    buf_str(o, "<h2>Last disagreements with kube-scheduler</h2>"
               "<p>Prioritize decisions whose pod was bound to another node than the one "
               "the extender would have chosen (rank 1: fits, highest score; nodes that tie "
               "share a rank), newest first, among the decisions kept.</p>");
    if (n == 0) {
        buf_str(o, "<p id=\"disagreements\">None among the decisions kept.</p>");
        return;
    }
    buf_str(o, "<table id=\"disagreements\"><tr><th>decision</th><th>pod</th><th>node</th>"
               "<th>verdict</th><th>cpu</th><th>memory</th><th class=\"n\">value</th>"
               "<th class=\"n\">score</th><th class=\"n\">influence</th><th>how</th></tr>");
    for (size_t i = 0; i < n; i++) {
        const struct ops_record *rec = found[i];
        const struct ops_comparison *c = ops_record_comparison(rec);
        const struct ops_record_node *our = &rec->nodes[c->ours];
        buf_printf(
            o,
            "<tr data-decision=\"%llu\"><td rowspan=\"2\"><a href=\"/debug?id=%llu\">%llu</a>"
            "<br>%s",
            (unsigned long long)rec->id, (unsigned long long)rec->id, (unsigned long long)rec->id,
            ops_answer_name(rec->answer));
        if (c->bound >= 0)
            buf_printf(o, "<br>rank %d<br>difference %d", c->rank, c->score_difference);
        buf_str(o, "</td><td rowspan=\"2\">");
        html(o, rec->pod_ns);
        buf_str(o, "/");
        html(o, rec->pod_name);
        buf_str(o, "</td><td data-role=\"ours\">ours: ");
        html(o, our->name);
        buf_str(o, "</td>");
        node_cells(o, rec, our);
        buf_str(o, "</tr><tr><td data-role=\"bound\">bound: ");
        html(o, c->bound_name);
        buf_str(o, "</td>");
        if (c->bound >= 0)
            node_cells(o, rec, &rec->nodes[c->bound]);
        else
            buf_str(o, "<td colspan=\"7\" class=\"muted\">not among the candidates</td>");
        buf_str(o, "</tr>");
    }
    buf_str(o, "</table>");
}

static void decision_section(struct buf *o, const struct ops_record *rec)
{
    buf_printf(o, "<h2 id=\"decision\" data-id=\"%llu\">Decision %llu: %s ",
               (unsigned long long)rec->id, (unsigned long long)rec->id, ops_verb_name(rec->verb));
    html(o, rec->pod_ns);
    buf_str(o, "/");
    html(o, rec->pod_name);
    char cpu[32], mem[32], cpu_nz[32], mem_nz[32];
    ops_amount(cpu, sizeof(cpu), SCORE_CPU, rec->request.real[SCORE_CPU]);
    ops_amount(mem, sizeof(mem), SCORE_MEMORY, rec->request.real[SCORE_MEMORY]);
    ops_amount(cpu_nz, sizeof(cpu_nz), SCORE_CPU, rec->request.non_zero_scored[SCORE_CPU]);
    ops_amount(mem_nz, sizeof(mem_nz), SCORE_MEMORY, rec->request.non_zero_scored[SCORE_MEMORY]);
    buf_printf(o,
               "</h2><p>answer <b>%s</b> &#183; %zu candidates, %zu fit &#183; pod requests cpu "
               "%s, memory %s (scored as %s, %s) &#183; %.3f ms &#183; "
               "<a href=\"/debug/decisions?id=%llu\">JSON</a></p>",
               ops_answer_name(rec->answer), rec->candidates, rec->n_passed, cpu, mem, cpu_nz,
               mem_nz, rec->seconds * 1e3, (unsigned long long)rec->id);
    if (rec->n_nodes == 0) {
        buf_str(o, "<p>Not scored: the answer passed every node with equal scores.</p>");
        return;
    }
    buf_printf(o,
               "<p>Strategy <b>%s</b>, weights cpu %d, memory %d%s. Each bar is a node's score "
               "(0&ndash;10), labelled <i>score &#183; points added</i>: kube-scheduler adds "
               "score &times; weight %d &times; 10 to the node's total, at most %lld against %d "
               "for its default plugins. Blue fits; red fails the filter (dark red: too big even "
               "for the empty node). Hover a bar to see how it was computed.</p>",
               score_strategy_name(rec->params.strategy), rec->params.weight[SCORE_CPU],
               rec->params.weight[SCORE_MEMORY], rec->params.normalize ? ", normalised" : "",
               rec->scheduler_weight, OPS_INFLUENCE(SCORE_MAX_SCORE, rec->scheduler_weight),
               OPS_DEFAULT_PLUGINS_MAX);
    binding_line(o, rec);
    chart(o, rec);
    terms_table(o, rec);
}

static void recent_table(struct buf *o, struct ops_record **found, size_t n)
{
    buf_str(o, "<h2>Recent decisions</h2><table id=\"recent\"><tr><th class=\"n\">id</th>"
               "<th>time (UTC)</th><th>verb</th><th>pod</th><th>answer</th>"
               "<th class=\"n\">nodes</th><th class=\"n\">fit</th><th>best</th>"
               "<th>bound (rank)</th><th class=\"n\">ms</th></tr>");
    for (size_t i = 0; i < n && i < RECENT_MAX; i++) {
        const struct ops_record *rec = found[i];
        char stamp[32];
        struct tm tm;
        gmtime_r(&rec->time.tv_sec, &tm);
        strftime(stamp, sizeof(stamp), "%H:%M:%S", &tm);
        buf_printf(o,
                   "<tr><td class=\"n\"><a href=\"/debug?id=%llu\">%llu</a></td><td>%s</td>"
                   "<td>%s</td><td><a href=\"/debug?pod=",
                   (unsigned long long)rec->id, (unsigned long long)rec->id, stamp,
                   ops_verb_name(rec->verb));
        url(o, rec->pod_ns);
        buf_str(o, "/");
        url(o, rec->pod_name);
        buf_str(o, "\">");
        html(o, rec->pod_ns);
        buf_str(o, "/");
        html(o, rec->pod_name);
        buf_printf(o, "</a></td><td>%s</td><td class=\"n\">%zu</td><td class=\"n\">%zu</td><td>",
                   ops_answer_name(rec->answer), rec->candidates, rec->n_passed);
        if (rec->best >= 0) {
            html(o, rec->nodes[rec->best].name);
            buf_printf(o, " (%d)", rec->nodes[rec->best].explain.score);
        }
        buf_str(o, "</td><td>");
        const struct ops_comparison *c = ops_record_comparison(rec);
        if (c != NULL) {
            html(o, c->bound_name);
            if (c->bound >= 0)
                buf_printf(o, " (%d)", c->rank);
            else
                buf_str(o, " (not a candidate)");
        }
        buf_printf(o, "</td><td class=\"n\">%.3f</td></tr>", rec->seconds * 1e3);
    }
    buf_str(o, "</table>");
}

/* Drops what ops_ring_find() returned. */
static void release(struct ops_record **found, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ops_record_release(found[i]);
    free(found);
}

/* In place of the chart: what was asked and is not there (?id charts that
 * decision whatever ?pod says). */
static void not_found(struct buf *o, struct ops_ring *d, const struct ops_query *q)
{
    struct ops_query asked = *q;
    if (q->id != 0)
        asked = (struct ops_query){.id = q->id};
    char why[OPS_NOT_FOUND_LEN];
    ops_debug_not_found(d, &asked, why, sizeof(why));
    why[0] = (char)toupper((unsigned char)why[0]);
    buf_str(o, "<p id=\"decision\">");
    html(o, why);
    buf_str(o, ".</p>");
}

int ops_debug_page(struct ops_ring *d, const struct ops_query *q, const struct cfg *cfg, char **out,
                   size_t *len)
{
    struct ops_query list = {
        .pod = q->pod, .limit = q->limit ? q->limit : RECENT_MAX, .disagreed = q->disagreed};
    struct ops_record **found;
    size_t n;
    struct buf o;

    if (ops_ring_find(d, &list, &found, &n) != 0)
        return -ENOMEM;
    /* The charted decision: ?id, else the newest listed. */
    struct ops_record *shown = n > 0 ? found[0] : NULL, **by_id = NULL, **disagreed = NULL;
    size_t n_id = 0, n_disagreed = 0;
    struct ops_query dq = {.pod = q->pod, .limit = DISAGREE_MAX, .disagreed = true};
    if (ops_ring_find(d, &dq, &disagreed, &n_disagreed) != 0)
        n_disagreed = 0;
    if (q->id != 0) {
        struct ops_query one = {.id = q->id};
        if (ops_ring_find(d, &one, &by_id, &n_id) != 0)
            n_id = 0;
        shown = n_id > 0 ? by_id[0] : NULL;
    }
    buf_init(&o, 16384 + (shown != NULL ? shown->n_nodes * 1024 : 0));
    buf_str(&o, page_head);
    buf_printf(&o,
               "<p id=\"config\">mode <b>%s</b> &#183; strategy <b>%s</b> (cpu weight %d, memory "
               "weight %d) &#183; scheduler weight %d &#183; ",
               cfg_mode_name(cfg->mode), score_strategy_name(cfg->score.strategy),
               cfg->score.weight[SCORE_CPU], cfg->score.weight[SCORE_MEMORY],
               cfg->scheduler_weight);
    buf_printf(&o, "keeping %d decisions &#183; <a href=\"/debug/decisions\">all as JSON</a></p>",
               cfg->decisions_kept);
    buf_str(&o, "<form method=\"get\" action=\"/debug\"><label>pod (namespace/name or name) "
                "<input name=\"pod\" value=\"");
    html(&o, q->pod != NULL ? q->pod : "");
    buf_str(&o, "\"></label> <button>show</button></form>");
    if (shown != NULL)
        decision_section(&o, shown);
    else
        not_found(&o, d, q);
    disagreements(&o, disagreed, n_disagreed);
    recent_table(&o, found, n);
    buf_str(&o, "</body></html>\n");
    release(found, n);
    release(by_id, n_id);
    release(disagreed, n_disagreed);
    *out = buf_take(&o, len);
    return *out != NULL ? 0 : -ENOMEM;
}

int ops_debug_page_error(const char *message, char **out, size_t *len)
{
    struct buf o;
    buf_init(&o, 1024 + strlen(message));
    buf_str(&o, page_head);
    buf_str(&o, "<p id=\"error\">");
    html(&o, message);
    buf_str(&o, ". <a href=\"/debug\">All recent decisions</a></p></body></html>\n");
    *out = buf_take(&o, len);
    return *out != NULL ? 0 : -ENOMEM;
}

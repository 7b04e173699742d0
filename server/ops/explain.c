#include "server/ops/explain.h"

#include <stdarg.h>
#include <stdio.h>

const char *ops_verdict_name(enum score_verdict v)
{
    return v == SCORE_FITS ? "fits" : v == SCORE_UNFIT ? "unfit" : "unresolvable";
}

const char *ops_used_from(const struct ops_record_node *n, int r)
{
    if (n->unknown)
        return "unknown node";
    if (!n->from_state)
        return "annotation"; /* without a cluster: the node's used annotation, 0 when absent */
    return score_used_source_name(n->source[r]);
}

bool ops_usage_window(const struct ops_record *rec, const struct ops_record_node *n, int r,
                      char *buf, size_t len)
{
    /* the resources asked on usage, scored on it or fallen back from it
     * (then 0 samples says why); not one asked on requests, stale or not */
    bool asked = rec->asked[r] == SCORE_USED_USAGE || rec->asked[r] == SCORE_USED_MAX;
    if (n->window == NULL || !asked)
        return false;
    const char *agg = score_usage_agg_name(rec->usage_agg[r]);
    size_t k = n->window->samples;
    const char *s = k == 1 ? "" : "s";
    if (rec->usage_window_seconds == 0)
        snprintf(buf, len, "usage %s (no window), %zu sample%s", agg, k, s);
    else
        snprintf(buf, len, "usage %s over %d s, %zu sample%s", agg, rec->usage_window_seconds, k,
                 s);
    return true;
}

void ops_amount(char *buf, size_t n, int r, int64_t v)
{
    static const char *const units[] = {"Ki", "Mi", "Gi", "Ti"};
    if (r == SCORE_CPU) {
        snprintf(buf, n, "%lldm", (long long)v);
        return;
    }
    int u = -1;
    double x = (double)v;
    while (u < 3 && x >= 1024) {
        x /= 1024;
        u++;
    }
    if (u < 0)
        snprintf(buf, n, "%lld", (long long)v);
    else if (x == (double)(long long)x)
        snprintf(buf, n, "%lld%s", (long long)x, units[u]);
    else
        snprintf(buf, n, "%.2f%s", x, units[u]);
}

/* snprintf that appends at *@off and never runs past @len. */
static void add(char *buf, size_t len, size_t *off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void add(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
    va_list ap;
    if (*off >= len)
        return;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *off, len - *off, fmt, ap);
    va_end(ap);
    if (n > 0)
        *off += (size_t)n;
}

void ops_explain_text(const struct ops_record *rec, const struct ops_record_node *n, char *buf,
                      size_t len)
{
    const struct score_explain *ex = &n->explain;
    size_t off = 0;

    buf[0] = '\0';
    if (n->unknown) {
        add(buf, len, &off, "score 0: the cluster state has no such node");
        return;
    }
    if (n->code == OPS_REASON_INVALID_NODE) {
        add(buf, len, &off, "score 0: node data unusable (%s)", n->reason);
        return;
    }
    if (n->forced_zero) {
        add(buf, len, &off, "score 0: %s",
            n->code == OPS_REASON_STALE ? "used data is stale"
                                        : "nothing to score by (no cluster state)");
        return;
    }
    if (rec->params.strategy == SCORE_BALANCED) {
        add(buf, len, &off, "value %d = (1 - std of fractions) x 100", ex->value);
    } else {
        int wsum = 0;
        const char *plus = "";
        add(buf, len, &off, "value %d = (", ex->value);
        for (int r = 0; r < SCORE_NRES; r++) {
            if (ex->term[r].skipped)
                continue;
            add(buf, len, &off, "%s%dx%d", plus, ex->term[r].weight, ex->term[r].value);
            wsum += ex->term[r].weight;
            plus = " + ";
        }
        add(buf, len, &off, ") / %d", wsum);
    }
    if (rec->params.normalize)
        add(buf, len, &off, "; score %d normalised to the best value", ex->score);
    else
        add(buf, len, &off, "; score %d = (%d + 5) / 10", ex->score, ex->value);
    if (n->code == OPS_REASON_THRESHOLD_EXEMPT)
        add(buf, len, &off, "; over a threshold, passed: a DaemonSet's pod (thresholdExempt)");
    else if (n->code == OPS_REASON_THRESHOLD_LET_THROUGH)
        add(buf, len, &off,
            "; over a threshold, passed: so was every candidate (thresholdPolicy unlessAllFail)");
}

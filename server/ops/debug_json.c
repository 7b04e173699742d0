#include "server/ops/debug_json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "base/buf.h"
#include "base/err.h"
#include "server/ops/explain.h"

int ops_debug_parse_count(const char *text, uint64_t *out)
{
    char *end;
    if (text[0] < '0' || text[0] > '9')
        return -EINVAL;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno != 0 || *end != '\0' || v == 0 || v > (1ULL << 63))
        return -EINVAL;
    *out = v;
    return 0;
}

static void member_int(struct buf *o, const char *key, int64_t v)
{
    buf_str(o, ",\"");
    buf_str(o, key);
    buf_str(o, "\":");
    buf_int(o, v);
}

static void member_str(struct buf *o, const char *key, const char *v)
{
    buf_str(o, ",\"");
    buf_str(o, key);
    buf_str(o, "\":");
    buf_json_str(o, v);
}

static void member_bool(struct buf *o, const char *key, bool v)
{
    buf_str(o, ",\"");
    buf_str(o, key);
    buf_str(o, v ? "\":true" : "\":false");
}

static void member_double(struct buf *o, const char *key, double v)
{
    char num[48];
    snprintf(num, sizeof(num), ",\"%s\":%.9g", key, v);
    buf_str(o, num);
}

/* The usage window behind a used from usage: its aggregation, seconds,
 * samples, aggregate and newest sample (ops_usage_window says when). */
static void write_window(struct buf *o, const struct ops_record *rec,
                         const struct ops_record_node *n, int r)
{
    char text[128];
    if (!ops_usage_window(rec, n, r, text, sizeof(text)))
        return;
    buf_str(o, ",\"usageWindow\":{\"aggregation\":");
    buf_json_str(o, score_usage_agg_name(rec->usage_agg[r]));
    member_int(o, "windowSeconds", rec->usage_window_seconds);
    member_int(o, "samples", (int64_t)n->window->samples);
    member_int(o, "aggregate", n->window->aggregate[r]);
    member_int(o, "newest", n->window->newest[r]);
    member_str(o, "text", text);
    buf_str(o, "}");
}

static void write_term(struct buf *o, const struct ops_record *rec, const struct ops_record_node *n,
                       int r, enum score_strategy strategy)
{
    const struct score_term *t = &n->explain.term[r];
    buf_str(o, "{\"allocatable\":");
    buf_int(o, t->alloc);
    member_int(o, "used", t->used);
    member_str(o, "usedFrom", ops_used_from(n, r));
    if (n->from_state)
        member_str(o, "usedOutcome", score_used_outcome_name(n->outcome[r]));
    write_window(o, rec, n, r);
    member_int(o, "pod", t->pod);
    member_int(o, "requested", t->requested);
    member_int(o, "weight", t->weight);
    member_bool(o, "skipped", t->skipped);
    if (strategy == SCORE_BALANCED)
        member_double(o, "fraction", t->fraction);
    else
        member_int(o, "value", t->value);
    buf_str(o, "}");
}

static void write_node(struct buf *o, const struct ops_record *rec, const struct ops_record_node *n)
{
    buf_str(o, "{\"name\":");
    buf_json_str(o, n->name);
    member_str(o, "verdict", ops_verdict_name(n->verdict));
    member_str(o, "reason", n->reason);
    member_str(o, "reasonCode", ops_reason_name(n->code));
    member_int(o, "value", n->explain.value);
    member_int(o, "score", n->explain.score);
    member_int(o, "influence", OPS_INFLUENCE(n->explain.score, rec->scheduler_weight));
    member_bool(o, "unknown", n->unknown);
    member_bool(o, "forcedZero", n->forced_zero);
    buf_str(o, ",\"resources\":{\"cpu\":");
    write_term(o, rec, n, SCORE_CPU, rec->params.strategy);
    buf_str(o, ",\"memory\":");
    write_term(o, rec, n, SCORE_MEMORY, rec->params.strategy);
    buf_str(o, "}}");
}

/* RFC 3339 in UTC with milliseconds. */
static void stamp_of(const struct timespec *t, char *stamp, size_t len)
{
    struct tm tm;
    gmtime_r(&t->tv_sec, &tm);
    size_t n = strftime(stamp, len, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(stamp + n, len - n, ".%03ldZ", t->tv_nsec / 1000000);
}

/* Where kube-scheduler bound the pod against the decision; null until the
 * binding is seen. */
static void binding_json(struct buf *o, const struct ops_record *rec)
{
    const struct ops_comparison *c = ops_record_comparison(rec);
    char stamp[48];
    if (c == NULL) {
        buf_str(o, ",\"binding\":null");
        return;
    }
    stamp_of(&c->time, stamp, sizeof(stamp));
    buf_str(o, ",\"binding\":{\"node\":");
    buf_json_str(o, c->bound_name);
    member_str(o, "seen", stamp);
    member_bool(o, "candidate", c->bound >= 0);
    member_str(o, "ourNode", c->ours >= 0 ? rec->nodes[c->ours].name : "");
    if (c->bound >= 0) {
        member_int(o, "rank", c->rank);
        member_int(o, "scoreDifference", c->score_difference);
    }
    member_bool(o, "agreed", c->agreed);
    buf_str(o, "}");
}

static void record_json(struct buf *o, const struct ops_record *rec)
{
    char stamp[48];

    stamp_of(&rec->time, stamp, sizeof(stamp));
    buf_str(o, "{\"id\":");
    buf_int(o, (int64_t)rec->id);
    member_str(o, "time", stamp);
    member_str(o, "verb", ops_verb_name(rec->verb));
    member_str(o, "answer", ops_answer_name(rec->answer));
    buf_str(o, ",\"pod\":{\"namespace\":");
    buf_json_str(o, rec->pod_ns);
    member_str(o, "name", rec->pod_name);
    member_str(o, "uid", rec->pod_uid);
    member_int(o, "cpuMillis", rec->request.real[SCORE_CPU]);
    member_int(o, "memoryBytes", rec->request.real[SCORE_MEMORY]);
    member_int(o, "cpuMillisForScoring", rec->request.non_zero_scored[SCORE_CPU]);
    member_int(o, "memoryBytesForScoring", rec->request.non_zero_scored[SCORE_MEMORY]);
    buf_str(o, "}");
    member_str(o, "strategy", score_strategy_name(rec->params.strategy));
    buf_str(o, ",\"weights\":{\"cpu\":");
    buf_int(o, rec->params.weight[SCORE_CPU]);
    member_int(o, "memory", rec->params.weight[SCORE_MEMORY]);
    buf_str(o, "}");
    member_bool(o, "normalize", rec->params.normalize);
    if (rec->params.strategy == SCORE_TARGET)
        member_int(o, "targetPercent", rec->params.target_percent);
    member_int(o, "schedulerWeight", rec->scheduler_weight);
    member_int(o, "influenceMax", OPS_INFLUENCE(SCORE_MAX_SCORE, rec->scheduler_weight));
    member_int(o, "defaultPluginsMax", OPS_DEFAULT_PLUGINS_MAX);
    member_bool(o, "nodeNamesMode", rec->node_names_mode);
    member_bool(o, "withCluster", rec->with_cluster);
    member_double(o, "durationSeconds", rec->seconds);
    member_int(o, "candidates", (int64_t)rec->candidates);
    member_int(o, "passed", (int64_t)rec->n_passed);
    member_str(o, "bestNode", rec->best >= 0 ? rec->nodes[rec->best].name : "");
    binding_json(o, rec);
    buf_str(o, ",\"nodes\":[");
    for (size_t i = 0; i < rec->n_nodes; i++) {
        buf_str(o, i ? "," : "");
        write_node(o, rec, &rec->nodes[i]);
    }
    buf_str(o, "]}");
}

void ops_debug_not_found(struct ops_ring *d, const struct ops_query *q, char *out, size_t cap)
{
    uint64_t newest = ops_ring_newest_id(d);
    const char *elsewhere = q->disagreed ? " that kube-scheduler bound elsewhere" : "";

    if (q->id != 0 && q->id > newest && newest == 0)
        snprintf(out, cap, "decision %llu has not been made: none has been recorded yet",
                 (unsigned long long)q->id);
    else if (q->id != 0 && q->id > newest)
        snprintf(out, cap, "decision %llu has not been made: the newest is %llu",
                 (unsigned long long)q->id, (unsigned long long)newest);
    else if (q->id != 0)
        snprintf(out, cap, "decision %llu is no longer kept", (unsigned long long)q->id);
    else if (q->pod != NULL)
        snprintf(out, cap, "no decision kept for pod %s%s", q->pod, elsewhere);
    else if (q->disagreed)
        snprintf(out, cap, "no decision kept%s", elsewhere);
    else if (newest == 0)
        snprintf(out, cap, "no decision recorded yet: send a filter or prioritize request");
    else
        snprintf(out, cap, "no decision kept");
    err_utf8_trim(out);
}

int ops_debug_json(struct ops_ring *d, const struct ops_query *q, char **out, size_t *len)
{
    struct ops_record **found;
    size_t n, shown = 0;
    struct buf o;

    if (ops_ring_find(d, q, &found, &n) != 0)
        return -ENOMEM;
    buf_init(&o, 4096);
    buf_str(&o, "{\"decisions\":[");
    for (size_t i = 0; i < n; i++) {
        /* Newest first until the page is full: the whole ring renders to
         * about twice its bytes, and every slow reader would hold that. */
        if (shown == 0 || o.len < OPS_DEBUG_JSON_MAX) {
            size_t before = o.len;
            buf_str(&o, shown ? "," : "");
            record_json(&o, found[i]);
            if (shown > 0 && o.len > OPS_DEBUG_JSON_MAX)
                o.len = before; /* it does not fit: left out, as the rest */
            else
                shown++;
        }
        ops_record_release(found[i]);
    }
    free(found);
    buf_str(&o, "]");
    if (n == 0) {
        char why[OPS_NOT_FOUND_LEN];
        ops_debug_not_found(d, q, why, sizeof(why));
        member_str(&o, "notFound", why);
    }
    if (shown < n) {
        buf_str(&o, ",\"omitted\":");
        buf_int(&o, (int64_t)(n - shown));
        member_str(&o, "why",
                   "the answer is bounded: ask for fewer (?limit=N, ?pod=..., ?id=N) to see them");
    }
    buf_str(&o, "}");
    *out = buf_take(&o, len);
    return *out != NULL ? 0 : -ENOMEM;
}

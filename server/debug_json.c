/* GET /debug/decisions (debug.h). */
#include "server/debug.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "server/explain.h"

int srv_debug_parse_count(const char *text, uint64_t *out)
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

static void member_int(struct jsonout *o, const char *key, int64_t v)
{
    srv_out_str(o, ",\"");
    srv_out_str(o, key);
    srv_out_str(o, "\":");
    srv_out_int(o, v);
}

static void member_str(struct jsonout *o, const char *key, const char *v)
{
    srv_out_str(o, ",\"");
    srv_out_str(o, key);
    srv_out_str(o, "\":");
    srv_out_quoted(o, v);
}

static void member_bool(struct jsonout *o, const char *key, bool v)
{
    srv_out_str(o, ",\"");
    srv_out_str(o, key);
    srv_out_str(o, v ? "\":true" : "\":false");
}

static void member_double(struct jsonout *o, const char *key, double v)
{
    char num[48];
    snprintf(num, sizeof(num), ",\"%s\":%.9g", key, v);
    srv_out_str(o, num);
}

static void write_term(struct jsonout *o, const struct srv_decision_node *n, int r,
                       enum score_strategy strategy)
{
    const struct score_term *t = &n->explain.term[r];
    srv_out_str(o, "{\"allocatable\":");
    srv_out_int(o, t->alloc);
    member_int(o, "used", t->used);
    member_str(o, "usedFrom", srv_used_from(n, r));
    if (n->from_state)
        member_str(o, "usedOutcome", score_used_outcome_name(n->outcome[r]));
    member_int(o, "pod", t->pod);
    member_int(o, "requested", t->requested);
    member_int(o, "weight", t->weight);
    member_bool(o, "skipped", t->skipped);
    if (strategy == SCORE_BALANCED)
        member_double(o, "fraction", t->fraction);
    else
        member_int(o, "value", t->value);
    srv_out_str(o, "}");
}

static void write_node(struct jsonout *o, const struct srv_decision *rec,
                       const struct srv_decision_node *n)
{
    srv_out_str(o, "{\"name\":");
    srv_out_quoted(o, n->name);
    member_str(o, "verdict", srv_verdict_name(n->verdict));
    member_str(o, "reason", n->reason);
    member_str(o, "reasonCode", srv_reason_name(n->code));
    member_int(o, "value", n->explain.value);
    member_int(o, "score", n->explain.score);
    member_int(o, "influence", SRV_INFLUENCE(n->explain.score, rec->scheduler_weight));
    member_bool(o, "unknown", n->unknown);
    member_bool(o, "forcedZero", n->forced_zero);
    srv_out_str(o, ",\"resources\":{\"cpu\":");
    write_term(o, n, SCORE_CPU, rec->params.strategy);
    srv_out_str(o, ",\"memory\":");
    write_term(o, n, SCORE_MEMORY, rec->params.strategy);
    srv_out_str(o, "}}");
}

void srv_debug_decision_json(struct jsonout *o, const struct srv_decision *rec)
{
    char stamp[48];
    struct tm tm;

    gmtime_r(&rec->time.tv_sec, &tm);
    size_t n = strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(stamp + n, sizeof(stamp) - n, ".%03ldZ", rec->time.tv_nsec / 1000000);
    srv_out_str(o, "{\"id\":");
    srv_out_int(o, (int64_t)rec->id);
    member_str(o, "time", stamp);
    member_str(o, "verb", srv_verb_name(rec->verb));
    member_str(o, "answer", srv_answer_name(rec->answer));
    srv_out_str(o, ",\"pod\":{\"namespace\":");
    srv_out_quoted(o, rec->pod_ns);
    member_str(o, "name", rec->pod_name);
    member_int(o, "cpuMillis", rec->request.real[SCORE_CPU]);
    member_int(o, "memoryBytes", rec->request.real[SCORE_MEMORY]);
    member_int(o, "cpuMillisForScoring", rec->request.non_zero[SCORE_CPU]);
    member_int(o, "memoryBytesForScoring", rec->request.non_zero[SCORE_MEMORY]);
    srv_out_str(o, "}");
    member_str(o, "strategy", score_strategy_name(rec->params.strategy));
    srv_out_str(o, ",\"weights\":{\"cpu\":");
    srv_out_int(o, rec->params.weight[SCORE_CPU]);
    member_int(o, "memory", rec->params.weight[SCORE_MEMORY]);
    srv_out_str(o, "}");
    member_bool(o, "normalize", rec->params.normalize);
    if (rec->params.strategy == SCORE_TARGET)
        member_int(o, "targetPercent", rec->params.target_percent);
    member_int(o, "schedulerWeight", rec->scheduler_weight);
    member_int(o, "influenceMax", SRV_INFLUENCE(SCORE_MAX_SCORE, rec->scheduler_weight));
    member_int(o, "defaultPluginsMax", SRV_DEFAULT_PLUGINS_MAX);
    member_bool(o, "nodeNamesMode", rec->node_names_mode);
    member_bool(o, "withCluster", rec->with_cluster);
    member_double(o, "durationSeconds", rec->seconds);
    member_int(o, "candidates", (int64_t)rec->candidates);
    member_int(o, "passed", (int64_t)rec->n_passed);
    member_str(o, "bestNode", rec->best >= 0 ? rec->nodes[rec->best].name : "");
    srv_out_str(o, ",\"nodes\":[");
    for (size_t i = 0; i < rec->n_nodes; i++) {
        srv_out_str(o, i ? "," : "");
        write_node(o, rec, &rec->nodes[i]);
    }
    srv_out_str(o, "]}");
}

int srv_debug_decisions_json(struct srv_decisions *d, const struct srv_decision_query *q,
                             char **out, size_t *len)
{
    struct srv_decision **found;
    size_t n;
    struct jsonout o;

    if (srv_decisions_find(d, q, &found, &n) != 0)
        return -ENOMEM;
    srv_out_init(&o, 4096);
    srv_out_str(&o, "{\"decisions\":[");
    for (size_t i = 0; i < n; i++) {
        srv_out_str(&o, i ? "," : "");
        srv_debug_decision_json(&o, found[i]);
        srv_decision_release(found[i]);
    }
    free(found);
    srv_out_str(&o, "]}");
    *out = srv_out_take(&o, len);
    return *out != NULL ? 0 : -ENOMEM;
}

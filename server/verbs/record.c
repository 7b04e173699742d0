#include "server/verbs/record.h"

#include <string.h>
#include <time.h>

#include "server/cluster/usage.h"

struct ops_record *verb_record(const struct verb_ctx *ctx, enum ops_verb verb,
                               const struct verb_outcome *d, double seconds)
{
    const struct codec_args *a = &d->args;
    size_t n = d->eval.node != NULL ? a->n_nodes : 0;
    size_t strings = strlen(a->pod.ns) + strlen(a->pod.name) + strlen(a->pod.uid) + 3;
    /* A node's usage window is kept when a resource is asked on usage
     * (scored on it, or fallen back from it: the window, even empty, says
     * why). */
    bool windows = cluster_usage_needed(ctx->cfg);
    for (size_t i = 0; i < n; i++) {
        strings += strlen(a->nodes[i].name) + strlen(d->eval.answer[i].reason) + 2;
        if (windows && d->eval.node[i].from_state)
            strings += sizeof(struct ops_usage_window) + 8; /* and its alignment */
    }

    struct ops_record *rec = ops_record_new(n, strings);
    if (rec == NULL)
        return NULL;
    clock_gettime(CLOCK_REALTIME, &rec->time);
    rec->seconds = seconds;
    rec->verb = verb;
    rec->answer = d->answer;
    rec->pod_ns = ops_record_strdup(rec, a->pod.ns);
    rec->pod_name = ops_record_strdup(rec, a->pod.name);
    rec->pod_uid = ops_record_strdup(rec, a->pod.uid);
    rec->request = d->request;
    rec->params = ctx->cfg->score;
    rec->usage_window_seconds = ctx->cfg->usage_window_seconds;
    memcpy(rec->usage_agg, ctx->cfg->usage_agg, sizeof(rec->usage_agg));
    memcpy(rec->asked, ctx->cfg->used_source, sizeof(rec->asked));
    rec->scheduler_weight = ctx->cfg->scheduler_weight;
    rec->node_names_mode = a->node_names_mode;
    rec->with_cluster = ctx->cl != NULL;
    rec->candidates = a->n_nodes;
    rec->n_passed = d->passed;
    rec->best = d->best;
    for (size_t i = 0; i < n; i++) {
        const struct verb_node *e = &d->eval.node[i];
        struct ops_record_node *dn = &rec->nodes[i];
        dn->name = ops_record_strdup(rec, a->nodes[i].name);
        dn->reason = ops_record_strdup(rec, d->eval.answer[i].reason);
        dn->verdict = d->eval.answer[i].verdict;
        dn->code = e->code;
        dn->unknown = e->unknown;
        dn->from_state = e->from_state;
        dn->forced_zero = e->forced_zero;
        dn->explain = d->eval.explain[i];
        for (int r = 0; r < SCORE_NRES; r++) {
            dn->source[r] = e->used[r].source;
            dn->outcome[r] = e->used[r].outcome;
        }
        if (windows && e->from_state) {
            struct ops_usage_window w = {.samples = e->usage_samples};
            memcpy(w.aggregate, e->usage_aggregate, sizeof(w.aggregate));
            memcpy(w.newest, e->usage_newest, sizeof(w.newest));
            dn->window = ops_record_window(rec, &w);
        }
    }
    return rec;
}

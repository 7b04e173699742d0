#include "server/ops/metrics.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "server/ops/process.h"
#include "version.h"

static const char *const status_names[OPS_STATUS_COUNT] = {"200", "400", "413",
                                                           "500", "503", "other"};

/* Upper bounds: from 25 us to 10 s (past any httpTimeout). A call with
 * node names takes about 0.05 ms: with 0.1 ms as the first bound,
 * histogram_quantile could only interpolate inside 0..0.1 ms (bench-scheduler
 * read 0.05 for calls its access log timed at 0.025), so 25 and 50 us come
 * first. */
static const double duration_le[OPS_DURATION_BUCKETS] = {
    0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
    0.025,    0.05,    0.1,    0.25,    0.5,    1,     2.5,    5,     10,
};
/* 1 KiB to 4 GiB by fours: a NodeNames body to the largest NodeList. */
static const double bytes_le[OPS_BYTES_BUCKETS] = {
    1024,    4096,     16384,    65536,     262144,     1048576,
    4194304, 16777216, 67108864, 268435456, 1073741824, 4294967296,
};
static const double nodes_le[OPS_NODES_BUCKETS] = {1,   3,    10,   30,    100,
                                                   300, 1000, 3000, 10000, 100000};

/* Scores are 0..10, so the spread is too: one bucket per value. */
#define SPREAD_BUCKETS 11
static const double spread_le[SPREAD_BUCKETS] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10};

/* A rank of 1 is agreement; past 10 the extender's preference was ignored. */
static const double rank_le[OPS_RANK_BUCKETS] = {1, 2, 3, 5, 10};
static const char *const mode_names[2] = {"shadow", "enforce"};

void ops_metrics_init(struct ops_metrics *m)
{
    memset(m, 0, sizeof(*m));
    atomic_init(&m->last_reload_ok, true);
    atomic_init(&m->last_reload_ok_ms, (long long)(clock_wall() * 1000));
}

static enum ops_status_class status_class(unsigned status)
{
    static const unsigned codes[OPS_STATUS_OTHER] = {200, 400, 413, 500, 503};
    int c = 0;
    while (c < OPS_STATUS_OTHER && codes[c] != status)
        c++;
    return (enum ops_status_class)c;
}

static size_t bucket_of(const double *le, size_t n, double v)
{
    size_t i = 0;
    while (i < n && v > le[i])
        i++;
    return i; /* n: above the last bound, only in +Inf */
}

static void observe_n(struct ops_histogram_n *h, const double *le, size_t n, size_t v)
{
    size_t b = bucket_of(le, n, (double)v);
    if (b < n)
        atomic_fetch_add_explicit(&h->bucket[b], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&h->count, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&h->sum, v, memory_order_relaxed);
}

void ops_metrics_request(struct ops_metrics *m, enum ops_verb verb, unsigned status, double seconds,
                         size_t body_bytes, size_t nodes)
{
    enum ops_status_class c = status_class(status);
    struct ops_histogram_d *d = &m->duration[verb][c];
    size_t b = bucket_of(duration_le, OPS_DURATION_BUCKETS, seconds);

    atomic_fetch_add_explicit(&m->requests[verb][c], 1, memory_order_relaxed);
    if (b < OPS_DURATION_BUCKETS)
        atomic_fetch_add_explicit(&d->bucket[b], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&d->count, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&d->sum_ns, (unsigned long long)(seconds * 1e9),
                              memory_order_relaxed);
    observe_n(&m->body_bytes[verb], bytes_le, OPS_BYTES_BUCKETS, body_bytes);
    if (verb != OPS_VERB_BIND && c == OPS_STATUS_200)
        observe_n(&m->nodes[verb], nodes_le, OPS_NODES_BUCKETS, nodes);
}

void ops_metrics_decision(struct ops_metrics *m, enum ops_verb verb, enum ops_answer answer,
                          const size_t passed[OPS_REASON_COUNT],
                          const size_t failed[OPS_REASON_COUNT], size_t stale, int spread)
{
    atomic_fetch_add_explicit(&m->answers[verb][answer], 1, memory_order_relaxed);
    for (int r = 0; verb == OPS_VERB_FILTER && passed != NULL && r < OPS_REASON_COUNT; r++) {
        if (passed[r] != 0)
            atomic_fetch_add_explicit(&m->filter_decisions[0][r], passed[r], memory_order_relaxed);
        if (failed[r] != 0)
            atomic_fetch_add_explicit(&m->filter_decisions[1][r], failed[r], memory_order_relaxed);
    }
    if (stale != 0)
        atomic_fetch_add_explicit(&m->stale_nodes, stale, memory_order_relaxed);
    if (spread >= 0)
        observe_n(&m->score_spread, spread_le, SPREAD_BUCKETS, (size_t)spread);
}

void ops_metrics_refused(struct ops_metrics *m, enum ops_refusal reason)
{
    atomic_fetch_add_explicit(&m->refused[reason], 1, memory_order_relaxed);
}

void ops_metrics_memory(struct ops_metrics *m, unsigned long long budget,
                        unsigned long long reserved)
{
    atomic_store_explicit(&m->memory_budget_bytes, budget, memory_order_relaxed);
    atomic_store_explicit(&m->memory_reserved_bytes, reserved, memory_order_relaxed);
}

void ops_metrics_memory_waited(struct ops_metrics *m)
{
    atomic_fetch_add_explicit(&m->memory_waits, 1, memory_order_relaxed);
}

void ops_metrics_memory_refused(struct ops_metrics *m, enum ops_memory_refusal reason)
{
    atomic_fetch_add_explicit(&m->memory_refused[reason], 1, memory_order_relaxed);
}

void ops_metrics_shadow(struct ops_metrics *m, bool enforce, const struct ops_comparison *c)
{
    int k = enforce ? 1 : 0;
    if (c->bound < 0) {
        atomic_fetch_add_explicit(&m->shadow_elsewhere[k], 1, memory_order_relaxed);
        return;
    }
    atomic_fetch_add_explicit(&m->shadow_compared[k], 1, memory_order_relaxed);
    if (c->agreed)
        atomic_fetch_add_explicit(&m->shadow_agreed[k], 1, memory_order_relaxed);
    observe_n(&m->shadow_rank[k], rank_le, OPS_RANK_BUCKETS, (size_t)c->rank);
}

void ops_metrics_reload(struct ops_metrics *m, bool valid, bool changed)
{
    /* The gauges before the counter, which a scrape reads first: a scrape
     * that counts this reload shows its gauges too. */
    if (valid)
        atomic_store(&m->last_reload_ok_ms, (long long)(clock_wall() * 1000));
    atomic_store(&m->last_reload_ok, valid);
    if (!valid || changed)
        atomic_fetch_add(valid ? &m->reloads_accepted : &m->reloads_rejected, 1);
}

/* A metric family's HELP and TYPE lines. */
static void family(FILE *f, const char *name, const char *type, const char *help)
{
    fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static unsigned long long load(atomic_ullong *v)
{
    return atomic_load_explicit(v, memory_order_relaxed);
}

/* One histogram's lines. Buckets are read before the count, so a request
 * recorded meanwhile can only make +Inf (the count) larger than the last
 * bucket, never smaller: the series stays monotonic. */
static void print_histogram(FILE *f, const char *name, const char *labels, atomic_ullong *bucket,
                            const double *le, size_t n, unsigned long long count, double sum)
{
    unsigned long long cum = 0;
    const char *sep = labels != NULL ? "," : "";
    if (labels == NULL)
        labels = "";
    for (size_t i = 0; i < n; i++) {
        cum += load(&bucket[i]);
        fprintf(f, "%s_bucket{%s%sle=\"%.10g\"} %llu\n", name, labels, sep, le[i], cum);
    }
    if (count < cum)
        count = cum;
    fprintf(f, "%s_bucket{%s%sle=\"+Inf\"} %llu\n", name, labels, sep, count);
    if (labels[0] == '\0') {
        fprintf(f, "%s_sum %.9g\n%s_count %llu\n", name, sum, name, count);
        return;
    }
    fprintf(f, "%s_sum{%s} %.9g\n", name, labels, sum);
    fprintf(f, "%s_count{%s} %llu\n", name, labels, count);
}

static void print_requests(FILE *f, struct ops_metrics *m)
{
    char labels[64];
    family(f, "cpu_extender_requests_total", "counter",
           "Extender verb requests answered, by verb and HTTP status.");
    for (int v = 0; v < OPS_VERB_COUNT; v++)
        for (int c = 0; c < OPS_STATUS_COUNT; c++)
            fprintf(f, "cpu_extender_requests_total{verb=\"%s\",status=\"%s\"} %llu\n",
                    ops_verb_name(v), status_names[c], load(&m->requests[v][c]));
    family(f, "cpu_extender_request_duration_seconds", "histogram",
           "Time from a request's headers to its answer.");
    for (int v = 0; v < OPS_VERB_COUNT; v++) {
        for (int c = 0; c < OPS_STATUS_COUNT; c++) {
            struct ops_histogram_d *d = &m->duration[v][c];
            unsigned long long count = load(&d->count);
            /* The 200 series of every verb from the start: Prometheus'
             * rate() and increase() miss the calls before the first scrape
             * that shows a series. Other statuses are rare: shown once seen,
             * the page stays short. */
            if (count == 0 && c != OPS_STATUS_200)
                continue;
            snprintf(labels, sizeof(labels), "verb=\"%s\",status=\"%s\"", ops_verb_name(v),
                     status_names[c]);
            print_histogram(f, "cpu_extender_request_duration_seconds", labels, d->bucket,
                            duration_le, OPS_DURATION_BUCKETS, count,
                            (double)load(&d->sum_ns) / 1e9);
        }
    }
}

static void print_refused(FILE *f, struct ops_metrics *m)
{
    family(f, "cpu_extender_http_refused_total", "counter",
           "Requests refused at their head (before any body was read), requests cut before they "
           "completed, and connections not accepted, by reason.");
    for (int r = 0; r < OPS_REFUSAL_COUNT; r++)
        fprintf(f, "cpu_extender_http_refused_total{reason=\"%s\"} %llu\n", ops_refusal_name(r),
                load(&m->refused[r]));
}

static void print_memory(FILE *f, struct ops_metrics *m)
{
    fprintf(f,
            "# HELP cpu_extender_memory_budget_bytes Memory the verb requests in flight may "
            "reserve (memoryBudgetBytes, or derived from the cgroup limit; 0: no budget).\n"
            "# TYPE cpu_extender_memory_budget_bytes gauge\n"
            "cpu_extender_memory_budget_bytes %llu\n"
            "# HELP cpu_extender_memory_reserved_bytes Memory reserved by the verb requests in "
            "flight.\n# TYPE cpu_extender_memory_reserved_bytes gauge\n"
            "cpu_extender_memory_reserved_bytes %llu\n"
            "# HELP cpu_extender_memory_waits_total Verb requests that waited for room in the "
            "memory budget.\n# TYPE cpu_extender_memory_waits_total counter\n"
            "cpu_extender_memory_waits_total %llu\n",
            load(&m->memory_budget_bytes), load(&m->memory_reserved_bytes), load(&m->memory_waits));
    family(f, "cpu_extender_memory_refused_total", "counter",
           "Verb requests refused for memory: budget_exhausted (503 after waiting), over_budget "
           "(413: more than the whole budget), out_of_memory (500: an allocation failed).");
    for (int r = 0; r < OPS_MEMORY_COUNT; r++)
        fprintf(f, "cpu_extender_memory_refused_total{reason=\"%s\"} %llu\n",
                ops_memory_refusal_name(r), load(&m->memory_refused[r]));
}

/* One histogram per verb of @verbs, from @h. */
static void print_by_verb(FILE *f, const char *name, struct ops_histogram_n *h, int verbs,
                          const double *le, size_t n)
{
    char labels[32];
    for (int v = 0; v < verbs; v++) {
        snprintf(labels, sizeof(labels), "verb=\"%s\"", ops_verb_name(v));
        print_histogram(f, name, labels, h[v].bucket, le, n, load(&h[v].count),
                        (double)load(&h[v].sum));
    }
}

static void print_sizes(FILE *f, struct ops_metrics *m)
{
    family(f, "cpu_extender_request_body_bytes", "histogram", "Request body sizes.");
    print_by_verb(f, "cpu_extender_request_body_bytes", m->body_bytes, OPS_VERB_COUNT, bytes_le,
                  OPS_BYTES_BUCKETS);
    family(f, "cpu_extender_request_nodes", "histogram", "Candidate nodes per request.");
    print_by_verb(f, "cpu_extender_request_nodes", m->nodes, OPS_VERB_BIND, nodes_le,
                  OPS_NODES_BUCKETS);
}

static void print_decisions(FILE *f, struct ops_metrics *m, size_t kept, size_t kept_bytes)
{
    family(f, "cpu_extender_filter_decisions_total", "counter",
           "Node verdicts of filter calls, by result and reason (computed verdicts: shadow mode "
           "included).");
    for (int failed = 0; failed < 2; failed++)
        for (int r = 0; r < OPS_REASON_COUNT; r++)
            if (ops_reason_possible(r, failed != 0))
                fprintf(f,
                        "cpu_extender_filter_decisions_total{result=\"%s\",reason=\"%s\"} %llu\n",
                        failed ? "failed" : "passed", ops_reason_name(r),
                        load(&m->filter_decisions[failed][r]));
    family(f, "cpu_extender_prioritize_score_spread", "histogram",
           "Highest minus lowest score of each scored prioritize call (0: the extender had no "
           "preference).");
    print_histogram(f, "cpu_extender_prioritize_score_spread", NULL, m->score_spread.bucket,
                    spread_le, SPREAD_BUCKETS, load(&m->score_spread.count),
                    (double)load(&m->score_spread.sum));
    fprintf(f,
            "# HELP cpu_extender_stale_nodes_total Node decisions made while the configured used "
            "source was stale or missing (fallen back, rejected or passed unscored).\n"
            "# TYPE cpu_extender_stale_nodes_total counter\n"
            "cpu_extender_stale_nodes_total %llu\n",
            load(&m->stale_nodes));
    family(f, "cpu_extender_answers_total", "counter",
           "Filter, prioritize and preempt answers by kind: scored, shadow, passthrough_mode, "
           "passthrough_selector, neutral_deadline.");
    /* Every kind for every verb but bind (preempt's neutral_deadline too). */
    for (int v = 0; v < OPS_VERB_BIND; v++)
        for (int a = 0; a < OPS_ANSWER_COUNT; a++)
            fprintf(f, "cpu_extender_answers_total{verb=\"%s\",kind=\"%s\"} %llu\n",
                    ops_verb_name(v), ops_answer_name(a), load(&m->answers[v][a]));
    fprintf(f,
            "# HELP cpu_extender_decisions_kept Decisions held for /debug.\n"
            "# TYPE cpu_extender_decisions_kept gauge\ncpu_extender_decisions_kept %zu\n"
            "# HELP cpu_extender_decisions_kept_bytes Memory held by those decisions.\n"
            "# TYPE cpu_extender_decisions_kept_bytes gauge\n"
            "cpu_extender_decisions_kept_bytes %zu\n",
            kept, kept_bytes);
}

static void print_by_mode(FILE *f, const char *name, atomic_ullong *count)
{
    for (int k = 0; k < 2; k++)
        fprintf(f, "%s{mode=\"%s\"} %llu\n", name, mode_names[k], load(&count[k]));
}

/* Both modes from the start: a rollout switches between them, and rate()
 * needs a series before its first increase. */
static void print_shadow(FILE *f, struct ops_metrics *m)
{
    char labels[32];
    family(f, "cpu_extender_shadow_decisions_compared_total", "counter",
           "Prioritize decisions compared with where kube-scheduler bound the pod (bound to one of "
           "the candidates), by the decision's mode.");
    print_by_mode(f, "cpu_extender_shadow_decisions_compared_total", m->shadow_compared);
    family(f, "cpu_extender_shadow_decisions_agreed_total", "counter",
           "Of the compared decisions, those whose pod was bound to a node that fits with the "
           "highest score (rank 1).");
    print_by_mode(f, "cpu_extender_shadow_decisions_agreed_total", m->shadow_agreed);
    family(f, "cpu_extender_shadow_bound_rank", "histogram",
           "Rank of the bound node in the decision's order (fitting nodes first, then by score; 1 "
           "= agreed).");
    for (int k = 0; k < 2; k++) {
        struct ops_histogram_n *h = &m->shadow_rank[k];
        snprintf(labels, sizeof(labels), "mode=\"%s\"", mode_names[k]);
        print_histogram(f, "cpu_extender_shadow_bound_rank", labels, h->bucket, rank_le,
                        OPS_RANK_BUCKETS, load(&h->count), (double)load(&h->sum));
    }
    family(f, "cpu_extender_shadow_bound_elsewhere_total", "counter",
           "Decisions whose pod was bound to a node that was not among its candidates (not "
           "compared).");
    print_by_mode(f, "cpu_extender_shadow_bound_elsewhere_total", m->shadow_elsewhere);
}

static void print_by_resource(FILE *f, const char *name, const unsigned long long *count, int n)
{
    for (int r = 0; r < n; r++)
        fprintf(f, "%s{resource=\"%s\"} %llu\n", name, ops_resource_name(r), count[r]);
}

static void print_cluster(FILE *f, const struct ops_cluster_gauges *g)
{
    fprintf(f,
            "# HELP cpu_extender_unknown_nodes_total Node names in requests that the cluster "
            "state did not know (passed with score 0).\n"
            "# TYPE cpu_extender_unknown_nodes_total counter\n"
            "cpu_extender_unknown_nodes_total %llu\n",
            g->unknown_nodes);
    if (!g->present)
        return;
    fprintf(f,
            "# HELP cpu_extender_cluster_ready 1 once the first lists of nodes and pods are in.\n"
            "# TYPE cpu_extender_cluster_ready gauge\ncpu_extender_cluster_ready %d\n"
            "# HELP cpu_extender_cluster_nodes Node objects in the cluster state.\n"
            "# TYPE cpu_extender_cluster_nodes gauge\ncpu_extender_cluster_nodes %zu\n"
            "# HELP cpu_extender_cluster_pods Pods in the cluster state, any phase.\n"
            "# TYPE cpu_extender_cluster_pods gauge\ncpu_extender_cluster_pods %zu\n",
            g->ready ? 1 : 0, g->nodes, g->pods);
    fprintf(f,
            "# HELP cpu_extender_cpu_requested_ratio_cv Placement quality: coefficient of "
            "variation of CPU requested / allocatable across nodes (0 = perfectly even).\n"
            "# TYPE cpu_extender_cpu_requested_ratio_cv gauge\n"
            "cpu_extender_cpu_requested_ratio_cv %.6f\n"
            "# HELP cpu_extender_cpu_requested_ratio_mean Mean CPU requested / allocatable "
            "across nodes.\n# TYPE cpu_extender_cpu_requested_ratio_mean gauge\n"
            "cpu_extender_cpu_requested_ratio_mean %.6f\n",
            g->cpu_ratio_cv, g->cpu_ratio_mean);
    family(f, "cpu_extender_watch_restarts_total", "counter",
           "Watches started again from the last resourceVersion after one ended (at its timeout, "
           "cut, or failed), by resource.");
    print_by_resource(f, "cpu_extender_watch_restarts_total", g->watch_restarts,
                      OPS_WATCHED_RESOURCES);
    family(f, "cpu_extender_relists_total", "counter",
           "Full lists after the first one, because the watch's resourceVersion was gone (410), by "
           "resource.");
    print_by_resource(f, "cpu_extender_relists_total", g->relists, OPS_WATCHED_RESOURCES);
    family(f, "cpu_extender_list_pages_shrunk_total", "counter",
           "List pages refused because their body was over its bound (the page limit's worth of "
           "objects, 8 MiB at most) and asked for again with half the limit, by resource.");
    print_by_resource(f, "cpu_extender_list_pages_shrunk_total", g->list_pages_shrunk,
                      OPS_WATCHED_RESOURCES);
    family(f, "cpu_extender_api_errors_total", "counter",
           "Requests to the API server that failed (connection, TLS, an error status, a malformed "
           "answer), by resource.");
    /* node metrics, the last, only when a used source polls them */
    print_by_resource(f, "cpu_extender_api_errors_total", g->api_errors,
                      g->usage_polled ? OPS_RESOURCE_COUNT : OPS_RESOURCE_NODE_METRICS);
    if (g->has_usage_sample)
        fprintf(f,
                "# HELP cpu_extender_usage_sample_age_seconds Age of the newest metrics.k8s.io "
                "node sample in the cluster state, from its timestamp.\n"
                "# TYPE cpu_extender_usage_sample_age_seconds gauge\n"
                "cpu_extender_usage_sample_age_seconds %.3f\n",
                g->usage_sample_age);
}

int ops_metrics_render(struct ops_metrics *m, const struct ops_cluster_gauges *cluster, size_t kept,
                       size_t kept_bytes, char **out, size_t *len)
{
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    if (f == NULL)
        return -ENOMEM;
    print_requests(f, m);
    print_refused(f, m);
    print_memory(f, m);
    print_sizes(f, m);
    print_decisions(f, m, kept, kept_bytes);
    print_shadow(f, m);
    print_cluster(f, cluster);
    /* The reload counters before the gauges (ops_metrics_reload()). */
    unsigned long long accepted = atomic_load(&m->reloads_accepted),
                       rejected = atomic_load(&m->reloads_rejected);
    long long ok_ms = atomic_load(&m->last_reload_ok_ms);
    fprintf(f,
            "# HELP cpu_extender_config_last_reload_successful Whether the last configuration "
            "reload was read and taken (1), or rejected (0) and the one before keeps serving.\n"
            "# TYPE cpu_extender_config_last_reload_successful gauge\n"
            "cpu_extender_config_last_reload_successful %d\n"
            "# HELP cpu_extender_config_last_reload_success_timestamp_seconds When the "
            "configuration in use was read: the start or the last successful reload.\n"
            "# TYPE cpu_extender_config_last_reload_success_timestamp_seconds gauge\n"
            "cpu_extender_config_last_reload_success_timestamp_seconds %lld.%03lld\n",
            atomic_load(&m->last_reload_ok) ? 1 : 0, ok_ms / 1000, ok_ms % 1000);
    ops_process_print(f);
    fprintf(f,
            "# HELP cpu_extender_config_reloads_total Configuration reloads (SIGHUP or a changed "
            "file).\n# TYPE cpu_extender_config_reloads_total counter\n"
            "cpu_extender_config_reloads_total{result=\"accepted\"} %llu\n"
            "cpu_extender_config_reloads_total{result=\"rejected\"} %llu\n"
            "# HELP cpu_extender_build_info The running version.\n"
            "# TYPE cpu_extender_build_info gauge\n"
            "cpu_extender_build_info{version=\"%s\"} 1\n",
            accepted, rejected, CPU_EXTENDER_VERSION);
    if (fclose(f) != 0 || text == NULL) {
        free(text);
        return -ENOMEM;
    }
    *out = text;
    *len = n;
    return 0;
}

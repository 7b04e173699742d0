/*
 * Judging and scoring the candidate nodes of one request: the filter's
 * verdict and the strategy's value and score per node, from the request
 * alone or from the cluster state. Shared by filter, prioritize, preempt
 * (verb_state_node) and `rank`.
 */
#ifndef SERVER_VERBS_EVALUATE_H
#define SERVER_VERBS_EVALUATE_H

#include <stdbool.h>
#include <stddef.h>

#include "config/config.h"
#include "scoring/fit.h"
#include "scoring/strategy.h"
#include "scoring/used.h"
#include "server/cluster/cluster.h"
#include "server/codec/types.h"
#include "server/ops/labels.h"
#include "server/verbs/deadline.h"

struct arena;

/* What else scoring said about one node: the metrics and the decisions
 * record read it. */
struct verb_node {
    enum ops_reason code; /* the verdict's reason as a metric label */
    bool unknown;         /* the cluster state has no such node: passed with score 0 */
    bool from_state;      /* used[] came from the cluster state */
    bool forced_zero;     /* stale data under policy full or pass, or nothing to judge: score 0 */
    struct score_used used[SCORE_NRES];
    /* The node's usage window as the state had it (from_state): what
     * /debug shows beside a used that came from usage. */
    size_t usage_samples;
    int64_t usage_aggregate[SCORE_NRES];
    int64_t usage_newest[SCORE_NRES];
};

/* What scoring said about node i of the request, in three arrays so that
 * each result is written once where its reader finds it: the codec writes
 * answer[i], score_finish() runs on explain[] in place. In the arena. */
struct verb_eval {
    struct codec_node_answer *answer;
    struct score_explain *explain;
    struct verb_node *node;
    size_t let_through; /* candidates passed by thresholdPolicy unlessAllFail (all or 0) */
};

/* A node as the cluster state knows it. */
struct verb_state {
    struct score_node node; /* allocatable, and used by cfg's sources */
    struct score_used used[SCORE_NRES];
    enum score_used_outcome worst; /* stale-full before stale-pass before the others */
    const char *invalid;           /* why allocatable is unusable (static), NULL when usable */
};

/*
 * Reads node @name from @cl's state at @now (wall clock) into @out, with
 * allocatable and annotations from @req (the request's Node object: the
 * scheduler's own snapshot) when not NULL, else from the state; what is
 * used comes from the state under cfg's used sources and stale policy.
 * Returns 0, or -ENOENT when the state has no such node (it is counted as
 * unknown). Thread-safe.
 */
int verb_state_node(const struct cfg *cfg, struct cluster *cl, double now, const char *name,
                    const struct codec_node *req, struct verb_state *out);

/*
 * The node of @view (a copy kube_state_view() made, which the caller may
 * have adjusted: `rank` takes the pod it ranks out of it) under cfg's used
 * sources and stale policy into @out, with allocatable and annotations
 * from @req when not NULL. What verb_state_node() does after its lookup.
 * Pure.
 */
void verb_state_from_view(const struct cfg *cfg, const struct kube_node_view *view,
                          const struct codec_node *req, struct verb_state *out);

/*
 * Judges and scores every node of @args for a pod that requests @req into
 * @eval, its arrays (args->n_nodes entries) in @a. With @deadline (may be
 * NULL) it gives up once that has passed and returns -ETIMEDOUT (@eval is
 * then incomplete); -ENOMEM; otherwise 0.
 * With a cluster (@cl not NULL) what is used on each node comes from its
 * state; a node it does not know passes with score 0. Without one, a Node
 * object's used annotation is the only data, and in NodeNames mode every
 * node passes with score 0. Every node gets a score, failing ones
 * included, so that prioritize (which only sees nodes that passed) and
 * rank agree.
 */
int verb_evaluate(struct arena *a, const struct cfg *cfg, struct cluster *cl,
                  const struct codec_args *args, const struct score_pod_request *req,
                  const struct verb_deadline *deadline, struct verb_eval *eval);

/* thresholdExempt: whether a pod (@daemonset: a DaemonSet owns it) passes
 * whatever the usage thresholds say. Shared with `rank`. */
bool verb_threshold_exempt(const struct cfg *cfg, bool daemonset);

/*
 * thresholdPolicy unlessAllFail: whether all @n candidates pass, scored as
 * they were, because every one failed on a threshold alone
 * (@threshold_only(@ctx, i): not stale, not unusable, not unknown, and not
 * passed). False under thresholdPolicy always or with no candidate. Shared
 * with `rank`, which asks it of the nodes kube-scheduler's own filters let
 * through.
 */
bool verb_let_all_through(const struct cfg *cfg, size_t n,
                          bool (*threshold_only)(const void *ctx, size_t i), const void *ctx);

/* The best of the @n nodes of @eval that fits (scoring/best.h's rule), -1
 * for none. */
long verb_best_node(const struct verb_eval *eval, size_t n);

#endif

#include "server/ops/shadow.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/log.h"

int ops_shadow_kept(const struct cfg *c)
{
    return c->debug_endpoints || c->mode == CFG_MODE_SHADOW ? c->decisions_kept : 0;
}

/* Whether @a comes before @b in the decision's order: fitting nodes
 * first, then the higher score. The 0..100 value behind the score is not
 * used: kube-scheduler would have been sent the same score for both. */
static bool is_ahead(const struct ops_record_node *a, const struct ops_record_node *b)
{
    bool a_fits = a->verdict == SCORE_FITS, b_fits = b->verdict == SCORE_FITS;
    if (a_fits != b_fits)
        return a_fits;
    return a->explain.score > b->explain.score;
}

/* The node the decision would have chosen: its best (the highest score
 * that fits); when nothing fits, the highest score (the first on a tie). */
static long ours(const struct ops_record *rec)
{
    if (rec->best >= 0 || rec->n_nodes == 0)
        return rec->best;
    long top = 0;
    for (size_t i = 1; i < rec->n_nodes; i++)
        if (rec->nodes[i].explain.score > rec->nodes[top].explain.score)
            top = (long)i;
    return top;
}

/* Compares @rec's decision with a binding of its pod to @node into *@out
 * (struct ops_comparison says how), dated now. */
static void compare(const struct ops_record *rec, const char *node, struct ops_comparison *out)
{
    memset(out, 0, sizeof(*out));
    clock_gettime(CLOCK_REALTIME, &out->time);
    snprintf(out->bound_name, sizeof(out->bound_name), "%s", node);
    out->ours = ours(rec);
    out->bound = -1;
    for (size_t i = 0; i < rec->n_nodes && out->bound < 0; i++)
        if (strcmp(rec->nodes[i].name, node) == 0)
            out->bound = (long)i;
    if (out->bound < 0 || out->ours < 0)
        return; /* bound where the decision had no say */
    const struct ops_record_node *b = &rec->nodes[out->bound];
    out->rank = 1;
    for (size_t i = 0; i < rec->n_nodes; i++)
        out->rank += is_ahead(&rec->nodes[i], b);
    out->score_difference = rec->nodes[out->ours].explain.score - b->explain.score;
    out->agreed = out->rank == 1 && b->verdict == SCORE_FITS;
}

/* Compares the claimed @rec with its binding to @node, publishes, counts,
 * and drops the claim's reference. */
static void finish(struct ops_record *rec, struct ops_metrics *m, const char *node)
{
    struct ops_comparison c;
    compare(rec, node, &c);
    ops_record_set_comparison(rec, &c);
    if (m != NULL)
        ops_metrics_shadow(m, rec->answer == OPS_ANSWER_SCORED, &c);
    LOG(LOG_DEBUG, "binding compared", LOG_NSNAME("pod", rec->pod_ns, rec->pod_name),
        LOG_UINT("decision", rec->id), LOG_STR("boundNode", node),
        LOG_STR("ourNode", c.ours >= 0 ? rec->nodes[c.ours].name : ""), LOG_INT("rank", c.rank),
        LOG_INT("scoreDifference", c.score_difference), LOG_BOOL("agreed", c.agreed));
    ops_record_release(rec);
}

void ops_shadow_bound(struct ops_ring *d, struct ops_metrics *m, const char *uid, const char *node)
{
    struct ops_record *rec;
    if (ops_ring_claim(d, uid, node, &rec) == 0)
        finish(rec, m, node);
}

uint64_t ops_shadow_add(struct ops_ring *d, struct ops_metrics *m, struct ops_record *rec)
{
    struct ops_record *claimed;
    char node[OPS_NODE_NAME_MAX + 1];
    uint64_t id = ops_ring_add_claim(d, rec, &claimed, node, sizeof(node));
    if (claimed != NULL)
        finish(claimed, m, node);
    return id;
}

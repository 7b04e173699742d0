#include "server/verbs/memory.h"

#include <stdint.h>

/* For the error text, the pod's tree (a Pod is at most 1.5 MiB: etcd's
 * request limit; its cJSON tree is about 3 times its bytes but it is
 * charged by the body), chunk rounding. */
#define SLACK ((size_t)256 << 10)

/* Per candidate node beyond the body's bytes: the decoded node
 * (struct codec_node, 88 bytes, in an array that doubles as it grows),
 * its judgement (struct verb_node 56 and struct score_explain 128), its
 * answer (struct codec_node_answer 24) and, in NodeNames
 * mode, its name decoded and written back: about 730 bytes measured for
 * 5000 names. */
#define PER_NODE 1024

/* A node's name twice more: decoded and written in the answer, each up to
 * 253 bytes (Kubernetes names nodes by DNS subdomain); a longer one takes
 * what it needs beyond from the budget. */
#define PER_NAME (2 * 256)

/* The fewest body bytes one candidate takes: "a", in NodeNames. */
#define NODE_MIN_BYTES 4

/* Bytes of arena per body byte, in eighths, by verb, measured: filter and
 * prioritize keep the body and records per node (1.05-1.06 times the body
 * for NodeLists of 100 to 5000 nodes, the filter's answer included);
 * preempt parses the whole body into a cJSON tree and writes names and
 * UIDs back (3.1 times for 10 000 names of 8000 bytes, 6.4 for full pods
 * as victims, 7.2 for 30 000 victims by UID). The charge is what a request
 * is admitted with; one that needs more takes it from the budget while
 * there is room (server/http/budget.h), so preempt is charged what most
 * of its requests need, not its worst. */
static const unsigned eighths[OPS_VERB_COUNT] = {
    [OPS_VERB_FILTER] = 9,
    [OPS_VERB_PRIORITIZE] = 9,
    [OPS_VERB_PREEMPT] = 32,
    [OPS_VERB_BIND] = 16,
};

size_t verb_memory_charge(enum ops_verb verb, size_t body_len, const struct cfg *cfg)
{
    size_t nodes = body_len / NODE_MIN_BYTES + 1;
    if (cfg->max_nodes > 0 && nodes > (size_t)cfg->max_nodes)
        nodes = (size_t)cfg->max_nodes;
    if (verb == OPS_VERB_BIND)
        nodes = 0;
    /* body_len is at most max-body-bytes (1 GiB): no overflow below. */
    return SLACK + (body_len * eighths[verb] + 7) / 8 + nodes * (PER_NODE + PER_NAME);
}

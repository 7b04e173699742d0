#include "server/ops/labels.h"

static const char *const verb_names[OPS_VERB_COUNT] = {"filter", "prioritize", "preempt", "bind"};
static const char *const reason_names[OPS_REASON_COUNT] = {
    [OPS_REASON_FITS] = "fits",
    [OPS_REASON_UNKNOWN_NODE] = "unknown_node",
    [OPS_REASON_INSUFFICIENT_CPU] = "insufficient_cpu",
    [OPS_REASON_INSUFFICIENT_MEMORY] = "insufficient_memory",
    [OPS_REASON_INSUFFICIENT_BOTH] = "insufficient_cpu_and_memory",
    [OPS_REASON_STALE] = "stale_data",
    [OPS_REASON_INVALID_NODE] = "invalid_node",
    [OPS_REASON_THRESHOLD_EXEMPT] = "threshold_exempt",
    [OPS_REASON_THRESHOLD_LET_THROUGH] = "threshold_let_through",
};
static const char *const answer_names[OPS_ANSWER_COUNT] = {
    [OPS_ANSWER_SCORED] = "scored",
    [OPS_ANSWER_SHADOW] = "shadow",
    [OPS_ANSWER_PASSTHROUGH_MODE] = "passthrough_mode",
    [OPS_ANSWER_PASSTHROUGH_SELECTOR] = "passthrough_selector",
    [OPS_ANSWER_NEUTRAL_DEADLINE] = "neutral_deadline",
};
static const char *const refusal_names[OPS_REFUSAL_COUNT] = {
    [OPS_REFUSAL_HEAD_SYNTAX] = "head_syntax",
    [OPS_REFUSAL_HEAD_FRAMING] = "head_framing",
    [OPS_REFUSAL_TARGET] = "target",
    [OPS_REFUSAL_CONTENT_ENCODING] = "content_encoding",
    [OPS_REFUSAL_CLIENT_CERTIFICATE] = "client_certificate",
    [OPS_REFUSAL_HEADERS_TIMEOUT] = "headers_timeout",
    [OPS_REFUSAL_BODY_TIMEOUT] = "body_timeout",
    [OPS_REFUSAL_EVICTED] = "evicted",
    [OPS_REFUSAL_WRITE_TIMEOUT] = "write_timeout",
    [OPS_REFUSAL_PER_IP_LIMIT] = "per_ip_limit",
};
static const char *const memory_names[OPS_MEMORY_COUNT] = {
    [OPS_MEMORY_BUDGET_EXHAUSTED] = "budget_exhausted",
    [OPS_MEMORY_OVER_BUDGET] = "over_budget",
    [OPS_MEMORY_OUT_OF_MEMORY] = "out_of_memory",
};

const char *ops_reason_name(enum ops_reason r)
{
    return reason_names[r];
}

const char *ops_answer_name(enum ops_answer a)
{
    return answer_names[a];
}

const char *ops_verb_name(enum ops_verb v)
{
    return verb_names[v];
}

const char *ops_refusal_name(enum ops_refusal r)
{
    return refusal_names[r];
}

const char *ops_memory_refusal_name(enum ops_memory_refusal r)
{
    return memory_names[r];
}

bool ops_reason_possible(enum ops_reason r, bool failed)
{
    switch (r) {
    case OPS_REASON_FITS:
    case OPS_REASON_UNKNOWN_NODE:
    case OPS_REASON_THRESHOLD_EXEMPT:
    case OPS_REASON_THRESHOLD_LET_THROUGH:
        return !failed;
    case OPS_REASON_STALE:
        return true;
    default:
        return failed;
    }
}

const char *ops_resource_name(int r)
{
    static const char *const names[] = {"nodes", "pods", "nodes.metrics.k8s.io"};
    return r >= 0 && r < (int)(sizeof(names) / sizeof(names[0])) ? names[r] : "other";
}

/*
 * What the operations side counts and records a request by: the verb, what
 * a filter or prioritize call answered, why a node passed or failed, why
 * a request was refused at the door. They
 * are label values of /metrics and fields of the log and /debug, so they
 * live here, below the verbs that produce them.
 */
#ifndef SERVER_OPS_LABELS_H
#define SERVER_OPS_LABELS_H

#include <stdbool.h>

enum ops_verb {
    OPS_VERB_FILTER = 0,
    OPS_VERB_PRIORITIZE,
    OPS_VERB_PREEMPT,
    OPS_VERB_BIND,
    OPS_VERB_COUNT,
};

/* Why a node passed or failed a filter (the metric's reason label). */
enum ops_reason {
    OPS_REASON_FITS = 0,
    OPS_REASON_UNKNOWN_NODE, /* not in the cluster state: passed, score 0 */
    OPS_REASON_INSUFFICIENT_CPU,
    OPS_REASON_INSUFFICIENT_MEMORY,
    OPS_REASON_INSUFFICIENT_BOTH,
    OPS_REASON_STALE,        /* stale used data under stalePolicy full (failed) or pass */
    OPS_REASON_INVALID_NODE, /* unusable allocatable or annotations */
    /* over the threshold, passed: a DaemonSet's pod (thresholdExempt) */
    OPS_REASON_THRESHOLD_EXEMPT,
    /* over the threshold, passed: so was every candidate (thresholdPolicy unlessAllFail) */
    OPS_REASON_THRESHOLD_LET_THROUGH,
    OPS_REASON_COUNT,
};

/* What a filter or prioritize call answered. */
enum ops_answer {
    OPS_ANSWER_SCORED = 0,           /* what scoring said (mode enforce) */
    OPS_ANSWER_SHADOW,               /* scored and recorded; neutral answer */
    OPS_ANSWER_PASSTHROUGH_MODE,     /* mode passthrough: neutral, not scored */
    OPS_ANSWER_PASSTHROUGH_SELECTOR, /* the pod is outside the selector */
    OPS_ANSWER_NEUTRAL_DEADLINE,     /* would have answered too late */
    OPS_ANSWER_COUNT,
};

/* Why a request was refused before its body was read, or cut before it
 * completed (the reason label of cpu_extender_http_refused_total). A
 * fixed set: nothing of the client's input becomes a label. */
enum ops_refusal {
    OPS_REFUSAL_HEAD_SYNTAX =
        0,                    /* 400: bare LF, folding, NUL, request line, header name or value */
    OPS_REFUSAL_HEAD_FRAMING, /* 400/501: Host, Content-Length, Transfer-Encoding read two ways */
    OPS_REFUSAL_TARGET,       /* 400: control character, space or bad escape in the target */
    OPS_REFUSAL_CONTENT_ENCODING,   /* 415: a compressed body */
    OPS_REFUSAL_CLIENT_CERTIFICATE, /* 403: none, or one that does not verify (mTLS) */
    OPS_REFUSAL_HEADERS_TIMEOUT,    /* cut: headers (TLS handshake included) past the deadline */
    OPS_REFUSAL_BODY_TIMEOUT,       /* cut: body past the deadline */
    OPS_REFUSAL_EVICTED,       /* closed to make room: an idle connection, an incomplete request
                                * or an unread answer (server/http/slots.h says which first) */
    OPS_REFUSAL_WRITE_TIMEOUT, /* cut: its answer unread past the write deadline */
    OPS_REFUSAL_PER_IP_LIMIT,  /* not accepted: its address's slots all in progress */
    OPS_REFUSAL_COUNT,
};

/* Why a verb request was refused for memory (the reason label of
 * cpu_extender_memory_refused_total). */
enum ops_memory_refusal {
    OPS_MEMORY_BUDGET_EXHAUSTED = 0, /* 503: no room in the budget, after waiting */
    OPS_MEMORY_OVER_BUDGET,          /* 413: one request needs more than the whole budget */
    OPS_MEMORY_OUT_OF_MEMORY,        /* 500: an allocation failed */
    OPS_MEMORY_COUNT,
};

/* The label values: "fits", "unknown_node", "insufficient_cpu", ... */
const char *ops_reason_name(enum ops_reason r);

/* Whether a node can pass (@failed false) or fail (@failed true) a filter
 * for reason @r: it passes because it fits, is unknown, or is stale under
 * stalePolicy pass; it fails short of cpu, memory or both, stale under
 * stalePolicy full, or unusable. Only possible pairs are exported. */
bool ops_reason_possible(enum ops_reason r, bool failed);

/* "nodes", "pods", "nodes.metrics.k8s.io": the resource label. */
const char *ops_resource_name(int r);

/* "scored", "shadow", "passthrough_mode", "passthrough_selector",
 * "neutral_deadline". */
const char *ops_answer_name(enum ops_answer a);

/* "head_syntax", "head_framing", "target", "content_encoding",
 * "client_certificate", "headers_timeout", "body_timeout", "evicted",
 * "per_ip_limit". */
const char *ops_refusal_name(enum ops_refusal r);

/* "budget_exhausted", "over_budget", "out_of_memory". */
const char *ops_memory_refusal_name(enum ops_memory_refusal r);

/* "filter", "prioritize", "preempt" or "bind". */
const char *ops_verb_name(enum ops_verb v);

#endif

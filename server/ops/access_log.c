#include "server/ops/access_log.h"

#include "base/log.h"

#define MAX_FIELDS 14

void ops_access_log(enum ops_verb verb, unsigned status, const struct ops_request_facts *f,
                    const char *error, double seconds, size_t body_bytes)
{
    struct log_field l[MAX_FIELDS];
    size_t n = 0;

    /* A 200 can carry an Error too: a bind that failed. */
    enum log_level level = status == 200 && error[0] == '\0' ? LOG_INFO : LOG_WARN;
    if (!log_enabled(level))
        return;
    l[n++] = LOG_STR("verb", ops_verb_name(verb));
    l[n++] = f->pod_name != NULL ? LOG_NSNAME("pod", f->pod_ns, f->pod_name) : LOG_STR("pod", "");
    if (verb != OPS_VERB_BIND) {
        l[n++] = LOG_UINT("nodesIn", f->nodes);
        l[n++] = LOG_UINT("nodesPassed", f->passed);
    }
    l[n++] = LOG_STR(verb == OPS_VERB_BIND ? "node" : "bestNode", f->best);
    if (verb == OPS_VERB_FILTER || verb == OPS_VERB_PRIORITIZE) {
        l[n++] = LOG_INT("bestScore", f->best_score);
        l[n++] = LOG_UINT("decision", f->decision);
    }
    if (verb != OPS_VERB_BIND && status == 200)
        l[n++] = LOG_STR("answer", ops_answer_name(f->answer));
    l[n++] = LOG_UINT("status", status);
    l[n++] = LOG_SECONDS("durationSeconds", seconds);
    l[n++] = LOG_UINT("bodyBytes", body_bytes);
    if (level == LOG_WARN)
        l[n++] = LOG_STR("error", error);
    log_write(level, "request", l, n);
}

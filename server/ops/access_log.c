#include "server/ops/access_log.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>

#include "base/log.h"
#include "server/ops/metrics.h"

#define MAX_FIELDS 14

/* Logs the request of @verb answered with @status and the Error text
 * @error ("" for none) after @seconds, its body @body_bytes long. */
static void log_request(enum ops_verb verb, unsigned status, const struct ops_request_facts *f,
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

/* The address of @sa as text, "" for none or another family. */
static const char *client_text(const struct sockaddr *sa, char *buf, size_t n)
{
    const void *a = NULL;
    buf[0] = '\0';
    if (sa != NULL && sa->sa_family == AF_INET)
        a = &((const struct sockaddr_in *)(const void *)sa)->sin_addr;
    else if (sa != NULL && sa->sa_family == AF_INET6)
        a = &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
    if (a != NULL && inet_ntop(sa->sa_family, a, buf, (socklen_t)n) == NULL)
        buf[0] = '\0';
    return buf;
}

void ops_access_log_refused(enum ops_refusal reason, unsigned status, const char *error,
                            const struct sockaddr *client, double seconds)
{
    char ip[INET6_ADDRSTRLEN];
    struct log_field l[5];
    size_t n = 0;

    if (!log_enabled(LOG_WARN))
        return;
    l[n++] = LOG_STR("reason", ops_refusal_name(reason));
    if (status != 0)
        l[n++] = LOG_UINT("status", status);
    l[n++] = LOG_STR("error", error);
    l[n++] = LOG_STR("client", client_text(client, ip, sizeof(ip)));
    l[n++] = LOG_SECONDS("durationSeconds", seconds);
    log_write(LOG_WARN, "request refused", l, n);
}

void ops_report(struct ops_metrics *m, enum ops_verb verb, unsigned status,
                const struct ops_request_facts *f, const char *error, double seconds,
                size_t body_bytes)
{
    ops_metrics_request(m, verb, status, seconds, body_bytes, f->nodes);
    if (f->decided)
        ops_metrics_decision(m, verb, f->answer, f->passed_by, f->failed_by, f->stale, f->spread);
    log_request(verb, status, f, error, seconds, body_bytes);
}

#include "config/advice.h"

#include <stdio.h>
#include <string.h>

/* Go's http.Transport keeps an idle connection 90 s (IdleConnTimeout of
 * the default transport kube-scheduler's extender client is built on). */
#define KUBE_SCHEDULER_KEEP_ALIVE_SECONDS 90

/* Whether the host of @listen is reachable only from this machine. */
static bool is_loopback(const char *listen)
{
    char host[CFG_STR_LEN];
    int port;
    if (cfg_listen_split(listen, host, &port) != 0)
        return false;
    return strncmp(host, "127.", 4) == 0 || strcmp(host, "::1") == 0 ||
           strcmp(host, "localhost") == 0;
}

int cfg_advice(const struct cfg *c, void (*fn)(void *ctx, const char *key, const char *text),
               void *ctx)
{
    char text[512];
    int n = 0;

    if (c->idle_timeout_seconds <= KUBE_SCHEDULER_KEEP_ALIVE_SECONDS) {
        snprintf(text, sizeof(text),
                 "idleTimeoutSeconds %d is not above kube-scheduler's %d s keep-alive: it will "
                 "reuse connections this side has closed and see sporadic EOFs",
                 c->idle_timeout_seconds, KUBE_SCHEDULER_KEEP_ALIVE_SECONDS);
        fn(ctx, "idleTimeoutSeconds", text);
        n++;
    }
    if (!is_loopback(c->listen) && c->tls_cert[0] == '\0') {
        snprintf(text, sizeof(text),
                 "listen %s is not loopback and serves plain HTTP: the verbs have no "
                 "authentication; keep them on 127.0.0.1 beside kube-scheduler (or set tlsCert "
                 "and clientCa), and scrape metricsListen instead",
                 c->listen);
        fn(ctx, "listen", text);
        n++;
    }
    if (c->debug_endpoints && !is_loopback(c->listen) && c->client_ca[0] == '\0') {
        fn(ctx, "debugEndpoints",
           "debugEndpoints on a listener that is not loopback, without clientCa: /debug shows "
           "pod names and scores to anyone who reaches it");
        n++;
    }
    if (c->debug_endpoints && c->metrics_listen_debug && c->metrics_listen[0] != '\0' &&
        !is_loopback(c->metrics_listen)) {
        fn(ctx, "metricsListenDebug",
           "metricsListenDebug serves /debug (pod names and scores) on a metricsListen that is "
           "not loopback, where no client certificate is asked for");
        n++;
    }
    if (c->score.strategy == SCORE_PACK && c->scheduler_weight < 2) {
        snprintf(text, sizeof(text),
                 "strategy pack with schedulerWeight %d only ties with NodeResourcesFit's "
                 "LeastAllocated, which spreads: give the extender weight 2 or more, or make "
                 "NodeResourcesFit pack too (docs/operations.md, weights)",
                 c->scheduler_weight);
        fn(ctx, "schedulerWeight", text);
        n++;
    }
    bool usage = false;
    for (int r = 0; r < SCORE_NRES; r++)
        usage |= c->used_source[r] == SCORE_USED_USAGE || c->used_source[r] == SCORE_USED_MAX;
    if (usage && c->usage_max_age_seconds <= cfg_usage_interval(c)) {
        snprintf(text, sizeof(text),
                 "usageMaxAgeSeconds %d is not above %s %d: every usage sample goes stale before "
                 "the next poll",
                 c->usage_max_age_seconds,
                 c->usage_prometheus ? "prometheusIntervalSeconds" : "metricsIntervalSeconds",
                 cfg_usage_interval(c));
        fn(ctx, "usageMaxAgeSeconds", text);
        n++;
    }
    /* Settings that silently do nothing read as if they did something. */
    static const char *const factor_keys[] = {"inFlightCpuFactor", "inFlightMemoryFactor"};
    for (size_t i = 0; i < 2; i++)
        if (cfg_is_given(c, factor_keys[i]) && c->in_flight_estimate != SCORE_IN_FLIGHT_FACTOR) {
            snprintf(text, sizeof(text), "%s has no effect unless inFlightEstimate is factor",
                     factor_keys[i]);
            fn(ctx, factor_keys[i], text);
            n++;
        }
    if (c->in_flight_estimate != SCORE_IN_FLIGHT_REQUESTS &&
        (!usage || c->in_flight_seconds == 0)) {
        snprintf(text, sizeof(text), "inFlightEstimate %s has no effect: %s",
                 score_in_flight_name(c->in_flight_estimate),
                 !usage ? "no resource is scored on usage (cpuUsedSource, memoryUsedSource)"
                        : "inFlightSeconds is 0");
        fn(ctx, "inFlightEstimate", text);
        n++;
    }
    return n;
}

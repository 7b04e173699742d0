#include "config/options.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/path.h"

enum opt_type {
    OPT_STRING = 0,
    OPT_INT,
    OPT_LLONG,
    OPT_BOOL,
    OPT_QUERY, /* a PromQL text: spaces allowed, CFG_QUERY_LEN */
    /* the enums: names from enum_name() */
    OPT_STRATEGY,
    OPT_LOG_LEVEL,
    OPT_USED_SOURCE,
    OPT_STALE_POLICY,
    OPT_MODE,
    OPT_IN_FLIGHT,
    /* a decimal with at most three places, kept in thousandths (an int) */
    OPT_MILLI,
};

/* One option, known under three names derived from @flag. */
struct cfg_opt {
    const char *flag; /* without the leading "--" */
    enum opt_type type;
    size_t offset; /* into struct cfg */
    long long min, max;
    /* The built-in default as a flag would give it, read by the flags'
     * parser; NULL: zero, false or "". */
    const char *def;
    /* Keeps its value until the next start (cfg_diff): what the listeners,
     * their TLS and the cluster connection were set up with, and the
     * scheduler's file, which kube-scheduler too reads once. */
    bool restart;
    const char *help;
};

#define OFF(field) offsetof(struct cfg, field)
/* cfg_opt.restart: kept until the next start, or applied by a reload */
#define RESTART true
#define LIVE    false

static const struct cfg_opt opts[] = {
    {"listen", OPT_STRING, OFF(listen), 0, 0, "127.0.0.1:8888", RESTART,
     "address and port to serve on: HOST:PORT or [IPV6]:PORT (port 0 picks a free one)"},
    {"metrics-listen", OPT_STRING, OFF(metrics_listen), 0, 0, NULL, RESTART,
     "a second address that serves only GET /healthz, /readyz, /metrics and /version (HTTPS "
     "with tls-cert, never asking for client certificates), e.g. 0.0.0.0:8889 for Prometheus "
     "and the kubelet while the verbs stay on loopback (\"\": none)"},
    {"metrics-listen-debug", OPT_BOOL, OFF(metrics_listen_debug), 0, 1, NULL, LIVE,
     "also serve /debug and /debug/decisions (with debug-endpoints) on metrics-listen; off, they "
     "stay on listen only"},
    {"prefix", OPT_STRING, OFF(prefix), 0, 0, "/scheduler", LIVE,
     "URL prefix of the verbs: POST PREFIX/filter and PREFIX/prioritize"},
    {"strategy", OPT_STRATEGY, OFF(score.strategy), 0, 0, "spread", LIVE,
     "spread (most free CPU wins), pack, balanced or target"},
    {"target-percent", OPT_INT, OFF(score.target_percent), 1, 100, "60", LIVE,
     "utilisation the target strategy scores highest"},
    {"normalize", OPT_BOOL, OFF(score.normalize), 0, 1, NULL, LIVE,
     "scale scores so that the best candidate gets 10"},
    {"cpu-weight", OPT_INT, OFF(score.weight[SCORE_CPU]), 0, 100, "3", LIVE,
     "weight of CPU in the score (0 leaves it out)"},
    {"memory-weight", OPT_INT, OFF(score.weight[SCORE_MEMORY]), 0, 100, "1", LIVE,
     "weight of memory in the score (0 leaves it out)"},
    {"cpu-threshold-percent", OPT_INT, OFF(score.threshold_percent[SCORE_CPU]), 1, 100, "100", LIVE,
     "filter: reject a node when used + request would exceed this share of its CPU"},
    {"memory-threshold-percent", OPT_INT, OFF(score.threshold_percent[SCORE_MEMORY]), 1, 100, "100",
     LIVE, "filter: the same for memory"},
    {"threshold-exempt", OPT_STRING, OFF(threshold_exempt), 0, 0, "daemonsets", LIVE,
     "daemonsets: a pod a DaemonSet owns is never refused by the thresholds (it has one node to "
     "go to); \"\": none is"},
    {"threshold-policy", OPT_STRING, OFF(threshold_policy), 0, 0, "always", LIVE,
     "always: a node over a threshold fails the filter; unlessAllFail: when every candidate "
     "would, all pass, scored as usual (a busy cluster does not leave the pod Pending; counted "
     "and logged)"},
    {"cpu-used-annotation", OPT_STRING, OFF(used_annotation[SCORE_CPU]), 0, 0,
     "cpu-extender.io/cpu-used", LIVE,
     "node annotation holding the CPU already used, as a quantity (\"\" disables)"},
    {"memory-used-annotation", OPT_STRING, OFF(used_annotation[SCORE_MEMORY]), 0, 0,
     "cpu-extender.io/memory-used", LIVE,
     "node annotation holding the memory already used, as a quantity (\"\" disables)"},
    {"kubeconfig", OPT_STRING, OFF(kubeconfig), 0, 0, NULL, RESTART,
     "kubeconfig of the cluster to watch (\"\": KUBECONFIG, else ~/.kube/config, else in-cluster, "
     "else none: "
     "request-only)"},
    {"cpu-used-source", OPT_USED_SOURCE, OFF(used_source[SCORE_CPU]), 0, 0, "requests", LIVE,
     "with a cluster: CPU already used = requests (of the node's pods), usage (metrics.k8s.io), "
     "max (of both) or annotation"},
    {"memory-used-source", OPT_USED_SOURCE, OFF(used_source[SCORE_MEMORY]), 0, 0, "requests", LIVE,
     "the same for memory"},
    {"requests-max-age-seconds", OPT_INT, OFF(requests_max_age_seconds), 0, 86400, "300", LIVE,
     "pod requests are stale when the watch has been broken this long (0: never)"},
    {"in-flight-estimate", OPT_IN_FLIGHT, OFF(in_flight_estimate), 0, 0, "requests", LIVE,
     "what a pod placed but not yet in the usage samples counts: requests, limits (per "
     "container the limit where set, else the request) or factor (the limit where set, else "
     "the request times in-flight-cpu-factor / in-flight-memory-factor)"},
    {"in-flight-cpu-factor", OPT_MILLI, OFF(in_flight_factor_milli[SCORE_CPU]), 1, 10000,
     "0.85" /* Koordinator's estimator defaults, with 0.7 for memory */, LIVE,
     "in-flight-estimate factor: a container's CPU request without a limit counts this share "
     "(0.001 to 10, three decimals; rounded up to the millicore)"},
    {"in-flight-memory-factor", OPT_MILLI, OFF(in_flight_factor_milli[SCORE_MEMORY]), 1, 10000,
     "0.7", LIVE, "in-flight-estimate factor: the same for memory (rounded up to the byte)"},
    {"usage-max-age-seconds", OPT_INT, OFF(usage_max_age_seconds), 1, 86400, "180", LIVE,
     "a usage sample older than this is stale"},
    {"stale-policy", OPT_STALE_POLICY, OFF(stale_policy), 0, 0, "requests", LIVE,
     "when the used source is stale: requests (fall back), full (reject the node) or pass "
     "(pass it with score 0)"},
    {"metrics-interval-seconds", OPT_INT, OFF(metrics_interval_seconds), 1, 3600, "15", LIVE,
     "how often to poll metrics.k8s.io when a source is usage or max"},
    {"usage-window-seconds", OPT_INT, OFF(usage_window_seconds), 0, 86400, NULL, LIVE,
     "score usage aggregated over the samples of this many seconds up to the newest (0: the "
     "newest sample alone); each node keeps window / metrics-interval-seconds + 2 samples, at "
     "most 256"},
    {"usage-aggregation", OPT_STRING, OFF(usage_aggregation), 0, 0, "latest", LIVE,
     "how a window's samples become one usage: latest, avg, max, p50, p90, p95 or p99, for both "
     "resources, or per resource as cpu=p90,memory=max"},
    {"usage-min-samples", OPT_INT, OFF(usage_min_samples), 1, 256, "1", LIVE,
     "a node's usage counts as stale until its window holds this many samples (after a start "
     "too)"},
    /* The Prometheus usage provider (docs/configuration.md#prometheus-as-the-usage-source). */
    {"usage-provider", OPT_STRING, OFF(usage_provider), 0, 0, "metrics-api", LIVE,
     "where usage comes from when a used source is usage or max: metrics-api (metrics.k8s.io) "
     "or prometheus (prometheus-cpu-query and prometheus-memory-query)"},
    {"prometheus-url", OPT_STRING, OFF(prometheus_url), 0, 0, NULL, LIVE,
     "base URL of the Prometheus HTTP API, http(s)://HOST:PORT[/PATH] (needed by "
     "usage-provider prometheus)"},
    {"prometheus-cpu-query", OPT_QUERY, OFF(prometheus_cpu_query), 0, 0, CFG_PROMETHEUS_CPU_QUERY,
     LIVE, "PromQL instant query: CPU cores in use, one series per node"},
    {"prometheus-memory-query", OPT_QUERY, OFF(prometheus_memory_query), 0, 0,
     CFG_PROMETHEUS_MEMORY_QUERY, LIVE,
     "PromQL instant query: memory bytes in use, one series per node"},
    {"prometheus-node-label", OPT_STRING, OFF(prometheus_node_label), 0, 0, "instance", LIVE,
     "the series label naming the node: instance matches a node's InternalIP (port stripped), "
     "any other label the node's name"},
    {"prometheus-bearer-token-file", OPT_STRING, OFF(prometheus_bearer_token_file), 0, 0, NULL,
     LIVE, "bearer token for Prometheus, re-read when it changes (\"\": none)"},
    {"prometheus-ca-file", OPT_STRING, OFF(prometheus_ca_file), 0, 0, NULL, LIVE,
     "PEM CA that Prometheus's certificate must chain to (\"\": the system's)"},
    {"prometheus-client-cert-file", OPT_STRING, OFF(prometheus_client_cert_file), 0, 0, NULL, LIVE,
     "PEM client certificate for Prometheus (\"\": none)"},
    {"prometheus-client-key-file", OPT_STRING, OFF(prometheus_client_key_file), 0, 0, NULL, LIVE,
     "the PEM private key of prometheus-client-cert-file"},
    {"prometheus-timeout-seconds", OPT_INT, OFF(prometheus_timeout_seconds), 1, 300, "10", LIVE,
     "a Prometheus query not answered this long fails (its nodes' usage goes stale)"},
    {"prometheus-interval-seconds", OPT_INT, OFF(prometheus_interval_seconds), 1, 3600, "15", LIVE,
     "how often to query Prometheus when usage-provider is prometheus"},
    {"in-flight-seconds", OPT_INT, OFF(in_flight_seconds), 0, 3600, "60", LIVE,
     "a pod placed this recently counts with its in-flight estimate (its request by default) in "
     "usage until a sample includes it"},
    {"max-body-bytes", OPT_LLONG, OFF(max_body_bytes), 4096, 1LL << 30, "134217728" /* 128 MiB */,
     LIVE, "largest request body accepted; larger ones get 413"},
    {"max-nodes", OPT_INT, OFF(max_nodes), 1, 100000, "10000", LIVE,
     "most nodes accepted in one request"},
    {"memory-budget-bytes", OPT_LLONG, OFF(memory_budget_bytes), -1, 1LL << 40, NULL, LIVE,
     "memory the verb requests in flight may reserve; over it a request waits up to a second, "
     "then gets 503 with Retry-After (0: the cgroup's memory limit less max(64 MiB, a "
     "quarter); -1: none)"},
    {"connection-limit", OPT_INT, OFF(connection_limit), 1, 10000, "64", RESTART,
     "most connections served at once"},
    {"per-ip-connection-limit", OPT_INT, OFF(per_ip_connection_limit), 1, 10000, "32", RESTART,
     "most connections from one IP address"},
    {"idle-timeout-seconds", OPT_INT, OFF(idle_timeout_seconds), 1, 86400, "120", RESTART,
     "close a connection idle this long (keep above kube-scheduler's 90 s)"},
    {"request-timeout-seconds", OPT_INT, OFF(request_timeout_seconds), 1, 3600, "30", LIVE,
     "close a connection whose request headers (TLS handshake included) are incomplete this "
     "long after the request began, or whose body is this long after its headers"},
    {"drain-seconds", OPT_INT, OFF(drain_seconds), 0, 300, "5", LIVE,
     "on SIGTERM, let requests in flight finish for up to this long"},
    {"tls-cert", OPT_STRING, OFF(tls_cert), 0, 0, NULL, RESTART,
     "serve HTTPS with this PEM certificate chain (re-read when it changes)"},
    {"tls-key", OPT_STRING, OFF(tls_key), 0, 0, NULL, RESTART, "the PEM private key of --tls-cert"},
    {"client-ca", OPT_STRING, OFF(client_ca), 0, 0, NULL, RESTART,
     "require client certificates from this PEM CA (mTLS) on listen, except for /healthz and "
     "/readyz; 403 otherwise"},
    {"log-level", OPT_LOG_LEVEL, OFF(log_level), 0, 0, "info", LIVE, "debug, info, warn or error"},
    {"mode", OPT_MODE, OFF(mode), 0, 0, "enforce", LIVE,
     "enforce (answer what scoring says), shadow (score, log and record, but answer every node "
     "passed with equal scores) or passthrough (answer that at once, without scoring)"},
    {"select-namespaces", OPT_STRING, OFF(select_namespaces), 0, 0, NULL, LIVE,
     "only pods in these namespaces (comma-separated) are scored; others get a pass-through "
     "answer (\"\": all)"},
    {"select-labels", OPT_STRING, OFF(select_labels), 0, 0, NULL, LIVE,
     "only pods with all these labels (k=v,k2=v2) are scored (\"\": any)"},
    {"select-priority-min", OPT_LLONG, OFF(select_priority_min), INT32_MIN, INT32_MAX,
     "-2147483648" /* INT32_MIN: every pod */, LIVE,
     "only pods with spec.priority at least this are scored"},
    {"select-priority-max", OPT_LLONG, OFF(select_priority_max), INT32_MIN, INT32_MAX,
     "2147483647" /* INT32_MAX */, LIVE, "only pods with spec.priority at most this are scored"},
    {"scheduler-timeout-ms", OPT_INT, OFF(scheduler_timeout_ms), 0, 3600000,
     "5000" /* kube-scheduler's default httpTimeout */, LIVE,
     "the extender's httpTimeout: a request that would be answered after 80 % of it gets a "
     "neutral answer (every node passed, equal scores) instead (0: never)"},
    {"scheduler-weight", OPT_INT, OFF(scheduler_weight), 1, 1000000, "1", LIVE,
     "the extender's weight in the KubeSchedulerConfiguration (explains influence only)"},
    {"scheduler-config", OPT_STRING, OFF(scheduler_config), 0, 0, NULL, RESTART,
     "kube-scheduler's KubeSchedulerConfiguration file: scheduler-weight and "
     "scheduler-timeout-ms come from its extenders entry whose urlPrefix has this listener's "
     "port and prefix, read at start as kube-scheduler reads it (a relative path in the config "
     "file is relative to that file's directory; \"\": none)"},
    {"debug-endpoints", OPT_BOOL, OFF(debug_endpoints), 0, 1, NULL, LIVE,
     "serve GET /debug (HTML) and /debug/decisions (JSON) with the recorded decisions"},
    {"decisions-kept", OPT_INT, OFF(decisions_kept), 0, 100000, "100", LIVE,
     "decisions kept for /debug, newest first (0 keeps none)"},
    {"decisions-max-bytes", OPT_LLONG, OFF(decisions_max_bytes), 0, 1LL << 32,
     "16777216" /* 16 MiB */, LIVE, "memory the kept decisions may use; the oldest go first"},
};

#define N_OPTS (sizeof(opts) / sizeof(opts[0]))

/* struct cfg's given has a bit per option. */
_Static_assert(N_OPTS <= CFG_MAX_OPTS, "more options than bits in cfg.given");

static const char *const mode_names[] = {
    [CFG_MODE_ENFORCE] = "enforce",
    [CFG_MODE_SHADOW] = "shadow",
    [CFG_MODE_PASSTHROUGH] = "passthrough",
};

const char *cfg_mode_name(enum cfg_mode m)
{
    return mode_names[m];
}

bool cfg_list_any(const char *list, bool (*fn)(const void *ctx, const char *item, size_t len),
                  const void *ctx)
{
    while (*list != '\0') {
        size_t len = strcspn(list, ",");
        if (fn(ctx, list, len))
            return true;
        list += len;
        if (*list == ',')
            list++;
    }
    return false;
}

int cfg_listen_split(const char *listen, char host[CFG_STR_LEN], int *port)
{
    const char *colon;
    size_t host_len;

    if (listen[0] == '[') {
        const char *close = strchr(listen, ']');
        if (close == NULL || close[1] != ':')
            return -EINVAL;
        colon = close + 1;
        listen++;
        host_len = (size_t)(close - listen);
    } else {
        colon = strrchr(listen, ':');
        if (colon == NULL || memchr(listen, ':', (size_t)(colon - listen)) != NULL)
            return -EINVAL;
        host_len = (size_t)(colon - listen);
    }
    if (host_len == 0 || host_len >= CFG_STR_LEN || colon[1] == '\0')
        return -EINVAL;
    char *end;
    errno = 0;
    long p = strtol(colon + 1, &end, 10);
    if (errno != 0 || *end != '\0' || p < 0 || p > 65535 || !isdigit((unsigned char)colon[1]))
        return -EINVAL;
    memcpy(host, listen, host_len);
    host[host_len] = '\0';
    *port = (int)p;
    return 0;
}

/* The keys that are not camelCase of their flag: initialisms written as
 * the Kubernetes API conventions write them. */
static const struct {
    const char *flag, *key;
} key_spellings[] = {
    {"prometheus-url", "prometheusURL"},
    {"prometheus-ca-file", "prometheusCAFile"},
};

/* "cpu-weight" -> "cpuWeight", or the key key_spellings gives. */
void cfg_opt_key(const struct cfg_opt *o, char *out, size_t n)
{
    const char *flag = o->flag;
    size_t j = 0;
    for (size_t k = 0; k < sizeof(key_spellings) / sizeof(key_spellings[0]); k++) {
        if (strcmp(flag, key_spellings[k].flag) == 0) {
            snprintf(out, n, "%s", key_spellings[k].key);
            return;
        }
    }
    for (size_t i = 0; flag[i] != '\0' && j + 1 < n; i++) {
        if (flag[i] == '-' && flag[i + 1] != '\0')
            out[j++] = (char)toupper((unsigned char)flag[++i]);
        else
            out[j++] = flag[i];
    }
    out[j] = '\0';
}

/* "cpu-weight" -> "CPU_EXTENDER_CPU_WEIGHT" */
static void env_name(const char *flag, char *out, size_t n)
{
    size_t j = (size_t)snprintf(out, n, "%s", CFG_ENV_PREFIX);
    for (size_t i = 0; flag[i] != '\0' && j + 1 < n; i++)
        out[j++] = flag[i] == '-' ? '_' : (char)toupper((unsigned char)flag[i]);
    out[j] = '\0';
}

/* Formats the reason into @why (@n bytes) and returns -EINVAL. */
static int refuse(char *why, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int refuse(char *why, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
    return -EINVAL;
}

static int check_string(const struct cfg_opt *o, const char *v, char *why, size_t n)
{
    char host[CFG_STR_LEN];
    int port;

    if (strlen(v) >= CFG_STR_LEN)
        return refuse(why, n, "longer than %d bytes", CFG_STR_LEN - 1);
    bool is_listen =
        strcmp(o->flag, "listen") == 0 || (strcmp(o->flag, "metrics-listen") == 0 && v[0] != '\0');
    if (is_listen && cfg_listen_split(v, host, &port) != 0)
        return refuse(why, n, "want HOST:PORT or [IPV6]:PORT with a port from 0 to 65535");
    /* "" is the root, as "/" becomes once normalized (printed configs say "") */
    if (strcmp(o->flag, "prefix") == 0 && v[0] != '/' && v[0] != '\0')
        return refuse(why, n, "must start with '/'");
    for (const char *s = v; *s != '\0'; s++) {
        if (!isgraph((unsigned char)*s) || *s == '?' || *s == '#')
            return refuse(why, n, "must not contain spaces, control characters, '?' or '#'");
    }
    return 0;
}

/* The name of value @v of an enum option of type @t, NULL past the last. */
static const char *enum_name(enum opt_type t, int v)
{
    switch (t) {
    case OPT_STRATEGY:
        return v <= SCORE_TARGET ? score_strategy_name((enum score_strategy)v) : NULL;
    case OPT_LOG_LEVEL:
        return v <= LOG_ERROR ? log_level_name((enum log_level)v) : NULL;
    case OPT_USED_SOURCE:
        return v <= SCORE_USED_ANNOTATION ? score_used_source_name((enum score_used_source)v)
                                          : NULL;
    case OPT_STALE_POLICY:
        return v <= SCORE_STALE_PASS ? score_stale_policy_name((enum score_stale_policy)v) : NULL;
    case OPT_MODE:
        return v <= CFG_MODE_PASSTHROUGH ? mode_names[v] : NULL;
    case OPT_IN_FLIGHT:
        return score_in_flight_name((enum score_in_flight)v);
    default:
        return NULL;
    }
}

/* "0.85" -> 850: a decimal with at most three places, exactly, as an int
 * in thousandths within [@min, @max]. Returns 0 or -EINVAL. */
static int parse_milli(const char *v, long long min, long long max, int *out)
{
    long long whole = 0, frac = 0;
    int places = 0;
    const char *s = v;

    if (!isdigit((unsigned char)*s))
        return -EINVAL;
    for (; isdigit((unsigned char)*s); s++)
        if ((whole = whole * 10 + (*s - '0')) > max)
            return -EINVAL;
    if (*s == '.') {
        for (s++; isdigit((unsigned char)*s); s++, places++)
            if (places < 3)
                frac = frac * 10 + (*s - '0');
            else if (*s != '0') /* a fourth place would be rounded away */
                return -EINVAL;
        if (places == 0)
            return -EINVAL;
    }
    if (*s != '\0')
        return -EINVAL;
    for (int p = places < 3 ? places : 3; p < 3; p++)
        frac *= 10;
    long long x = whole * 1000 + frac;
    if (x < min || x > max)
        return -EINVAL;
    *out = (int)x;
    return 0;
}

/* Stores the text @v into option @o of @c; @why receives the problem. */
static int set_text(struct cfg *c, const struct cfg_opt *o, const char *v, char *why, size_t n)
{
    char *field = (char *)c + o->offset;
    char *end;
    long long x;
    int i;

    switch (o->type) {
    case OPT_STRING:
        if (check_string(o, v, why, n) != 0)
            return -EINVAL;
        snprintf(field, CFG_STR_LEN, "%s", v);
        if (strcmp(o->flag, "prefix") == 0)
            path_squash(field, strlen(field), field, strlen(field) + 1, true);
        return 0;
    case OPT_QUERY:
        /* PromQL has spaces; a control character is a mistake, never a query. */
        if (strlen(v) >= CFG_QUERY_LEN)
            return refuse(why, n, "longer than %d bytes", CFG_QUERY_LEN - 1);
        for (const char *q = v; *q != '\0'; q++) {
            if ((unsigned char)*q < 0x20 || *q == 0x7f)
                return refuse(why, n, "must not contain control characters");
        }
        snprintf(field, CFG_QUERY_LEN, "%s", v);
        return 0;
    case OPT_INT:
    case OPT_LLONG:
        errno = 0;
        x = strtoll(v, &end, 10);
        if (errno != 0 || end == v || *end != '\0' || x < o->min || x > o->max)
            return refuse(why, n, "want a whole number from %lld to %lld", o->min, o->max);
        if (o->type == OPT_INT)
            *(int *)(void *)field = (int)x;
        else
            *(long long *)(void *)field = x;
        return 0;
    case OPT_MILLI:
        if (parse_milli(v, o->min, o->max, (int *)(void *)field) != 0)
            return refuse(why, n,
                          "want a number from %lld.%03lld to %lld.%03lld, at most three decimals",
                          o->min / 1000, o->min % 1000, o->max / 1000, o->max % 1000);
        return 0;
    case OPT_BOOL:
        if (strcmp(v, "true") == 0 || strcmp(v, "1") == 0)
            *(bool *)(void *)field = true;
        else if (strcmp(v, "false") == 0 || strcmp(v, "0") == 0)
            *(bool *)(void *)field = false;
        else
            return refuse(why, n, "want true or false");
        return 0;
    default: /* an enum: "want a, b or c" */
        for (i = 0; enum_name(o->type, i) != NULL; i++) {
            if (strcmp(v, enum_name(o->type, i)) == 0) {
                *(int *)(void *)field = i;
                return 0;
            }
        }
        size_t len = (size_t)snprintf(why, n, "want %s", enum_name(o->type, 0));
        for (int k = 1; enum_name(o->type, k) != NULL && len < n; k++)
            len += (size_t)snprintf(why + len, n - len, "%s%s",
                                    enum_name(o->type, k + 1) != NULL ? ", " : " or ",
                                    enum_name(o->type, k));
        return -EINVAL;
    }
}

int cfg_opt_set_text(struct cfg *c, const struct cfg_opt *o, const char *v, char *why, size_t n)
{
    int rc = set_text(c, o, v, why, n);
    if (rc == 0)
        c->given |= (cfg_bits)1 << (o - opts);
    return rc;
}

void cfg_defaults(struct cfg *c)
{
    char why[128];
    memset(c, 0, sizeof(*c));
    for (size_t i = 0; i < N_OPTS; i++)
        if (opts[i].def != NULL && set_text(c, &opts[i], opts[i].def, why, sizeof(why)) != 0) {
            /* a default its own option refuses is a typo in the table: every
             * run stops here, the first test included, rather than keep 0 */
            fprintf(stderr, "cpu-extender: built-in default of --%s: %s\n", opts[i].flag, why);
            abort();
        }
}

int cfg_opt_index(const struct cfg_opt *o)
{
    return (int)(o - opts);
}

cfg_bits cfg_opt_bit(const struct cfg_opt *o)
{
    return (cfg_bits)1 << (o - opts);
}

/* The optimal string alignment distance of @a and @b (insertions,
 * deletions, substitutions and swaps of neighbours), case-insensitive;
 * keys are short, longer ones count as far. */
static size_t edit_distance(const char *a, const char *b)
{
    enum { MAX = 64 };
    size_t la = strlen(a), lb = strlen(b), d[MAX + 1][MAX + 1];
    if (la > MAX || lb > MAX)
        return SIZE_MAX;
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++) {
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
            size_t best = d[i - 1][j - 1] + cost;
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    }
    return d[la][lb];
}

bool cfg_opt_nearest_key(const char *key, char *out, size_t n)
{
    char k[64];
    size_t best = SIZE_MAX;
    /* a third of the key's letters, at least 2: near enough to be a typo */
    size_t near = strlen(key) / 3 > 2 ? strlen(key) / 3 : 2;
    for (size_t i = 0; i < N_OPTS; i++) {
        cfg_opt_key(&opts[i], k, sizeof(k));
        size_t d = edit_distance(key, k);
        if (d <= near && d < best) {
            best = d;
            snprintf(out, n, "%s", k);
        }
    }
    return best != SIZE_MAX;
}

const struct cfg_opt *cfg_opt_by_flag(const char *name, size_t len)
{
    for (size_t i = 0; i < N_OPTS; i++)
        if (strlen(opts[i].flag) == len && strncmp(opts[i].flag, name, len) == 0)
            return &opts[i];
    return NULL;
}

/* Converts one JSON member to text and stores it, so that the file, the
 * environment and the flags share one validation path. */
int cfg_opt_set_json(struct cfg *c, const struct cfg_opt *o, const cJSON *item, char *why, size_t n)
{
    char text[64];

    switch (o->type) {
    default: /* a string or an enum */
        if (!cJSON_IsString(item))
            return refuse(why, n, "want a string");
        return cfg_opt_set_text(c, o, item->valuestring, why, n);
    case OPT_INT:
    case OPT_LLONG:
        /* Range first: converting an out-of-range double is undefined. */
        if (!cJSON_IsNumber(item) || !(item->valuedouble >= -9e18 && item->valuedouble <= 9e18) ||
            item->valuedouble != (double)(long long)item->valuedouble)
            return refuse(why, n, "want a whole number from %lld to %lld", o->min, o->max);
        snprintf(text, sizeof(text), "%lld", (long long)item->valuedouble);
        return cfg_opt_set_text(c, o, text, why, n);
    case OPT_MILLI:
        /* A JSON number's double printed back to the shortest text that
         * reads as it (0.85, not 0.8499...), then parsed exactly. */
        if (!cJSON_IsNumber(item) || !(item->valuedouble >= 0 && item->valuedouble <= 1e6))
            return refuse(why, n, "want a number from %lld.%03lld to %lld.%03lld", o->min / 1000,
                          o->min % 1000, o->max / 1000, o->max % 1000);
        snprintf(text, sizeof(text), "%.15g", item->valuedouble);
        return cfg_opt_set_text(c, o, text, why, n);
    case OPT_BOOL:
        if (!cJSON_IsBool(item))
            return refuse(why, n, "want true or false");
        return cfg_opt_set_text(c, o, cJSON_IsTrue(item) ? "true" : "false", why, n);
    }
    return -EINVAL;
}

const struct cfg_opt *cfg_opt_by_key(const char *key)
{
    char k[64];
    for (size_t i = 0; i < N_OPTS; i++) {
        cfg_opt_key(&opts[i], k, sizeof(k));
        if (strcmp(k, key) == 0)
            return &opts[i];
    }
    return NULL;
}

const struct cfg_opt *cfg_opt_by_env(const char *name, size_t len, char *canonical, size_t n)
{
    for (size_t i = 0; i < N_OPTS; i++) {
        env_name(opts[i].flag, canonical, n);
        if (strlen(canonical) == len && strncmp(canonical, name, len) == 0)
            return &opts[i];
    }
    return NULL;
}

const char *cfg_opt_flag(const struct cfg_opt *o)
{
    return o->flag;
}

bool cfg_opt_is_bool(const struct cfg_opt *o)
{
    return o->type == OPT_BOOL;
}

/* The value of @o in @c as JSON. */
static void print_value(const struct cfg *c, const struct cfg_opt *o, FILE *out)
{
    const char *field = (const char *)c + o->offset;
    switch (o->type) {
    case OPT_STRING:
    case OPT_QUERY: {
        cJSON *s = cJSON_CreateString(field);
        char *text = s ? cJSON_PrintUnformatted(s) : NULL;
        fputs(text ? text : "null", out);
        free(text);
        cJSON_Delete(s);
        break;
    }
    case OPT_INT:
        fprintf(out, "%d", *(const int *)(const void *)field);
        break;
    case OPT_LLONG:
        fprintf(out, "%lld", *(const long long *)(const void *)field);
        break;
    case OPT_BOOL:
        fputs(*(const bool *)(const void *)field ? "true" : "false", out);
        break;
    case OPT_MILLI: {
        int m = *(const int *)(const void *)field;
        char frac[8];
        snprintf(frac, sizeof(frac), "%03d", m % 1000);
        for (size_t k = strlen(frac); k > 0 && frac[k - 1] == '0'; k--)
            frac[k - 1] = '\0';
        fprintf(out, "%d%s%s", m / 1000, frac[0] != '\0' ? "." : "", frac);
        break;
    }
    default:
        fprintf(out, "\"%s\"", enum_name(o->type, *(const int *)(const void *)field));
        break;
    }
}

void cfg_print_json(const struct cfg *c, FILE *out)
{
    char key[64];
    const char *sep = "{";

    for (size_t i = 0; i < N_OPTS; i++) {
        cfg_opt_key(&opts[i], key, sizeof(key));
        fprintf(out, "%s\n  \"%s\": ", sep, key);
        sep = ",";
        print_value(c, &opts[i], out);
    }
    fputs("\n}\n", out);
}

bool cfg_is_given(const struct cfg *c, const char *key)
{
    const struct cfg_opt *o = cfg_opt_by_key(key);
    return o != NULL && (c->given & ((cfg_bits)1 << (o - opts))) != 0;
}

bool cfg_file_position(const struct cfg *c, const char *key, char *out, size_t n)
{
    const struct cfg_opt *o = cfg_opt_by_key(key);
    if (o == NULL || (c->from_file & ((cfg_bits)1 << (o - opts))) == 0)
        return false;
    snprintf(out, n, "line %u, column %u", c->file_at[o - opts].line, c->file_at[o - opts].col);
    return true;
}

/* Whether option @o has the same value in @a and @b: compared as printed,
 * so that padding and the bytes after a string's NUL never count. */
static bool same_value(const struct cfg *a, const struct cfg *b, const struct cfg_opt *o)
{
    char *ta = NULL, *tb = NULL;
    size_t la = 0, lb = 0;
    FILE *fa = open_memstream(&ta, &la), *fb = open_memstream(&tb, &lb);
    if (fa != NULL)
        print_value(a, o, fa);
    if (fb != NULL)
        print_value(b, o, fb);
    if (fa != NULL)
        fclose(fa);
    if (fb != NULL)
        fclose(fb);
    bool same = ta != NULL && tb != NULL && la == lb && memcmp(ta, tb, la) == 0;
    free(ta);
    free(tb);
    return same;
}

/* Appends ",@key" (or "@key" to an empty list) to @list if it fits. */
static void list_add(char *list, size_t n, const char *key)
{
    size_t len = strlen(list);
    int w = snprintf(list + len, n - len, "%s%s", len > 0 ? "," : "", key);
    if (w < 0 || (size_t)w >= n - len)
        list[len] = '\0'; /* a cut key would name another option */
}

void cfg_diff(const struct cfg *a, const struct cfg *b, char *live, char *restart, size_t n)
{
    char key[64];
    live[0] = restart[0] = '\0';
    for (size_t i = 0; i < N_OPTS; i++) {
        if (same_value(a, b, &opts[i]))
            continue;
        cfg_opt_key(&opts[i], key, sizeof(key));
        list_add(opts[i].restart ? restart : live, n, key);
    }
}

void cfg_print_help(FILE *out)
{
    struct cfg d;
    char key[64], env[96];

    cfg_defaults(&d);
    fprintf(out, "Options (flag / environment variable / config-file key):\n"
                 "  --config FILE  (" CFG_ENV_PREFIX "CONFIG)\n"
                 "      JSON config file; flags override the environment, which overrides it\n");
    for (size_t i = 0; i < N_OPTS; i++) {
        cfg_opt_key(&opts[i], key, sizeof(key));
        env_name(opts[i].flag, env, sizeof(env));
        fprintf(out, "  --%s  (%s, \"%s\")\n      %s%s\n", opts[i].flag, env, key, opts[i].help,
                opts[i].restart ? " (restart: takes effect at the next start)" : "");
    }
    fprintf(out, "\nDefaults as a config file:\n");
    cfg_print_json(&d, out);
}

#include "config/config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

/* Largest config file read: it holds a dozen options. */
#define CFG_FILE_MAX (1 << 20)

enum opt_type {
    OPT_STRING = 0,
    OPT_INT,
    OPT_LLONG,
    OPT_BOOL,
    OPT_STRATEGY,
    OPT_LOG_LEVEL,
    OPT_USED_SOURCE,
    OPT_STALE_POLICY,
    OPT_MODE,
};

/* One option, known under three names derived from @flag. */
struct opt {
    const char *flag; /* without the leading "--" */
    enum opt_type type;
    size_t offset; /* into struct cfg */
    long long min, max;
    const char *help;
};

#define OFF(field) offsetof(struct cfg, field)

static const struct opt opts[] = {
    {"listen", OPT_STRING, OFF(listen), 0, 0,
     "address and port to serve on: HOST:PORT or [IPV6]:PORT (port 0 picks a free one)"},
    {"prefix", OPT_STRING, OFF(prefix), 0, 0,
     "URL prefix of the verbs: POST PREFIX/filter and PREFIX/prioritize"},
    {"strategy", OPT_STRATEGY, OFF(score.strategy), 0, 0,
     "spread (most free CPU wins), pack, balanced or target"},
    {"target-percent", OPT_INT, OFF(score.target_percent), 1, 100,
     "utilisation the target strategy scores highest"},
    {"normalize", OPT_BOOL, OFF(score.normalize), 0, 1,
     "scale scores so that the best candidate gets 10"},
    {"cpu-weight", OPT_INT, OFF(score.weight[SCORE_CPU]), 0, 100,
     "weight of CPU in the score (0 leaves it out)"},
    {"memory-weight", OPT_INT, OFF(score.weight[SCORE_MEMORY]), 0, 100,
     "weight of memory in the score (0 leaves it out)"},
    {"cpu-threshold-percent", OPT_INT, OFF(score.threshold_percent[SCORE_CPU]), 1, 100,
     "filter: reject a node when used + request would exceed this share of its CPU"},
    {"memory-threshold-percent", OPT_INT, OFF(score.threshold_percent[SCORE_MEMORY]), 1, 100,
     "filter: the same for memory"},
    {"cpu-used-annotation", OPT_STRING, OFF(used_annotation[SCORE_CPU]), 0, 0,
     "node annotation holding the CPU already used, as a quantity (\"\" disables)"},
    {"memory-used-annotation", OPT_STRING, OFF(used_annotation[SCORE_MEMORY]), 0, 0,
     "node annotation holding the memory already used, as a quantity (\"\" disables)"},
    {"kubeconfig", OPT_STRING, OFF(kubeconfig), 0, 0,
     "kubeconfig of the cluster to watch (\"\": KUBECONFIG, else in-cluster, else none: "
     "request-only)"},
    {"cpu-used-source", OPT_USED_SOURCE, OFF(used_source[SCORE_CPU]), 0, 0,
     "with a cluster: CPU already used = requests (of the node's pods), usage (metrics.k8s.io), "
     "max (of both) or annotation"},
    {"memory-used-source", OPT_USED_SOURCE, OFF(used_source[SCORE_MEMORY]), 0, 0,
     "the same for memory"},
    {"requests-max-age-seconds", OPT_INT, OFF(requests_max_age_seconds), 0, 86400,
     "pod requests are stale when the watch has been broken this long (0: never)"},
    {"usage-max-age-seconds", OPT_INT, OFF(usage_max_age_seconds), 1, 86400,
     "a usage sample older than this is stale"},
    {"stale-policy", OPT_STALE_POLICY, OFF(stale_policy), 0, 0,
     "when the used source is stale: requests (fall back), full (reject the node) or pass "
     "(pass it with score 0)"},
    {"metrics-interval-seconds", OPT_INT, OFF(metrics_interval_seconds), 1, 3600,
     "how often to poll metrics.k8s.io when a source is usage or max"},
    {"in-flight-seconds", OPT_INT, OFF(in_flight_seconds), 0, 3600,
     "a pod placed this recently counts with its request in usage until a sample includes it"},
    {"max-body-bytes", OPT_LLONG, OFF(max_body_bytes), 4096, 1LL << 30,
     "largest request body accepted; larger ones get 413"},
    {"max-nodes", OPT_INT, OFF(max_nodes), 1, 100000, "most nodes accepted in one request"},
    {"connection-limit", OPT_INT, OFF(connection_limit), 1, 10000,
     "most connections served at once"},
    {"per-ip-connection-limit", OPT_INT, OFF(per_ip_connection_limit), 1, 10000,
     "most connections from one IP address"},
    {"idle-timeout-seconds", OPT_INT, OFF(idle_timeout_seconds), 1, 86400,
     "close a connection idle this long (keep above kube-scheduler's 90 s)"},
    {"request-timeout-seconds", OPT_INT, OFF(request_timeout_seconds), 1, 3600,
     "close a connection whose request body is still incomplete this long after its headers "
     "(checked as body bytes arrive; a silent client is closed by the idle timeout)"},
    {"drain-seconds", OPT_INT, OFF(drain_seconds), 0, 300,
     "on SIGTERM, let requests in flight finish for up to this long"},
    {"tls-cert", OPT_STRING, OFF(tls_cert), 0, 0,
     "serve HTTPS with this PEM certificate chain (re-read when it changes)"},
    {"tls-key", OPT_STRING, OFF(tls_key), 0, 0, "the PEM private key of --tls-cert"},
    {"client-ca", OPT_STRING, OFF(client_ca), 0, 0,
     "require client certificates from this PEM CA (mTLS); 403 otherwise"},
    {"log-level", OPT_LOG_LEVEL, OFF(log_level), 0, 0, "debug, info, warn or error"},
    {"mode", OPT_MODE, OFF(mode), 0, 0,
     "enforce (answer what scoring says), shadow (score, log and record, but answer every node "
     "passed with equal scores) or passthrough (answer that at once, without scoring)"},
    {"select-namespaces", OPT_STRING, OFF(select_namespaces), 0, 0,
     "only pods in these namespaces (comma-separated) are scored; others get a pass-through "
     "answer (\"\": all)"},
    {"select-labels", OPT_STRING, OFF(select_labels), 0, 0,
     "only pods with all these labels (k=v,k2=v2) are scored (\"\": any)"},
    {"select-priority-min", OPT_LLONG, OFF(select_priority_min), INT32_MIN, INT32_MAX,
     "only pods with spec.priority at least this are scored"},
    {"select-priority-max", OPT_LLONG, OFF(select_priority_max), INT32_MIN, INT32_MAX,
     "only pods with spec.priority at most this are scored"},
    {"scheduler-timeout-ms", OPT_INT, OFF(scheduler_timeout_ms), 0, 3600000,
     "the extender's httpTimeout: a request that would be answered after 80 % of it gets a "
     "neutral answer (every node passed, equal scores) instead (0: never)"},
    {"scheduler-weight", OPT_INT, OFF(scheduler_weight), 1, 1000000,
     "the extender's weight in the KubeSchedulerConfiguration (explains influence only)"},
    {"debug-endpoints", OPT_BOOL, OFF(debug_endpoints), 0, 1,
     "serve GET /debug (HTML) and /debug/decisions (JSON) with the recorded decisions"},
    {"decisions-kept", OPT_INT, OFF(decisions_kept), 0, 100000,
     "decisions kept for /debug, newest first (0 keeps none)"},
    {"decisions-max-bytes", OPT_LLONG, OFF(decisions_max_bytes), 0, 1LL << 32,
     "memory the kept decisions may use; the oldest go first"},
};

#define N_OPTS (sizeof(opts) / sizeof(opts[0]))

static const char *const log_level_names[] = {
    [CFG_LOG_DEBUG] = "debug",
    [CFG_LOG_INFO] = "info",
    [CFG_LOG_WARN] = "warn",
    [CFG_LOG_ERROR] = "error",
};

const char *cfg_log_level_name(enum cfg_log_level l)
{
    return log_level_names[l];
}

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

void cfg_defaults(struct cfg *c)
{
    memset(c, 0, sizeof(*c));
    snprintf(c->listen, sizeof(c->listen), "127.0.0.1:%d", CFG_DEFAULT_PORT);
    snprintf(c->prefix, sizeof(c->prefix), "/scheduler");
    c->score.strategy = SCORE_SPREAD;
    c->score.target_percent = 60;
    c->score.normalize = false;
    c->score.weight[SCORE_CPU] = 3;
    c->score.weight[SCORE_MEMORY] = 1;
    c->score.threshold_percent[SCORE_CPU] = 100;
    c->score.threshold_percent[SCORE_MEMORY] = 100;
    snprintf(c->used_annotation[SCORE_CPU], CFG_STR_LEN, "cpu-extender.io/cpu-used");
    snprintf(c->used_annotation[SCORE_MEMORY], CFG_STR_LEN, "cpu-extender.io/memory-used");
    c->max_body_bytes = 128LL << 20;
    c->max_nodes = 10000;
    c->connection_limit = 64;
    c->per_ip_connection_limit = 32;
    c->idle_timeout_seconds = 120;
    c->request_timeout_seconds = 30;
    c->drain_seconds = 5;
    c->log_level = CFG_LOG_INFO;
    c->used_source[SCORE_CPU] = SCORE_USED_REQUESTS;
    c->used_source[SCORE_MEMORY] = SCORE_USED_REQUESTS;
    c->requests_max_age_seconds = 300;
    c->usage_max_age_seconds = 180;
    c->stale_policy = SCORE_STALE_REQUESTS;
    c->metrics_interval_seconds = 15;
    c->in_flight_seconds = 60;
    c->mode = CFG_MODE_ENFORCE;
    c->select_priority_min = INT32_MIN;
    c->select_priority_max = INT32_MAX;
    c->scheduler_timeout_ms = 5000; /* kube-scheduler's default httpTimeout */
    c->scheduler_weight = 1;
    c->decisions_kept = 100;
    c->decisions_max_bytes = 16LL << 20;
}

/* "cpu-weight" -> "cpuWeight" */
static void json_key(const char *flag, char *out, size_t n)
{
    size_t j = 0;
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

/* Collapses repeated slashes and drops trailing ones: "//a//b/" -> "/a/b".
 * The prefix "/" becomes "" so that verbs are served at "/filter". */
static void normalize_prefix(char *p)
{
    size_t j = 0;
    for (size_t i = 0; p[i] != '\0'; i++)
        if (p[i] != '/' || j == 0 || p[j - 1] != '/')
            p[j++] = p[i];
    while (j > 0 && p[j - 1] == '/')
        j--;
    p[j] = '\0';
}

static int check_string(const struct opt *o, const char *v, char *why, size_t n)
{
    char host[CFG_STR_LEN];
    int port;

    if (strlen(v) >= CFG_STR_LEN) {
        snprintf(why, n, "longer than %d bytes", CFG_STR_LEN - 1);
        return -EINVAL;
    }
    if (strcmp(o->flag, "listen") == 0 && cfg_listen_split(v, host, &port) != 0) {
        snprintf(why, n, "want HOST:PORT or [IPV6]:PORT with a port from 0 to 65535");
        return -EINVAL;
    }
    /* "" is the root, as "/" becomes once normalized (printed configs say "") */
    if (strcmp(o->flag, "prefix") == 0 && v[0] != '/' && v[0] != '\0') {
        snprintf(why, n, "must start with '/'");
        return -EINVAL;
    }
    for (const char *s = v; *s != '\0'; s++) {
        if (!isgraph((unsigned char)*s) || *s == '?' || *s == '#') {
            snprintf(why, n, "must not contain spaces, control characters, '?' or '#'");
            return -EINVAL;
        }
    }
    return 0;
}

/* The index of @v in @names (@count of them), or -1. */
static int name_index(const char *v, const char *const *names, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (strcmp(v, names[i]) == 0)
            return (int)i;
    return -1;
}

/* Stores the text @v into option @o of @c; @why receives the problem. */
static int set_from_text(struct cfg *c, const struct opt *o, const char *v, char *why, size_t n)
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
            normalize_prefix(field);
        return 0;
    case OPT_INT:
    case OPT_LLONG:
        errno = 0;
        x = strtoll(v, &end, 10);
        if (errno != 0 || end == v || *end != '\0' || x < o->min || x > o->max) {
            snprintf(why, n, "want a whole number from %lld to %lld", o->min, o->max);
            return -EINVAL;
        }
        if (o->type == OPT_INT)
            *(int *)(void *)field = (int)x;
        else
            *(long long *)(void *)field = x;
        return 0;
    case OPT_BOOL:
        if (strcmp(v, "true") == 0 || strcmp(v, "1") == 0) {
            *(bool *)(void *)field = true;
        } else if (strcmp(v, "false") == 0 || strcmp(v, "0") == 0) {
            *(bool *)(void *)field = false;
        } else {
            snprintf(why, n, "want true or false");
            return -EINVAL;
        }
        return 0;
    case OPT_STRATEGY:
        if (score_strategy_parse(v, (enum score_strategy *)(void *)field) != 0) {
            snprintf(why, n, "want spread, pack, balanced or target");
            return -EINVAL;
        }
        return 0;
    case OPT_LOG_LEVEL:
        i = name_index(v, log_level_names, sizeof(log_level_names) / sizeof(log_level_names[0]));
        if (i < 0) {
            snprintf(why, n, "want debug, info, warn or error");
            return -EINVAL;
        }
        *(enum cfg_log_level *)(void *)field = (enum cfg_log_level)i;
        return 0;
    case OPT_USED_SOURCE:
        if (score_used_source_parse(v, (enum score_used_source *)(void *)field) != 0) {
            snprintf(why, n, "want requests, usage, max or annotation");
            return -EINVAL;
        }
        return 0;
    case OPT_STALE_POLICY:
        if (score_stale_policy_parse(v, (enum score_stale_policy *)(void *)field) != 0) {
            snprintf(why, n, "want requests, full or pass");
            return -EINVAL;
        }
        return 0;
    case OPT_MODE:
        i = name_index(v, mode_names, sizeof(mode_names) / sizeof(mode_names[0]));
        if (i < 0) {
            snprintf(why, n, "want enforce, shadow or passthrough");
            return -EINVAL;
        }
        *(enum cfg_mode *)(void *)field = (enum cfg_mode)i;
        return 0;
    }
    return -EINVAL;
}

static const struct opt *find_flag(const char *name, size_t len)
{
    for (size_t i = 0; i < N_OPTS; i++)
        if (strlen(opts[i].flag) == len && strncmp(opts[i].flag, name, len) == 0)
            return &opts[i];
    return NULL;
}

/* Converts one JSON member to text and stores it, so that the file, the
 * environment and the flags share one validation path. */
static int set_from_json(struct cfg *c, const struct opt *o, const cJSON *item, char *why, size_t n)
{
    char text[64];

    switch (o->type) {
    case OPT_STRING:
    case OPT_STRATEGY:
    case OPT_LOG_LEVEL:
    case OPT_USED_SOURCE:
    case OPT_STALE_POLICY:
    case OPT_MODE:
        if (!cJSON_IsString(item)) {
            snprintf(why, n, "want a string");
            return -EINVAL;
        }
        return set_from_text(c, o, item->valuestring, why, n);
    case OPT_INT:
    case OPT_LLONG:
        /* Range first: converting an out-of-range double is undefined. */
        if (!cJSON_IsNumber(item) || !(item->valuedouble >= -9e18 && item->valuedouble <= 9e18) ||
            item->valuedouble != (double)(long long)item->valuedouble) {
            snprintf(why, n, "want a whole number from %lld to %lld", o->min, o->max);
            return -EINVAL;
        }
        snprintf(text, sizeof(text), "%lld", (long long)item->valuedouble);
        return set_from_text(c, o, text, why, n);
    case OPT_BOOL:
        if (!cJSON_IsBool(item)) {
            snprintf(why, n, "want true or false");
            return -EINVAL;
        }
        return set_from_text(c, o, cJSON_IsTrue(item) ? "true" : "false", why, n);
    }
    return -EINVAL;
}

static int read_file(const char *path, char **out, size_t *len, char err[CFG_ERR_LEN])
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t n;

    if (f == NULL) {
        snprintf(err, CFG_ERR_LEN, "config file %s: %s", path, strerror(errno));
        return -EINVAL;
    }
    buf = malloc(CFG_FILE_MAX + 1);
    if (buf == NULL) {
        snprintf(err, CFG_ERR_LEN, "config file %s: out of memory", path);
        goto out_close;
    }
    n = fread(buf, 1, CFG_FILE_MAX + 1, f);
    if (ferror(f) || n > CFG_FILE_MAX) {
        snprintf(err, CFG_ERR_LEN, "config file %s: %s", path,
                 ferror(f) ? "read error" : "larger than 1 MiB");
        goto out_free_buf;
    }
    buf[n] = '\0';
    fclose(f);
    *out = buf;
    *len = n;
    return 0;

out_free_buf:
    free(buf);
out_close:
    fclose(f);
    return -EINVAL;
}

int cfg_parse_text(struct cfg *c, const char *text, size_t len, const char *name,
                   char err[CFG_ERR_LEN])
{
    char why[256], key[64];
    const char *end = NULL;
    int rc = -EINVAL;

    /* cJSON needs the terminating NUL inside the length to refuse trailing
     * bytes; the callers' buffers have one. */
    cJSON *root = cJSON_ParseWithLengthOpts(text, len + 1, &end, 1);
    if (root == NULL) {
        size_t off = end != NULL && end >= text ? (size_t)(end - text) : 0;
        snprintf(err, CFG_ERR_LEN, "config file %s: not valid JSON (near byte %zu)", name, off);
        return -EINVAL;
    }
    if (!cJSON_IsObject(root)) {
        snprintf(err, CFG_ERR_LEN, "config file %s: want a JSON object", name);
        goto out_delete;
    }
    const cJSON *item;
    cJSON_ArrayForEach(item, root)
    {
        const struct opt *o = NULL;
        for (size_t i = 0; i < N_OPTS && o == NULL; i++) {
            json_key(opts[i].flag, key, sizeof(key));
            if (strcmp(key, item->string) == 0)
                o = &opts[i];
        }
        if (o == NULL) {
            snprintf(err, CFG_ERR_LEN, "config file %s: unknown field \"%.64s\"", name,
                     item->string);
            goto out_delete;
        }
        if (set_from_json(c, o, item, why, sizeof(why)) != 0) {
            snprintf(err, CFG_ERR_LEN, "config file %s: field \"%s\": %s", name, item->string, why);
            goto out_delete;
        }
    }
    snprintf(c->config_file, sizeof(c->config_file), "%s", name);
    rc = 0;

out_delete:
    cJSON_Delete(root);
    return rc;
}

static int load_file(struct cfg *c, const char *path, char err[CFG_ERR_LEN])
{
    char *text = NULL;
    size_t len;

    if (read_file(path, &text, &len, err) != 0)
        return -EINVAL;
    int rc = cfg_parse_text(c, text, len, path, err);
    free(text);
    return rc;
}

/* The hash of the effective options (their JSON form), so that /version
 * shows which configuration is in use after a reload. */
static void compute_hash(struct cfg *c)
{
    char *text = NULL;
    size_t len = 0;
    uint64_t h = 0xcbf29ce484222325ULL;
    FILE *f = open_memstream(&text, &len);
    if (f != NULL) {
        cfg_print_json(c, f);
        fclose(f);
    }
    for (size_t i = 0; text != NULL && i < len; i++)
        h = (h ^ (unsigned char)text[i]) * 0x100000001b3ULL;
    free(text);
    snprintf(c->hash, sizeof(c->hash), "%016llx", (unsigned long long)h);
}

/* Items of a comma-separated list: none empty; with @pairs each is k=v
 * with a non-empty k (a label value may be empty). */
static bool list_ok(const char *list, bool pairs)
{
    if (list[0] == '\0')
        return true;
    for (;;) {
        size_t len = strcspn(list, ",");
        const char *eq = memchr(list, '=', len);
        if (len == 0 || (pairs && (eq == NULL || eq == list ||
                                   memchr(eq + 1, '=', len - (size_t)(eq + 1 - list)) != NULL)))
            return false;
        if (list[len] == '\0')
            return true;
        list += len + 1;
    }
}

static int validate(struct cfg *c, char err[CFG_ERR_LEN])
{
    int weights = 0;
    for (int r = 0; r < SCORE_NRES; r++)
        weights += c->score.weight[r];
    if (weights == 0) {
        snprintf(err, CFG_ERR_LEN, "cpu-weight and memory-weight: at least one must be above 0");
        return -EINVAL;
    }
    if ((c->tls_cert[0] == '\0') != (c->tls_key[0] == '\0')) {
        snprintf(err, CFG_ERR_LEN, "tls-cert and tls-key: give both or neither");
        return -EINVAL;
    }
    if (c->client_ca[0] != '\0' && c->tls_cert[0] == '\0') {
        snprintf(err, CFG_ERR_LEN, "client-ca needs tls-cert and tls-key (mTLS is TLS)");
        return -EINVAL;
    }
    if (c->per_ip_connection_limit > c->connection_limit) {
        snprintf(err, CFG_ERR_LEN,
                 "per-ip-connection-limit (%d) must not exceed connection-limit (%d)",
                 c->per_ip_connection_limit, c->connection_limit);
        return -EINVAL;
    }
    if (!list_ok(c->select_namespaces, false)) {
        snprintf(err, CFG_ERR_LEN, "select-namespaces: want NAMESPACE[,NAMESPACE...]");
        return -EINVAL;
    }
    if (!list_ok(c->select_labels, true)) {
        snprintf(err, CFG_ERR_LEN, "select-labels: want KEY=VALUE[,KEY=VALUE...]");
        return -EINVAL;
    }
    if (c->select_priority_min > c->select_priority_max) {
        snprintf(err, CFG_ERR_LEN,
                 "select-priority-min (%lld) must not exceed "
                 "select-priority-max (%lld)",
                 c->select_priority_min, c->select_priority_max);
        return -EINVAL;
    }
    compute_hash(c);
    return 0;
}

int cfg_load_file_only(struct cfg *c, const char *path, char err[CFG_ERR_LEN])
{
    cfg_defaults(c);
    if (load_file(c, path, err) != 0)
        return -EINVAL;
    return validate(c, err);
}

/* Kubelet injects {SERVICE}_SERVICE_HOST, {SERVICE}_PORT, ... for every
 * Service in the namespace; a Service named cpu-extender-... yields
 * CPU_EXTENDER_..._SERVICE_HOST. Those are not typos of our options. */
static bool is_service_link(const char *name, size_t len)
{
    char n[128];
    if (len >= sizeof(n))
        return false;
    memcpy(n, name, len);
    n[len] = '\0';
    return strstr(n, "_SERVICE_HOST") != NULL || strstr(n, "_SERVICE_PORT") != NULL ||
           strstr(n, "_PORT_") != NULL || (len > 5 && strcmp(n + len - 5, "_PORT") == 0);
}

/* The value of flag argv[*i] ("--x=v" or "--x v"); bools may stand alone. */
static int flag_value(const struct opt *o, int argc, char **argv, int *i, const char *eq,
                      const char **value)
{
    if (eq != NULL) {
        *value = eq + 1;
        return 0;
    }
    if (o != NULL && o->type == OPT_BOOL) {
        *value = "true";
        return 0;
    }
    if (*i + 1 >= argc)
        return -EINVAL;
    *value = argv[++*i];
    return 0;
}

int cfg_load(struct cfg *c, int argc, char **argv, char **envp, int *positional, int max_positional,
             int *n_positional, char err[CFG_ERR_LEN])
{
    const char *file = NULL;
    char why[256], env[96];

    cfg_defaults(c);
    *n_positional = 0;

    /* The file comes first, wherever --config stands. */
    for (char **e = envp; e != NULL && *e != NULL; e++)
        if (strncmp(*e, CFG_ENV_PREFIX "CONFIG=", strlen(CFG_ENV_PREFIX "CONFIG=")) == 0)
            file = *e + strlen(CFG_ENV_PREFIX "CONFIG=");
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--config") == 0 && i + 1 < argc)
            file = argv[i + 1];
        else if (strncmp(argv[i], "--config=", 9) == 0)
            file = argv[i] + 9;
    }
    if (file != NULL && file[0] != '\0' && load_file(c, file, err) != 0)
        return -EINVAL;

    for (char **e = envp; e != NULL && *e != NULL; e++) {
        if (strncmp(*e, CFG_ENV_PREFIX, strlen(CFG_ENV_PREFIX)) != 0)
            continue;
        const char *eq = strchr(*e, '=');
        size_t name_len = eq ? (size_t)(eq - *e) : strlen(*e);
        if (eq == NULL || strncmp(*e, CFG_ENV_PREFIX "CONFIG=", name_len + 1) == 0)
            continue;
        const struct opt *o = NULL;
        for (size_t k = 0; k < N_OPTS && o == NULL; k++) {
            env_name(opts[k].flag, env, sizeof(env));
            if (strlen(env) == name_len && strncmp(env, *e, name_len) == 0)
                o = &opts[k];
        }
        if (o == NULL && is_service_link(*e, name_len))
            continue;
        if (o == NULL) {
            snprintf(err, CFG_ERR_LEN, "environment: unknown variable %.*s", (int)name_len, *e);
            return -EINVAL;
        }
        if (set_from_text(c, o, eq + 1, why, sizeof(why)) != 0) {
            snprintf(err, CFG_ERR_LEN, "environment: %s=\"%s\": %s", env, eq + 1, why);
            return -EINVAL;
        }
    }

    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *value;
        if (strncmp(a, "--", 2) != 0 || a[2] == '\0') {
            if (*n_positional >= max_positional) {
                snprintf(err, CFG_ERR_LEN, "unexpected argument \"%s\" (see --help)", a);
                return -EINVAL;
            }
            positional[(*n_positional)++] = i;
            continue;
        }
        const char *name = a + 2, *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        const struct opt *o = find_flag(name, len);
        bool is_config = len == 6 && strncmp(name, "config", 6) == 0;
        if (o == NULL && !is_config) {
            snprintf(err, CFG_ERR_LEN, "unknown flag --%.*s (see --help)", (int)len, name);
            return -EINVAL;
        }
        if (flag_value(o, argc, argv, &i, eq, &value) != 0) {
            snprintf(err, CFG_ERR_LEN, "flag --%.*s needs a value", (int)len, name);
            return -EINVAL;
        }
        if (is_config)
            continue;
        if (set_from_text(c, o, value, why, sizeof(why)) != 0) {
            snprintf(err, CFG_ERR_LEN, "flag --%s=\"%s\": %s", o->flag, value, why);
            return -EINVAL;
        }
    }
    return validate(c, err);
}

void cfg_print_json(const struct cfg *c, FILE *out)
{
    char key[64];
    const char *sep = "{";

    for (size_t i = 0; i < N_OPTS; i++) {
        const struct opt *o = &opts[i];
        const char *field = (const char *)c + o->offset;
        json_key(o->flag, key, sizeof(key));
        fprintf(out, "%s\n  \"%s\": ", sep, key);
        sep = ",";
        switch (o->type) {
        case OPT_STRING: {
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
        case OPT_STRATEGY:
            fprintf(out, "\"%s\"",
                    score_strategy_name(*(const enum score_strategy *)(const void *)field));
            break;
        case OPT_LOG_LEVEL:
            fprintf(out, "\"%s\"",
                    cfg_log_level_name(*(const enum cfg_log_level *)(const void *)field));
            break;
        case OPT_USED_SOURCE:
            fprintf(out, "\"%s\"",
                    score_used_source_name(*(const enum score_used_source *)(const void *)field));
            break;
        case OPT_STALE_POLICY:
            fprintf(out, "\"%s\"",
                    score_stale_policy_name(*(const enum score_stale_policy *)(const void *)field));
            break;
        case OPT_MODE:
            fprintf(out, "\"%s\"", cfg_mode_name(*(const enum cfg_mode *)(const void *)field));
            break;
        }
    }
    fputs("\n}\n", out);
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
        json_key(opts[i].flag, key, sizeof(key));
        env_name(opts[i].flag, env, sizeof(env));
        fprintf(out, "  --%s  (%s, \"%s\")\n      %s\n", opts[i].flag, env, key, opts[i].help);
    }
    fprintf(out, "\nDefaults as a config file:\n");
    cfg_print_json(&d, out);
}

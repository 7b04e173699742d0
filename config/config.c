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

#include "base/err.h"
#include "base/file.h"
#include "base/hash.h"
#include "config/options.h"

/* Largest config file read: it holds a dozen options. */
#define CFG_FILE_MAX (1 << 20)

/* How a config file is named in messages: "-" is standard input. */
static const char *shown(const char *name)
{
    return strcmp(name, "-") == 0 ? "standard input" : name;
}

/* What is wrong at byte @off of @text (@len bytes), where cJSON refused
 * it or a trailing comma is, in @why (@n bytes). */
static void syntax_why(const char *text, size_t len, size_t off, char *why, size_t n)
{
    size_t next = off + 1;
    while (next < len && isspace((unsigned char)text[next]))
        next++;
    if (off < len && text[off] == ',' && next < len && (text[next] == '}' || text[next] == ']'))
        snprintf(why, n, "trailing comma before %c", text[next]);
    else if (off >= len || text[off] == '\0')
        snprintf(why, n, "the text ends before the object does");
    else if (isprint((unsigned char)text[off]))
        snprintf(why, n, "unexpected '%c'", text[off]);
    else
        snprintf(why, n, "unexpected byte 0x%02x", (unsigned char)text[off]);
}

/* The offset of the '"' that closes the string opening at @i of @text
 * (@len bytes), its escapes skipped; @len when it is not closed. */
static size_t string_end(const char *text, size_t len, size_t i)
{
    for (i++; i < len && text[i] != '"'; i++)
        if (text[i] == '\\')
            i++;
    return i < len ? i : len;
}

/* Where the key of the next member of the top-level object of @text (@len
 * bytes, which cJSON has read) starts: after the key at @prev, or with
 * @first the first one. Strings are skipped with their escapes, nesting
 * counted; @len when there is none. One pass over the file in all. */
static size_t next_member(const char *text, size_t len, size_t prev, bool first)
{
    int depth = first ? 0 : 1;
    bool key_next = false;
    for (size_t i = first ? 0 : prev; i < len; i++) {
        char ch = text[i];
        if (ch == '"') {
            if (depth == 1 && key_next)
                return i;
            i = string_end(text, len, i);
        } else if (ch == '{' || ch == '[') {
            key_next = ++depth == 1;
        } else if (ch == '}' || ch == ']') {
            depth--;
        } else if (ch == ',' && depth == 1) {
            key_next = true;
        }
    }
    return len;
}

/* A place in a file: its offset, 1-based line and column (in bytes). */
struct file_pos {
    size_t off, line, col;
};

/* Moves @p forward to offset @to of @text. */
static void advance(const char *text, size_t to, struct file_pos *p)
{
    for (; p->off < to && text[p->off] != '\0'; p->off++) {
        if (text[p->off] == '\n') {
            p->line++;
            p->col = 1;
        } else {
            p->col++;
        }
    }
}

/* The offset of the first comma of @text (@len bytes) that only white
 * space separates from a closing } or ], outside strings; @len for none.
 * cJSON reports where it gave up, not the comma. */
static size_t trailing_comma(const char *text, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '"')
            i = string_end(text, len, i);
        if (i >= len || text[i] != ',')
            continue;
        size_t j = i + 1;
        while (j < len && isspace((unsigned char)text[j]))
            j++;
        if (j < len && (text[j] == '}' || text[j] == ']'))
            return i;
    }
    return len;
}

/* A relative scheduler-config in the file at @name is relative to that
 * file's directory, as kube-scheduler's and kubeconfig files name their
 * neighbours: the ConfigMap mounts both keys side by side. The value as
 * written stays in scheduler_config (the hash is the same wherever the
 * two are mounted); the file to read goes to scheduler_config_path. */
static int resolve_beside(struct cfg *c, const char *name, char *err)
{
    const char *p = c->scheduler_config, *slash = strrchr(name, '/');
    snprintf(c->scheduler_config_path, sizeof(c->scheduler_config_path), "%s", p);
    if (p[0] == '\0' || p[0] == '/' || slash == NULL || strcmp(name, "-") == 0)
        return 0;
    char joined[2 * CFG_STR_LEN];
    int n = snprintf(joined, sizeof(joined), "%.*s/%s", (int)(slash - name), name, p);
    if (n < 0 || (size_t)n >= CFG_STR_LEN)
        return err_fail(err, -EINVAL,
                        "config file %s: field \"schedulerConfig\": longer than %d bytes beside %s",
                        shown(name), CFG_STR_LEN - 1, name);
    memcpy(c->scheduler_config_path, joined, (size_t)n + 1);
    return 0;
}

int cfg_parse_text(struct cfg *c, const char *text, size_t len, const char *name, char *err)
{
    char why[256];
    const char *end = NULL;
    cfg_bits seen = 0, before = c->given;
    int rc = -EINVAL;

    /* cJSON needs the terminating NUL inside the length to refuse trailing
     * bytes; the callers' buffers have one. */
    cJSON *root = cJSON_ParseWithLengthOpts(text, len + 1, &end, 1);
    if (root == NULL) {
        size_t off = end != NULL && end >= text ? (size_t)(end - text) : 0;
        size_t comma = trailing_comma(text, len);
        struct file_pos at = {.off = 0, .line = 1, .col = 1};
        if (comma <= off || off >= len)
            off = comma < len ? comma : off;
        advance(text, off, &at);
        syntax_why(text, len, off, why, sizeof(why));
        return err_fail(err, -EINVAL, "config file %s: line %zu, column %zu: not valid JSON: %s",
                        shown(name), at.line, at.col, why);
    }
    if (!cJSON_IsObject(root)) {
        err_set(err, "config file %s: line 1, column 1: want a JSON object", shown(name));
        goto out_delete;
    }
    const cJSON *item;
    char where[CFG_STR_LEN + 64], near[64];
    struct file_pos at = {.off = 0, .line = 1, .col = 1};
    bool first = true;
    cJSON_ArrayForEach(item, root)
    {
        const struct cfg_opt *o = cfg_opt_by_key(item->string);
        /* cJSON keeps the members in the file's order */
        advance(text, next_member(text, len, at.off, first), &at);
        first = false;
        snprintf(where, sizeof(where), "config file %s: line %zu, column %zu: ", shown(name),
                 at.line, at.col);
        if (o == NULL && cfg_opt_nearest_key(item->string, near, sizeof(near))) {
            err_set(err, "%sunknown field \"%s\": did you mean %s?", where, item->string, near);
            goto out_delete;
        }
        if (o == NULL) {
            err_set(err, "%sunknown field \"%s\" (cpu-extender --help lists the keys)", where,
                    item->string);
            goto out_delete;
        }
        /* JSON readers disagree on a repeated key (first or last wins): a
         * file that says two things is refused rather than read one way. */
        c->given = 0;
        if (cfg_opt_set_json(c, o, item, why, sizeof(why)) != 0) {
            err_set(err, "%sfield \"%s\": %s", where, item->string, why);
            goto out_delete;
        }
        if ((seen & c->given) != 0) {
            err_set(err, "%sfield \"%s\" appears more than once", where, item->string);
            goto out_delete;
        }
        seen |= c->given;
        int i = cfg_opt_index(o);
        c->file_at[i].line = at.line > UINT_MAX ? UINT_MAX : (unsigned int)at.line;
        c->file_at[i].col = at.col > UINT_MAX ? UINT_MAX : (unsigned int)at.col;
    }
    c->given = before | seen;
    c->from_file |= seen;
    if (cfg_is_given(c, "schedulerConfig") && resolve_beside(c, name, err) != 0)
        goto out_delete;
    snprintf(c->config_file, sizeof(c->config_file), "%s", name);
    rc = 0;

out_delete:
    if (rc != 0)
        c->given = before | seen;
    cJSON_Delete(root);
    return rc;
}

static int load_file(struct cfg *c, const char *path, char *err)
{
    char *text = NULL;
    size_t len;

    int rc = file_read(path, CFG_FILE_MAX, FILE_REGULAR, &text, &len, err);
    if (rc == -EFBIG)
        err_set(err, "config file %s: larger than 1 MiB", shown(path));
    else if (rc != 0)
        err_prefix(err, "config file ");
    if (rc != 0)
        return -EINVAL;
    rc = cfg_parse_text(c, text, len, path, err);
    free(text);
    return rc;
}

/* The hash of the effective options (their JSON form), so that /version
 * shows which configuration is in use after a reload. */
static void compute_hash(struct cfg *c)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f != NULL) {
        cfg_print_json(c, f);
        fclose(f);
    }
    uint64_t h = text != NULL ? hash_fnv1a_bytes(HASH_FNV1A_SEED, text, len) : HASH_FNV1A_SEED;
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

/* Whether two listen addresses would take the same port: the same fixed
 * port on the same host, or on a wildcard host. */
static bool same_address(const char *a, const char *b)
{
    char ha[CFG_STR_LEN], hb[CFG_STR_LEN];
    int pa, pb;
    if (cfg_listen_split(a, ha, &pa) != 0 || cfg_listen_split(b, hb, &pb) != 0)
        return false;
    bool wild = strcmp(ha, "0.0.0.0") == 0 || strcmp(ha, "::") == 0 || strcmp(hb, "0.0.0.0") == 0 ||
                strcmp(hb, "::") == 0;
    return pa != 0 && pa == pb && (wild || strcmp(ha, hb) == 0);
}

/* How a message of validate() names the options it is about: by their
 * keys after "config file NAME: " when the values came from the file (none
 * of them from the environment or a flag), else by their flags. */
struct opt_names {
    char prefix[CFG_STR_LEN + 64];
    char name[2][64];
};

/* Names the options of flags @a and @b (NULL for one) of @c in @nm. */
static void name_opts(const struct cfg *c, const char *a, const char *b, struct opt_names *nm)
{
    const char *flags[2] = {a, b};
    const struct cfg_opt *o[2] = {NULL, NULL};
    bool file = false, other = false;
    for (int i = 0; i < 2 && flags[i] != NULL; i++) {
        o[i] = cfg_opt_by_flag(flags[i], strlen(flags[i]));
        cfg_bits bit = o[i] != NULL ? cfg_opt_bit(o[i]) : 0;
        file = file || (c->from_file & bit) != 0;
        other = other || ((c->given & ~c->from_file) & bit) != 0;
    }
    bool keys = file && !other && c->config_file[0] != '\0';
    nm->prefix[0] = '\0';
    for (int i = 0; keys && i < 2 && nm->prefix[0] == '\0'; i++) {
        if (o[i] == NULL || (c->from_file & cfg_opt_bit(o[i])) == 0)
            continue;
        int at = cfg_opt_index(o[i]);
        snprintf(nm->prefix, sizeof(nm->prefix),
                 "config file %s: line %u, column %u: ", shown(c->config_file), c->file_at[at].line,
                 c->file_at[at].col);
    }
    for (int i = 0; i < 2; i++) {
        if (keys && o[i] != NULL)
            cfg_opt_key(o[i], nm->name[i], sizeof(nm->name[i]));
        else
            snprintf(nm->name[i], sizeof(nm->name[i]), "%s", flags[i] != NULL ? flags[i] : "");
    }
}

/* err_fail() with the prefix that name_opts() gives the options of flags
 * @a and @b, then @fmt, whose arguments name them as nm.name[0] and [1]. */
#define REFUSE(a, b, fmt, ...)                                                                     \
    (name_opts(c, a, b, &nm), err_fail(err, -EINVAL, "%s" fmt, nm.prefix, __VA_ARGS__))

/* Is @label a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*)? */
static bool label_name_ok(const char *label)
{
    if (label[0] == '\0' || isdigit((unsigned char)label[0]))
        return false;
    for (const char *p = label; *p != '\0'; p++)
        if (!isalnum((unsigned char)*p) && *p != '_')
            return false;
    return true;
}

/* A file the Prometheus client will read: a regular file we can read
 * now, so a typo fails at start and not at the first query. */
static int prometheus_file_ok(const struct cfg *c, const char *flag, const char *path, char *err)
{
    struct opt_names nm;
    char why[ERR_LEN];
    char *text = NULL;
    size_t len = 0;
    if (path[0] == '\0')
        return 0;
    int rc = file_read(path, 1u << 20, FILE_REGULAR, &text, &len, why);
    file_free_secret(text, len);
    if (rc != 0)
        return REFUSE(flag, NULL, "%s: %s", nm.name[0], why);
    return 0;
}

int cfg_usage_interval(const struct cfg *c)
{
    return c->usage_prometheus ? c->prometheus_interval_seconds : c->metrics_interval_seconds;
}

static bool blank(const char *s)
{
    return s[strspn(s, " \t")] == '\0';
}

/* usageProvider and the Prometheus options it needs. */
static int validate_prometheus(struct cfg *c, char *err)
{
    struct opt_names nm;
    c->usage_prometheus = strcmp(c->usage_provider, "prometheus") == 0;
    if (!c->usage_prometheus && strcmp(c->usage_provider, "metrics-api") != 0)
        return REFUSE("usage-provider", NULL, "%s \"%s\": want metrics-api or prometheus",
                      nm.name[0], c->usage_provider);
    const char *u = c->prometheus_url;
    bool http = strncmp(u, "http://", 7) == 0, https = strncmp(u, "https://", 8) == 0;
    if (u[0] != '\0' && ((!http && !https) || u[http ? 7 : 8] == '\0' || u[http ? 7 : 8] == '/'))
        return REFUSE("prometheus-url", NULL,
                      "%s \"%s\": want http://HOST[:PORT][/PATH] or https://...", nm.name[0], u);
    /* A password in the URL would be in every log line, error and
     * /readyz reason that names the URL. ('?' and '#' are refused with
     * the option's characters.) */
    const char *host = u + (http ? 7 : 8), *slash = strchr(host, '/');
    size_t authority = slash != NULL ? (size_t)(slash - host) : strlen(host);
    if (u[0] != '\0' && memchr(host, '@', authority) != NULL)
        return REFUSE(
            "prometheus-url", NULL,
            "%s: want no user or password in the URL (a token goes in prometheusBearerTokenFile)",
            nm.name[0]);
    if (c->usage_prometheus && u[0] == '\0')
        return REFUSE("usage-provider", "prometheus-url",
                      "%s prometheus needs %s (the Prometheus HTTP API's base URL)", nm.name[0],
                      nm.name[1]);
    if (c->usage_prometheus &&
        (blank(c->prometheus_cpu_query) || blank(c->prometheus_memory_query)))
        return REFUSE("prometheus-cpu-query", "prometheus-memory-query",
                      "%s and %s must not be empty with usage-provider prometheus", nm.name[0],
                      nm.name[1]);
    if (!label_name_ok(c->prometheus_node_label))
        return REFUSE("prometheus-node-label", NULL,
                      "%s \"%s\": want a Prometheus label name such as instance or node",
                      nm.name[0], c->prometheus_node_label);
    if ((c->prometheus_client_cert_file[0] == '\0') != (c->prometheus_client_key_file[0] == '\0'))
        return REFUSE("prometheus-client-cert-file", "prometheus-client-key-file",
                      "%s and %s go together: set both or neither", nm.name[0], nm.name[1]);
    if (!https && (c->prometheus_ca_file[0] != '\0' || c->prometheus_client_cert_file[0] != '\0'))
        return REFUSE("prometheus-url", NULL,
                      "%s \"%s\": a CA or client certificate needs an https:// URL", nm.name[0], u);
    if (!c->usage_prometheus)
        return 0;
    if (prometheus_file_ok(c, "prometheus-bearer-token-file", c->prometheus_bearer_token_file,
                           err) != 0 ||
        prometheus_file_ok(c, "prometheus-ca-file", c->prometheus_ca_file, err) != 0 ||
        prometheus_file_ok(c, "prometheus-client-cert-file", c->prometheus_client_cert_file, err) !=
            0 ||
        prometheus_file_ok(c, "prometheus-client-key-file", c->prometheus_client_key_file, err) !=
            0)
        return -EINVAL;
    return 0;
}

static int validate(struct cfg *c, char *err)
{
    struct opt_names nm;
    int weights = 0;
    for (int r = 0; r < SCORE_NRES; r++)
        weights += c->score.weight[r];
    if (weights == 0)
        return REFUSE("cpu-weight", "memory-weight", "%s and %s: at least one must be above 0",
                      nm.name[0], nm.name[1]);
    if ((c->tls_cert[0] == '\0') != (c->tls_key[0] == '\0'))
        return REFUSE("tls-cert", "tls-key", "%s and %s: give both or neither", nm.name[0],
                      nm.name[1]);
    if (c->client_ca[0] != '\0' && c->tls_cert[0] == '\0')
        return REFUSE("client-ca", "tls-cert", "%s needs %s (mTLS is TLS)", nm.name[0], nm.name[1]);
    if (c->metrics_listen[0] != '\0' && same_address(c->listen, c->metrics_listen))
        return REFUSE("metrics-listen", "listen", "%s %s: must not be the %s address", nm.name[0],
                      c->metrics_listen, nm.name[1]);
    if (c->per_ip_connection_limit > c->connection_limit)
        return REFUSE("per-ip-connection-limit", "connection-limit",
                      "%s (%d) must not exceed %s (%d)", nm.name[0], c->per_ip_connection_limit,
                      nm.name[1], c->connection_limit);
    if (!list_ok(c->select_namespaces, false))
        return REFUSE("select-namespaces", NULL, "%s: want NAMESPACE[,NAMESPACE...]", nm.name[0]);
    if (!list_ok(c->select_labels, true))
        return REFUSE("select-labels", NULL, "%s: want KEY=VALUE[,KEY=VALUE...]", nm.name[0]);
    if (c->memory_budget_bytes > 0 && c->memory_budget_bytes < (1LL << 20))
        return REFUSE(
            "memory-budget-bytes", NULL,
            "%s (%lld): want -1 (none), 0 (from the cgroup's memory limit) or at least 1048576",
            nm.name[0], c->memory_budget_bytes);
    if (c->select_priority_min > c->select_priority_max)
        return REFUSE("select-priority-min", "select-priority-max",
                      "%s (%lld) must not exceed %s (%lld)", nm.name[0], c->select_priority_min,
                      nm.name[1], c->select_priority_max);
    c->exempt_daemonsets = strcmp(c->threshold_exempt, "daemonsets") == 0;
    if (!c->exempt_daemonsets && c->threshold_exempt[0] != '\0')
        return REFUSE("threshold-exempt", NULL, "%s \"%s\": want daemonsets or \"\" (none)",
                      nm.name[0], c->threshold_exempt);
    c->unless_all_fail = strcmp(c->threshold_policy, "unlessAllFail") == 0;
    if (!c->unless_all_fail && strcmp(c->threshold_policy, "always") != 0)
        return REFUSE("threshold-policy", NULL, "%s \"%s\": want always or unlessAllFail",
                      nm.name[0], c->threshold_policy);
    if (score_usage_agg_parse_list(c->usage_aggregation, c->usage_agg) != 0)
        return REFUSE(
            "usage-aggregation", NULL,
            "%s \"%s\": want latest, avg, max, p50, p90, p95 or p99, or cpu=NAME,memory=NAME",
            nm.name[0], c->usage_aggregation);
    if (validate_prometheus(c, err) != 0)
        return -EINVAL;
    /* One sample per poll at most: (newest - window, newest] holds
     * ceil(window / interval) of them. */
    struct opt_names iv;
    name_opts(c, c->usage_prometheus ? "prometheus-interval-seconds" : "metrics-interval-seconds",
              NULL, &iv);
    int interval = cfg_usage_interval(c);
    long long reachable = c->usage_window_seconds == 0
                              ? 1
                              : ((long long)c->usage_window_seconds + interval - 1) / interval;
    if (c->usage_min_samples > reachable)
        return REFUSE(
            "usage-min-samples", "usage-window-seconds",
            "%s (%d) cannot be reached: %s (%d) holds at most %lld samples polled every %s (%d)",
            nm.name[0], c->usage_min_samples, nm.name[1], c->usage_window_seconds, reachable,
            iv.name[0], interval);
    if (c->usage_window_seconds / interval + 2 > SCORE_USAGE_MAX_SAMPLES)
        return REFUSE(
            "usage-window-seconds", NULL,
            "%s (%d) / %s (%d): at most %d samples a node (poll less often or shorten the window)",
            nm.name[0], c->usage_window_seconds, iv.name[0], interval, SCORE_USAGE_MAX_SAMPLES - 2);
    compute_hash(c);
    return 0;
}

int cfg_set_from_scheduler(struct cfg *c, long long weight, long long timeout_ms, char *err)
{
    if (weight < 1 || weight > 1000000)
        return err_fail(err, -EINVAL,
                        "scheduler-config %s: weight %lld: want a whole number from 1 to 1000000",
                        c->scheduler_config_path, weight);
    if (timeout_ms < 0 || timeout_ms > 3600000)
        return err_fail(err, -EINVAL,
                        "scheduler-config %s: httpTimeout of %lld ms: want at most 1h",
                        c->scheduler_config_path, timeout_ms);
    /* Set once, in kube-scheduler's file, which it acts on: a value set
     * here as well may only repeat it (a printed effective config does). */
    if (cfg_is_given(c, "schedulerWeight") && c->scheduler_weight != weight)
        return err_fail(
            err, -EINVAL,
            "scheduler-weight %d disagrees with the weight %lld of scheduler-config %s: "
            "set it there only",
            c->scheduler_weight, weight, c->scheduler_config_path);
    if (cfg_is_given(c, "schedulerTimeoutMs") && c->scheduler_timeout_ms != timeout_ms)
        return err_fail(err, -EINVAL,
                        "scheduler-timeout-ms %d disagrees with the httpTimeout (%lld ms) of "
                        "scheduler-config %s: set it there only",
                        c->scheduler_timeout_ms, timeout_ms, c->scheduler_config_path);
    c->scheduler_weight = (int)weight;
    c->scheduler_timeout_ms = (int)timeout_ms;
    compute_hash(c);
    return 0;
}

int cfg_load_file_only(struct cfg *c, const char *path, char *err)
{
    cfg_defaults(c);
    if (load_file(c, path, err) != 0)
        return -EINVAL;
    return validate(c, err);
}

/* Kubelet injects {SERVICE}_SERVICE_HOST, {SERVICE}_PORT, ... for every
 * Service in the namespace; a Service named cpu-extender-... yields
 * CPU_EXTENDER_..._SERVICE_HOST. Those are not typos of our options.
 * A name of 128 bytes or more never counted as one (it was copied into a
 * buffer of that size first); kept, so the same names are warned of. */
static bool is_service_link(const char *name, size_t len)
{
    return len < 128 && (memmem(name, len, "_SERVICE_HOST", 13) != NULL ||
                         memmem(name, len, "_SERVICE_PORT", 13) != NULL ||
                         memmem(name, len, "_PORT_", 6) != NULL ||
                         (len > 5 && memcmp(name + len - 5, "_PORT", 5) == 0));
}

/* The value of flag argv[*i] ("--x=v" or "--x v"); bools may stand alone. */
static int flag_value(const struct cfg_opt *o, int argc, char **argv, int *i, const char *eq,
                      const char **value)
{
    if (eq != NULL) {
        *value = eq + 1;
        return 0;
    }
    if (o != NULL && cfg_opt_is_bool(o)) {
        *value = "true";
        return 0;
    }
    if (*i + 1 >= argc)
        return -EINVAL;
    *value = argv[++*i];
    return 0;
}

int cfg_load(struct cfg *c, int argc, char **argv, char **envp, int *positional, int max_positional,
             int *n_positional, char *err)
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
    /* What the environment and the flags set is theirs, not the file's. */
    cfg_bits file_given = c->given;
    c->given = 0;
    char from_file[CFG_STR_LEN];
    snprintf(from_file, sizeof(from_file), "%s", c->scheduler_config);

    for (char **e = envp; e != NULL && *e != NULL; e++) {
        if (strncmp(*e, CFG_ENV_PREFIX, strlen(CFG_ENV_PREFIX)) != 0)
            continue;
        const char *eq = strchr(*e, '=');
        size_t name_len = eq ? (size_t)(eq - *e) : strlen(*e);
        if (eq == NULL || strncmp(*e, CFG_ENV_PREFIX "CONFIG=", name_len + 1) == 0)
            continue;
        const struct cfg_opt *o = cfg_opt_by_env(*e, name_len, env, sizeof(env));
        if (o == NULL && is_service_link(*e, name_len))
            continue;
        if (o == NULL)
            return err_fail(err, -EINVAL, "environment: unknown variable %.*s", (int)name_len, *e);
        if (cfg_opt_set_text(c, o, eq + 1, why, sizeof(why)) != 0)
            return err_fail(err, -EINVAL, "environment: %s=\"%s\": %s", env, eq + 1, why);
    }

    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *value;
        if (strncmp(a, "--", 2) != 0 || a[2] == '\0') {
            if (*n_positional >= max_positional)
                return err_fail(err, -EINVAL, "unexpected argument \"%s\" (see --help)", a);
            positional[(*n_positional)++] = i;
            continue;
        }
        const char *name = a + 2, *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        const struct cfg_opt *o = cfg_opt_by_flag(name, len);
        bool is_config = len == 6 && strncmp(name, "config", 6) == 0;
        if (o == NULL && !is_config)
            return err_fail(err, -EINVAL, "unknown flag --%.*s (see --help)", (int)len, name);
        if (flag_value(o, argc, argv, &i, eq, &value) != 0)
            return err_fail(err, -EINVAL, "flag --%.*s needs a value", (int)len, name);
        if (is_config)
            continue;
        if (cfg_opt_set_text(c, o, value, why, sizeof(why)) != 0)
            return err_fail(err, -EINVAL, "flag --%s=\"%s\": %s", cfg_opt_flag(o), value, why);
    }
    c->from_file &= ~c->given;
    c->given |= file_given;
    /* Set by the environment or a flag: relative to the working directory. */
    if (strcmp(c->scheduler_config, from_file) != 0)
        snprintf(c->scheduler_config_path, sizeof(c->scheduler_config_path), "%s",
                 c->scheduler_config);
    return validate(c, err);
}

void cfg_in_flight_rules(const struct cfg *c, struct score_in_flight_rules *out)
{
    out->mode = c->in_flight_estimate;
    for (int r = 0; r < SCORE_NRES; r++)
        out->factor_milli[r] = c->in_flight_factor_milli[r];
}

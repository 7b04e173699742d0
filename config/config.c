#include "config/config.h"

#include <ctype.h>
#include <errno.h>
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

/* The 1-based line and column (in bytes) of byte @off of @text. */
static void line_col(const char *text, size_t off, size_t *line, size_t *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off && text[i] != '\0'; i++) {
        if (text[i] == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
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
    if (n < 0 || (size_t)n >= CFG_STR_LEN) {
        err_set(err, "config file %s: field \"schedulerConfig\": longer than %d bytes beside %s",
                shown(name), CFG_STR_LEN - 1, name);
        return -EINVAL;
    }
    memcpy(c->scheduler_config_path, joined, (size_t)n + 1);
    return 0;
}

int cfg_parse_text(struct cfg *c, const char *text, size_t len, const char *name, char *err)
{
    char why[256];
    const char *end = NULL;
    unsigned long long seen = 0, before = c->given;
    int rc = -EINVAL;

    /* cJSON needs the terminating NUL inside the length to refuse trailing
     * bytes; the callers' buffers have one. */
    cJSON *root = cJSON_ParseWithLengthOpts(text, len + 1, &end, 1);
    if (root == NULL) {
        size_t off = end != NULL && end >= text ? (size_t)(end - text) : 0, line, col;
        line_col(text, off, &line, &col);
        err_set(err, "config file %s: line %zu, column %zu: not valid JSON", shown(name), line,
                col);
        return -EINVAL;
    }
    if (!cJSON_IsObject(root)) {
        err_set(err, "config file %s: want a JSON object", shown(name));
        goto out_delete;
    }
    const cJSON *item;
    cJSON_ArrayForEach(item, root)
    {
        const struct cfg_opt *o = cfg_opt_by_key(item->string);
        if (o == NULL) {
            err_set(err, "config file %s: unknown field \"%s\"", shown(name), item->string);
            goto out_delete;
        }
        /* JSON readers disagree on a repeated key (first or last wins): a
         * file that says two things is refused rather than read one way. */
        c->given = 0;
        if (cfg_opt_set_json(c, o, item, why, sizeof(why)) != 0) {
            err_set(err, "config file %s: field \"%s\": %s", shown(name), item->string, why);
            goto out_delete;
        }
        if ((seen & c->given) != 0) {
            err_set(err, "config file %s: field \"%s\" appears more than once", shown(name),
                    item->string);
            goto out_delete;
        }
        seen |= c->given;
    }
    c->given = before | seen;
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

    int rc = file_read_regular(path, CFG_FILE_MAX, &text, &len, err);
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

static int validate(struct cfg *c, char *err)
{
    int weights = 0;
    for (int r = 0; r < SCORE_NRES; r++)
        weights += c->score.weight[r];
    if (weights == 0) {
        err_set(err, "cpu-weight and memory-weight: at least one must be above 0");
        return -EINVAL;
    }
    if ((c->tls_cert[0] == '\0') != (c->tls_key[0] == '\0')) {
        err_set(err, "tls-cert and tls-key: give both or neither");
        return -EINVAL;
    }
    if (c->client_ca[0] != '\0' && c->tls_cert[0] == '\0') {
        err_set(err, "client-ca needs tls-cert and tls-key (mTLS is TLS)");
        return -EINVAL;
    }
    if (c->metrics_listen[0] != '\0' && same_address(c->listen, c->metrics_listen)) {
        err_set(err, "metrics-listen %s: must not be the listen address", c->metrics_listen);
        return -EINVAL;
    }
    if (c->per_ip_connection_limit > c->connection_limit) {
        err_set(err, "per-ip-connection-limit (%d) must not exceed connection-limit (%d)",
                c->per_ip_connection_limit, c->connection_limit);
        return -EINVAL;
    }
    if (!list_ok(c->select_namespaces, false)) {
        err_set(err, "select-namespaces: want NAMESPACE[,NAMESPACE...]");
        return -EINVAL;
    }
    if (!list_ok(c->select_labels, true)) {
        err_set(err, "select-labels: want KEY=VALUE[,KEY=VALUE...]");
        return -EINVAL;
    }
    if (c->memory_budget_bytes > 0 && c->memory_budget_bytes < (1LL << 20)) {
        err_set(err,
                "memory-budget-bytes (%lld): want -1 (none), 0 (from the cgroup's memory "
                "limit) or at least 1048576",
                c->memory_budget_bytes);
        return -EINVAL;
    }
    if (c->select_priority_min > c->select_priority_max) {
        err_set(err,
                "select-priority-min (%lld) must not exceed "
                "select-priority-max (%lld)",
                c->select_priority_min, c->select_priority_max);
        return -EINVAL;
    }
    compute_hash(c);
    return 0;
}

int cfg_set_from_scheduler(struct cfg *c, long long weight, long long timeout_ms, char *err)
{
    if (weight < 1 || weight > 1000000) {
        err_set(err, "scheduler-config %s: weight %lld: want a whole number from 1 to 1000000",
                c->scheduler_config_path, weight);
        return -EINVAL;
    }
    if (timeout_ms < 0 || timeout_ms > 3600000) {
        err_set(err, "scheduler-config %s: httpTimeout of %lld ms: want at most 1h",
                c->scheduler_config_path, timeout_ms);
        return -EINVAL;
    }
    /* Set once, in kube-scheduler's file, which it acts on: a value set
     * here as well may only repeat it (a printed effective config does). */
    if (cfg_is_given(c, "schedulerWeight") && c->scheduler_weight != weight) {
        err_set(err,
                "scheduler-weight %d disagrees with the weight %lld of scheduler-config %s: "
                "set it there only",
                c->scheduler_weight, weight, c->scheduler_config_path);
        return -EINVAL;
    }
    if (cfg_is_given(c, "schedulerTimeoutMs") && c->scheduler_timeout_ms != timeout_ms) {
        err_set(err,
                "scheduler-timeout-ms %d disagrees with the httpTimeout (%lld ms) of "
                "scheduler-config %s: set it there only",
                c->scheduler_timeout_ms, timeout_ms, c->scheduler_config_path);
        return -EINVAL;
    }
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
        if (o == NULL) {
            err_set(err, "environment: unknown variable %.*s", (int)name_len, *e);
            return -EINVAL;
        }
        if (cfg_opt_set_text(c, o, eq + 1, why, sizeof(why)) != 0) {
            err_set(err, "environment: %s=\"%s\": %s", env, eq + 1, why);
            return -EINVAL;
        }
    }

    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *value;
        if (strncmp(a, "--", 2) != 0 || a[2] == '\0') {
            if (*n_positional >= max_positional) {
                err_set(err, "unexpected argument \"%s\" (see --help)", a);
                return -EINVAL;
            }
            positional[(*n_positional)++] = i;
            continue;
        }
        const char *name = a + 2, *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        const struct cfg_opt *o = cfg_opt_by_flag(name, len);
        bool is_config = len == 6 && strncmp(name, "config", 6) == 0;
        if (o == NULL && !is_config) {
            err_set(err, "unknown flag --%.*s (see --help)", (int)len, name);
            return -EINVAL;
        }
        if (flag_value(o, argc, argv, &i, eq, &value) != 0) {
            err_set(err, "flag --%.*s needs a value", (int)len, name);
            return -EINVAL;
        }
        if (is_config)
            continue;
        if (cfg_opt_set_text(c, o, value, why, sizeof(why)) != 0) {
            err_set(err, "flag --%s=\"%s\": %s", cfg_opt_flag(o), value, why);
            return -EINVAL;
        }
    }
    /* Set by the environment or a flag: relative to the working directory. */
    if (strcmp(c->scheduler_config, from_file) != 0)
        snprintf(c->scheduler_config_path, sizeof(c->scheduler_config_path), "%s",
                 c->scheduler_config);
    return validate(c, err);
}

/*
 * Configuration: built-in defaults, then one JSON file (--config FILE or
 * CPU_EXTENDER_CONFIG), then CPU_EXTENDER_* environment variables, then
 * command-line flags; each layer overrides the one before. Every option has
 * one name per layer, derived from its flag: --cpu-weight, "cpuWeight",
 * CPU_EXTENDER_CPU_WEIGHT. Every value is validated; an error names the
 * option and where it came from.
 */
#ifndef CONFIG_CONFIG_H
#define CONFIG_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/err.h"
#include "base/log.h"
#include "scoring/podreq.h"
#include "scoring/strategy.h"
#include "scoring/usage_window.h"
#include "scoring/used.h"

#define CFG_STR_LEN   256
#define CFG_QUERY_LEN 1024 /* a PromQL query: subqueries and windows run long */
/* The defaults read node-exporter's series, one per instance (its
 * InternalIP:port): cores busy in every mode but idle, iowait and steal,
 * and memory in use as the kernel's MemAvailable counts it. */
#define CFG_PROMETHEUS_CPU_QUERY                                                                   \
    "sum by (instance) (rate(node_cpu_seconds_total{mode!~\"idle|iowait|steal\"}[2m]))"
#define CFG_PROMETHEUS_MEMORY_QUERY                                                                \
    "max by (instance) (node_memory_MemTotal_bytes - node_memory_MemAvailable_bytes)"
/* A bit per option of the table (config/options.c): given, from_file. */
typedef unsigned __int128 cfg_bits;
#define CFG_MAX_OPTS 128

#define CFG_ENV_PREFIX "CPU_EXTENDER_"

/* What the verbs do with what they compute (issue 6). */
enum cfg_mode {
    CFG_MODE_ENFORCE = 0, /* answer what scoring says */
    CFG_MODE_SHADOW,      /* score, log and record, but answer all passed, equal scores */
    CFG_MODE_PASSTHROUGH, /* answer all passed, equal scores, without scoring */
};

struct cfg {
    char config_file[CFG_STR_LEN]; /* the file that was read, "" for none */
    char listen[CFG_STR_LEN];      /* host:port or [v6]:port */
    /* The operations listener: GET /healthz, /readyz, /metrics, /version
     * (and /debug when metrics_listen_debug); "" for none. */
    char metrics_listen[CFG_STR_LEN];
    bool metrics_listen_debug;
    char prefix[CFG_STR_LEN]; /* URL prefix of the verbs, e.g. /scheduler */
    struct score_params score;
    char used_annotation[SCORE_NRES][CFG_STR_LEN]; /* "" disables */
    long long max_body_bytes;
    int max_nodes;
    /* Memory the verb requests in flight may reserve (server/http/budget.h):
     * 0 derives it from the cgroup's memory limit, -1 sets none. */
    long long memory_budget_bytes;
    int connection_limit;
    int per_ip_connection_limit;
    int idle_timeout_seconds;
    int request_timeout_seconds;
    int drain_seconds;
    char tls_cert[CFG_STR_LEN]; /* PEM chain; "" serves plain HTTP */
    char tls_key[CFG_STR_LEN];
    char client_ca[CFG_STR_LEN]; /* PEM CA that client certificates must chain to */
    enum log_level log_level;
    /* Cluster state (kube/): where the cluster is and how used is judged. */
    char kubeconfig[CFG_STR_LEN]; /* "": KUBECONFIG, else ~/.kube/config, in-cluster or none */
    enum score_used_source used_source[SCORE_NRES];
    int requests_max_age_seconds; /* 0: never stale */
    int usage_max_age_seconds;
    enum score_stale_policy stale_policy;
    int metrics_interval_seconds;
    int usage_window_seconds;                   /* 0: the newest sample alone */
    char usage_aggregation[CFG_STR_LEN];        /* as given: "p90", "cpu=p90,memory=max" */
    enum score_usage_agg usage_agg[SCORE_NRES]; /* usage_aggregation, parsed by validation */
    int usage_min_samples;
    /* The usage provider: metrics.k8s.io, or Prometheus and its queries. */
    char usage_provider[CFG_STR_LEN]; /* "metrics-api" or "prometheus" */
    bool usage_prometheus;            /* usage_provider, parsed by validation */
    char prometheus_url[CFG_STR_LEN];
    char prometheus_cpu_query[CFG_QUERY_LEN];
    char prometheus_memory_query[CFG_QUERY_LEN];
    char prometheus_node_label[CFG_STR_LEN]; /* "instance": by InternalIP; else by name */
    char prometheus_bearer_token_file[CFG_STR_LEN];
    char prometheus_ca_file[CFG_STR_LEN];
    char prometheus_client_cert_file[CFG_STR_LEN];
    char prometheus_client_key_file[CFG_STR_LEN];
    int prometheus_timeout_seconds;
    int prometheus_interval_seconds;
    int in_flight_seconds; /* 0: no damping */
    /* What a placed pod counts in flight: requests, limits or factor; in
     * factor mode the factors in thousandths (0.85 is 850). */
    enum score_in_flight in_flight_estimate;
    int in_flight_factor_milli[SCORE_NRES];
    /* The filter's thresholds (score.threshold_percent) and their escapes. */
    char threshold_exempt[CFG_STR_LEN]; /* "daemonsets" or "" */
    char threshold_policy[CFG_STR_LEN]; /* "always" or "unlessAllFail" */
    bool exempt_daemonsets;             /* threshold_exempt, parsed by validation */
    bool unless_all_fail;               /* threshold_policy, parsed by validation */
    /* Operations: modes, pod selection, deadlines, explanations. */
    enum cfg_mode mode;
    char select_namespaces[CFG_STR_LEN]; /* "a,b": only pods there are scored; "" all */
    char select_labels[CFG_STR_LEN];     /* "k=v,k2=v2": all must match; "" any */
    long long select_priority_min, select_priority_max;
    int scheduler_timeout_ms; /* the extender's httpTimeout; 0: no deadline answers */
    int scheduler_weight;     /* the extender's weight, to explain influence */
    /* The KubeSchedulerConfiguration that weight and timeout come from
     * ("" for none), as written (what the hash covers), and the file to
     * read: beside the config file when a relative path came from it. */
    char scheduler_config[CFG_STR_LEN];
    char scheduler_config_path[CFG_STR_LEN];
    bool debug_endpoints; /* serve GET /debug and /debug/decisions */
    int decisions_kept;   /* ring buffer of decisions; 0 keeps none */
    long long decisions_max_bytes;
    char hash[17]; /* FNV-1a of the effective options, hex: shown in /version */
    /* Bit i: option i of the table was set by a layer (file, environment
     * or flag), not left at its default. Not part of the hash. */
    cfg_bits given;
    /* Bit i: option i has the config file's value (not overridden by the
     * environment or a flag), so messages name it by its key. Not part of
     * the hash. */
    cfg_bits from_file;
    /* Where the file set option i (1-based line and column of its key),
     * for the messages about it. */
    struct {
        unsigned int line, col;
    } file_at[CFG_MAX_OPTS];
};

/* How often usage samples arrive: prometheus_interval_seconds with the
 * Prometheus provider, metrics_interval_seconds otherwise. */
int cfg_usage_interval(const struct cfg *c);

/* Fills @c with the built-in defaults. */
void cfg_defaults(struct cfg *c);

/*
 * Builds the configuration from defaults, the config file, @envp and the
 * flags in @argv[0..argc). Arguments that are not options are left for the
 * caller: their indexes are stored in @positional (capacity @max_positional)
 * and their count in *@n_positional; more than that is an error.
 * Returns 0, or -EINVAL with a message naming the option in @err.
 */
int cfg_load(struct cfg *c, int argc, char **argv, char **envp, int *positional, int max_positional,
             int *n_positional, char *err);

/*
 * Applies the JSON config document @text (@len bytes followed by a NUL) to
 * @c, naming it @name in messages. Does not run the cross-field checks.
 * Returns 0 or -EINVAL with a message in @err.
 */
int cfg_parse_text(struct cfg *c, const char *text, size_t len, const char *name, char *err);

/* Reads and validates only @path over the defaults (for `config check`). */
int cfg_load_file_only(struct cfg *c, const char *path, char *err);

/* Whether option @key (its config-file key, "schedulerWeight") was set by
 * the file, the environment or a flag rather than left at its default. */
bool cfg_is_given(const struct cfg *c, const char *key);

/* Where the config file set option @key: "line L, column C" of its key
 * into @out (@n bytes). Returns whether the value is the file's. */
bool cfg_file_position(const struct cfg *c, const char *key, char *out, size_t n);

/*
 * Sets the extender's weight and timeout that cfg->scheduler_config_path says
 * (read by the caller: config/ reads no YAML) and computes the hash again.
 * Returns 0, or -EINVAL when schedulerWeight or schedulerTimeoutMs were
 * also set by a layer (set once: in the scheduler's file) or a value is
 * out of range, with the reason in @err.
 */
int cfg_set_from_scheduler(struct cfg *c, long long weight, long long timeout_ms, char *err);

/*
 * The config-file keys whose values differ between @a and @b, comma-
 * separated, into @live (options a reload applies) and @restart (options
 * that keep their value until the next start: addresses, limits of the
 * listener, TLS files, the cluster), @n bytes each; "" when none.
 */
void cfg_diff(const struct cfg *a, const struct cfg *b, char *live, char *restart, size_t n);

/*
 * Splits c->listen into host (without brackets) and port.
 * Returns 0 or -EINVAL.
 */
int cfg_listen_split(const char *listen, char host[CFG_STR_LEN], int *port);

/* Writes the effective configuration as one JSON object to @out. */
void cfg_print_json(const struct cfg *c, FILE *out);

/* The in-flight estimate's rules of @c (inFlightEstimate and its factors). */
void cfg_in_flight_rules(const struct cfg *c, struct score_in_flight_rules *out);

/* Writes the option reference (flag, environment variable, JSON key,
 * default, meaning) to @out. */
void cfg_print_help(FILE *out);

/* Returns "enforce", "shadow" or "passthrough". */
const char *cfg_mode_name(enum cfg_mode m);

/*
 * Calls @fn for each item of the comma-separated list @list (items are
 * never empty once the configuration is valid), with its length; stops
 * and returns true as soon as @fn does.
 */
bool cfg_list_any(const char *list, bool (*fn)(const void *ctx, const char *item, size_t len),
                  const void *ctx);

#endif

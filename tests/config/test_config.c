/* Configuration layers (defaults < file < environment < flags) and validation. */
#include "config/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/suites.h"

static char path[64];

static const char *write_file(const char *text)
{
    snprintf(path, sizeof(path), "/tmp/cpu-extender-test-%d.json", (int)getpid());
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static int load(struct cfg *c, char **argv, int argc, char **envp, char *err)
{
    int positional[2], n;
    return cfg_load(c, argc, argv, envp, positional, 0, &n, err);
}

START_TEST(config_defaults_are_documented_values)
{
    struct cfg c;
    char err[ERR_LEN];
    ck_assert_int_eq(load(&c, NULL, 0, NULL, err), 0);
    ck_assert_str_eq(c.listen, "127.0.0.1:8888");
    ck_assert_str_eq(c.prefix, "/scheduler");
    ck_assert_int_eq(c.score.strategy, SCORE_SPREAD);
    ck_assert_int_eq(c.score.weight[SCORE_CPU], 3);
    ck_assert_int_eq(c.score.weight[SCORE_MEMORY], 1);
    ck_assert_int_eq(c.score.target_percent, 60);
    ck_assert_int_eq(c.score.threshold_percent[SCORE_CPU], 100);
    ck_assert_int_eq(c.max_body_bytes, 128LL << 20);
    ck_assert_int_eq(c.idle_timeout_seconds, 120);
    ck_assert_str_eq(c.used_annotation[SCORE_CPU], "cpu-extender.io/cpu-used");
    ck_assert_int_eq(c.mode, CFG_MODE_ENFORCE);
    ck_assert_int_eq(c.scheduler_timeout_ms, 5000);
    ck_assert_int_eq(c.scheduler_weight, 1);
    ck_assert(!c.debug_endpoints);
    ck_assert_int_eq(c.decisions_kept, 100);
    ck_assert_int_eq(c.decisions_max_bytes, 16LL << 20);
    ck_assert_int_eq(c.select_priority_min, -2147483648LL);
    ck_assert_int_eq(c.select_priority_max, 2147483647LL);
    ck_assert_str_eq(c.select_namespaces, "");
    /* the defaults are texts in the options' table, read as a flag's: each
     * must have been taken (a refused one would leave zero) */
    ck_assert_int_eq(c.score.threshold_percent[SCORE_MEMORY], 100);
    ck_assert_str_eq(c.used_annotation[SCORE_MEMORY], "cpu-extender.io/memory-used");
    ck_assert_int_eq(c.max_nodes, 10000);
    ck_assert_int_eq(c.connection_limit, 64);
    ck_assert_int_eq(c.per_ip_connection_limit, 32);
    ck_assert_int_eq(c.request_timeout_seconds, 30);
    ck_assert_int_eq(c.drain_seconds, 5);
    ck_assert_int_eq(c.log_level, LOG_INFO);
    ck_assert_int_eq(c.used_source[SCORE_CPU], SCORE_USED_REQUESTS);
    ck_assert_int_eq(c.used_source[SCORE_MEMORY], SCORE_USED_REQUESTS);
    ck_assert_int_eq(c.requests_max_age_seconds, 300);
    ck_assert_int_eq(c.usage_max_age_seconds, 180);
    ck_assert_int_eq(c.stale_policy, SCORE_STALE_REQUESTS);
    ck_assert_int_eq(c.metrics_interval_seconds, 15);
    ck_assert_str_eq(c.usage_aggregation, "latest");
    ck_assert_str_eq(c.threshold_exempt, "daemonsets");
    ck_assert_str_eq(c.threshold_policy, "always");
    ck_assert_int_eq(c.usage_min_samples, 1);
    ck_assert_str_eq(c.usage_provider, "metrics-api");
    ck_assert_str_eq(c.prometheus_cpu_query, CFG_PROMETHEUS_CPU_QUERY);
    ck_assert_str_eq(c.prometheus_memory_query, CFG_PROMETHEUS_MEMORY_QUERY);
    ck_assert_str_eq(c.prometheus_node_label, "instance");
    ck_assert_int_eq(c.prometheus_timeout_seconds, 10);
    ck_assert_int_eq(c.prometheus_interval_seconds, 15);
    ck_assert_int_eq(c.in_flight_seconds, 60);
    ck_assert_int_eq(c.in_flight_estimate, SCORE_IN_FLIGHT_REQUESTS);
    ck_assert_int_eq(c.in_flight_factor_milli[SCORE_CPU], 850);
    ck_assert_int_eq(c.in_flight_factor_milli[SCORE_MEMORY], 700);
}
END_TEST

START_TEST(config_operations_options_in_every_layer)
{
    struct cfg c;
    char err[ERR_LEN];
    const char *f = write_file("{\"mode\": \"shadow\", \"selectLabels\": \"team=a,tier=\", "
                               "\"debugEndpoints\": true}");
    char cfg_arg[80];
    snprintf(cfg_arg, sizeof(cfg_arg), "--config=%s", f);
    char *argv[] = {cfg_arg, "--select-namespaces", "prod,web", "--mode=passthrough"};
    char *envp[] = {"CPU_EXTENDER_MODE=enforce", "CPU_EXTENDER_SCHEDULER_TIMEOUT_MS=0",
                    "CPU_EXTENDER_DEBUG_ENDPOINTS=1", NULL};
    ck_assert_int_eq(load(&c, argv, 4, envp, err), 0);
    ck_assert_int_eq(c.mode, CFG_MODE_PASSTHROUGH); /* flag over env over file */
    ck_assert_str_eq(c.select_labels, "team=a,tier=");
    ck_assert_str_eq(c.select_namespaces, "prod,web");
    ck_assert_int_eq(c.scheduler_timeout_ms, 0);
    ck_assert(c.debug_endpoints);
    ck_assert_str_eq(cfg_mode_name(CFG_MODE_SHADOW), "shadow");
    unlink(f);
}
END_TEST

START_TEST(config_flags_win_over_env_over_file)
{
    struct cfg c;
    char err[ERR_LEN];
    const char *f = write_file("{\"cpuWeight\": 5, \"memoryWeight\": 2, \"strategy\": \"pack\"}");
    char cfg_arg[80];
    snprintf(cfg_arg, sizeof(cfg_arg), "--config=%s", f);
    char *argv[] = {cfg_arg, "--cpu-weight", "7"};
    char *envp[] = {"CPU_EXTENDER_CPU_WEIGHT=6", "CPU_EXTENDER_MEMORY_WEIGHT=4", "HOME=/root",
                    NULL};
    ck_assert_int_eq(load(&c, argv, 3, envp, err), 0);
    ck_assert_int_eq(c.score.weight[SCORE_CPU], 7);    /* flag */
    ck_assert_int_eq(c.score.weight[SCORE_MEMORY], 4); /* environment */
    ck_assert_int_eq(c.score.strategy, SCORE_PACK);    /* file */
    ck_assert_str_eq(c.config_file, f);
    unlink(f);
}
END_TEST

START_TEST(config_file_from_environment)
{
    struct cfg c;
    char err[ERR_LEN], env[96];
    const char *f = write_file("{\"normalize\": true, \"prefix\": \"//ext//\"}");
    snprintf(env, sizeof(env), "CPU_EXTENDER_CONFIG=%s", f);
    char *envp[] = {env, NULL};
    ck_assert_int_eq(load(&c, NULL, 0, envp, err), 0);
    ck_assert(c.score.normalize);
    ck_assert_str_eq(c.prefix, "/ext"); /* slashes collapsed and trimmed */
    /* the root prefix normalizes to "", which must read back (found by fuzzing) */
    char *root[] = {"--prefix=/"};
    ck_assert_int_eq(load(&c, root, 1, NULL, err), 0);
    ck_assert_str_eq(c.prefix, "");
    char *empty[] = {"--prefix="};
    ck_assert_int_eq(load(&c, empty, 1, NULL, err), 0);
    unlink(f);
}
END_TEST

/* Each invalid input must fail with a message naming what is wrong. */
static void expect_error(char **argv, int argc, char **envp, const char *needle)
{
    struct cfg c;
    char err[ERR_LEN];
    ck_assert_int_ne(load(&c, argv, argc, envp, err), 0);
    ck_assert_msg(strstr(err, needle) != NULL, "error \"%s\" does not name \"%s\"", err, needle);
}

START_TEST(config_invalid_flags_are_named)
{
    expect_error((char *[]){"--cpu-weight=101"}, 1, NULL, "--cpu-weight");
    expect_error((char *[]){"--cpu-weight=abc"}, 1, NULL, "whole number");
    expect_error((char *[]){"--strategy", "fast"}, 2, NULL, "spread, pack");
    expect_error((char *[]){"--listen", "8888"}, 2, NULL, "--listen");
    expect_error((char *[]){"--listen", "127.0.0.1:70000"}, 2, NULL, "--listen");
    expect_error((char *[]){"--prefix", "scheduler"}, 2, NULL, "start with '/'");
    expect_error((char *[]){"--no-such-flag"}, 1, NULL, "unknown flag --no-such-flag");
    expect_error((char *[]){"--max-nodes"}, 1, NULL, "needs a value");
    expect_error((char *[]){"--normalize=maybe"}, 1, NULL, "true or false");
    expect_error((char *[]){"--target-percent=0"}, 1, NULL, "--target-percent");
    expect_error((char *[]){"--cpu-weight=0", "--memory-weight=0"}, 2, NULL, "at least one");
    expect_error((char *[]){"--connection-limit=4"}, 1, NULL, "per-ip-connection-limit");
    expect_error((char *[]){"stray"}, 1, NULL, "unexpected argument");
    expect_error((char *[]){"--mode=off"}, 1, NULL, "enforce, shadow or passthrough");
    expect_error((char *[]){"--select-namespaces=a,,b"}, 1, NULL, "select-namespaces");
    expect_error((char *[]){"--select-namespaces=a,"}, 1, NULL, "select-namespaces");
    expect_error((char *[]){"--select-labels=team"}, 1, NULL, "KEY=VALUE");
    expect_error((char *[]){"--select-labels==x"}, 1, NULL, "KEY=VALUE");
    expect_error((char *[]){"--select-labels=a=b=c"}, 1, NULL, "KEY=VALUE");
    expect_error((char *[]){"--select-priority-min=5", "--select-priority-max=4"}, 2, NULL,
                 "must not exceed");
    expect_error((char *[]){"--select-priority-max=2147483648"}, 1, NULL, "--select-priority-max");
    expect_error((char *[]){"--scheduler-weight=0"}, 1, NULL, "--scheduler-weight");
    expect_error((char *[]){"--decisions-kept=-1"}, 1, NULL, "--decisions-kept");
    expect_error(NULL, 0, (char *[]){"CPU_EXTENDER_CPU_WEIGTH=3", NULL},
                 "unknown variable CPU_EXTENDER_CPU_WEIGTH");
    expect_error(NULL, 0, (char *[]){"CPU_EXTENDER_LOG_LEVEL=loud", NULL},
                 "CPU_EXTENDER_LOG_LEVEL");
}
END_TEST

/* A Service named cpu-extender-scheduler makes kubelet set these in the pod. */
START_TEST(config_service_link_variables_are_not_options)
{
    struct cfg c;
    char err[ERR_LEN];
    char *envp[] = {"CPU_EXTENDER_SCHEDULER_SERVICE_HOST=10.96.0.5",
                    "CPU_EXTENDER_SCHEDULER_SERVICE_PORT=8888",
                    "CPU_EXTENDER_SCHEDULER_SERVICE_PORT_HTTP=8888",
                    "CPU_EXTENDER_SCHEDULER_PORT=tcp://10.96.0.5:8888",
                    "CPU_EXTENDER_SCHEDULER_PORT_8888_TCP_ADDR=10.96.0.5",
                    NULL};
    ck_assert_msg(load(&c, NULL, 0, envp, err) == 0, "%s", err);
}
END_TEST

static void expect_file_error(const char *text, const char *needle)
{
    struct cfg c;
    char err[ERR_LEN];
    const char *f = write_file(text);
    ck_assert_int_ne(cfg_load_file_only(&c, f, err), 0);
    ck_assert_msg(strstr(err, needle) != NULL, "error \"%s\" does not name \"%s\"", err, needle);
    unlink(f);
}

START_TEST(config_invalid_file_fields_are_named)
{
    expect_file_error("{\"cpuWeigth\": 3}", "unknown field \"cpuWeigth\"");
    expect_file_error("{\"cpuWeight\": \"3\"}", "field \"cpuWeight\"");
    expect_file_error("{\"cpuWeight\": 2.5}", "field \"cpuWeight\"");
    expect_file_error("{\"normalize\": 1}", "field \"normalize\"");
    expect_file_error("{\"maxBodyBytes\": 1e30}", "field \"maxBodyBytes\"");
    expect_file_error("{\"maxBodyBytes\": 1e400}", "field \"maxBodyBytes\"");
    expect_file_error("{\"maxNodes\": -1e19}", "field \"maxNodes\"");
    expect_file_error("{\"listen\": \"nowhere\"}", "field \"listen\"");
    expect_file_error("[1, 2]", "JSON object");
    expect_file_error("{\"cpuWeight\": 3", "not valid JSON");
    expect_file_error("", "not valid JSON");

    struct cfg c;
    char err[ERR_LEN];
    ck_assert_int_ne(cfg_load_file_only(&c, "/nonexistent/cpu-extender.json", err), 0);
    ck_assert_ptr_nonnull(strstr(err, "/nonexistent/cpu-extender.json"));
}
END_TEST

START_TEST(config_listen_split_forms)
{
    char host[CFG_STR_LEN];
    int port;
    ck_assert_int_eq(cfg_listen_split("127.0.0.1:8888", host, &port), 0);
    ck_assert_str_eq(host, "127.0.0.1");
    ck_assert_int_eq(port, 8888);
    ck_assert_int_eq(cfg_listen_split("[::1]:0", host, &port), 0);
    ck_assert_str_eq(host, "::1");
    ck_assert_int_eq(port, 0);
    ck_assert_int_eq(cfg_listen_split("localhost:80", host, &port), 0);
    ck_assert_int_ne(cfg_listen_split("::1:80", host, &port), 0);
    ck_assert_int_ne(cfg_listen_split(":80", host, &port), 0);
    ck_assert_int_ne(cfg_listen_split("host:", host, &port), 0);
    ck_assert_int_ne(cfg_listen_split("host:-1", host, &port), 0);
    ck_assert_int_ne(cfg_listen_split("[::1]80", host, &port), 0);
}
END_TEST

START_TEST(config_print_json_round_trips)
{
    struct cfg c, back;
    char err[ERR_LEN];
    char *argv[] = {"--strategy=target", "--normalize", "--cpu-used-annotation=x/y"};
    ck_assert_int_eq(load(&c, argv, 3, NULL, err), 0);
    snprintf(path, sizeof(path), "/tmp/cpu-extender-dump-%d.json", (int)getpid());
    FILE *f = fopen(path, "w");
    cfg_print_json(&c, f);
    fclose(f);
    ck_assert_int_eq(cfg_load_file_only(&back, path, err), 0);
    ck_assert_int_eq(back.score.strategy, SCORE_TARGET);
    ck_assert(back.score.normalize);
    ck_assert_str_eq(back.used_annotation[SCORE_CPU], "x/y");
    unlink(path);
}
END_TEST

/* A syntax error says where: line and column (bytes) of the byte that
 * cannot be read, here the '}' standing where the value of "x" should. */
START_TEST(config_syntax_error_gives_line_and_column)
{
    expect_file_error("{\n  \"cpuWeight\": 2,\n  \"x\": }\n", "line 3, column 8: not valid JSON");
    /* 15 bytes: the "}" it lacks would be the 16th */
    expect_file_error("{\"cpuWeight\": 3", "line 1, column 16");
    struct cfg c;
    char err[ERR_LEN];
    const char *f = write_file("{\n\n\"a\" 1}");
    ck_assert_int_ne(cfg_load_file_only(&c, f, err), 0);
    char want[160];
    snprintf(want, sizeof(want), "config file %s: line 3, column 5:", f);
    ck_assert_msg(strstr(err, want) != NULL, "%s", err);
    unlink(f);
}
END_TEST

/* JSON readers differ on a repeated key (Go's last wins, others the first):
 * refused, named. */
START_TEST(config_duplicate_key_is_refused)
{
    expect_file_error("{\"cpuWeight\": 2, \"memoryWeight\": 1, \"cpuWeight\": 2}",
                      "field \"cpuWeight\" appears more than once");
    expect_file_error("{\"debugEndpoints\": true, \"debugEndpoints\": false}",
                      "field \"debugEndpoints\" appears more than once");
}
END_TEST

START_TEST(config_given_tells_layers_from_defaults)
{
    struct cfg c;
    char err[ERR_LEN];
    const char *f = write_file("{\"strategy\": \"spread\"}");
    char cfg_arg[80];
    snprintf(cfg_arg, sizeof(cfg_arg), "--config=%s", f);
    char *argv[] = {cfg_arg, "--cpu-weight", "3"};
    char *envp[] = {"CPU_EXTENDER_MODE=enforce", NULL};
    ck_assert_int_eq(load(&c, argv, 3, envp, err), 0);
    /* given even where the value is the default's */
    ck_assert(cfg_is_given(&c, "strategy"));
    ck_assert(cfg_is_given(&c, "cpuWeight"));
    ck_assert(cfg_is_given(&c, "mode"));
    ck_assert(!cfg_is_given(&c, "memoryWeight"));
    ck_assert(!cfg_is_given(&c, "schedulerWeight"));
    ck_assert(!cfg_is_given(&c, "noSuchKey"));
    unlink(f);
}
END_TEST

START_TEST(config_diff_names_changed_keys_by_kind)
{
    struct cfg a, b;
    char err[ERR_LEN], live[256], restart[256];
    ck_assert_int_eq(load(&a, NULL, 0, NULL, err), 0);
    char *argv[] = {"--strategy=pack", "--listen=127.0.0.1:9999", "--cpu-weight=3", "--tls-cert=/c",
                    "--tls-key=/k",    "--debug-endpoints"};
    ck_assert_int_eq(load(&b, argv, 6, NULL, err), 0);
    cfg_diff(&a, &b, live, restart, sizeof(live));
    ck_assert_str_eq(live, "strategy,debugEndpoints"); /* cpuWeight 3 is no change */
    ck_assert_str_eq(restart, "listen,tlsCert,tlsKey");
    cfg_diff(&b, &b, live, restart, sizeof(live));
    ck_assert_str_eq(live, "");
    ck_assert_str_eq(restart, "");
}
END_TEST

START_TEST(config_scheduler_values_are_set_once)
{
    struct cfg c;
    char err[ERR_LEN];
    char *argv[] = {"--scheduler-config=/etc/s.yaml"};
    ck_assert_int_eq(load(&c, argv, 1, NULL, err), 0);
    ck_assert_str_eq(c.scheduler_config_path, "/etc/s.yaml");
    char hash[sizeof(c.hash)];
    memcpy(hash, c.hash, sizeof(hash));
    ck_assert_int_eq(cfg_set_from_scheduler(&c, 4, 2500, err), 0);
    ck_assert_int_eq(c.scheduler_weight, 4);
    ck_assert_int_eq(c.scheduler_timeout_ms, 2500);
    ck_assert_str_ne(c.hash, hash); /* /version shows the values in use */
    ck_assert_int_ne(cfg_set_from_scheduler(&c, 0, 2500, err), 0);
    ck_assert_ptr_nonnull(strstr(err, "weight 0"));
    ck_assert_int_ne(cfg_set_from_scheduler(&c, 1, 3600001, err), 0);

    /* a value also set here may repeat the file's, never differ */
    char *both[] = {"--scheduler-config=/etc/s.yaml", "--scheduler-weight=2"};
    ck_assert_int_eq(load(&c, both, 2, NULL, err), 0);
    ck_assert_int_eq(cfg_set_from_scheduler(&c, 2, 5000, err), 0);
    ck_assert_int_eq(load(&c, both, 2, NULL, err), 0);
    ck_assert_int_ne(cfg_set_from_scheduler(&c, 3, 5000, err), 0);
    ck_assert_msg(strstr(err, "scheduler-weight 2 disagrees with the weight 3") != NULL, "%s", err);
    char *env[] = {"CPU_EXTENDER_SCHEDULER_TIMEOUT_MS=1000", NULL};
    ck_assert_int_eq(load(&c, argv, 1, env, err), 0);
    ck_assert_int_ne(cfg_set_from_scheduler(&c, 1, 5000, err), 0);
    ck_assert_ptr_nonnull(strstr(err, "scheduler-timeout-ms 1000 disagrees"));
}
END_TEST

/* In the file, a relative schedulerConfig is beside the file (the
 * ConfigMap mounts both keys in one directory); from a flag, relative to
 * the working directory. */
START_TEST(config_scheduler_config_is_relative_to_its_file)
{
    struct cfg c;
    char err[ERR_LEN], want[128];
    const char *f = write_file("{\"schedulerConfig\": \"scheduler-config.yaml\"}");
    ck_assert_int_eq(cfg_load_file_only(&c, f, err), 0);
    ck_assert_str_eq(c.scheduler_config_path, "/tmp/scheduler-config.yaml");
    /* as written in what is printed and hashed: the same wherever mounted */
    ck_assert_str_eq(c.scheduler_config, "scheduler-config.yaml");
    char cfg_arg[96];
    snprintf(cfg_arg, sizeof(cfg_arg), "--config=%s", f);
    char *from_file[] = {cfg_arg};
    ck_assert_int_eq(load(&c, from_file, 1, NULL, err), 0);
    ck_assert_str_eq(c.scheduler_config_path, "/tmp/scheduler-config.yaml");
    write_file("{\"schedulerConfig\": \"/abs/s.yaml\"}");
    ck_assert_int_eq(cfg_load_file_only(&c, f, err), 0);
    ck_assert_str_eq(c.scheduler_config_path, "/abs/s.yaml");
    char *argv[] = {"--scheduler-config=rel/s.yaml"};
    ck_assert_int_eq(load(&c, argv, 1, NULL, err), 0);
    ck_assert_str_eq(c.scheduler_config_path, "rel/s.yaml");
    char *over[] = {cfg_arg, "--scheduler-config=rel/s.yaml"}; /* the flag wins */
    ck_assert_int_eq(load(&c, over, 2, NULL, err), 0);
    ck_assert_str_eq(c.scheduler_config_path, "rel/s.yaml");
    snprintf(want, sizeof(want), "%s", f);
    unlink(want);
}
END_TEST

START_TEST(config_metrics_listen_is_checked)
{
    struct cfg c;
    char err[ERR_LEN];
    ck_assert_int_eq(load(&c, NULL, 0, NULL, err), 0);
    ck_assert_str_eq(c.metrics_listen, ""); /* none unless asked */
    char *ok[] = {"--metrics-listen=0.0.0.0:8889"};
    ck_assert_int_eq(load(&c, ok, 1, NULL, err), 0);
    ck_assert_str_eq(c.metrics_listen, "0.0.0.0:8889");
    expect_error((char *[]){"--metrics-listen=8889"}, 1, NULL, "--metrics-listen");
    expect_error((char *[]){"--metrics-listen=0.0.0.0:8888"}, 1, NULL,
                 "must not be the listen address");
    expect_error((char *[]){"--metrics-listen=127.0.0.1:8888"}, 1, NULL,
                 "must not be the listen address");
    char *zero[] = {"--listen=127.0.0.1:0", "--metrics-listen=127.0.0.1:0"}; /* two free ports */
    ck_assert_int_eq(load(&c, zero, 2, NULL, err), 0);
}
END_TEST

/* The usage window's keys: defaults as before windows, both forms of
 * usageAggregation, every layer, and a minimum the window cannot reach. */
START_TEST(config_usage_window)
{
    struct cfg c;
    char err[ERR_LEN];
    ck_assert_int_eq(load(&c, NULL, 0, NULL, err), 0);
    ck_assert_int_eq(c.usage_window_seconds, 0);
    ck_assert_int_eq(c.usage_min_samples, 1);
    ck_assert(c.usage_agg[SCORE_CPU] == SCORE_AGG_LATEST &&
              c.usage_agg[SCORE_MEMORY] == SCORE_AGG_LATEST);
    char *flags[] = {"--usage-window-seconds=300", "--usage-aggregation=cpu=p90,memory=max",
                     "--usage-min-samples=5"};
    ck_assert_int_eq(load(&c, flags, 3, NULL, err), 0);
    ck_assert(c.usage_agg[SCORE_CPU] == SCORE_AGG_P90 &&
              c.usage_agg[SCORE_MEMORY] == SCORE_AGG_MAX);
    char *env[] = {"CPU_EXTENDER_USAGE_AGGREGATION=avg", NULL};
    ck_assert_int_eq(load(&c, NULL, 0, env, err), 0);
    ck_assert(c.usage_agg[SCORE_CPU] == SCORE_AGG_AVG &&
              c.usage_agg[SCORE_MEMORY] == SCORE_AGG_AVG);
    expect_error((char *[]){"--usage-aggregation=p80"}, 1, NULL,
                 "usage-aggregation \"p80\": want latest, avg, max, p50, p90, p95 or p99");
    /* (now - 60, now] holds 4 samples at 15 s; window 0 the newest alone */
    expect_error((char *[]){"--usage-window-seconds=60", "--usage-min-samples=5"}, 2, NULL,
                 "usage-min-samples (5) cannot be reached");
    char *four[] = {"--usage-window-seconds=60", "--usage-min-samples=4"};
    ck_assert_int_eq(load(&c, four, 2, NULL, err), 0);
    expect_error((char *[]){"--usage-min-samples=2"}, 1, NULL, "cannot be reached");
    expect_error((char *[]){"--usage-window-seconds=3600", "--metrics-interval-seconds=1"}, 2, NULL,
                 "at most 254 samples");
}
END_TEST

/* inFlightEstimate and its factors: thousandths exactly, from a flag and
 * from a JSON number, (0, 10] with at most three decimals. */
START_TEST(config_in_flight_estimate)
{
    struct cfg c;
    char err[ERR_LEN];
    ck_assert_int_eq(load(&c, NULL, 0, NULL, err), 0);
    ck_assert(c.in_flight_estimate == SCORE_IN_FLIGHT_REQUESTS);
    ck_assert_int_eq(c.in_flight_factor_milli[SCORE_CPU], 850);
    ck_assert_int_eq(c.in_flight_factor_milli[SCORE_MEMORY], 700);
    char *flags[] = {"--in-flight-estimate=factor", "--in-flight-cpu-factor=1.5",
                     "--in-flight-memory-factor=0.001"};
    ck_assert_int_eq(load(&c, flags, 3, NULL, err), 0);
    ck_assert(c.in_flight_estimate == SCORE_IN_FLIGHT_FACTOR);
    ck_assert_int_eq(c.in_flight_factor_milli[SCORE_CPU], 1500);
    ck_assert_int_eq(c.in_flight_factor_milli[SCORE_MEMORY], 1);
    const char *f = write_file("{\"inFlightEstimate\": \"limits\", \"inFlightCpuFactor\": 0.85, "
                               "\"inFlightMemoryFactor\": 10}");
    char file_flag[96];
    snprintf(file_flag, sizeof(file_flag), "--config=%s", f);
    char *with_file[] = {file_flag};
    ck_assert_int_eq(load(&c, with_file, 1, NULL, err), 0);
    ck_assert(c.in_flight_estimate == SCORE_IN_FLIGHT_LIMITS);
    ck_assert_int_eq(c.in_flight_factor_milli[SCORE_CPU], 850);
    ck_assert_int_eq(c.in_flight_factor_milli[SCORE_MEMORY], 10000);
    expect_error((char *[]){"--in-flight-estimate=usage"}, 1, NULL,
                 "want requests, limits or factor");
    expect_error((char *[]){"--in-flight-cpu-factor=0"}, 1, NULL, "want a number from 0.001");
    expect_error((char *[]){"--in-flight-cpu-factor=10.5"}, 1, NULL, "to 10.000");
    expect_error((char *[]){"--in-flight-cpu-factor=0.8555"}, 1, NULL, "at most three decimals");
    expect_error((char *[]){"--in-flight-memory-factor=-1"}, 1, NULL, "want a number");
    expect_error((char *[]){"--in-flight-memory-factor=.5"}, 1, NULL, "want a number");
    expect_file_error("{\"inFlightCpuFactor\": \"0.85\"}", "want a number");
}
END_TEST

/* issue 24: every message about a config file names the file, the line
 * and column of the key as written, and what is wrong in words. */
START_TEST(config_file_errors_say_where_and_what)
{
    char want[256];
    const char *f = write_file("");
    const struct {
        const char *text, *at, *says;
    } cases[] = {
        {"{\n  \"cpuWieght\": 3\n}",
         "line 2, column 3: ", "unknown field \"cpuWieght\": did you mean cpuWeight?"},
        {"{\"Strategy\": \"pack\"}",
         "line 1, column 2: ", "unknown field \"Strategy\": did you mean strategy?"},
        {"{\"nothingLikeAnyKeyAtAll\": 1}", "line 1, column 2: ",
         "unknown field \"nothingLikeAnyKeyAtAll\" (cpu-extender --help lists the keys)"},
        {"{\n  \"cpuWeight\": 3,\n  \"strategy\": \"pack\",\n}",
         "line 3, column 21: ", "not valid JSON: trailing comma before }"},
        {"{\"a\": \"x,}\", \"b\": [1, 2,]}",
         "line 1, column 24: ", "not valid JSON: trailing comma before ]"},
        {"{\"strategy\" \"pack\"}", "line 1, column 13: ", "not valid JSON: unexpected '\"'"},
        {"{\"cpuWeight\": 3",
         "line 1, column 16: ", "not valid JSON: the text ends before the object does"},
        {"{\"kubeconfig\": \"/k\\\"{[,\",\n \"cpuWeight\": \"3\"}",
         "line 2, column 2: ", "field \"cpuWeight\": want"},
        {"{\"cpuWeight\": 1,\n   \"cpuWeight\": 2}",
         "line 2, column 4: ", "field \"cpuWeight\" appears more than once"},
        /* after parsing: the checks across keys name the keys and the first's place */
        {"{\"strategy\": \"pack\",\n \"cpuWeight\": 0, \"memoryWeight\": 0}",
         "line 2, column 2: ", "cpuWeight and memoryWeight: at least one must be above 0"},
        {"{\"tlsCert\": \"/c.pem\"}",
         "line 1, column 2: ", "tlsCert and tlsKey: give both or neither"},
        {"{\"connectionLimit\": 4, \"perIpConnectionLimit\": 8}",
         "line 1, column 24: ", "perIpConnectionLimit (8) must not exceed connectionLimit (4)"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct cfg c;
        char err[ERR_LEN];
        write_file(cases[i].text);
        ck_assert_int_ne(cfg_load_file_only(&c, f, err), 0);
        snprintf(want, sizeof(want), "config file %s: %s%s", f, cases[i].at, cases[i].says);
        ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "%s:\n got  %s\n want %s",
                      cases[i].text, err, want);
    }
    /* a value set by a flag is named by its flag, without the file */
    struct cfg c;
    char err[ERR_LEN];
    write_file("{\"cpuWeight\": 0}");
    char *argv[] = {"--config", path, "--memory-weight=0"};
    ck_assert_int_ne(load(&c, argv, 3, NULL, err), 0);
    ck_assert_str_eq(err, "cpu-weight and memory-weight: at least one must be above 0");
    unlink(f);
}
END_TEST

Suite *config_suite(void)
{
    Suite *s = suite_create("config");
    TCase *tc = tcase_create("config");
    tcase_add_test(tc, config_defaults_are_documented_values);
    tcase_add_test(tc, config_flags_win_over_env_over_file);
    tcase_add_test(tc, config_operations_options_in_every_layer);
    tcase_add_test(tc, config_file_from_environment);
    tcase_add_test(tc, config_invalid_flags_are_named);
    tcase_add_test(tc, config_invalid_file_fields_are_named);
    tcase_add_test(tc, config_service_link_variables_are_not_options);
    tcase_add_test(tc, config_listen_split_forms);
    tcase_add_test(tc, config_print_json_round_trips);
    tcase_add_test(tc, config_syntax_error_gives_line_and_column);
    tcase_add_test(tc, config_duplicate_key_is_refused);
    tcase_add_test(tc, config_given_tells_layers_from_defaults);
    tcase_add_test(tc, config_diff_names_changed_keys_by_kind);
    tcase_add_test(tc, config_scheduler_values_are_set_once);
    tcase_add_test(tc, config_scheduler_config_is_relative_to_its_file);
    tcase_add_test(tc, config_metrics_listen_is_checked);
    tcase_add_test(tc, config_usage_window);
    tcase_add_test(tc, config_in_flight_estimate);
    tcase_add_test(tc, config_file_errors_say_where_and_what);
    suite_add_tcase(s, tc);
    return s;
}

/*
 * usageProvider and the prometheus* options: their names in every layer
 * (prometheusURL and prometheusCAFile spelt as the API conventions spell
 * initialisms), their defaults, and validation that fails at start with
 * the option named (a provider without a URL, a URL that is not http(s),
 * a label that is not a label, half a client certificate, a file that
 * cannot be read, a query with a control character or too long).
 */
#include "config/config.h"

#include <check.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/suites.h"

static int load(struct cfg *c, char **argv, int argc, char **envp, char *err)
{
    int positional[2], n;
    err[0] = '\0';
    return cfg_load(c, argc, argv, envp, positional, 0, &n, err);
}

/* Loads the JSON config @json (written to a file); 0 or the error. */
static int load_json(struct cfg *c, const char *json, char *err)
{
    char path[64], arg[96];
    snprintf(path, sizeof(path), "/tmp/cpu-extender-prom-test-%d.json", (int)getpid());
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(json, f);
    fclose(f);
    snprintf(arg, sizeof(arg), "--config=%s", path);
    char *argv[] = {arg};
    int rc = load(c, argv, 1, NULL, err);
    unlink(path);
    return rc;
}

START_TEST(prometheus_defaults)
{
    struct cfg c;
    char err[ERR_LEN];
    ck_assert_int_eq(load(&c, NULL, 0, NULL, err), 0);
    ck_assert_str_eq(c.usage_provider, "metrics-api");
    ck_assert(!c.usage_prometheus);
    ck_assert_str_eq(c.prometheus_url, "");
    ck_assert_str_eq(c.prometheus_node_label, "instance");
    ck_assert_str_eq(c.prometheus_cpu_query, CFG_PROMETHEUS_CPU_QUERY);
    ck_assert_str_eq(c.prometheus_memory_query, CFG_PROMETHEUS_MEMORY_QUERY);
    ck_assert_int_eq(c.prometheus_timeout_seconds, 10);
    ck_assert_int_eq(c.prometheus_interval_seconds, 15);
    ck_assert_int_eq(cfg_usage_interval(&c), c.metrics_interval_seconds);
}
END_TEST

START_TEST(prometheus_every_layer)
{
    struct cfg c;
    char err[ERR_LEN];
    ck_assert_int_eq(load_json(&c,
                               "{\"usageProvider\":\"prometheus\",\"prometheusURL\":"
                               "\"https://prom.example:9090/prefix/\",\"prometheusCpuQuery\":"
                               "\"sum by (node) (rate(x[5m]))\",\"prometheusNodeLabel\":\"node\","
                               "\"prometheusIntervalSeconds\":30}",
                               err),
                     0);
    ck_assert(c.usage_prometheus);
    ck_assert_str_eq(c.prometheus_url, "https://prom.example:9090/prefix/");
    ck_assert_str_eq(c.prometheus_cpu_query, "sum by (node) (rate(x[5m]))");
    ck_assert_str_eq(c.prometheus_node_label, "node");
    ck_assert_int_eq(cfg_usage_interval(&c), 30);

    char *envp[] = {"CPU_EXTENDER_USAGE_PROVIDER=prometheus",
                    "CPU_EXTENDER_PROMETHEUS_URL=http://127.0.0.1:9090", NULL};
    char *argv[] = {"--prometheus-timeout-seconds=3", "--prometheus-memory-query",
                    "max by (instance) (m)"};
    ck_assert_int_eq(load(&c, argv, 3, envp, err), 0);
    ck_assert(c.usage_prometheus);
    ck_assert_str_eq(c.prometheus_url, "http://127.0.0.1:9090");
    ck_assert_int_eq(c.prometheus_timeout_seconds, 3);
    ck_assert_str_eq(c.prometheus_memory_query, "max by (instance) (m)");
    /* camelCase of the flag is not the key for these two */
    ck_assert_int_ne(load_json(&c, "{\"prometheusUrl\":\"http://a\"}", err), 0);
    ck_assert_msg(strstr(err, "prometheusURL") != NULL, "%s", err);
    ck_assert_int_ne(load_json(&c, "{\"prometheusCaFile\":\"/x\"}", err), 0);
    ck_assert_msg(strstr(err, "prometheusCAFile") != NULL, "%s", err);
}
END_TEST

START_TEST(prometheus_refused_with_the_option_named)
{
    static const struct {
        const char *json;
        const char *says;
    } rows[] = {
        {"{\"usageProvider\":\"prom\"}", "want metrics-api or prometheus"},
        {"{\"usageProvider\":\"prometheus\"}", "needs prometheusURL"},
        {"{\"prometheusURL\":\"ftp://x\"}", "prometheusURL \"ftp://x\""},
        {"{\"prometheusURL\":\"http://\"}", "want http://HOST"},
        {"{\"prometheusURL\":\"https:///x\"}", "want http://HOST"},
        {"{\"prometheusURL\":\"127.0.0.1:9090\"}", "want http://HOST"},
        /* a password would be in every log line naming the URL */
        {"{\"prometheusURL\":\"http://u:secret@prom:9090/\"}", "want no user or password"},
        {"{\"prometheusURL\":\"http://prom:9090/?x=1\"}", "'?' or '#'"},
        {"{\"usageProvider\":\"prometheus\",\"prometheusURL\":\"http://a\","
         "\"prometheusMemoryQuery\":\"   \"}",
         "must not be empty"},
        {"{\"prometheusNodeLabel\":\"9node\"}", "prometheusNodeLabel"},
        {"{\"prometheusNodeLabel\":\"node-name\"}", "prometheusNodeLabel"},
        {"{\"prometheusNodeLabel\":\"\"}", "prometheusNodeLabel"},
        {"{\"prometheusURL\":\"https://a\",\"prometheusClientCertFile\":\"/etc/hostname\"}",
         "set both or neither"},
        {"{\"prometheusURL\":\"http://a\",\"prometheusCAFile\":\"/etc/hostname\"}",
         "needs an https:// URL"},
        {"{\"usageProvider\":\"prometheus\",\"prometheusURL\":\"http://a\","
         "\"prometheusBearerTokenFile\":\"/nonexistent/token\"}",
         "prometheusBearerTokenFile: /nonexistent/token"},
        {"{\"usageProvider\":\"prometheus\",\"prometheusURL\":\"https://a\","
         "\"prometheusCAFile\":\"/tmp\"}",
         "prometheusCAFile"},
        {"{\"usageProvider\":\"prometheus\",\"prometheusURL\":\"http://a\","
         "\"prometheusCpuQuery\":\"\"}",
         "must not be empty"},
        {"{\"prometheusCpuQuery\":\"up\\n\"}", "control characters"},
        {"{\"prometheusTimeoutSeconds\":0}", "prometheusTimeoutSeconds"},
        {"{\"prometheusIntervalSeconds\":3601}", "prometheusIntervalSeconds"},
        /* the window's samples come at the provider's interval */
        {"{\"usageProvider\":\"prometheus\",\"prometheusURL\":\"http://a\","
         "\"prometheusIntervalSeconds\":60,\"usageWindowSeconds\":120,\"usageMinSamples\":3}",
         "prometheusIntervalSeconds (60)"},
    };
    struct cfg c;
    char err[ERR_LEN];
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        ck_assert_msg(load_json(&c, rows[i].json, err) != 0, "accepted: %s", rows[i].json);
        ck_assert_msg(strstr(err, rows[i].says) != NULL, "%s: %s", rows[i].json, err);
    }
    /* A query of 1023 bytes fits, 1024 does not. */
    char json[2 * CFG_QUERY_LEN];
    int n = snprintf(json, sizeof(json), "{\"prometheusCpuQuery\":\"");
    memset(json + n, 'a', CFG_QUERY_LEN - 1);
    snprintf(json + n + CFG_QUERY_LEN - 1, sizeof(json) - (size_t)n - CFG_QUERY_LEN + 1, "\"}");
    ck_assert_msg(load_json(&c, json, err) == 0, "%s", err);
    memset(json + n, 'a', CFG_QUERY_LEN);
    snprintf(json + n + CFG_QUERY_LEN, sizeof(json) - (size_t)n - CFG_QUERY_LEN, "\"}");
    ck_assert_int_ne(load_json(&c, json, err), 0);
    ck_assert_msg(strstr(err, "longer than 1023 bytes") != NULL, "%s", err);
}
END_TEST

Suite *prometheus_config_suite(void)
{
    Suite *s = suite_create("prometheus_config");
    TCase *tc = tcase_create("prometheus_config");
    tcase_add_test(tc, prometheus_defaults);
    tcase_add_test(tc, prometheus_every_layer);
    tcase_add_test(tc, prometheus_refused_with_the_option_named);
    suite_add_tcase(s, tc);
    return s;
}

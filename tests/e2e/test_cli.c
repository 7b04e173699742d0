/*
 * The commands as a user types them, against the real binary: every
 * command's --help, "-" for standard input wherever a file is taken,
 * `config check` (where a syntax error is, the file named in every
 * message, the files a config names, advice, repeated keys), and the
 * start-up and reload lines of the log (the mode, what changed, one key
 * style).
 */
#include <check.h>
#include <fcntl.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cjson/cJSON.h>

#include "tests/suites.h"
#include "tests/support/fixtures.h"
#include "tests/support/http_client.h"
#include "tests/support/server_proc.h"
#include "tests/support/skip.h"

static char dir[64];

static void setup(void)
{
    snprintf(dir, sizeof(dir), "/tmp/cpu-extender-cli-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}

/* What one run printed and how it ended. */
struct run {
    int status; /* exit status, -1 when killed */
    char *out, *err;
};

static void run_free(struct run *r)
{
    free(r->out);
    free(r->err);
}

/* Runs `sh -c "@cmd"` with BIN set to the binary under test, from the
 * repository root, without a cluster from the environment. */
static struct run run(const char *cmd)
{
    char full[4096], out[128], err[128];
    size_t len;
    snprintf(out, sizeof(out), "%s/out", dir);
    snprintf(err, sizeof(err), "%s/err", dir);
    snprintf(full, sizeof(full),
             "env -u KUBECONFIG -u KUBERNETES_SERVICE_HOST HOME=/nonexistent BIN='%s' "
             "sh -c '%s' >%s 2>%s",
             server_binary(), cmd, out, err);
    int rc = system(full);
    struct run r = {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, file_slurp(out, &len),
                    file_slurp(err, &len)};
    ck_assert_ptr_nonnull(r.out);
    ck_assert_ptr_nonnull(r.err);
    return r;
}

static const char *write_in_dir(const char *name, const char *text)
{
    static char path[4][128];
    static int next;
    char *p = path[next++ % 4];
    snprintf(p, 128, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    return p;
}

START_TEST(cli_every_command_has_help)
{
    static const struct {
        const char *cmd, *says;
    } cases[] = {
        {"$BIN --help", "Usage:"},
        {"$BIN serve --help", "Usage:"},
        {"$BIN serve --listen 127.0.0.1:1 --help", "Usage:"},
        {"$BIN --listen 127.0.0.1:1 --help", "Usage:"},
        {"$BIN probe --help", "Usage: cpu-extender probe"},
        {"$BIN probe --ready -h", "Usage: cpu-extender probe"},
        {"$BIN rank --help", "Usage: cpu-extender rank"},
        {"$BIN rank --pod x.json --help", "Usage: cpu-extender rank"},
        {"$BIN simulate --help", "Usage: cpu-extender simulate"},
        {"$BIN simulate --pods x.json --strategy all --help", "Usage: cpu-extender simulate"},
        {"$BIN config --help", "Usage: cpu-extender config check"},
        {"$BIN config check --help", "Usage: cpu-extender config check"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct run r = run(cases[i].cmd);
        ck_assert_msg(r.status == 0, "%s: exit %d: %s", cases[i].cmd, r.status, r.err);
        ck_assert_msg(strstr(r.out, cases[i].says) != NULL, "%s: %s", cases[i].cmd, r.out);
        ck_assert_msg(r.err[0] == '\0', "%s wrote to stderr: %s", cases[i].cmd, r.err);
        run_free(&r);
    }
}
END_TEST

START_TEST(cli_dash_reads_standard_input)
{
    /* config check - */
    struct run r = run("echo \"{\\\"strategy\\\": \\\"pack\\\"}\" | $BIN config check -");
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.err, "standard input: ok"));
    ck_assert_ptr_nonnull(strstr(r.out, "\"strategy\": \"pack\""));
    run_free(&r);
    r = run("printf \"{\\n  \\\"strategy\\\": }\" | $BIN config check -");
    ck_assert_int_eq(r.status, 2);
    ck_assert_msg(strstr(r.err, "config file standard input: line 2, column 15") != NULL, "%s",
                  r.err);
    run_free(&r);

    /* rank --pod - and rank --nodes -: the same answer as from files */
    const char *pod = write_in_dir(
        "pod.json", "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"web-0\","
                    "\"namespace\":\"default\"},\"spec\":{\"containers\":[{\"name\":\"app\","
                    "\"resources\":{\"requests\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}}}]}}");
    /* the NodeList of the README's filter example, as kubectl prints one */
    size_t len;
    char *filter = file_slurp("examples/filter.json", &len);
    cJSON *args = cJSON_Parse(filter);
    char *nodes = cJSON_Print(cJSON_GetObjectItem(args, "Nodes"));
    write_in_dir("nodes.json", nodes);
    free(nodes);
    cJSON_Delete(args);
    free(filter);
    char cmd[1024];
    snprintf(cmd, sizeof(cmd), "$BIN rank --pod %s --nodes %s/nodes.json", pod, dir);
    struct run files = run(cmd);
    ck_assert_msg(files.status == 0, "%s", files.err);
    ck_assert_ptr_nonnull(strstr(files.err, "best node: node-b"));
    snprintf(cmd, sizeof(cmd), "$BIN rank --pod - --nodes %s/nodes.json < %s", dir, pod);
    r = run(cmd);
    ck_assert_str_eq(r.out, files.out);
    ck_assert_str_eq(r.err, files.err);
    run_free(&r);
    snprintf(cmd, sizeof(cmd), "$BIN rank --pod %s --nodes - < %s/nodes.json", pod, dir);
    r = run(cmd);
    ck_assert_str_eq(r.out, files.out);
    /* the same but for where the nodes came from, which rank names */
    char from_file[256], *at = strstr(files.err, " nodes from ");
    snprintf(from_file, sizeof(from_file), " nodes from %s/nodes.json;", dir);
    ck_assert_msg(at != NULL && strncmp(at, from_file, strlen(from_file)) == 0, "%s", files.err);
    char *from_stdin = strstr(r.err, " nodes from standard input;");
    ck_assert_msg(from_stdin != NULL, "%s", r.err);
    ck_assert_int_eq(from_stdin - r.err, at - files.err);
    ck_assert_int_eq(strncmp(r.err, files.err, (size_t)(at - files.err)), 0);
    ck_assert_str_eq(from_stdin + strlen(" nodes from standard input;"), at + strlen(from_file));
    run_free(&r);
    /* one standard input, one file */
    snprintf(cmd, sizeof(cmd), "$BIN rank --pod - --nodes - < %s", pod);
    r = run(cmd);
    ck_assert_int_eq(r.status, 2);
    ck_assert_msg(strstr(r.err, "only one of --pod, --nodes and --existing can read standard "
                                "input") != NULL,
                  "%s", r.err);
    run_free(&r);
    run_free(&files);
}
END_TEST

/* serve --config -: read once at start; a reload cannot read it again and
 * says so instead of failing on an empty file. */
START_TEST(cli_serve_reads_its_config_from_standard_input)
{
    struct server_proc s;
    const char *cfg = write_in_dir("stdin.json", "{\"strategy\": \"pack\"}");
    int fd = open(cfg, O_RDONLY);
    ck_assert_int_ge(fd, 0);
    int saved = dup(STDIN_FILENO);
    dup2(fd, STDIN_FILENO); /* the child inherits it */
    const char *const args[] = {"--config", "-", NULL};
    server_start(&s, args);
    dup2(saved, STDIN_FILENO);
    close(saved);
    close(fd);
    struct http_response r;
    ck_assert_int_eq(http_request(s.port, "GET", "/version", NULL, 0, &r), 0);
    ck_assert_msg(strstr(r.body, "\"strategy\":\"pack\"") != NULL, "%s", r.body);
    http_response_free(&r);
    kill(s.pid, SIGHUP);
    cJSON *lines = NULL;
    bool skipped = false;
    for (int i = 0; i < 100 && !skipped; i++) {
        usleep(20000);
        cJSON_Delete(lines);
        lines = server_log_lines(&s);
        const cJSON *l;
        cJSON_ArrayForEach(l, lines) skipped |=
            strstr(cJSON_GetObjectItem(l, "msg")->valuestring,
                   "config reload skipped: the config file was standard input") != NULL;
    }
    cJSON_Delete(lines);
    ck_assert(skipped);
    ck_assert_int_eq(http_request(s.port, "GET", "/version", NULL, 0, &r), 0);
    ck_assert_msg(strstr(r.body, "\"strategy\":\"pack\"") != NULL, "%s", r.body);
    http_response_free(&r);
    ck_assert_int_eq(server_stop(&s), 0);
}
END_TEST

/* Every line `config check` writes to stderr names the file. */
static void assert_every_line_names(const char *err, const char *file)
{
    char *copy = strdup(err), *save = NULL;
    int lines = 0;
    for (char *l = strtok_r(copy, "\n", &save); l != NULL; l = strtok_r(NULL, "\n", &save)) {
        ck_assert_msg(strstr(l, file) != NULL, "a line without %s: %s", file, l);
        lines++;
    }
    ck_assert_int_gt(lines, 0);
    free(copy);
}

START_TEST(cli_config_check_names_the_file_in_every_message)
{
    static const struct {
        const char *text, *says;
        int status;
    } cases[] = {
        {"{\n  \"cpuWeight\": 3,\n  \"strategy\" \"pack\"\n}", "line 3, column 14: not valid JSON",
         2},
        {"{\"cpuWeight\": 3, \"cpuWeight\": 4}", "field \"cpuWeight\" appears more than once", 2},
        {"{\"cpuWeigth\": 3}", "unknown field \"cpuWeigth\"", 2},
        {"{\"cpuWeight\": 0, \"memoryWeight\": 0}", "at least one must be above 0", 2},
        {"{\"tlsCert\": \"/nonexistent/c.pem\"}", "line 1, column 2: tlsCert and tlsKey", 2},
        {"{\"idleTimeoutSeconds\": 60}",
         "warning: idleTimeoutSeconds 60 is not above kube-scheduler's 90 s keep-alive", 0},
        {"{\"listen\": \"0.0.0.0:8888\"}", "warning: listen 0.0.0.0:8888 is not loopback", 0},
        {"{\"strategy\": \"pack\"}", "warning: strategy pack with schedulerWeight 1", 0},
        {"{\"cpuUsedSource\": \"usage\", \"usageMaxAgeSeconds\": 10}",
         "warning: usageMaxAgeSeconds 10 is not above metricsIntervalSeconds 15", 0},
        {"{\"inFlightCpuFactor\": 0.5}",
         "warning: inFlightCpuFactor has no effect unless inFlightEstimate is factor", 0},
        {"{\"inFlightEstimate\": \"limits\"}",
         "warning: inFlightEstimate limits has no effect: no resource is scored on usage", 0},
        {"{}", "ok", 0},
    };
    char cmd[256];
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *f = write_in_dir("check.json", cases[i].text);
        snprintf(cmd, sizeof(cmd), "$BIN config check %s", f);
        struct run r = run(cmd);
        ck_assert_msg(r.status == cases[i].status, "%s: exit %d: %s", cases[i].text, r.status,
                      r.err);
        ck_assert_msg(strstr(r.err, cases[i].says) != NULL, "%s: %s", cases[i].text, r.err);
        assert_every_line_names(r.err, f);
        run_free(&r);
    }
}
END_TEST

/* config check --descheduler-policy: a warning (exit 0) per resource whose
 * threshold is above LowNodeUtilization's targetThresholds, with both
 * numbers, where the line is and the fix; in both policy versions; a note
 * and no warning for deviation thresholds; an error with line:column for
 * an invalid policy. Fixtures under tests/fixtures/descheduler. */
START_TEST(cli_config_check_descheduler_policy)
{
    static const struct {
        const char *config, *policy, *says, *not_says;
        int status;
    } cases[] = {
        /* cpu 80 above 50, memory 100 (the default) above 70 */
        {"{\"cpuThresholdPercent\": 80}", "v1alpha2.yaml",
         "warning: cpuThresholdPercent is 80 %, above the descheduler's LowNodeUtilization "
         "targetThresholds cpu of 50 % (profile default, tests/fixtures/descheduler/"
         "v1alpha2.yaml:16:20)",
         NULL, 0},
        {"{\"cpuThresholdPercent\": 80}", "v1alpha2.yaml",
         "set memoryThresholdPercent to 70 or less, or raise targetThresholds memory to 100", NULL,
         0},
        /* at or below the line: no warning */
        {"{\"cpuThresholdPercent\": 50, \"memoryThresholdPercent\": 70}", "v1alpha2.yaml", "ok",
         "warning", 0},
        /* v1alpha1, a decimal line: the fix is the whole percent below it */
        {"{\"cpuThresholdPercent\": 60}", "v1alpha1.yaml",
         "memoryThresholdPercent is 100 % (the default), above the descheduler's "
         "LowNodeUtilization targetThresholds memory of 80.5 % (strategies, "
         "tests/fixtures/descheduler/v1alpha1.yaml:15:21)",
         "cpuThresholdPercent is", 0},
        {"{}", "v1alpha1.yaml", "set memoryThresholdPercent to 80 or less", NULL, 0},
        /* v1alpha1 without enabled: true never runs: a note, no warning */
        {"{\"cpuThresholdPercent\": 90}", "v1alpha1-not-enabled.yaml",
         "is configured but not enabled", "warning", 0},
        /* enabled: yes is YAML 1.1's true; 0x32 is no decimal percent */
        {"{}", "hex.yaml",
         "descheduler policy tests/fixtures/descheduler/hex.yaml:10:18: "
         "targetThresholds.cpu: want a percent from 0 to 100",
         NULL, 2},
        /* a line below 1 %: only raising theirs is advised */
        {"{\"cpuThresholdPercent\": 90}", "below-one.yaml",
         "and scheduling (koordinator#2477); raise targetThresholds cpu to 90",
         "set cpuThresholdPercent", 0},
        {"{\"cpuThresholdPercent\": 90}", "deviation.yaml",
         "uses useDeviationThresholds: its targetThresholds are relative to the mean", "warning",
         0},
        {"{}", "invalid.yaml",
         "descheduler policy tests/fixtures/descheduler/invalid.yaml:9:20: "
         "targetThresholds.cpu: want a percent from 0 to 100",
         NULL, 2},
        {"{}", "broken.yaml",
         "descheduler policy tests/fixtures/descheduler/broken.yaml:4:3: YAML error", NULL, 2},
        {"{}", "missing.yaml",
         "descheduler policy: tests/fixtures/descheduler/missing.yaml: No such file", NULL, 2},
    };
    char cmd[256];
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *f = write_in_dir("check.json", cases[i].config);
        snprintf(cmd, sizeof(cmd),
                 "$BIN config check %s --descheduler-policy tests/fixtures/descheduler/%s", f,
                 cases[i].policy);
        struct run r = run(cmd);
        ck_assert_msg(r.status == cases[i].status, "%s: exit %d: %s", cmd, r.status, r.err);
        ck_assert_msg(strstr(r.err, cases[i].says) != NULL, "%s: %s", cmd, r.err);
        ck_assert_msg(cases[i].not_says == NULL || strstr(r.err, cases[i].not_says) == NULL,
                      "%s: %s", cmd, r.err);
        assert_every_line_names(r.err, f);
        run_free(&r);
    }
    /* the option's other spelling, before FILE; and bad usage */
    const char *f = write_in_dir("check.json", "{}");
    snprintf(cmd, sizeof(cmd),
             "$BIN config check --descheduler-policy=tests/fixtures/descheduler/v1alpha2.yaml %s",
             f);
    struct run r = run(cmd);
    ck_assert_int_eq(r.status, 0);
    ck_assert_msg(strstr(r.err, "cpuThresholdPercent is 100 % (the default)") != NULL, "%s", r.err);
    run_free(&r);
    r = run("$BIN config check --descheduler-policy");
    ck_assert_int_eq(r.status, 2);
    ck_assert_msg(strstr(r.err, "usage: cpu-extender config check FILE [--descheduler-policy") !=
                      NULL,
                  "%s", r.err);
    run_free(&r);
}
END_TEST

/* The files a config names must be there and readable: TLS, client CA,
 * every kubeconfig, the scheduler's file. */
START_TEST(cli_config_check_reads_the_files_it_names)
{
    char text[1024], cmd[256];
    const char *present = write_in_dir("present.pem", "x");
    snprintf(text, sizeof(text),
             "{\"tlsCert\": \"%s\", \"tlsKey\": \"%s/missing.key\", \"clientCa\": \"%s\", "
             "\"kubeconfig\": \"%s:%s/gone.yaml\", \"schedulerConfig\": \"%s\"}",
             present, dir, dir, present, dir, present);
    const char *f = write_in_dir("files.json", text);
    snprintf(cmd, sizeof(cmd), "$BIN config check %s", f);
    struct run r = run(cmd);
    ck_assert_int_eq(r.status, 2);
    char want[512];
    /* each at its key's line and column */
    snprintf(want, sizeof(want), "%s: line 1, column ", f);
    ck_assert_msg(strstr(r.err, want) != NULL, "%s", r.err);
    snprintf(want, sizeof(want), ": tlsKey %s/missing.key: No such file or directory", dir);
    ck_assert_msg(strstr(r.err, want) != NULL, "%s", r.err);
    snprintf(want, sizeof(want), ": clientCa %s: a directory, not a file", dir);
    ck_assert_msg(strstr(r.err, want) != NULL, "%s", r.err);
    snprintf(want, sizeof(want), ": kubeconfig %s/gone.yaml: No such file", dir);
    ck_assert_msg(strstr(r.err, want) != NULL, "%s", r.err);
    ck_assert_msg(strstr(r.err, "tlsCert") == NULL, "the cert is there: %s", r.err);
    assert_every_line_names(r.err, f);
    run_free(&r);
}
END_TEST

/* The start-up lines state the mode (and the scoring settings); a reload
 * says which keys changed and which wait for a restart; every key of every
 * line is camelCase (server_log_lines checks). */
START_TEST(cli_log_lines_state_mode_and_changes)
{
    struct server_proc s;
    const char *f = write_in_dir("live.json", "{\"mode\": \"shadow\"}");
    const char *const args[] = {"--config", f, NULL};
    server_start(&s, args);
    char next[128];
    snprintf(next, sizeof(next), "%s/live.json.new", dir);
    FILE *o = fopen(next, "w");
    ck_assert_ptr_nonnull(o);
    /* (listen is a flag of server_start: flags win over the file) */
    fputs("{\"mode\": \"enforce\", \"cpuWeight\": 5, \"idleTimeoutSeconds\": 200}", o);
    fclose(o);
    ck_assert_int_eq(rename(next, f), 0);
    cJSON *lines = NULL;
    const cJSON *reloaded = NULL, *restart = NULL, *started = NULL;
    for (int i = 0; i < 150 && restart == NULL; i++) {
        usleep(20000);
        cJSON_Delete(lines);
        lines = server_log_lines(&s);
        const cJSON *l;
        cJSON_ArrayForEach(l, lines)
        {
            const char *msg = cJSON_GetObjectItem(l, "msg")->valuestring;
            if (strcmp(msg, "config reloaded") == 0)
                reloaded = l;
            if (strcmp(msg, "these settings take effect at the next restart") == 0)
                restart = l;
            if (strcmp(msg, "request-only mode: no cluster connection") == 0)
                started = l;
        }
    }
    ck_assert_ptr_nonnull(started);
    ck_assert_str_eq(cJSON_GetObjectItem(started, "mode")->valuestring, "shadow");
    ck_assert_int_eq(cJSON_GetObjectItem(started, "cpuWeight")->valueint, 3);
    ck_assert_ptr_nonnull(reloaded);
    ck_assert_str_eq(cJSON_GetObjectItem(reloaded, "mode")->valuestring, "enforce");
    ck_assert_str_eq(cJSON_GetObjectItem(reloaded, "changed")->valuestring, "cpuWeight,mode");
    ck_assert_ptr_nonnull(restart);
    ck_assert_str_eq(cJSON_GetObjectItem(restart, "keys")->valuestring, "idleTimeoutSeconds");
    cJSON_Delete(lines);
    ck_assert_int_eq(server_stop(&s), 0);
}
END_TEST

/* Exit statuses as a command's --help or the man page lists them. */
struct statuses {
    int n;
    int code[8];
    char meaning[8][200];
};

/* The "  N  meaning" lines after "Exit status:" in @help. */
static void help_statuses(const char *help, struct statuses *st)
{
    const char *p = strstr(help, "\nExit status:\n");
    st->n = 0;
    ck_assert_msg(p != NULL, "no \"Exit status:\" in --help (%.200s...)", help);
    p += strlen("\nExit status:\n");
    int code, len;
    while (st->n < 8 && sscanf(p, "  %d  %n", &code, &len) == 1 && p[0] == ' ') {
        const char *end = strchr(p, '\n');
        ck_assert_ptr_nonnull(end);
        st->code[st->n] = code;
        snprintf(st->meaning[st->n], sizeof(st->meaning[0]), "%.*s", (int)(end - p - len), p + len);
        st->n++;
        p = end + 1;
    }
}

/* The ".B N" and text pairs under ".SS @cmd" of the man page's EXIT
 * STATUS. */
static void man_statuses(const char *page, const char *cmd, struct statuses *st)
{
    char head[64];
    const char *p = strstr(page, "\n.SH EXIT STATUS\n");
    st->n = 0;
    ck_assert_ptr_nonnull(p);
    snprintf(head, sizeof(head), "\n.SS %s\n", cmd);
    p = strstr(p, head);
    ck_assert_msg(p != NULL, "the man page's EXIT STATUS has no %s", cmd);
    p += strlen(head);
    while (st->n < 8 && strncmp(p, ".TP\n.B ", 7) == 0) {
        const char *text = strchr(p + 4, '\n');
        ck_assert_ptr_nonnull(text);
        const char *end = strchr(text + 1, '\n');
        ck_assert_ptr_nonnull(end);
        st->code[st->n] = atoi(p + 7);
        snprintf(st->meaning[st->n], sizeof(st->meaning[0]), "%.*s", (int)(end - text - 1),
                 text + 1);
        st->n++;
        p = end + 1;
    }
}

/* A loopback TCP socket bound to a free port (listening when @listen): a
 * port taken, or one where nothing answers. */
static int bound_socket(bool listening, int *port)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(a);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    if (listening)
        ck_assert_int_eq(listen(fd, 1), 0);
    ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    *port = ntohs(a.sin_port);
    return fd;
}

/* issue 24 item 6, issue 23 item 10: one list of exit statuses per
 * command. What --help prints is what the man page says, and every status
 * listed is what the binary does in a case of it (a full standard output
 * included: 1, whatever the command would have said). */
START_TEST(cli_exit_statuses_agree_in_help_man_page_and_behaviour)
{
    if (access("/dev/full", W_OK) != 0) {
        test_skip("no writable /dev/full to fill standard output with");
        return;
    }
    size_t len;
    char *page = file_slurp("docs/cpu-extender.1", &len);
    ck_assert_ptr_nonnull(page);
    const char *pod = write_in_dir(
        "small.json",
        "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"a\",\"namespace\":\"default\"},"
        "\"spec\":{\"containers\":[{\"resources\":{\"requests\":{\"cpu\":\"100m\"}}}]}}");
    const char *big = write_in_dir(
        "big.json",
        "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"b\",\"namespace\":\"default\"},"
        "\"spec\":{\"containers\":[{\"resources\":{\"requests\":{\"cpu\":\"1000\"}}}]}}");
    const char *good = write_in_dir("good.json", "{}");
    const char *bad = write_in_dir("bad.json", "{\"cpuWieght\": 3}");
    static const char *const commands[] = {"serve", "probe", "rank", "simulate", "config"};
    struct statuses helps[5];
    for (size_t c = 0; c < sizeof(commands) / sizeof(commands[0]); c++) {
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "$BIN %s --help", commands[c]);
        struct run h = run(cmd);
        struct statuses man;
        help_statuses(h.out, &helps[c]);
        run_free(&h);
        man_statuses(page, commands[c], &man);
        const struct statuses help = helps[c];
        ck_assert_msg(help.n > 0 && help.n == man.n,
                      "%s: %d statuses in --help, %d in the man page", commands[c], help.n, man.n);
        for (int i = 0; i < help.n; i++) {
            ck_assert_msg(help.code[i] == man.code[i] &&
                              strcmp(help.meaning[i], man.meaning[i]) == 0,
                          "%s: --help says %d %s, the man page %d %s", commands[c], help.code[i],
                          help.meaning[i], man.code[i], man.meaning[i]);
        }
    }
    /* the cases, with a server for the probes */
    struct server_proc srv;
    server_start(&srv, NULL);
    int taken_port, silent_port;
    int taken = bound_socket(true, &taken_port), silent = bound_socket(false, &silent_port);
    const char *nodes = "--nodes examples/cluster/nodes.json";
    char cases[22][512];
    int codes[22], n = 0;
    const char *cmds[22];
#define CASE(cmd, code, ...)                                                                       \
    do {                                                                                           \
        snprintf(cases[n], sizeof(cases[n]), __VA_ARGS__);                                         \
        cmds[n] = (cmd);                                                                           \
        codes[n++] = (code);                                                                       \
    } while (0)
    CASE("serve", 1, "timeout 30 $BIN --listen 127.0.0.1:%d", taken_port);
    CASE("serve", 2, "$BIN --no-such-flag");
    CASE("probe", 0, "$BIN probe --listen 127.0.0.1:%d", srv.port);
    CASE("probe", 1, "$BIN probe --listen 127.0.0.1:%d", silent_port);
    CASE("probe", 2, "$BIN probe --no-such-flag");
    CASE("rank", 0, "$BIN rank --pod %s %s", pod, nodes);
    CASE("rank", 1, "$BIN rank --pod %s %s", big, nodes);
    CASE("rank", 1, "$BIN rank --pod %s %s >/dev/full", pod, nodes);
    CASE("rank", 2, "$BIN rank --pod %s/none.json %s", dir, nodes);
    CASE("simulate", 0, "$BIN simulate --pods %s %s", pod, nodes);
    CASE("simulate", 3, "$BIN simulate --pods %s %s", big, nodes);
    CASE("simulate", 1, "$BIN simulate --pods %s %s >/dev/full", big, nodes);
    CASE("simulate", 2, "$BIN simulate --pods %s/none.json %s", dir, nodes);
    CASE("config", 0, "$BIN config check %s", good);
    CASE("config", 1, "$BIN config check %s >/dev/full", good);
    CASE("config", 2, "$BIN config check %s", bad);
#undef CASE

    for (size_t c = 0; c < sizeof(commands) / sizeof(commands[0]); c++) {
        const struct statuses help = helps[c];
        unsigned seen = 0;
        for (int k = 0; k < n; k++) {
            if (strcmp(cmds[k], commands[c]) != 0)
                continue;
            struct run r = run(cases[k]);
            ck_assert_msg(r.status == codes[k], "%s: exit %d, want %d: %s", cases[k], r.status,
                          codes[k], r.err);
            int listed = 0;
            while (listed < help.n && help.code[listed] != codes[k])
                listed++;
            ck_assert_msg(listed < help.n, "%s: exit %d is not in %s --help", cases[k], codes[k],
                          commands[c]);
            seen |= 1u << listed;
            if (strstr(cases[k], "/dev/full") != NULL)
                ck_assert_msg(strstr(r.err, "cannot write standard output") != NULL, "%s: %s",
                              cases[k], r.err);
            if (strstr(cases[k], "timeout 30") != NULL) {
                char want[64];
                snprintf(want, sizeof(want), "127.0.0.1:%d: address already in use", taken_port);
                ck_assert_msg(strstr(r.err, want) != NULL, "%s", r.err);
            }
            run_free(&r);
        }
        /* serve's 0 is a stop by SIGTERM: the probes' server's, below */
        if (strcmp(commands[c], "serve") == 0) {
            ck_assert_int_eq(help.code[0], 0);
            seen |= 1u;
        }
        ck_assert_msg(seen == (1u << help.n) - 1, "%s: a status of --help has no case here",
                      commands[c]);
    }
    ck_assert_int_eq(server_stop(&srv), 0);
    struct run r = run("$BIN --help >/dev/full");
    ck_assert_int_eq(r.status, 1);
    run_free(&r);
    close(taken);
    close(silent);
    free(page);
}
END_TEST

/* issue 24: simulate takes --flag=value too, and counts in words. */
START_TEST(cli_simulate_takes_flag_equals_and_counts_one_as_one)
{
    const char *pod = write_in_dir(
        "one.json",
        "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"a\",\"namespace\":\"default\"},"
        "\"spec\":{\"containers\":[{\"resources\":{\"requests\":{\"cpu\":\"100m\"}}}]}}");
    char cmd[512];
    snprintf(cmd, sizeof(cmd),
             "$BIN simulate --pods=%s --nodes=examples/cluster/nodes.json --strategy=pack", pod);
    struct run r = run(cmd);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_msg(strstr(r.out, "\n1 pod to place from ") != NULL, "%s", r.out);
    ck_assert_msg(strstr(r.out, "20 nodes from examples/cluster/nodes.json") != NULL, "%s", r.out);
    run_free(&r);
    snprintf(cmd, sizeof(cmd), "$BIN simulate --pods %s --strategy", pod);
    r = run(cmd);
    ck_assert_int_eq(r.status, 2);
    ck_assert_str_eq(r.err, "cpu-extender simulate: flag --strategy needs a value\n");
    run_free(&r);
}
END_TEST

Suite *cli_suite(void)
{
    Suite *s = suite_create("cli");
    TCase *tc = tcase_create("cli");
    tcase_set_timeout(tc, 60);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, cli_every_command_has_help);
    tcase_add_test(tc, cli_dash_reads_standard_input);
    tcase_add_test(tc, cli_serve_reads_its_config_from_standard_input);
    tcase_add_test(tc, cli_config_check_names_the_file_in_every_message);
    tcase_add_test(tc, cli_config_check_reads_the_files_it_names);
    tcase_add_test(tc, cli_config_check_descheduler_policy);
    tcase_add_test(tc, cli_log_lines_state_mode_and_changes);
    tcase_add_test(tc, cli_exit_statuses_agree_in_help_man_page_and_behaviour);
    tcase_add_test(tc, cli_simulate_takes_flag_equals_and_counts_one_as_one);
    suite_add_tcase(s, tc);
    return s;
}

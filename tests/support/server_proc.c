#include "tests/support/server_proc.h"

#include <check.h>
#include <stdbool.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "tests/support/fixtures.h"

const char *server_binary(void)
{
    const char *b = getenv("TEST_BINARY");
    return b != NULL && b[0] != '\0' ? b : "build/release/cpu-extender";
}

static int find_port(const char *log_path)
{
    char line[1024];
    int port = 0;
    FILE *f = fopen(log_path, "r");
    if (f == NULL)
        return 0;
    while (fgets(line, sizeof(line), f) != NULL) {
        /* {"time":...,"msg":"listening","addr":"127.0.0.1:PORT",...} */
        static const char key[] = "\"msg\":\"listening\",\"addr\":\"";
        const char *a = strstr(line, key);
        if (a == NULL)
            continue;
        a += strlen(key);
        const char *end = strchr(a, '"');
        const char *colon = end != NULL ? memrchr(a, ':', (size_t)(end - a)) : NULL;
        if (colon != NULL)
            port = atoi(colon + 1);
    }
    fclose(f);
    return port;
}

void server_start(struct server_proc *s, const char *const *extra_args)
{
    server_start_at(s, "127.0.0.1:0", extra_args);
}

static void start(struct server_proc *s, const char *listen, const struct server_limits *lim,
                  const char *const *extra_args);

void server_start_at(struct server_proc *s, const char *listen, const char *const *extra_args)
{
    start(s, listen, NULL, extra_args);
}

void server_start_limited(struct server_proc *s, const struct server_limits *lim,
                          const char *const *extra_args)
{
    start(s, "127.0.0.1:0", lim, extra_args);
}

/* In the child, before exec: the cgroup and the address-space limit. */
static void apply_limits(const struct server_limits *lim)
{
    if (lim == NULL)
        return;
    if (lim->cgroup_procs != NULL) {
        FILE *f = fopen(lim->cgroup_procs, "w");
        if (f == NULL || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f) != 0)
            _exit(126);
    }
    if (lim->as_bytes != 0) {
        struct rlimit r = {lim->as_bytes, lim->as_bytes};
        if (setrlimit(RLIMIT_AS, &r) != 0)
            _exit(126);
    }
}

static void start(struct server_proc *s, const char *listen, const struct server_limits *lim,
                  const char *const *extra_args)
{
    const char *argv[32] = {server_binary(), "--listen", listen};
    int argc = 3;
    for (const char *const *a = extra_args; a != NULL && *a != NULL && argc < 31; a++)
        argv[argc++] = *a;
    argv[argc] = NULL;

    snprintf(s->log_path, sizeof(s->log_path), "/tmp/cpu-extender-e2e-%d-%ld.log", (int)getpid(),
             (long)time(NULL));
    s->port = 0;
    s->pid = fork();
    ck_assert_int_ne(s->pid, -1);
    if (s->pid == 0) {
        /* Only the cluster a test names: never one from the environment. */
        unsetenv("KUBECONFIG");
        unsetenv("KUBERNETES_SERVICE_HOST");
        setenv("HOME", "/nonexistent", 1); /* no ~/.kube/config either */
        int fd = open(s->log_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        dup2(fd, STDERR_FILENO);
        apply_limits(lim);
        execv(argv[0], (char *const *)(void *)argv);
        _exit(127);
    }
    for (int i = 0; i < 1000 && s->port == 0; i++) {
        int status;
        if (waitpid(s->pid, &status, WNOHANG) == s->pid)
            ck_abort_msg("%s exited before listening (see %s)", argv[0], s->log_path);
        usleep(10000);
        s->port = find_port(s->log_path);
    }
    ck_assert_msg(s->port > 0, "no listening line in %s", s->log_path);
}

int server_stop(struct server_proc *s)
{
    int status = 0;
    kill(s->pid, SIGTERM);
    for (int i = 0; i < 1000; i++) {
        if (waitpid(s->pid, &status, WNOHANG) == s->pid) {
            unlink(s->log_path);
            return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        }
        usleep(10000);
    }
    kill(s->pid, SIGKILL);
    waitpid(s->pid, &status, 0);
    return -1;
}

cJSON *server_log_lines(const struct server_proc *s)
{
    size_t len;
    char *log = file_slurp(s->log_path, &len);
    ck_assert_msg(log != NULL, "cannot read %s", s->log_path);
    cJSON *lines = cJSON_CreateArray();
    for (char *line = strtok(log, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        cJSON *j = cJSON_Parse(line);
        ck_assert_msg(cJSON_IsObject(j), "log line is not a JSON object: %s", line);
        for (const char *const *k = (const char *const[]){"time", "level", "msg", NULL}; *k; k++)
            ck_assert_msg(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j, *k)), "no %s: %s", *k,
                          line);
        /* One key style in every line: camelCase, as the config keys. */
        const cJSON *field;
        cJSON_ArrayForEach(field, j)
        {
            const char *k = field->string;
            bool camel = k[0] >= 'a' && k[0] <= 'z';
            for (const char *c = k; camel && *c != '\0'; c++)
                camel = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                        (*c >= '0' && *c <= '9');
            ck_assert_msg(camel, "log key \"%s\" is not camelCase: %s", k, line);
        }
        cJSON_AddItemToArray(lines, j);
    }
    free(log);
    return lines;
}

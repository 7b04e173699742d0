/* Files for `cpu-extender simulate` tests: see sim_files.h. */
#include "tests/support/sim_files.h"

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/support/fixtures.h"
#include "tests/support/server_proc.h"

void sim_dir_make(struct simdir *d)
{
    snprintf(d->path, sizeof(d->path), "/tmp/simulate-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(d->path));
}

void sim_dir_remove(struct simdir *d)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d->path);
    ck_assert_int_eq(system(cmd), 0);
}

const char *sim_path(const struct simdir *d, const char *name, char *buf, size_t n)
{
    snprintf(buf, n, "%s/%s", d->path, name);
    return buf;
}

void sim_put(const struct simdir *d, const char *name, const char *text)
{
    char path[128];
    FILE *f = fopen(sim_path(d, name, path, sizeof(path)), "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

int sim_run(const struct simdir *d, char **out, char **err, const char *fmt, ...)
{
    char args[1024], cmd[6144];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof(args), fmt, ap);
    va_end(ap);
    /* the binary's path may be relative to the repository root; the run is in @d */
    char abs[4096];
    ck_assert_ptr_nonnull(realpath(server_binary(), abs));
    snprintf(cmd, sizeof(cmd),
             "cd '%s' && env -u KUBECONFIG -u KUBERNETES_SERVICE_HOST HOME=/nonexistent '%s' "
             "simulate %s >stdout 2>stderr",
             d->path, abs, args);
    int rc = system(cmd);
    ck_assert_msg(WIFEXITED(rc), "%s: killed", cmd);
    char path[128];
    size_t len;
    *out = file_slurp(sim_path(d, "stdout", path, sizeof(path)), &len);
    *err = file_slurp(sim_path(d, "stderr", path, sizeof(path)), &len);
    return WEXITSTATUS(rc);
}

/* The CSV row of @pod under @strategy in @csv: "node,value,score". */
void sim_expect_row(const char *csv, const char *strategy, const char *pod, const char *want)
{
    char key[128], line[256];
    snprintf(key, sizeof(key), "\n%s,%s,", strategy, pod);
    const char *p = strstr(csv, key);
    ck_assert_msg(p != NULL, "no row for %s %s in:\n%s", strategy, pod, csv);
    p += strlen(key);
    size_t n = strcspn(p, "\n");
    snprintf(line, sizeof(line), "%.*s", (int)n, p);
    ck_assert_msg(strcmp(line, want) == 0, "%s %s: got %s, want %s", strategy, pod, line, want);
}

char *sim_read(const struct simdir *d, const char *name)
{
    char path[128];
    size_t len;
    return file_slurp(sim_path(d, name, path, sizeof(path)), &len);
}

bool sim_exists(const struct simdir *d, const char *name)
{
    char path[128];
    struct stat st;
    return stat(sim_path(d, name, path, sizeof(path)), &st) == 0;
}

/* A Node object as kubectl prints it, with only what the model reads. */
char *sim_node_json(const char *name, const char *cpu, const char *mem, const char *pods,
                    const char *labels, const char *spec)
{
    char *s;
    ck_assert_int_ge(asprintf(&s,
                              "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":"
                              "\"%s\",\"labels\":{%s}},\"spec\":{%s},\"status\":{\"allocatable\":"
                              "{\"cpu\":\"%s\",\"memory\":\"%s\",\"pods\":\"%s\"}}}",
                              name, labels, spec, cpu, mem, pods),
                     0);
    return s;
}

/* A pending pod with one container requesting @cpu and @mem, and @spec
 * members before it (with their comma). */
char *sim_pod_json(const char *name, const char *cpu, const char *mem, const char *spec)
{
    char *s;
    ck_assert_int_ge(asprintf(&s,
                              "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":"
                              "\"%s\",\"namespace\":\"t\"},\"spec\":{%s\"containers\":[{\"name\":"
                              "\"c\",\"resources\":{\"requests\":{\"cpu\":\"%s\",\"memory\":"
                              "\"%s\"}}}]},\"status\":{\"phase\":\"Pending\"}}",
                              name, spec, cpu, mem),
                     0);
    return s;
}

/* A List of @n objects (taken and freed). */
char *sim_list(size_t n, ...)
{
    size_t cap = 64, len = 0;
    char *out = malloc(cap);
    va_list ap;
    va_start(ap, n);
    len += (size_t)sprintf(out, "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[");
    for (size_t i = 0; i < n; i++) {
        char *item = va_arg(ap, char *);
        size_t k = strlen(item);
        out = realloc(out, cap = len + k + 64);
        len += (size_t)sprintf(out + len, "%s%s", i ? ",\n" : "\n", item);
        free(item);
    }
    va_end(ap);
    sprintf(out + len, "]}\n");
    return out;
}

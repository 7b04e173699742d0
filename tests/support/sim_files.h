/*
 * Files for the tests of `cpu-extender simulate` (the real binary): a
 * directory per test, Node and Pod objects as kubectl prints them (only
 * what the placement model reads), Lists of them, a run of the binary with
 * its output, and the placements CSV's rows.
 */
#ifndef TESTS_SUPPORT_SIM_FILES_H
#define TESTS_SUPPORT_SIM_FILES_H

#include <stdbool.h>
#include <stddef.h>

/* A directory of one test's files. */
struct simdir {
    char path[64];
};

/* A new directory under /tmp, and its removal with what it holds. */
void sim_dir_make(struct simdir *d);
void sim_dir_remove(struct simdir *d);

/* @name's path in @d, in @buf. */
const char *sim_path(const struct simdir *d, const char *name, char *buf, size_t n);

/* Writes @text to @name in @d. */
void sim_put(const struct simdir *d, const char *name, const char *text);

/* @name of @d, read whole (malloc'd), and whether it exists. */
char *sim_read(const struct simdir *d, const char *name);
bool sim_exists(const struct simdir *d, const char *name);

/* Runs `cpu-extender simulate` in @d with @args (printf-style; file names
 * are relative to @d); stdout in *@out, stderr in *@err (malloc'd).
 * Returns the exit status. */
int sim_run(const struct simdir *d, char **out, char **err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Asserts the CSV row of @pod under @strategy in @csv: "node,value,score". */
void sim_expect_row(const char *csv, const char *strategy, const char *pod, const char *want);

/* A Node object with only what the model reads (malloc'd): allocatable
 * @cpu, @mem and @pods, @labels and @spec members (each "" for none). */
char *sim_node_json(const char *name, const char *cpu, const char *mem, const char *pods,
                    const char *labels, const char *spec);

/* A pending pod of namespace t with one container requesting @cpu and
 * @mem, and @spec members before it (with their comma). */
char *sim_pod_json(const char *name, const char *cpu, const char *mem, const char *spec);

/* A List of @n objects (char *, taken and freed). */
char *sim_list(size_t n, ...);

#endif

/*
 * The real cpu-extender binary ($TEST_BINARY, else build/release/
 * cpu-extender) as a child process on an ephemeral loopback port.
 */
#ifndef TESTS_SUPPORT_SERVER_PROC_H
#define TESTS_SUPPORT_SERVER_PROC_H

#include <sys/types.h>

struct server_proc {
    pid_t pid;
    int port;
    char log_path[128]; /* the child's stderr */
};

/* Starts the binary with "--listen 127.0.0.1:0" and the NULL-terminated
 * @extra_args, and waits (up to 10 s) for its "listening" line.
 * Fails the test when it does not come up. */
void server_start(struct server_proc *s, const char *const *extra_args);

/* The same on @listen (e.g. "[::1]:0"). */
void server_start_at(struct server_proc *s, const char *listen, const char *const *extra_args);

/* What a child is started under besides its arguments. */
struct server_limits {
    const char *cgroup_procs;    /* "…/cgroup.procs" to join before exec, or NULL */
    unsigned long long as_bytes; /* RLIMIT_AS, or 0 */
};

/* server_start() under @lim: the child joins the cgroup and sets its limit
 * before it runs the binary (it fails the test when it cannot). */
void server_start_limited(struct server_proc *s, const struct server_limits *lim,
                          const char *const *extra_args);

/* Sends SIGTERM and waits; returns the exit status (-1 when killed). */
int server_stop(struct server_proc *s);

/* Every line of the server's log, parsed, in order, as a JSON array (the
 * caller deletes it). Fails the test when a line is not one JSON object
 * with string time, level and msg: the log's one format. */
struct cJSON *server_log_lines(const struct server_proc *s);

/* Path of the binary under test. */
const char *server_binary(void);

#endif

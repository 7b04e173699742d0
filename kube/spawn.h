/*
 * Running a program without a shell, for the credential plugins of
 * kube/exec.c: posix_spawn (safe in a process with threads, where a fork
 * may only call async-signal-safe functions before exec), standard input
 * from /dev/null, every descriptor but 0, 1 and 2 closed in the child,
 * every signal unblocked and back to its default (the service blocks
 * SIGTERM and ignores SIGPIPE, and a child would inherit both), a process
 * group of its own (so that what it started is ended with it, at its end
 * or at the deadline), standard output and error collected up to bounds.
 * The service runs as PID 1 in its image, with no init: children a plugin
 * leaves behind come to us when it exits, so they are killed and reaped
 * here, and kube_spawn_reap_orphans() reaps any that escaped the group.
 */
#ifndef KUBE_SPAWN_H
#define KUBE_SPAWN_H

#include <stdbool.h>
#include <stddef.h>

/* How long what a run left behind has between SIGTERM and SIGKILL. */
#define KUBE_SPAWN_GRACE_MS 200

/* Bytes of standard error kept; the rest is read and dropped. */
#define KUBE_SPAWN_STDERR_MAX 4096

/* What a run gave. */
struct kube_spawn_out {
    char *out; /* standard output, malloc'd, NUL-terminated; NULL when empty */
    size_t out_len;
    char err_text[KUBE_SPAWN_STDERR_MAX + 1]; /* the start of standard error */
    int status;                               /* waitpid(2) status */
    bool timed_out;                           /* killed (with its process group) at the deadline */
    bool out_too_big;                         /* killed when standard output passed the bound */
};

/*
 * Runs @file (a path when it has a '/', else looked up in this process's
 * PATH, as execvp does) with @argv (argv[0] first, NULL-terminated) and
 * exactly the environment @envp (NULL-terminated), and waits for it: at
 * most @timeout_ms, and at most @out_max bytes of standard output. Once
 * the program has exited, output still held open by something it left
 * running is not waited for. When it has ended (or is killed), its process
 * group gets SIGTERM and, after KUBE_SPAWN_GRACE_MS, SIGKILL, and its
 * members that are our children are reaped. Returns 0 when it was started and has ended
 * (see @res for how), -ENOENT when there is no such program, -EACCES when
 * it is not executable, -E2BIG when its arguments and environment are
 * over the kernel's limit, -ENOMEM or another negative errno when it could
 * not be started or watched. On failure @res holds nothing to free.
 * Thread-safe; nothing else in the process may reap children with
 * waitpid(-1): kube_spawn_reap_orphans() does it without taking a run's.
 */
int kube_spawn_run(const char *file, char *const argv[], char *const envp[], int timeout_ms,
                   size_t out_max, struct kube_spawn_out *res);

/*
 * Makes this process the reaper of its orphaned descendants
 * (PR_SET_CHILD_SUBREAPER), as PID 1 is: what a plugin leaves running
 * comes to us, not to an init that may not exist, and is reaped here.
 * Returns 0 or -errno.
 */
int kube_spawn_adopt_orphans(void);

/*
 * Reaps every child that has exited and is not the program of a run under
 * way (whose status is that run's): orphans reparented to us. Call it on
 * SIGCHLD and from time to time (a child behind a run's program waits for
 * the next call). Thread-safe, never blocks for long.
 */
void kube_spawn_reap_orphans(void);

/* Wipes and frees what @res holds (its output may be a secret). */
void kube_spawn_out_wipe(struct kube_spawn_out *res);

#endif

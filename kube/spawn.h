/*
 * Running a program without a shell, for the credential plugins of
 * kube/exec.c: posix_spawn (safe in a process with threads, where a fork
 * may only call async-signal-safe functions before exec), standard input
 * from /dev/null, every descriptor but 0, 1 and 2 closed in the child,
 * every signal unblocked and back to its default (the service blocks
 * SIGTERM and ignores SIGPIPE, and a child would inherit both), a process
 * group of its own (so that a kill at the deadline also reaches what it
 * started), standard output and error collected up to bounds.
 */
#ifndef KUBE_SPAWN_H
#define KUBE_SPAWN_H

#include <stdbool.h>
#include <stddef.h>

/* Bytes of standard error kept; the rest is read and dropped. */
#define KUBE_SPAWN_STDERR_MAX 4096

/* What a run gave. */
struct kube_spawn_out {
    char *out; /* standard output, malloc'd, NUL-terminated; NULL when empty */
    size_t out_len;
    char err_text[KUBE_SPAWN_STDERR_MAX + 1]; /* the start of standard error */
    int status;                               /* waitpid(2) status */
    bool timed_out;   /* killed (SIGKILL, its process group) at the deadline */
    bool out_too_big; /* killed when standard output passed the bound */
};

/*
 * Runs @file (a path when it has a '/', else looked up in this process's
 * PATH, as execvp does) with @argv (argv[0] first, NULL-terminated) and
 * exactly the environment @envp (NULL-terminated), and waits for it: at
 * most @timeout_ms, and at most @out_max bytes of standard output. Once
 * the program has exited, output still held open by something it left
 * running is not waited for. Returns 0 when it was started and has ended
 * (see @res for how), -ENOENT when there is no such program, -EACCES when
 * it is not executable, -E2BIG when its arguments and environment are
 * over the kernel's limit, -ENOMEM or another negative errno when it could
 * not be started or watched. On failure @res holds nothing to free.
 * Thread-safe; the caller must not reap children with waitpid(-1).
 */
int kube_spawn_run(const char *file, char *const argv[], char *const envp[], int timeout_ms,
                   size_t out_max, struct kube_spawn_out *res);

/* Wipes and frees what @res holds (its output may be a secret). */
void kube_spawn_out_wipe(struct kube_spawn_out *res);

#endif

#include "kube/spawn.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/clock.h"

#define SPAWN_TICK_MS 50 /* how often an exit is looked for while output is held open */
#define SPAWN_POLL_MS 10 /* how often a group is looked at while it ends */

/* A run under way: its program's exit status is its own to take, never the
 * orphan reaper's. On the run's stack, linked while it runs. */
struct spawn_run {
    pid_t pid;
    struct spawn_run *next;
};

/* Guards the list of runs, and every creation and reaping of a child:
 * posix_spawn and the registration are one step under it, so the reaper
 * cannot take the status of a child that exits before it is listed, and
 * a pid a run reaps cannot be handed to a new child while the run still
 * waits on its process group. */
static pthread_mutex_t runs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct spawn_run *runs;

/* With runs_lock held: whether @pid is the program of a run under way. */
static bool is_running(pid_t pid)
{
    for (const struct spawn_run *r = runs; r != NULL; r = r->next)
        if (r->pid == pid)
            return true;
    return false;
}

static void unlist(const struct spawn_run *run)
{
    for (struct spawn_run **r = &runs; *r != NULL; r = &(*r)->next)
        if (*r == run) {
            *r = run->next;
            return;
        }
}

/* Starts the child with its standard output and error on @out_fd and
 * @err_fd. Returns 0 with *@pid, or -errno. */
static int start(const char *file, char *const argv[], char *const envp[], int out_fd, int err_fd,
                 pid_t *pid)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    sigset_t none, all;

    int rc = posix_spawn_file_actions_init(&fa);
    if (rc != 0)
        return -rc;
    rc = posix_spawnattr_init(&at);
    if (rc != 0)
        goto out_destroy_actions;
    sigemptyset(&none);
    sigfillset(&all);
    /* The pipes are O_CLOEXEC; dup2 onto 1 and 2 clears that on the copies. */
    rc = posix_spawn_file_actions_adddup2(&fa, out_fd, STDOUT_FILENO);
    if (rc == 0)
        rc = posix_spawn_file_actions_adddup2(&fa, err_fd, STDERR_FILENO);
    /* No terminal, no input: interactive plugins are not supported. */
    if (rc == 0)
        rc = posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    /* Not our sockets, listening or to the API server. */
    if (rc == 0)
        rc = posix_spawn_file_actions_addclosefrom_np(&fa, STDERR_FILENO + 1);
    if (rc == 0)
        rc = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
                                               POSIX_SPAWN_SETPGROUP);
    if (rc == 0)
        rc = posix_spawnattr_setsigmask(&at, &none);
    if (rc == 0)
        rc = posix_spawnattr_setsigdefault(&at, &all);
    if (rc == 0)
        rc = posix_spawnattr_setpgroup(&at, 0);
    if (rc == 0)
        rc = posix_spawnp(pid, file, &fa, &at, argv, envp);
    posix_spawnattr_destroy(&at);
out_destroy_actions:
    posix_spawn_file_actions_destroy(&fa);
    return -rc;
}

/* Appends @n bytes to the output; false when that would pass @max. The
 * buffer is taken whole at once: a realloc would leave copies of a token
 * behind, unwiped. */
static bool keep_out(struct kube_spawn_out *res, const char *data, size_t n, size_t max)
{
    if (n > max - res->out_len)
        return false;
    if (res->out == NULL && (res->out = malloc(max + 1)) == NULL)
        return false;
    memcpy(res->out + res->out_len, data, n);
    res->out_len += n;
    res->out[res->out_len] = '\0';
    return true;
}

/* Reads what @pf has. Returns 0 (more may come), 1 (end of file), -ENOMEM
 * or -E2BIG (output over @max). */
static int drain(struct pollfd *pf, bool is_out, size_t max, size_t *err_len,
                 struct kube_spawn_out *res)
{
    char buf[8192];
    ssize_t n = read(pf->fd, buf, sizeof(buf));
    if (n == -1)
        return errno == EINTR || errno == EAGAIN ? 0 : 1;
    if (n == 0)
        return 1;
    if (is_out) {
        bool ok = keep_out(res, buf, (size_t)n, max);
        explicit_bzero(buf, sizeof(buf));
        if (!ok)
            return res->out_len + (size_t)n > max ? -E2BIG : -ENOMEM;
        return 0;
    }
    size_t take =
        (size_t)n < KUBE_SPAWN_STDERR_MAX - *err_len ? (size_t)n : KUBE_SPAWN_STDERR_MAX - *err_len;
    memcpy(res->err_text + *err_len, buf, take);
    *err_len += take;
    res->err_text[*err_len] = '\0';
    return 0;
}

/* Whether @pid has exited, without reaping it: while it is a zombie its
 * pid, and so its process group's id, cannot be given to another
 * process, so the group can still be signalled safely. */
static bool has_exited(pid_t pid)
{
    siginfo_t si;
    si.si_pid = 0;
    return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid;
}

/* Whether process group @pgid has a member that is still running (not a
 * zombie) other than @leader. Read from /proc: kill(-pgid, 0) counts the
 * leader's zombie too. */
static bool has_live_member(pid_t pgid, pid_t leader)
{
    DIR *d = opendir("/proc");
    bool live = false;
    if (d == NULL)
        return false;
    /* readdir on a DIR of our own is thread-safe (readdir_r is deprecated) */
    /* cppcheck-suppress readdirCalled */
    for (const struct dirent *e; !live && (e = readdir(d)) != NULL;) {
        char path[64], stat[512];
        long pid = strtol(e->d_name, NULL, 10);
        if (pid <= 0 || pid == leader)
            continue;
        snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd == -1)
            continue;
        ssize_t n = read(fd, stat, sizeof(stat) - 1);
        close(fd);
        if (n <= 0)
            continue;
        stat[n] = '\0';
        /* "pid (comm) state ppid pgrp ...": comm may hold spaces and ')' */
        const char *after = strrchr(stat, ')');
        char state;
        long ppid, pgrp;
        if (after != NULL && sscanf(after + 1, " %c %ld %ld", &state, &ppid, &pgrp) == 3)
            live = pgrp == pgid && state != 'Z' && state != 'X';
    }
    closedir(d);
    return live;
}

/* Whether the program @pid has exited and its group has no running
 * member left. */
static bool is_over(pid_t pid)
{
    return has_exited(pid) && !has_live_member(pid, pid);
}

/* Waits up to @ms for is_over(@pid); returns it. */
static bool await_over(pid_t pid, int ms)
{
    for (int waited = 0;; waited += SPAWN_POLL_MS) {
        if (is_over(pid))
            return true;
        if (waited >= ms)
            return false;
        poll(NULL, 0, SPAWN_POLL_MS);
    }
}

/* Sends @sig to the program @pid and its process group (the program may
 * have left it; a zombie takes a signal harmlessly). */
static void signal_run(pid_t pid, int sig)
{
    kill(-pid, sig);
    kill(pid, sig);
}

/* Ends what the run of @pid left running: the program (at the deadline or
 * on an error) and what it started without leaving its process group get
 * SIGTERM, then after KUBE_SPAWN_GRACE_MS SIGKILL. Then the program is
 * reaped (its status into *@status) and so is every member of the group
 * that is a child of ours (orphans come to us as PID 1 or as a subreaper).
 * A plugin that left nothing behind costs one look at /proc. */
static void end_run(struct spawn_run *run, int *status)
{
    pid_t pid = run->pid;
    if (!is_over(pid)) {
        signal_run(pid, SIGTERM);
        if (!await_over(pid, KUBE_SPAWN_GRACE_MS)) {
            signal_run(pid, SIGKILL);
            await_over(pid, KUBE_SPAWN_GRACE_MS);
        }
    }
    pthread_mutex_lock(&runs_lock);
    while (waitpid(pid, status, 0) == -1 && errno == EINTR)
        ;
    /* The group's id stays its own while a member, zombie or not, is
     * left, and no child is made while the lock is held: this reaps only
     * members of this group. */
    while (waitpid(-pid, NULL, WNOHANG) > 0)
        ;
    unlist(run);
    pthread_mutex_unlock(&runs_lock);
}

/* Collects the output of the run until both pipes end and its program
 * has exited, or it has exited and nothing more is there to read, or the
 * deadline. */
static int collect(struct spawn_run *run, int out_fd, int err_fd, int timeout_ms, size_t max,
                   struct kube_spawn_out *res)
{
    struct pollfd fds[2] = {{.fd = out_fd, .events = POLLIN}, {.fd = err_fd, .events = POLLIN}};
    struct timespec t0 = clock_mono();
    size_t err_len = 0;
    bool exited = false;
    int rc = 0, status = 0;

    while (rc == 0 && !(exited && fds[0].fd == -1 && fds[1].fd == -1)) {
        double left_ms = timeout_ms - clock_since(&t0) * 1000.0;
        if (left_ms <= 0) {
            res->timed_out = true;
            break;
        }
        /* Both pipes ended: the program is exiting, or goes on without
         * them; either way it has until the deadline to end by itself, and
         * poll (which passes over fds of -1) only waits. */
        int tick = fds[0].fd == -1 && fds[1].fd == -1 ? SPAWN_POLL_MS : SPAWN_TICK_MS;
        int wait_ms = exited ? 0 : left_ms < tick ? (int)left_ms + 1 : tick;
        int n = poll(fds, 2, wait_ms);
        if (n == -1 && errno != EINTR) {
            rc = -errno;
            break;
        }
        if (n == 0 && exited)
            break; /* exited; the pipes are held by something it started */
        for (int i = 0; n > 0 && i < 2; i++) {
            if (fds[i].fd == -1 || fds[i].revents == 0)
                continue;
            int d = drain(&fds[i], i == 0, max, &err_len, res);
            if (d == 1)
                fds[i].fd = -1; /* the caller closes it */
            else if (d == -E2BIG)
                res->out_too_big = true;
            else if (d < 0)
                rc = d;
        }
        if (res->out_too_big)
            break;
        if (!exited)
            exited = has_exited(run->pid);
    }
    end_run(run, &status);
    res->status = status;
    return rc;
}

int kube_spawn_run(const char *file, char *const argv[], char *const envp[], int timeout_ms,
                   size_t out_max, struct kube_spawn_out *res)
{
    int out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1};
    struct spawn_run run = {0};
    int rc = 0;

    memset(res, 0, sizeof(*res));
    if (pipe2(out_pipe, O_CLOEXEC) == -1 || pipe2(err_pipe, O_CLOEXEC) == -1) {
        rc = -errno;
        goto out_close;
    }
    pthread_mutex_lock(&runs_lock);
    rc = start(file, argv, envp, out_pipe[1], err_pipe[1], &run.pid);
    if (rc == 0) {
        run.next = runs;
        runs = &run;
    }
    pthread_mutex_unlock(&runs_lock);
    close(out_pipe[1]);
    close(err_pipe[1]);
    out_pipe[1] = err_pipe[1] = -1;
    if (rc == 0)
        rc = collect(&run, out_pipe[0], err_pipe[0], timeout_ms, out_max, res);
    if (rc != 0)
        kube_spawn_out_wipe(res);

out_close:
    for (int i = 0; i < 2; i++) {
        if (out_pipe[i] != -1)
            close(out_pipe[i]);
        if (err_pipe[i] != -1)
            close(err_pipe[i]);
    }
    return rc;
}

int kube_spawn_adopt_orphans(void)
{
    return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == -1 ? -errno : 0;
}

void kube_spawn_reap_orphans(void)
{
    pthread_mutex_lock(&runs_lock);
    for (;;) {
        siginfo_t si;
        si.si_pid = 0;
        /* A look first (WNOWAIT): a run's own program is left to its run.
         * waitid answers with one child; when that is a run's, the others
         * wait for the next call, once the run has reaped it. */
        if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == -1 || si.si_pid == 0 ||
            is_running(si.si_pid))
            break;
        if (waitpid(si.si_pid, NULL, WNOHANG) != si.si_pid)
            break;
    }
    pthread_mutex_unlock(&runs_lock);
}

void kube_spawn_out_wipe(struct kube_spawn_out *res)
{
    if (res->out != NULL)
        explicit_bzero(res->out, res->out_len);
    free(res->out);
    explicit_bzero(res, sizeof(*res));
}

#include "kube/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/clock.h"

#define SPAWN_TICK_MS 50 /* how often an exit is looked for while output is held open */

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

/* Collects the output of @pid until both pipes end, or the child has
 * exited and nothing more is there to read, or the deadline. */
static int collect(pid_t pid, int out_fd, int err_fd, int timeout_ms, size_t max,
                   struct kube_spawn_out *res)
{
    struct pollfd fds[2] = {{.fd = out_fd, .events = POLLIN}, {.fd = err_fd, .events = POLLIN}};
    struct timespec t0 = clock_mono();
    size_t err_len = 0;
    bool reaped = false;
    int rc = 0, status = 0;

    while (rc == 0 && (fds[0].fd != -1 || fds[1].fd != -1)) {
        double left_ms = timeout_ms - clock_since(&t0) * 1000.0;
        if (left_ms <= 0) {
            res->timed_out = true;
            break;
        }
        int wait_ms = reaped ? 0 : left_ms < SPAWN_TICK_MS ? (int)left_ms + 1 : SPAWN_TICK_MS;
        int n = poll(fds, 2, wait_ms);
        if (n == -1 && errno != EINTR) {
            rc = -errno;
            break;
        }
        if (n == 0 && reaped)
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
        if (!reaped && waitpid(pid, &status, WNOHANG) == pid)
            reaped = true;
    }
    if (res->timed_out || res->out_too_big || rc != 0) {
        kill(-pid, SIGKILL);
        if (!reaped)
            kill(pid, SIGKILL);
    }
    while (!reaped && waitpid(pid, &status, 0) == -1 && errno == EINTR)
        ;
    res->status = status;
    return rc;
}

int kube_spawn_run(const char *file, char *const argv[], char *const envp[], int timeout_ms,
                   size_t out_max, struct kube_spawn_out *res)
{
    int out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1};
    pid_t pid;
    int rc = 0;

    memset(res, 0, sizeof(*res));
    if (pipe2(out_pipe, O_CLOEXEC) == -1 || pipe2(err_pipe, O_CLOEXEC) == -1) {
        rc = -errno;
        goto out_close;
    }
    rc = start(file, argv, envp, out_pipe[1], err_pipe[1], &pid);
    close(out_pipe[1]);
    close(err_pipe[1]);
    out_pipe[1] = err_pipe[1] = -1;
    if (rc == 0)
        rc = collect(pid, out_pipe[0], err_pipe[0], timeout_ms, out_max, res);
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

void kube_spawn_out_wipe(struct kube_spawn_out *res)
{
    if (res->out != NULL)
        explicit_bzero(res->out, res->out_len);
    free(res->out);
    explicit_bzero(res, sizeof(*res));
}

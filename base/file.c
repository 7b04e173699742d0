#include "base/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"

/* The first buffer of a stream of unknown size (a pipe, standard input). */
#define STREAM_FIRST (64 * 1024)

static int fail(int rc, const char *path, const char *why, char *err)
{
    return err_fail(err, rc, "%s: %s", strcmp(path, "-") == 0 ? "standard input" : path, why);
}

/* Grows *@buf so that it holds at least @want + 1 bytes (the NUL). */
static int grow(char **buf, size_t *cap, size_t want)
{
    if (want < *cap)
        return 0;
    size_t next = *cap ? *cap : STREAM_FIRST;
    while (next <= want)
        next *= 2;
    char *b = realloc(*buf, next);
    if (b == NULL)
        return -ENOMEM;
    *buf = b;
    *cap = next;
    return 0;
}

/* What @mode is, for the message that refuses it. */
static const char *kind_of(mode_t mode)
{
    if (S_ISFIFO(mode))
        return "not a regular file (a FIFO)";
    if (S_ISSOCK(mode))
        return "not a regular file (a socket)";
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return "not a regular file (a device)";
    return "not a regular file";
}

int file_read(const char *path, size_t max, enum file_kind kind, char **out, size_t *len, char *err)
{
    /* O_NONBLOCK: opening a FIFO for reading waits for a writer, for ever
     * if none comes; without it, a file that became a FIFO would hang the
     * caller (the serve loop, and with it SIGTERM) before fstat can look. */
    int flags = O_RDONLY | O_CLOEXEC | (kind == FILE_REGULAR ? O_NONBLOCK : 0);
    int fd = strcmp(path, "-") == 0 ? STDIN_FILENO : open(path, flags);
    char *buf = NULL;
    size_t cap = 0, got = 0;
    struct stat st;
    int rc = 0;

    if (fd == -1)
        return fail(errno == ENOENT ? -ENOENT : -EIO, path, strerror(errno), err);
    if (fstat(fd, &st) == -1 || S_ISDIR(st.st_mode)) {
        rc = fail(-EIO, path, "not a file", err);
        goto out_close;
    }
    if (kind == FILE_REGULAR && fd != STDIN_FILENO && !S_ISREG(st.st_mode)) {
        rc = fail(-EIO, path, kind_of(st.st_mode), err);
        goto out_close;
    }
    /* A regular file says its size (one byte more lets the last read see
     * its end without growing the buffer); a stream grows as it comes. */
    if (S_ISREG(st.st_mode) && (size_t)st.st_size > max) {
        rc = fail(-EFBIG, path, "too large", err);
        goto out_close;
    }
    if (S_ISREG(st.st_mode) && grow(&buf, &cap, (size_t)st.st_size + 1) != 0)
        goto out_nomem;
    while (got <= max) {
        if (grow(&buf, &cap, got + 1) != 0)
            goto out_nomem;
        size_t room = cap - 1 - got; /* leaves the NUL's byte */
        if (room > max + 1 - got)
            room = max + 1 - got;
        ssize_t n = read(fd, buf + got, room);
        if (n == -1 && errno == EINTR)
            continue;
        if (n == -1) {
            rc = fail(-EIO, path, strerror(errno), err);
            goto out_free;
        }
        if (n == 0)
            break;
        got += (size_t)n;
    }
    if (got > max) {
        rc = fail(-EFBIG, path, "too large", err);
        goto out_free;
    }
    buf[got] = '\0';
    *out = buf;
    *len = got;
    goto out_close;

out_nomem:
    rc = fail(-ENOMEM, path, "out of memory", err);
out_free:
    file_free_secret(buf, cap);
out_close:
    if (fd != STDIN_FILENO)
        close(fd);
    return rc;
}

void file_free_secret(char *buf, size_t len)
{
    if (buf == NULL)
        return;
    explicit_bzero(buf, len);
    free(buf);
}

/*
 * Reading a whole file: config files, kubeconfigs and the files they name,
 * certificates and keys, token files, `rank` and `simulate` inputs.
 */
#ifndef BASE_FILE_H
#define BASE_FILE_H

#include <stddef.h>

/* What file_read() accepts at a path other than "-". */
enum file_kind { FILE_ANY, FILE_REGULAR };

/*
 * Reads the whole of @path ("-" reads standard input) into a malloc'd
 * buffer with a NUL after the last byte, refusing more than @max bytes.
 * Uses read(2), not stdio, so that no copy of a key or token is left in a
 * stdio buffer. Returns 0 with *@out and *@len; -ENOENT when @path does not
 * exist, -EFBIG when it is larger than @max, -ENOMEM, or -EIO (unreadable,
 * a directory) with "@path: reason" in @err (ERR_LEN bytes). Thread-safe.
 *
 * FILE_REGULAR is for a file the service reads again while it runs (the
 * config file, kube-scheduler's file, a kubeconfig, a token, a CA): @path
 * must be a regular file. It is opened without blocking and refused with
 * "@path: not a regular file (a FIFO)" (-EIO) when it is anything else, so
 * that a path replaced by a FIFO cannot hold the caller in open(2). "-" is
 * still standard input, whatever it is.
 */
int file_read(const char *path, size_t max, enum file_kind kind, char **out, size_t *len,
              char *err);

/* Wipes the @len bytes of @buf, then frees it (NULL is fine): for keys and
 * tokens. */
void file_free_secret(char *buf, size_t len);

#endif

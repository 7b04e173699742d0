/*
 * The bearer token of a client: a static one (kubeconfig token), or one
 * read from a file and re-read whenever the file changes (kubelet rotates
 * projected service-account tokens by swapping a symlink, so the inode
 * changes) and once more after a 401.
 */
#ifndef KUBE_TOKEN_H
#define KUBE_TOKEN_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#define KUBE_TOKEN_MAX (64u << 10) /* longest token file */

struct kube_token {
    const char *file;     /* borrowed; "" for none */
    const char *fixed;    /* borrowed static token, NULL for none */
    pthread_mutex_t lock; /* guards the two below */
    char *from_file;      /* last token read from file */
    struct stat st;       /* what the file was when it was read */
};

/* Starts @k with a token file @file ("" for none) or a static token
 * @fixed (NULL for none); both are borrowed. Returns 0 or -errno. */
int kube_token_init(struct kube_token *k, const char *file, const char *fixed);

/*
 * The "Authorization: Bearer ..." header for the next request, malloc'd in
 * *@hdr (NULL when there is no token). The file is re-read when it changed
 * or when @force is set; if that fails, the token read before stays in use.
 * Returns 0, -EACCES (unreadable, empty or not a token) or -ENOMEM with
 * @err (ERR_LEN). Thread-safe.
 */
int kube_token_header(struct kube_token *k, bool force, char **hdr, char *err);

/* Whether the @len bytes at @s may follow "Bearer " in an HTTP header:
 * printable ASCII without spaces. */
bool kube_token_is_valid(const char *s, size_t len);

/* Wipes and frees what @k holds. */
void kube_token_destroy(struct kube_token *k);

#endif

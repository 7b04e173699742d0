#include "kube/token.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/file.h"
#include "kube/target.h"

static bool is_space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n';
}

static bool is_same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
           a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

bool kube_token_is_valid(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)s[i] < 0x21 || (unsigned char)s[i] > 0x7e)
            return false;
    return true;
}

/* Reads the token in @path (surrounding whitespace trimmed, as client-go
 * does) into a malloc'd *@out. */
static int read_token(const char *path, char **out, char *err)
{
    char *buf;
    size_t len;
    int rc = file_read(path, KUBE_TOKEN_MAX, FILE_REGULAR, &buf, &len, err);

    if (rc != 0) {
        err_prefix(err, "token file ");
        return rc == -ENOMEM ? -ENOMEM : -EACCES;
    }
    size_t start = 0, end = len;
    while (start < end && is_space(buf[start]))
        start++;
    while (end > start && is_space(buf[end - 1]))
        end--;
    if (end == start)
        rc = err_fail(err, -EACCES, "token file %s: empty", path);
    else if (!kube_token_is_valid(buf + start, end - start))
        rc = err_fail(err, -EACCES, "token file %s: spaces or control characters", path);
    else if ((*out = strndup(buf + start, end - start)) == NULL)
        rc = err_fail(err, -ENOMEM, "token file %s: out of memory", path);
    file_free_secret(buf, len);
    return rc;
}

int kube_token_init(struct kube_token *k, const char *file, const char *fixed)
{
    memset(k, 0, sizeof(*k));
    k->file = file;
    k->fixed = fixed;
    return -pthread_mutex_init(&k->lock, NULL);
}

/* With the lock held: the token from the file, read again when it changed. */
static int file_token(struct kube_token *k, bool force, char *err)
{
    struct stat st;
    bool changed = stat(k->file, &st) == -1 || !is_same_file(&st, &k->st);
    if (!force && !changed && k->from_file != NULL)
        return 0;
    char *fresh = NULL;
    int rc = read_token(k->file, &fresh, err);
    if (rc != 0)
        return k->from_file != NULL ? 0 : rc; /* keep the last good one */
    kube_free_secret(k->from_file);
    k->from_file = fresh;
    k->st = st;
    return 0;
}

int kube_token_header(struct kube_token *k, bool force, char **hdr, char *err)
{
    static const char prefix[] = "Authorization: Bearer ";
    const char *token = k->fixed;
    int rc = 0;

    *hdr = NULL;
    if (k->file[0] == '\0' && token == NULL)
        return 0;
    pthread_mutex_lock(&k->lock);
    if (k->file[0] != '\0') {
        rc = file_token(k, force, err);
        token = k->from_file;
    }
    if (rc == 0 && token != NULL) {
        size_t n = sizeof(prefix) + strlen(token);
        *hdr = malloc(n);
        if (*hdr == NULL) {
            rc = err_fail(err, -ENOMEM, "out of memory");
        } else {
            snprintf(*hdr, n, "%s%s", prefix, token);
        }
    }
    pthread_mutex_unlock(&k->lock);
    return rc;
}

void kube_token_destroy(struct kube_token *k)
{
    pthread_mutex_destroy(&k->lock);
    kube_free_secret(k->from_file);
    k->from_file = NULL;
}

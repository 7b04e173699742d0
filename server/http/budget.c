#include "server/http/budget.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/path.h"

struct http_budget {
    pthread_mutex_t lock;
    pthread_cond_t room; /* signalled when reservations end or the size grows */
    uint64_t size;       /* 0: none */
    uint64_t reserved;
    struct ops_metrics *metrics;
};

uint64_t http_budget_derive(uint64_t limit)
{
    if (limit == UINT64_MAX)
        return 0;
    uint64_t headroom = limit / 4 > HTTP_BUDGET_HEADROOM_MIN ? limit / 4 : HTTP_BUDGET_HEADROOM_MIN;
    return limit > headroom ? limit - headroom : 0;
}

/* The number in @path: "max" (v2) and the v1 "unlimited" (a page count
 * near 2^63) are no limit. Returns 0 or -ENOENT. */
static int read_limit(const char *path, uint64_t *out)
{
    char text[64];
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -ENOENT;
    char *line = fgets(text, sizeof(text), f);
    fclose(f);
    if (line == NULL)
        return -ENOENT;
    if (strncmp(text, "max", 3) == 0) {
        *out = UINT64_MAX;
        return 0;
    }
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno != 0 || end == text)
        return -ENOENT;
    *out = v >= (1ULL << 62) ? UINT64_MAX : (uint64_t)v;
    return 0;
}

/* The smallest limit of @file in the cgroup @dir (under @base) and every
 * cgroup above it, and in @base itself. Returns 0 when one was read. */
static int walk_up(const char base[1024], const char *dir, const char *file, uint64_t *limit,
                   char *source, size_t n)
{
    char path[4096], rel[2048]; /* room for base (1024), rel and the file name */
    int found = -ENOENT;

    path_squash(dir, strlen(dir), rel, sizeof(rel), true); /* no trailing slash */
    for (;;) {
        uint64_t v;
        snprintf(path, sizeof(path), "%s%s/%s", base, rel, file);
        if (read_limit(path, &v) == 0) {
            if (found != 0 || v < *limit) {
                *limit = v;
                if (v != UINT64_MAX)
                    snprintf(source, n, "%s", path);
            }
            found = 0;
        }
        if (rel[0] == '\0')
            return found;
        char *slash = strrchr(rel, '/');
        *(slash != NULL ? slash : rel) = '\0';
    }
}

int http_budget_cgroup_limit(const char *proc_cgroup, const char *root, uint64_t *limit,
                             char *source, size_t n)
{
    char line[2048], base[1024];
    int found = -ENOENT;
    FILE *f = fopen(proc_cgroup, "r");

    *limit = UINT64_MAX;
    source[0] = '\0';
    if (f == NULL)
        return -ENOENT;
    while (fgets(line, sizeof(line), f) != NULL) {
        /* hierarchy-ID:controllers:path; v2 is "0::path" */
        line[strcspn(line, "\n")] = '\0';
        char *c1 = strchr(line, ':'), *c2 = c1 != NULL ? strchr(c1 + 1, ':') : NULL;
        if (c2 == NULL)
            continue;
        *c2 = '\0';
        const char *controllers = c1 + 1, *path = c2 + 1, *file;
        if (controllers[0] == '\0') {
            snprintf(base, sizeof(base), "%s", root);
            file = "memory.max";
        } else {
            /* v1: the memory hierarchy, alone or with others ("memory",
             * "cpu,memory") */
            bool memory = false;
            for (const char *p = controllers; *p != '\0';) {
                size_t len = strcspn(p, ",");
                memory = memory || (len == 6 && strncmp(p, "memory", 6) == 0);
                p += len + (p[len] == ',');
            }
            if (!memory)
                continue;
            snprintf(base, sizeof(base), "%s/%s", root, controllers);
            file = "memory.limit_in_bytes";
        }
        uint64_t v = UINT64_MAX;
        char src[4096] = "";
        if (walk_up(base, path, file, &v, src, sizeof(src)) != 0)
            continue;
        if (found != 0 || v < *limit) {
            *limit = v;
            snprintf(source, n, "%s", src);
        }
        found = 0;
    }
    fclose(f);
    return found;
}

/* The gauges, under the lock. */
static void publish(struct http_budget *b)
{
    if (b->metrics != NULL)
        ops_metrics_memory(b->metrics, b->size, b->reserved);
}

int http_budget_new(uint64_t bytes, struct ops_metrics *metrics, struct http_budget **out)
{
    struct http_budget *b = calloc(1, sizeof(*b));

    if (b == NULL)
        return -ENOMEM;
    pthread_mutex_init(&b->lock, NULL);
    /* Deadlines are CLOCK_MONOTONIC, as the request's start. */
    if (clock_cond_init(&b->room) != 0) {
        pthread_mutex_destroy(&b->lock);
        free(b);
        return -ENOMEM;
    }
    b->size = bytes;
    b->metrics = metrics;
    publish(b);
    *out = b;
    return 0;
}

void http_budget_free(struct http_budget *b)
{
    if (b == NULL)
        return;
    pthread_cond_destroy(&b->room);
    pthread_mutex_destroy(&b->lock);
    free(b);
}

void http_budget_resize(struct http_budget *b, uint64_t bytes)
{
    pthread_mutex_lock(&b->lock);
    b->size = bytes;
    publish(b);
    pthread_cond_broadcast(&b->room);
    pthread_mutex_unlock(&b->lock);
}

uint64_t http_budget_size(struct http_budget *b)
{
    pthread_mutex_lock(&b->lock);
    uint64_t size = b->size;
    pthread_mutex_unlock(&b->lock);
    return size;
}

/* Is there room for @bytes now? Under the lock. */
static bool fits(const struct http_budget *b, uint64_t bytes)
{
    return b->size == 0 || (b->reserved <= b->size && bytes <= b->size - b->reserved);
}

int http_budget_reserve(struct http_budget *b, uint64_t bytes, const struct timespec *deadline)
{
    int rc = 0;
    bool waited = false;

    pthread_mutex_lock(&b->lock);
    if (b->size != 0 && bytes > b->size) {
        rc = -E2BIG;
        goto out_unlock;
    }
    /* Whoever fits goes first: a small request never waits behind a large
     * one; a large one may wait its whole time while small ones pass, and
     * is then refused, bounded by @deadline. */
    while (!fits(b, bytes)) {
        waited = true;
        if (pthread_cond_timedwait(&b->room, &b->lock, deadline) == ETIMEDOUT && !fits(b, bytes)) {
            rc = -ETIMEDOUT;
            goto out_unlock;
        }
        if (b->size != 0 && bytes > b->size) {
            rc = -E2BIG; /* shrunk by a reload meanwhile */
            goto out_unlock;
        }
    }
    b->reserved += bytes;
    publish(b);

out_unlock:
    pthread_mutex_unlock(&b->lock);
    if (waited && b->metrics != NULL)
        ops_metrics_memory_waited(b->metrics);
    return rc;
}

int http_budget_try(struct http_budget *b, uint64_t bytes)
{
    int rc = 0;
    pthread_mutex_lock(&b->lock);
    if (fits(b, bytes)) {
        b->reserved += bytes;
        publish(b);
    } else {
        rc = -ENOSPC;
    }
    pthread_mutex_unlock(&b->lock);
    return rc;
}

void http_budget_release(struct http_budget *b, uint64_t bytes)
{
    pthread_mutex_lock(&b->lock);
    b->reserved = bytes < b->reserved ? b->reserved - bytes : 0;
    publish(b);
    pthread_cond_broadcast(&b->room);
    pthread_mutex_unlock(&b->lock);
}

uint64_t http_budget_reserved(struct http_budget *b)
{
    pthread_mutex_lock(&b->lock);
    uint64_t r = b->reserved;
    pthread_mutex_unlock(&b->lock);
    return r;
}

#include "server/arena.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

/* gcc defines __SANITIZE_ADDRESS__ under -fsanitize=address; clang 14 only
 * answers __has_feature(address_sanitizer). */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) && !defined(__SANITIZE_ADDRESS__)
#define __SANITIZE_ADDRESS__ 1
#endif
#endif
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#define POISON(p, n)   ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POISON(p, n)   ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define FIRST_CHUNK ((size_t)1 << 20)
#define MAX_CHUNK   ((size_t)64 << 20)
/* The most a pooled arena keeps between requests. A request uses its body
 * plus about three times that for the tree: a 1000-node NodeList (12 MB)
 * needs 43 MB, which stays warm (faulting it in again costs more than the
 * parse: measured in docs/performance.md); a burst of larger requests does
 * not pin its memory afterwards. */
#define RETAIN_MAX ((size_t)64 << 20)
#define POOL_SIZE  2
#define ALIGN      16

struct chunk {
    struct chunk *next;
    size_t size; /* usable bytes after the header */
    size_t used;
};

struct arena {
    struct chunk *chunks; /* newest first */
    size_t next_size;
};

/* The arena cJSON allocates from on this thread, if any. */
static _Thread_local struct arena *current;

/* Warm arenas kept between requests; one lock for the pool. */
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct arena *pool[POOL_SIZE];
static int pool_len;

static size_t header_size(void)
{
    return (sizeof(struct chunk) + ALIGN - 1) & ~(size_t)(ALIGN - 1);
}

static char *chunk_data(struct chunk *c)
{
    return (char *)c + header_size();
}

static struct chunk *chunk_new(size_t size)
{
    struct chunk *c = malloc(header_size() + size);
    if (c == NULL)
        return NULL;
    c->next = NULL;
    c->size = size;
    c->used = 0;
    POISON(chunk_data(c), size);
    return c;
}

void *arena_alloc(struct arena *a, size_t size)
{
    struct chunk *c = a->chunks;
    size = (size + ALIGN - 1) & ~(size_t)(ALIGN - 1);
    if (size == 0)
        size = ALIGN;
    if (c == NULL || c->size - c->used < size) {
        size_t want = a->next_size;
        while (want < size && want < SIZE_MAX / 2)
            want *= 2;
        c = chunk_new(want);
        if (c == NULL)
            return NULL;
        c->next = a->chunks;
        a->chunks = c;
        if (a->next_size < MAX_CHUNK)
            a->next_size *= 2;
    }
    void *p = chunk_data(c) + c->used;
    c->used += size;
    UNPOISON(p, size);
    return p;
}

static int in_arena(const struct arena *a, const void *p)
{
    for (struct chunk *c = a->chunks; c != NULL; c = c->next) {
        const char *d = chunk_data(c);
        if ((const char *)p >= d && (const char *)p < d + c->size)
            return 1;
    }
    return 0;
}

static void *hook_malloc(size_t size)
{
    return current != NULL ? arena_alloc(current, size) : malloc(size);
}

static void hook_free(void *p)
{
    if (current != NULL && in_arena(current, p))
        return; /* freed with the arena */
    free(p);
}

void arena_install_hooks(void)
{
    cJSON_Hooks hooks = {.malloc_fn = hook_malloc, .free_fn = hook_free};
    cJSON_InitHooks(&hooks);
}

/* Leaves the arena empty with one chunk that would have held everything
 * this request used (up to RETAIN_MAX), so that the next request of the
 * same size runs in memory that is already faulted in; a burst of larger
 * requests does not pin its memory afterwards. */
static void arena_reset(struct arena *a)
{
    size_t total = 0;
    for (struct chunk *c = a->chunks; c != NULL; c = c->next)
        total += c->used;
    struct chunk *keep = a->chunks;
    if (keep != NULL && (keep->size > RETAIN_MAX || (keep->next != NULL && keep->size < total)))
        keep = NULL; /* too big to keep, or too small to be the one chunk */
    for (struct chunk *c = keep ? keep->next : a->chunks, *next; c != NULL; c = next) {
        next = c->next;
        free(c);
    }
    a->chunks = keep;
    a->next_size = FIRST_CHUNK;
    if (keep == NULL && total > FIRST_CHUNK && total <= RETAIN_MAX) {
        size_t size = FIRST_CHUNK;
        while (size < total)
            size *= 2;
        keep = chunk_new(size); /* faulted in once, by the next request */
        a->chunks = keep;
    }
    if (keep == NULL)
        return;
    keep->next = NULL;
    keep->used = 0;
    a->next_size = keep->size < MAX_CHUNK ? keep->size * 2 : MAX_CHUNK;
    POISON(chunk_data(keep), keep->size);
}

static void arena_free(struct arena *a)
{
    for (struct chunk *c = a->chunks, *next; c != NULL; c = next) {
        next = c->next;
        free(c);
    }
    free(a);
}

struct arena *arena_acquire(void)
{
    struct arena *a = NULL;

    pthread_mutex_lock(&pool_lock);
    if (pool_len > 0)
        a = pool[--pool_len];
    pthread_mutex_unlock(&pool_lock);
    if (a == NULL) {
        a = calloc(1, sizeof(*a));
        if (a == NULL)
            return NULL;
        a->next_size = FIRST_CHUNK;
    }
    current = a;
    return a;
}

void arena_release(struct arena *a)
{
    if (a == NULL)
        return;
    if (current == a)
        current = NULL;
    arena_reset(a);
    pthread_mutex_lock(&pool_lock);
    if (pool_len < POOL_SIZE) {
        pool[pool_len++] = a;
        a = NULL;
    }
    pthread_mutex_unlock(&pool_lock);
    if (a != NULL)
        arena_free(a);
}

void arena_pool_drain(void)
{
    pthread_mutex_lock(&pool_lock);
    while (pool_len > 0)
        arena_free(pool[--pool_len]);
    pthread_mutex_unlock(&pool_lock);
}

#include "base/arena.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* arena.h has decided whether this is an ASan build. */
#ifdef __SANITIZE_ADDRESS__
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#else
#define POISON(p, n) ((void)(p), (void)(n))
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
#define ALIGN      ARENA_ALIGN

struct arena_chunk {
    struct arena_chunk *next;
    size_t size; /* usable bytes after the header */
    size_t used; /* of an older chunk; the newest one's is arena.left */
};

/* Warm arenas kept between requests; one lock for the pool. */
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct arena *pool[POOL_SIZE];
static int pool_len;

static size_t header_size(void)
{
    return (sizeof(struct arena_chunk) + ALIGN - 1) & ~(size_t)(ALIGN - 1);
}

static char *chunk_data(struct arena_chunk *c)
{
    return (char *)c + header_size();
}

static struct arena_chunk *chunk_new(size_t size)
{
    struct arena_chunk *c = malloc(header_size() + size);
    if (c == NULL)
        return NULL;
    c->next = NULL;
    c->size = size;
    c->used = 0;
    POISON(chunk_data(c), size);
    return c;
}

void *arena_alloc_slow(struct arena *a, size_t size)
{
    if (size > SIZE_MAX / 2)
        return NULL; /* no chunk could hold it; rounding up must not wrap */
    size_t need = size == 0 ? ALIGN : (size + ALIGN - 1) & ~(size_t)(ALIGN - 1);
    size_t want = a->next_size;
    while (want < need && want < SIZE_MAX / 2)
        want *= 2;
    if (a->limit != 0) {
        if (need > a->limit - a->held || a->held > a->limit)
            return NULL;
        if (want > a->limit - a->held)
            want = a->limit - a->held;
    }
    struct arena_chunk *c = chunk_new(want);
    if (c == NULL)
        return NULL;
    if (a->chunks != NULL)
        a->chunks->used = a->chunks->size - a->left;
    c->next = a->chunks;
    a->chunks = c;
    a->held += want;
    if (a->next_size < MAX_CHUNK)
        a->next_size *= 2;
    char *p = chunk_data(c);
    a->next = p + need;
    a->left = want - need;
    ARENA_UNPOISON(p, need);
    return p;
}

void *arena_calloc(struct arena *a, size_t n, size_t size)
{
    size_t total;
    if (__builtin_mul_overflow(n, size, &total))
        return NULL;
    void *p = arena_alloc(a, total);
    if (p != NULL)
        memset(p, 0, total);
    return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t len)
{
    char *p = len < SIZE_MAX ? arena_alloc(a, len + 1) : NULL;
    if (p != NULL) {
        memcpy(p, s, len);
        p[len] = '\0';
    }
    return p;
}

/* Leaves the arena empty with one chunk that would have held everything
 * this request used (up to RETAIN_MAX), so that the next request of the
 * same size runs in memory that is already faulted in; a burst of larger
 * requests does not pin its memory afterwards. */
static void arena_reset(struct arena *a)
{
    size_t total = 0;
    if (a->chunks != NULL)
        a->chunks->used = a->chunks->size - a->left;
    for (struct arena_chunk *c = a->chunks; c != NULL; c = c->next)
        total += c->used;
    struct arena_chunk *keep = a->chunks;
    if (keep != NULL && (keep->size > RETAIN_MAX || (keep->next != NULL && keep->size < total)))
        keep = NULL; /* too big to keep, or too small to be the one chunk */
    for (struct arena_chunk *c = keep ? keep->next : a->chunks, *next; c != NULL; c = next) {
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
    a->held = keep != NULL ? keep->size : 0;
    a->next = keep != NULL ? chunk_data(keep) : NULL;
    a->left = keep != NULL ? keep->size : 0;
    if (keep == NULL)
        return;
    keep->next = NULL;
    keep->used = 0;
    a->next_size = keep->size < MAX_CHUNK ? keep->size * 2 : MAX_CHUNK;
    POISON(chunk_data(keep), keep->size);
}

static void arena_free(struct arena *a)
{
    for (struct arena_chunk *c = a->chunks, *next; c != NULL; c = next) {
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
    return a;
}

void arena_set_limit(struct arena *a, size_t bytes)
{
    /* A warm chunk over the limit is given back first, so the limit holds
     * from the first allocation on. */
    if (bytes != 0 && a->held > bytes) {
        for (struct arena_chunk *c = a->chunks, *next; c != NULL; c = next) {
            next = c->next;
            free(c);
        }
        a->chunks = NULL;
        a->held = 0;
        a->next = NULL;
        a->left = 0;
    }
    a->limit = bytes;
}

void arena_release(struct arena *a)
{
    if (a == NULL)
        return;
    a->limit = 0;
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

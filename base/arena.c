#include "base/arena.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* arena.h has decided whether this is an ASan build. */
#ifdef __SANITIZE_ADDRESS__
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#else
#define POISON(p, n) ((void)(p), (void)(n))
#endif

#define FIRST_CHUNK ((size_t)1 << 20)
#define MAX_CHUNK   ((size_t)64 << 20)
/* The most a pooled arena keeps between requests, and how many are kept:
 * what the usual request needs (NodeNames bodies of a few KB, a 100-node
 * NodeList of 1.2 MB and its node records) stays faulted in; a larger one
 * maps its memory and gives it back when it ends. Idle RSS after a burst
 * of large requests is so at most POOL_SIZE * RETAIN_MAX above the start
 * (it was 2 * 64 MiB: docs/performance.md measured +131 MiB), at the cost
 * of page faults for large bodies, about 0.25 ms per MB. */
#define RETAIN_MAX ((size_t)4 << 20)
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

/* An allocation this large has its pages faulted in at once, in one call,
 * and its chunk asks for huge pages: faulting 4 KiB pages one by one as a
 * body arrived cost most of a large request's time in a virtual machine,
 * where each first touch traps to the hypervisor (a 12 MB NodeList: about
 * 45 ms over HTTP against a 4 ms handler; 10 ms with this). */
#define ARENA_POPULATE_BYTES (256u << 10)

/* Chunks are mapped, not malloc'd: glibc raises its mmap threshold to the
 * size of each mapped block it frees (up to 32 MiB), so malloc'd chunks of
 * a few MiB to 32 MiB would stay in its heaps after a large request, and
 * idle RSS with them. A mapping goes back to the system at munmap. */
static struct arena_chunk *chunk_new(size_t size)
{
    size_t bytes = header_size() + size;
    /* cppcheck-suppress invalidFunctionArg ; MAP_ANONYMOUS takes fd -1 */
    void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    if (bytes >= ARENA_POPULATE_BYTES)
        (void)madvise(m, bytes, MADV_HUGEPAGE); /* fewer, larger pages where the kernel has them */
    ARENA_UNPOISON(m, bytes);                   /* whatever was mapped here before */
    struct arena_chunk *c = m;
    c->next = NULL;
    c->size = size;
    c->used = 0;
    POISON(chunk_data(c), size);
    return c;
}

/* Unmaps @c and the chunks after it. */
static void chunks_free(struct arena_chunk *c)
{
    for (struct arena_chunk *next; c != NULL; c = next) {
        next = c->next;
        size_t bytes = header_size() + c->size;
        ARENA_UNPOISON(c, bytes); /* the next mapping here starts clean */
        munmap(c, bytes);
    }
}

/* Faults in the pages of [@p, @p + @n) at once (a large body is about to
 * be written there): not the chunk's spare room, which may never be used
 * (peak RSS stays what the request touches). Kernels before 5.14 refuse
 * the advice; the pages then fault in as they are written. */
static void populate(char *p, size_t n)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), start = (uintptr_t)p & ~(page - 1);
    (void)madvise((void *)start, (uintptr_t)p + n - start, MADV_POPULATE_WRITE);
}

void *arena_alloc_slow(struct arena *a, size_t size)
{
    if (size > SIZE_MAX / 2)
        return NULL; /* no chunk could hold it; rounding up must not wrap */
    size_t need = size == 0 ? ALIGN : (size + ALIGN - 1) & ~(size_t)(ALIGN - 1);
    size_t want = a->next_size;
    while (want < need && want < SIZE_MAX / 2)
        want *= 2;
    if (a->limited) {
        /* Beyond the limit, ask for the chunk, else for what this needs. */
        if (need > a->limit_left && a->grow != NULL) {
            size_t more = a->grow(a->grow_ctx, want - a->limit_left); /* want >= need */
            if (more == 0 && want > need)
                more = a->grow(a->grow_ctx, need - a->limit_left);
            a->limit_left += more;
        }
        if (need > a->limit_left)
            return NULL;
        if (want > a->limit_left)
            want = a->limit_left;
    }
    struct arena_chunk *c = chunk_new(want);
    if (c == NULL)
        return NULL;
    if (a->limited)
        a->limit_left -= want;
    if (a->chunks != NULL)
        a->chunks->used = a->chunks->size - a->left - a->cut;
    a->cut = 0;
    c->next = a->chunks;
    a->chunks = c;
    if (a->next_size < MAX_CHUNK)
        a->next_size *= 2;
    char *p = chunk_data(c);
    a->next = p + need;
    a->left = want - need;
    ARENA_UNPOISON(p, need);
    if (need >= ARENA_POPULATE_BYTES)
        populate(p, need);
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
        a->chunks->used = a->chunks->size - a->left - a->cut;
    a->cut = 0;
    for (struct arena_chunk *c = a->chunks; c != NULL; c = c->next)
        total += c->used;
    struct arena_chunk *keep = a->chunks;
    if (keep != NULL && (keep->size > RETAIN_MAX || (keep->next != NULL && keep->size < total)))
        keep = NULL; /* too big to keep, or too small to be the one chunk */
    chunks_free(keep ? keep->next : a->chunks);
    a->chunks = keep;
    a->next_size = FIRST_CHUNK;
    if (keep == NULL && total > FIRST_CHUNK && total <= RETAIN_MAX) {
        size_t size = FIRST_CHUNK;
        while (size < total)
            size *= 2;
        keep = chunk_new(size); /* faulted in once, by the next request */
        a->chunks = keep;
    }
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
    chunks_free(a->chunks);
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
    a->limited = bytes != 0;
    a->limit_left = 0;
    if (!a->limited)
        return;
    /* The newest chunk's room counts first: cut to the limit, the warm
     * chunk of a small limit stays in the pool for the next request. The
     * room cut off is restored by arena_reset(), from the chunk's size. */
    if (a->left > bytes) {
        a->cut += a->left - bytes;
        a->left = bytes;
    } else {
        a->limit_left = bytes - a->left;
    }
}

size_t arena_used(const struct arena *a)
{
    size_t used = 0;
    for (const struct arena_chunk *c = a->chunks; c != NULL; c = c->next)
        used += c == a->chunks ? c->size - a->left - a->cut : c->used;
    return used;
}

void arena_set_grow(struct arena *a, arena_grow_fn fn, void *ctx)
{
    a->grow = fn;
    a->grow_ctx = ctx;
}

void arena_release(struct arena *a)
{
    if (a == NULL)
        return;
    a->limited = false;
    a->limit_left = 0;
    a->grow = NULL;
    a->grow_ctx = NULL;
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

/*
 * Request memory: a request takes an arena when its headers arrive, reads
 * its body into it, decodes and scores in it, and gives everything back in
 * one arena_release(), in O(chunks) instead of one free() per object (the
 * nginx pool). Functions that take request memory take the arena as their
 * `struct arena *` parameter; nothing that outlives the request may point
 * into it. A few warm arenas are pooled, each keeping one chunk of at most
 * a few MiB, so that the next small request runs in memory that is
 * already faulted in; chunks are mapped and unmapped directly (mmap), so
 * the memory of a large request goes back to the system when it ends.
 *
 * One arena is used by one thread at a time; the pool is thread-safe.
 */
#ifndef BASE_ARENA_H
#define BASE_ARENA_H

#include <stdbool.h>
#include <stddef.h>

/* gcc defines __SANITIZE_ADDRESS__ under -fsanitize=address; clang 14 only
 * answers __has_feature(address_sanitizer). */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) && !defined(__SANITIZE_ADDRESS__)
#define __SANITIZE_ADDRESS__ 1
#endif
#endif
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#define ARENA_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define ARENA_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define ARENA_ALIGN 16

/* Called when @a, under a limit, needs @want more bytes than the limit
 * lets it map: returns how many more it may map (0: none, and the
 * allocation fails). */
typedef size_t (*arena_grow_fn)(void *ctx, size_t want);

/* An arena. Its fields belong to arena.c; they are here only because
 * arena_alloc()'s fast path is inline: cJSON allocates once per value, and
 * a call per allocation costs more than the allocation itself. */
struct arena {
    char *next;                 /* free room of the newest chunk ... */
    size_t left;                /* ... and its size */
    struct arena_chunk *chunks; /* newest first */
    size_t next_size;           /* of the next chunk */
    bool limited;               /* arena_set_limit() is in force ... */
    size_t limit_left;          /* ... and this many bytes of new chunks may still be mapped */
    size_t cut;                 /* room of the newest chunk the limit cut off */
    arena_grow_fn grow;         /* arena_set_grow() */
    void *grow_ctx;
};

/* Takes a warm arena from the pool, or makes one. NULL when out of memory. */
struct arena *arena_acquire(void);

/* arena_alloc() when the newest chunk has no room: a new chunk. */
void *arena_alloc_slow(struct arena *a, size_t size);

/* Allocates @size bytes, 16-byte aligned, from @a. NULL when out of memory. */
static inline void *arena_alloc(struct arena *a, size_t size)
{
    /* A rounded size that did not wrap, and room left. */
    size_t need = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    if (need < size || need == 0 || need > a->left)
        return arena_alloc_slow(a, size);
    void *p = a->next;
    a->next += need;
    a->left -= need;
    ARENA_UNPOISON(p, need);
    return p;
}

/* Allocates @n zeroed elements of @size bytes. NULL when out of memory or
 * when @n * @size overflows. */
void *arena_calloc(struct arena *a, size_t n, size_t size);

/* Copies @len bytes of @s and a NUL. NULL when out of memory. */
char *arena_strndup(struct arena *a, const char *s, size_t len);

/* Makes allocations fail once about @bytes more would be used from @a
 * (0: no limit), until it is released: the room left in its newest chunk
 * counts, and new chunks are mapped only up to the rest. What a request
 * may touch beyond the pool's warm memory is so bounded (the memory
 * budget, server/http/budget.h, charges that much). */
void arena_set_limit(struct arena *a, size_t bytes);

/* Bytes handed out by @a since it was acquired, alignment and the room
 * left behind in full chunks included: what it has touched. O(chunks). */
size_t arena_used(const struct arena *a);

/* Sets the function (NULL: none) that arena_set_limit()'s limit may grow
 * by, with its @ctx; cleared by arena_release(). */
void arena_set_grow(struct arena *a, arena_grow_fn fn, void *ctx);

/* Frees everything allocated from @a and returns it to the pool (NULL is
 * fine). In ASan builds the memory is poisoned, so a pointer kept past its
 * request faults. */
void arena_release(struct arena *a);

/* Frees the pooled arenas (at exit, for leak checkers). */
void arena_pool_drain(void);

#endif

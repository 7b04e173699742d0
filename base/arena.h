/*
 * Request memory: a request takes an arena when its headers arrive, reads
 * its body into it, decodes and scores in it, and gives everything back in
 * one arena_release(), in O(chunks) instead of one free() per object (the
 * nginx pool). Functions that take request memory take the arena as their
 * `struct arena *` parameter; nothing that outlives the request may point
 * into it. Warm arenas are pooled, so the next request of the same size
 * runs in memory that is already faulted in.
 *
 * One arena is used by one thread at a time; the pool is thread-safe.
 */
#ifndef BASE_ARENA_H
#define BASE_ARENA_H

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

/* An arena. Its fields belong to arena.c; they are here only because
 * arena_alloc()'s fast path is inline: cJSON allocates once per value, and
 * a call per allocation costs more than the allocation itself. */
struct arena {
    char *next;                 /* free room of the newest chunk ... */
    size_t left;                /* ... and its size */
    struct arena_chunk *chunks; /* newest first */
    size_t next_size;           /* of the next chunk */
    size_t held;                /* bytes of the chunks */
    size_t limit;               /* most bytes of chunks held until released; 0: no limit */
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

/* Makes allocations fail once @bytes have been handed out since @a was
 * acquired (0: no limit), until it is released. */
void arena_set_limit(struct arena *a, size_t bytes);

/* Frees everything allocated from @a and returns it to the pool (NULL is
 * fine). In ASan builds the memory is poisoned, so a pointer kept past its
 * request faults. */
void arena_release(struct arena *a);

/* Frees the pooled arenas (at exit, for leak checkers). */
void arena_pool_drain(void);

#endif

/*
 * Request-scoped memory for cJSON: every cJSON allocation a thread makes
 * while it holds an arena comes from that arena and dies with
 * arena_release(), in O(chunks) instead of one free() per node. Threads
 * without an arena get plain malloc/free, so config parsing and cJSON use
 * outside requests work as usual.
 *
 * Rules: never cJSON_Delete a tree built in an arena; copy out anything that
 * must outlive the request before arena_release().
 */
#ifndef SERVER_ARENA_H
#define SERVER_ARENA_H

#include <stddef.h>

struct arena;

/* Routes cJSON's allocator through the arenas. Call once in main() before
 * threads start (cJSON's hooks are process-global). */
void arena_install_hooks(void);

/* Takes a warm arena from the pool (or makes one) and attaches it to the
 * calling thread. Returns NULL when out of memory. */
struct arena *arena_acquire(void);

/* Allocates @size bytes, 16-byte aligned, from @a. NULL when out of memory. */
void *arena_alloc(struct arena *a, size_t size);

/* Detaches @a from the calling thread, frees everything allocated from it
 * and returns it to the pool. In ASan builds the memory is poisoned, so a
 * pointer kept past its request faults. */
void arena_release(struct arena *a);

/* Frees the pooled arenas (at exit, for leak checkers). */
void arena_pool_drain(void);

#endif

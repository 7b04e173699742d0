/*
 * Giving freed memory back to the system, where glibc's allocator is the
 * one in use: after a large API answer is freed, so that idle RSS returns
 * near its start. Under AddressSanitizer the allocator is the sanitizer's
 * and glibc's arenas are never set up: malloc_trim() there reads a NULL
 * arena (a crash seen in the SAN build), so these do nothing.
 */
#ifndef BASE_HEAP_H
#define BASE_HEAP_H

#include <malloc.h>
#include <stdbool.h>
#include <stddef.h>

#if defined(__SANITIZE_ADDRESS__)
#define HEAP_IS_GLIBC 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HEAP_IS_GLIBC 0
#endif
#endif
#ifndef HEAP_IS_GLIBC
#define HEAP_IS_GLIBC 1
#endif

/* Returns the free memory at the top of glibc's heaps to the system. */
static inline void heap_trim(void)
{
#if HEAP_IS_GLIBC
    malloc_trim(0);
#endif
}

/* Keeps blocks of @threshold bytes or more mapped on their own (glibc
 * would raise its threshold to the largest block freed, and the next one
 * would stay in a heap after it is freed). false when refused; true where
 * glibc's allocator is not in use (nothing to set). */
static inline bool heap_map_large_blocks(size_t threshold)
{
#if HEAP_IS_GLIBC
    return mallopt(M_MMAP_THRESHOLD, (int)threshold) == 1;
#else
    (void)threshold;
    return true;
#endif
}

#endif

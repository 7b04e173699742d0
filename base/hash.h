/*
 * FNV-1a, the one string hash of the service: the cluster state's tables,
 * the decisions ring's UID index, the preempt name index and the
 * configuration's hash use it. Not keyed: every table that hashes request
 * data by it compares the keys after the hash, so a collision costs time
 * in one chain, never a wrong answer.
 */
#ifndef BASE_HASH_H
#define BASE_HASH_H

#include <stddef.h>
#include <stdint.h>

#define HASH_FNV1A_SEED 0xcbf29ce484222325ULL

/* Folds @len bytes at @p into the running hash @h (start at HASH_FNV1A_SEED). */
static inline uint64_t hash_fnv1a_bytes(uint64_t h, const void *p, size_t len)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < len; i++)
        h = (h ^ s[i]) * 0x100000001b3ULL;
    return h;
}

/* The hash of the NUL-terminated @s. */
static inline uint64_t hash_fnv1a_str(const char *s)
{
    uint64_t h = HASH_FNV1A_SEED;
    for (; *s != '\0'; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    return h;
}

#endif

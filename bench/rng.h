/*
 * The benchmark's deterministic pseudo-random numbers (xorshift64, fixed
 * seed): the generated requests and the fake cluster are the same on every
 * run, so runs compare. One generator per program; not thread-safe.
 */
#ifndef BENCH_RNG_H
#define BENCH_RNG_H

#include <stdint.h>

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static inline uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A number in 0..n-1 (n > 0). */
static inline unsigned pick(unsigned n)
{
    return (unsigned)(next() % n);
}

#endif

/* Time as the service measures it: CLOCK_MONOTONIC for durations and
 * deadlines, wall-clock seconds for what the API server timestamps.
 * Deadlines are uint64_t nanoseconds with a saturating add (as libuv keeps
 * its timers), so that no caller normalises a timespec by hand; a
 * timespec is made only where an API wants one (pthread_cond_timedwait). */
#ifndef BASE_CLOCK_H
#define BASE_CLOCK_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

#define CLOCK_NS_PER_MS  1000000ULL
#define CLOCK_NS_PER_SEC 1000000000ULL

/* Now, CLOCK_MONOTONIC. */
struct timespec clock_mono(void);

/* Now, CLOCK_MONOTONIC, in nanoseconds. */
uint64_t clock_mono_ns(void);

/* Seconds from @t (CLOCK_MONOTONIC) to now. */
double clock_since(const struct timespec *t);

/* Wall-clock seconds since the epoch (CLOCK_REALTIME): the time base of the
 * cluster state, since metrics.k8s.io timestamps are wall-clock. */
double clock_wall(void);

/* @t + @d, UINT64_MAX when that overflows (a deadline that never comes). */
static inline uint64_t clock_add_ns(uint64_t t, uint64_t d)
{
    return d > UINT64_MAX - t ? UINT64_MAX : t + d;
}

/* @t in nanoseconds (0 for a negative @t). */
uint64_t clock_ns_of(const struct timespec *t);

/* @ns as a timespec, for the APIs that take one. */
struct timespec clock_timespec_of(uint64_t ns);

/* Initialises @c to be waited on with CLOCK_MONOTONIC deadlines, as every
 * deadline here is. Returns 0 or -errno. */
int clock_cond_init(pthread_cond_t *c);

#endif

/* Time as the service measures it: CLOCK_MONOTONIC for durations and
 * deadlines, wall-clock seconds for what the API server timestamps. */
#ifndef BASE_CLOCK_H
#define BASE_CLOCK_H

#include <time.h>

/* Now, CLOCK_MONOTONIC. */
struct timespec clock_mono(void);

/* Seconds from @t (CLOCK_MONOTONIC) to now. */
double clock_since(const struct timespec *t);

/* Wall-clock seconds since the epoch (CLOCK_REALTIME): the time base of the
 * cluster state, since metrics.k8s.io timestamps are wall-clock. */
double clock_wall(void);

#endif

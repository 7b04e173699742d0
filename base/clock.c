#include "base/clock.h"

struct timespec clock_mono(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now;
}

uint64_t clock_mono_ns(void)
{
    struct timespec now = clock_mono();
    return clock_ns_of(&now);
}

double clock_since(const struct timespec *t)
{
    struct timespec now = clock_mono();
    return (double)(now.tv_sec - t->tv_sec) + (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

double clock_wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

uint64_t clock_ns_of(const struct timespec *t)
{
    if (t->tv_sec < 0 || t->tv_nsec < 0)
        return 0;
    uint64_t s = (uint64_t)t->tv_sec;
    if (s > UINT64_MAX / CLOCK_NS_PER_SEC)
        return UINT64_MAX;
    return clock_add_ns(s * CLOCK_NS_PER_SEC, (uint64_t)t->tv_nsec);
}

struct timespec clock_timespec_of(uint64_t ns)
{
    uint64_t s = ns / CLOCK_NS_PER_SEC;
    /* A saturated deadline stays the farthest time a time_t can hold. */
    time_t max = (time_t)((sizeof(time_t) == 8) ? INT64_MAX : INT32_MAX);
    return (struct timespec){.tv_sec = s > (uint64_t)max ? max : (time_t)s,
                             .tv_nsec = (long)(ns % CLOCK_NS_PER_SEC)};
}

int clock_cond_init(pthread_cond_t *c)
{
    pthread_condattr_t at;
    int rc = pthread_condattr_init(&at);
    if (rc != 0)
        return -rc;
    rc = pthread_condattr_setclock(&at, CLOCK_MONOTONIC);
    if (rc == 0)
        rc = pthread_cond_init(c, &at);
    pthread_condattr_destroy(&at);
    return -rc;
}

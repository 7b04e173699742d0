#include "server/verbs/deadline.h"

#include <limits.h>
#include <stdatomic.h>

#include "base/clock.h"

/* Scoring cost per node in picoseconds, an exponentially weighted mean of
 * recent requests. It is measured in wall time, so CPU contention from
 * concurrent requests (overload) raises it and the prediction with it. */
static _Atomic unsigned long long cost_ps_per_node;

/* The answer is written after scoring and takes about as long again. */
#define ANSWER_FACTOR 2

uint64_t verb_deadline_budget_ns(const struct cfg *cfg)
{
    if (cfg->scheduler_timeout_ms <= 0)
        return 0;
    return (uint64_t)cfg->scheduler_timeout_ms * CLOCK_NS_PER_MS * 8 / 10;
}

void verb_deadline_init(struct verb_deadline *d, const struct cfg *cfg,
                        const struct timespec *start)
{
    /* A zero start (a caller outside the HTTP server) has no deadline. */
    d->on = cfg->scheduler_timeout_ms > 0 && (start->tv_sec != 0 || start->tv_nsec != 0);
    d->at = clock_add_ns(clock_ns_of(start), verb_deadline_budget_ns(cfg));
}

/* Nanoseconds from now until @d->at (negative once passed). */
static long long ns_left(const struct verb_deadline *d)
{
    uint64_t now = clock_mono_ns();
    if (d->at >= now)
        return d->at - now > (uint64_t)LLONG_MAX ? LLONG_MAX : (long long)(d->at - now);
    return now - d->at > (uint64_t)LLONG_MAX ? -LLONG_MAX : -(long long)(now - d->at);
}

bool verb_deadline_passed(const struct verb_deadline *d)
{
    return d->on && ns_left(d) <= 0;
}

bool verb_deadline_would_miss(const struct verb_deadline *d, size_t n_nodes)
{
    if (!d->on)
        return false;
    unsigned long long ps = atomic_load_explicit(&cost_ps_per_node, memory_order_relaxed);
    if ((double)ns_left(d) > (double)ps / 1e3 * (double)n_nodes * ANSWER_FACTOR)
        return false;
    /* Only scored requests measure the cost, and this one will not be
     * scored: lower the estimate by an eighth, so that a spike cannot keep
     * every later request of this size from being scored. After a few
     * neutral answers one is scored again and measures what is true now. */
    atomic_store_explicit(&cost_ps_per_node, ps - ps / 8, memory_order_relaxed);
    return true;
}

void verb_deadline_learn(size_t n_nodes, double seconds)
{
    if (n_nodes == 0)
        return;
    double sample = seconds * 1e12 / (double)n_nodes;
    double old = (double)atomic_load_explicit(&cost_ps_per_node, memory_order_relaxed);
    /* 1/8 of each new sample: follows load changes within a few dozen
     * requests; a lost update between threads costs nothing. */
    double next = old == 0 ? sample : old + (sample - old) / 8;
    atomic_store_explicit(&cost_ps_per_node, (unsigned long long)next, memory_order_relaxed);
}

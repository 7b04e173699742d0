/*
 * Deadline-aware answers: better a neutral answer in time than a scheduler
 * timeout, which fails the filter (or drops the scores) anyway. The
 * deadline of a request is 80 % of the scheduler's httpTimeout after its
 * headers arrived, leaving the rest for the answer's way back.
 */
#ifndef SERVER_VERBS_DEADLINE_H
#define SERVER_VERBS_DEADLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "config/config.h"

struct verb_deadline {
    bool on;
    uint64_t at; /* CLOCK_MONOTONIC nanoseconds */
};

/* The part of the scheduler's httpTimeout a request may spend before it
 * answers (80 %), in nanoseconds; 0 when the timeout is off. The one place
 * of that rule: the memory-budget wait of the transport keeps to it too. */
uint64_t verb_deadline_budget_ns(const struct cfg *cfg);

/* Sets @d from @start and cfg->scheduler_timeout_ms (off when either is 0). */
void verb_deadline_init(struct verb_deadline *d, const struct cfg *cfg,
                        const struct timespec *start);

/* Has @d passed? Never when it is off. */
bool verb_deadline_passed(const struct verb_deadline *d);

/* Would scoring @n_nodes nodes, at the cost per node recently measured,
 * end after @d? Never when it is off. Each "yes" lowers the estimate by an
 * eighth (it is only measured by requests that are scored), so a passing
 * spike does not switch scoring off for good. Thread-safe. */
bool verb_deadline_would_miss(const struct verb_deadline *d, size_t n_nodes);

/* Feeds the measured cost of scoring @n_nodes nodes in @seconds into the
 * estimate verb_deadline_would_miss() uses. Thread-safe. */
void verb_deadline_learn(size_t n_nodes, double seconds);

#endif

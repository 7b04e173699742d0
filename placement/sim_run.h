/* Runs of a prepared simulation (placement/simulate.h). */
#ifndef PLACEMENT_SIM_RUN_H
#define PLACEMENT_SIM_RUN_H

#include <stddef.h>

#include "placement/simulate.h"

/*
 * Runs the simulation under strategy @s into *@out (initialised here).
 * Returns 0 or -ENOMEM (then *@out holds nothing to free). @sim is only read:
 * runs of one @sim may go on in several threads at once, each into its own
 * result.
 */
int place_sim_run(const struct place_sim *sim, enum score_strategy s, struct place_sim_result *out);

/*
 * Runs the @n strategies @s into @out[0..n) on up to @threads threads
 * (1 or 0: in the calling thread). Returns 0, or the first error of
 * place_sim_run(), or -EAGAIN when a thread cannot start; on error no
 * result needs freeing.
 */
int place_sim_run_all(const struct place_sim *sim, const enum score_strategy *s, size_t n,
                      unsigned threads, struct place_sim_result *out);

/* Frees what @r holds and zeroes it (a zeroed result is fine). */
void place_sim_result_destroy(struct place_sim_result *r);

#endif

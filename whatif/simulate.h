/*
 * `cpu-extender simulate --nodes FILE --pods FILE [--existing FILE]
 * [--strategy S|all] [--placements FILE] [--html FILE] [options]`: places
 * the pods one by one as kube-scheduler with this extender would, under
 * each strategy, from the same placement model and scoring that serve the
 * verbs (placement/simulate.h), and says what the nodes would look like.
 * Without --nodes (and --existing), the nodes and their pods come from the
 * cluster, found as `rank` finds it.
 */
#ifndef WHATIF_SIMULATE_H
#define WHATIF_SIMULATE_H

/* `cpu-extender simulate ...`: exit status 0 when every pod was placed
 * under every strategy run, 3 when some were not, 2 for bad usage or bad
 * input (the message names the file, the object and the field), 1 when the
 * cluster or memory failed. */
int whatif_simulate_main(int argc, char **argv);

#endif

/*
 * Whether the filter verb adds anything to kube-scheduler's own filters.
 *
 * With cluster state, used = requests for both resources and thresholds at
 * 100 %, our filter rejects a node only when the pod's cpu or memory
 * request does not fit beside the requests already on it: what
 * kube-scheduler's NodeResourcesFit rejects already (it also counts the
 * pods it has assumed but not yet seen bound, so it is the stricter of the
 * two). Registering the filter then costs a call per pod and decides
 * nothing; prioritize alone gives the same placements. docs/operations.md
 * has the measured cost.
 */
#ifndef CONFIG_FILTER_NEED_H
#define CONFIG_FILTER_NEED_H

#include <stdbool.h>

#include "config/config.h"

/* The setting of @c that makes the filter decide something kube-scheduler
 * would not (a static text: "cpu threshold below 100 %", ...), or NULL when
 * the filter is redundant. @cluster: the service scores from cluster state
 * (without it a Node object's used annotation is the used value). */
const char *cfg_filter_need(const struct cfg *c, bool cluster);

#endif

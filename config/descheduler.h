/*
 * The eviction lines of a descheduler policy (sigs.k8s.io/descheduler), for
 * `config check --descheduler-policy`: where LowNodeUtilization calls a node
 * overutilized and evicts from it. A scheduling threshold above that line
 * places pods on nodes the descheduler then empties again (koordinator#2477).
 * Both forms are read: descheduler/v1alpha2 (profiles[].pluginConfig[] named
 * LowNodeUtilization, its args) and v1alpha1 (strategies.LowNodeUtilization
 * .params.nodeResourceUtilizationThresholds).
 */
#ifndef CONFIG_DESCHEDULER_H
#define CONFIG_DESCHEDULER_H

#include <stdbool.h>
#include <stddef.h>

#include "scoring/resources.h"

/* More LowNodeUtilization configurations than this in one policy (one per
 * profile) are refused: a policy has a handful. */
#define CFG_DESCHEDULER_MAX 16

/* One LowNodeUtilization configuration. */
struct cfg_descheduler_line {
    char where[96]; /* "profile NAME" or "strategies" */
    bool enabled;   /* v1alpha2: listed in plugins.balance.enabled; v1alpha1: enabled */
    bool deviation; /* useDeviationThresholds: the lines are relative to the mean */
    bool has_target[SCORE_NRES];
    double target[SCORE_NRES];                   /* targetThresholds, percent */
    char target_text[SCORE_NRES][32];            /* as written */
    size_t line[SCORE_NRES], column[SCORE_NRES]; /* of the value, 1-based */
};

struct cfg_descheduler_policy {
    char api_version[64];
    struct cfg_descheduler_line lines[CFG_DESCHEDULER_MAX];
    size_t n;
};

/*
 * Reads the descheduler policy @text (@len bytes) named @name in messages.
 * Returns 0, or -EINVAL with "NAME:LINE:COLUMN: what" in @err (YAML syntax,
 * not a DeschedulerPolicy, a threshold that is not a number from 0 to 100),
 * -ENOMEM. Thread-safe.
 */
int cfg_descheduler_policy(const char *text, size_t len, const char *name,
                           struct cfg_descheduler_policy *out, char *err);

#endif

/* What the commands share: the configuration from their arguments. */
#ifndef CONFIG_LOAD_H
#define CONFIG_LOAD_H

#include <stdbool.h>

#include "config/config.h"

/*
 * Builds the configuration from defaults, the config file, the environment
 * and the @argc flags of @argv (no positional argument), then takes the
 * extender's weight and httpTimeout from scheduler-config when it names
 * one. @started: the configuration in use since the start, for a reload
 * (NULL at start): kube-scheduler reads its file once, so the values read
 * then stay, and a file that now says otherwise is logged. Returns 0, or
 * -EINVAL with the reason in @err.
 */
int cfg_build_config(struct cfg *c, int argc, char **argv, const struct cfg *started, char *err);

/* The same at start, printing the error; returns 0 or -EINVAL. */
int cfg_load_config(struct cfg *c, int argc, char **argv);

/* The options alone, without reading scheduler-config (for `probe`, which
 * needs only where the server listens), printing the error; returns 0 or
 * -EINVAL. */
int cfg_load_options(struct cfg *c, int argc, char **argv);

/*
 * Applies the scheduler file c->scheduler_config (when set) to @c.
 * Returns 0, or -errno with the reason in @err (the file missing or
 * unreadable, no matching extenders entry, a value set twice).
 */
int cfg_apply_scheduler_config(struct cfg *c, char *err);

/* Whether @argv (@argc words) asks for help: --help or -h anywhere. */
bool cfg_wants_help(int argc, char **argv);

#endif

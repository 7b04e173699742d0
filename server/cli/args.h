/* What the commands share: the configuration from their arguments. */
#ifndef SERVER_CLI_ARGS_H
#define SERVER_CLI_ARGS_H

#include "config/config.h"

/* Loads the configuration from defaults, the config file, the environment
 * and the @argc flags of @argv (no positional argument); prints the error
 * and returns -EINVAL when it is not valid. */
int cli_load_config(struct cfg *c, int argc, char **argv);

#endif

/* `cpu-extender config check FILE`: validate a config file. */
#ifndef CLI_CONFIG_CHECK_H
#define CLI_CONFIG_CHECK_H

#include <stdio.h>

/* Checks FILE over the defaults, the files it names and the advice, and
 * prints the effective configuration; exit status 0, or 2 with the errors
 * on stderr, each naming FILE. */
int cli_config_main(int argc, char **argv);

/* `config --help`. */
void cli_config_help(FILE *out);

#endif

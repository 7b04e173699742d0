/* `cpu-extender config check FILE`: validate a config file. */
#ifndef SERVER_CLI_CONFIG_CHECK_H
#define SERVER_CLI_CONFIG_CHECK_H

/* Checks FILE over the defaults and prints the effective configuration;
 * exit status 0, or 2 with the error on stderr. */
int cli_config_main(int argc, char **argv);

#endif

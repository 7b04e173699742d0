/* `cpu-extender [serve] [options]`: the service until SIGTERM. */
#ifndef CLI_SERVE_H
#define CLI_SERVE_H

/* Serves with the configuration of @argv (@argc options); SIGHUP or a
 * changed config file reloads it. Returns the exit status: 0 after a clean
 * stop, 1 when serving failed, 2 for a bad configuration. */
int cli_serve(int argc, char **argv);

#endif

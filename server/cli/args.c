#include "server/cli/args.h"

#include <errno.h>
#include <stdio.h>

extern char **environ;

int cli_load_config(struct cfg *c, int argc, char **argv)
{
    char err[ERR_LEN];
    int positional[1], n = 0;
    if (cfg_load(c, argc, argv, environ, positional, 0, &n, err) != 0) {
        fprintf(stderr, "cpu-extender: %s\n", err);
        return -EINVAL;
    }
    return 0;
}

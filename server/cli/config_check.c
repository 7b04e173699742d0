#include "server/cli/config_check.h"

#include <stdio.h>
#include <string.h>

#include "config/config.h"

int cli_config_main(int argc, char **argv)
{
    struct cfg c;
    char err[ERR_LEN];

    if (argc != 2 || strcmp(argv[0], "check") != 0) {
        fprintf(stderr, "usage: cpu-extender config check FILE\n");
        return 2;
    }
    if (cfg_load_file_only(&c, argv[1], err) != 0) {
        fprintf(stderr, "cpu-extender: %s\n", err);
        return 2;
    }
    fprintf(stderr, "%s: ok\n", argv[1]);
    cfg_print_json(&c, stdout);
    return 0;
}

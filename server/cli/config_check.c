#include "server/cli/config_check.h"

#include <stdio.h>
#include <string.h>

#include "config/config.h"
#include "config/filter_need.h"

/* Whether kube-scheduler's configuration needs the filter verb, with and
 * without cluster state (config check cannot know which the service will
 * have). */
static void print_filter_need(const struct cfg *c)
{
    const char *cluster = cfg_filter_need(c, true), *alone = cfg_filter_need(c, false);
    if (cluster == NULL)
        fprintf(stderr, "filter verb, with cluster state: redundant (kube-scheduler's "
                        "NodeResourcesFit rejects the same nodes): register prioritize only\n");
    else
        fprintf(stderr, "filter verb, with cluster state: needed (%s)\n", cluster);
    if (alone == NULL)
        fprintf(stderr, "filter verb, without a cluster: redundant\n");
    else
        fprintf(stderr, "filter verb, without a cluster: needed (%s)\n", alone);
}

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
    print_filter_need(&c);
    cfg_print_json(&c, stdout);
    return 0;
}

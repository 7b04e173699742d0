/*
 * cpu-extender: command dispatch.
 *
 *   cpu-extender [serve] [options]         serve the extender (default)
 *   cpu-extender probe [--ready] [options] exec probe for kubelet
 *   cpu-extender config check FILE         validate a config file
 *   cpu-extender rank --pod F [--nodes F]   rank nodes (a file or the cluster) for a pod
 *   cpu-extender simulate --pods F ...     place many pods under each strategy
 *
 * Exit codes: 0 success, 1 failure at run time, 2 bad usage or config.
 */
#include <stdio.h>
#include <string.h>

#include "config/config.h"
#include "server/cli/config_check.h"
#include "server/cli/probe.h"
#include "server/cli/rank.h"
#include "server/cli/serve.h"
#include "server/cli/simulate.h"
#include "version.h"

static void usage(FILE *out)
{
    fprintf(
        out,
        "cpu-extender %s: a Kubernetes scheduler extender that places pods on the nodes\n"
        "with the most free CPU.\n\n"
        "Usage:\n"
        "  cpu-extender [serve] [options]          serve the extender verbs under <prefix>\n"
        "  cpu-extender probe [--ready] [options]  exit 0 if the local listener is healthy\n"
        "                                          (or ready); for kubelet exec probes\n"
        "  cpu-extender config check FILE          validate FILE, print the effective config\n"
        "  cpu-extender rank --pod FILE [--nodes FILE [--existing FILE]] [-o FORMAT] [options]\n"
        "                                          rank nodes (kubectl get nodes -o json, its\n"
        "                                          pods from kubectl get pods -A -o json; or\n"
        "                                          without --nodes the cluster of --kubeconfig,\n"
        "                                          KUBECONFIG, ~/.kube/config, in-cluster) for a "
        "pod\n"
        "                                          (kubectl get pod -o json) as kube-scheduler\n"
        "                                          would filter them; table on stderr, the pod\n"
        "                                          pinned to the best node on stdout (-o yaml,\n"
        "                                          json, table or name)\n"
        "  cpu-extender simulate --pods FILE [--nodes FILE [--existing FILE]]\n"
        "                        [--strategy S|all] [--placements FILE] [--html FILE] [options]\n"
        "                                          place the pods one by one under each\n"
        "                                          strategy; summary on stdout, exit 3 when\n"
        "                                          some pod fits nowhere\n"
        "  cpu-extender --help | --version\n\n",
        CPU_EXTENDER_VERSION);
    cfg_print_help(out);
}

int main(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : "serve";

    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("cpu-extender %s\n", CPU_EXTENDER_VERSION);
        return 0;
    }
    if (strcmp(cmd, "serve") == 0)
        return cli_serve(argc - 2 < 0 ? 0 : argc - 2, argv + 2);
    if (strcmp(cmd, "probe") == 0)
        return cli_probe_main(argc - 2, argv + 2);
    if (strcmp(cmd, "config") == 0)
        return cli_config_main(argc - 2, argv + 2);
    if (strcmp(cmd, "rank") == 0)
        return cli_rank_main(argc - 2, argv + 2);
    if (strcmp(cmd, "simulate") == 0)
        return cli_simulate_main(argc - 2, argv + 2);
    if (strncmp(cmd, "--", 2) == 0)
        return cli_serve(argc - 1, argv + 1);
    fprintf(stderr, "cpu-extender: unknown command \"%s\" (see --help)\n", cmd);
    return 2;
}

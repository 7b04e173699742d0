/*
 * cpu-extender: command dispatch.
 *
 *   cpu-extender [serve] [options]         serve the extender (default)
 *   cpu-extender probe [--ready] [options] exec probe for kubelet
 *   cpu-extender config check FILE         validate a config file
 *   cpu-extender rank --pod F [--nodes F]   rank nodes (a file or the cluster) for a pod
 *
 * Exit codes: 0 success, 1 failure at run time, 2 bad usage or config.
 */
#include <stdio.h>
#include <string.h>

#include "config/config.h"
#include "server/cli/args.h"
#include "server/cli/config_check.h"
#include "server/cli/probe.h"
#include "server/cli/rank.h"
#include "server/cli/serve.h"
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
        "  cpu-extender config check FILE          validate FILE (\"-\": standard input) and\n"
        "                                          the files it names, print the effective\n"
        "                                          config\n"
        "  cpu-extender rank --pod FILE [--nodes FILE] [options]\n"
        "                                          rank nodes (kubectl get nodes -o json, or\n"
        "                                          without --nodes the cluster of --kubeconfig,\n"
        "                                          KUBECONFIG, ~/.kube/config, in-cluster) for a "
        "pod\n"
        "                                          (kubectl get pod -o json); table on stderr,\n"
        "                                          pinned pod manifest on stdout\n"
        "  cpu-extender --help | --version\n"
        "  cpu-extender COMMAND --help             the command's own help\n\n",
        CPU_EXTENDER_VERSION);
    cfg_print_help(out);
}

/* `rank --help`: here rather than in rank.c, with the other usage texts. */
static void rank_help(FILE *out)
{
    fprintf(out,
            "Usage: cpu-extender rank --pod FILE [--nodes FILE] [options]\n\n"
            "Scores every node for one pod as the server would and explains it: one line per\n"
            "node with its terms, value, score and verdict on stderr, then the best node, and\n"
            "on stdout the pod's manifest pinned to that node (nodeSelector\n"
            "kubernetes.io/hostname), ready for kubectl apply -f -.\n\n"
            "  --pod FILE    the pod, as kubectl get pod NAME -o json prints it\n"
            "  --nodes FILE  the candidate nodes, as kubectl get nodes -o json (or get node\n"
            "                NAME) prints them; without it, every node of the cluster of\n"
            "                --kubeconfig, KUBECONFIG, ~/.kube/config or in-cluster, with its\n"
            "                pods and usage as the server sees them\n"
            "  --help        this text\n\n"
            "\"-\" as FILE reads standard input (for one of the two). Every server option is\n"
            "accepted (cpu-extender --help): the scoring ones change the ranking. Exit status:\n"
            "0 a node fits, 1 none does or the input cannot be read, 2 bad usage.\n");
}

int main(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : "serve";

    if (argc > 2 && cli_wants_help(argc - 2, argv + 2)) {
        if (strcmp(cmd, "serve") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(cmd, "probe") == 0) {
            cli_probe_help(stdout);
            return 0;
        }
        if (strcmp(cmd, "rank") == 0) {
            rank_help(stdout);
            return 0;
        }
        if (strcmp(cmd, "config") == 0) {
            cli_config_help(stdout);
            return 0;
        }
    }

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
    if (strncmp(cmd, "--", 2) == 0) {
        if (cli_wants_help(argc - 1, argv + 1)) {
            usage(stdout);
            return 0;
        }
        return cli_serve(argc - 1, argv + 1);
    }
    fprintf(stderr, "cpu-extender: unknown command \"%s\" (see --help)\n", cmd);
    return 2;
}

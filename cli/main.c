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
#include "config/load.h"
#include "cli/config_check.h"
#include "cli/probe.h"
#include "whatif/rank.h"
#include "cli/serve.h"
#include "whatif/simulate.h"
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
        "  cpu-extender --help | --version\n"
        "  cpu-extender COMMAND --help             the command's own help\n\n",
        CPU_EXTENDER_VERSION);
    cfg_print_help(out);
}

/* `rank --help` and `simulate --help`: here rather than in rank.c and
 * simulate.c, with the other usage texts. */
static void rank_help(FILE *out)
{
    fprintf(out,
            "Usage: cpu-extender rank --pod FILE [--nodes FILE [--existing FILE]] [-o FORMAT]\n"
            "                         [options]\n\n"
            "Scores every node for one pod as the server would, after kube-scheduler's own\n"
            "filters, and explains it: one line per node with its terms, value, score and\n"
            "verdict on stderr, then the best node, and on stdout the pod's manifest pinned\n"
            "to that node (its kubernetes.io/hostname label), ready for kubectl apply -f -.\n\n"
            "  --pod FILE       the pod, as kubectl get pod NAME -o json prints it\n"
            "  --nodes FILE     the candidate nodes, as kubectl get nodes -o json (or get node\n"
            "                   NAME) prints them; without it, every node of the cluster of\n"
            "                   --kubeconfig, KUBECONFIG, ~/.kube/config or in-cluster, with\n"
            "                   its pods and usage as the server sees them\n"
            "  --existing FILE  with --nodes: the pods already on them (kubectl get pods -A\n"
            "                   -o json)\n"
            "  -o FORMAT        stdout as yaml (the default), json, table or name\n"
            "  --help           this text\n\n"
            "\"-\" as FILE reads standard input (for one of them). Every server option is\n"
            "accepted (cpu-extender --help): the scoring ones change the ranking. Exit status:\n"
            "0 a node fits, 1 none does or the input cannot be read, 2 bad usage.\n");
}

static void simulate_help(FILE *out)
{
    fprintf(out,
            "Usage: cpu-extender simulate --pods FILE [--nodes FILE [--existing FILE]]\n"
            "                             [--strategy S|all] [--placements FILE.csv]\n"
            "                             [--html FILE.html] [--timing] [options]\n\n"
            "Places the pods one by one as kube-scheduler with this extender would, under\n"
            "each strategy, and prints what the nodes would look like.\n\n"
            "  --pods FILE        the pods to place (kubectl get pods -o json, or several)\n"
            "  --nodes FILE       the nodes (kubectl get nodes -o json); without it the nodes\n"
            "                     and their pods come from the cluster, found as rank finds it\n"
            "  --existing FILE    with --nodes: the pods already on them\n"
            "  --strategy S|all   spread, pack, balanced, target, or all of them (default)\n"
            "  --placements FILE  every placement as CSV\n"
            "  --html FILE        the strategies side by side as an HTML page\n"
            "  --timing           the engine's time on stderr\n"
            "  --help             this text\n\n"
            "\"-\" as FILE reads standard input (for one of them). Every server option is\n"
            "accepted (cpu-extender --help). Exit status: 0 every pod placed, 3 some fit\n"
            "nowhere, 2 bad usage or input, 1 the cluster or memory failed.\n");
}

static const struct command {
    const char *name;
    void (*help)(FILE *out);
    int (*run)(int argc, char **argv);
} commands[] = {
    {"serve", usage, cli_serve},
    {"probe", cli_probe_help, cli_probe_main},
    {"rank", rank_help, whatif_rank_main},
    {"simulate", simulate_help, whatif_simulate_main},
    {"config", cli_config_help, cli_config_main},
};

int main(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : "serve";
    int n = argc > 2 ? argc - 2 : 0;

    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
        if (strcmp(cmd, commands[i].name) != 0)
            continue;
        if (n > 0 && cfg_wants_help(n, argv + 2)) {
            commands[i].help(stdout);
            return 0;
        }
        return commands[i].run(n, argv + 2);
    }
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("cpu-extender %s\n", CPU_EXTENDER_VERSION);
        return 0;
    }
    if (strncmp(cmd, "--", 2) == 0) {
        if (cfg_wants_help(argc - 1, argv + 1)) {
            usage(stdout);
            return 0;
        }
        return cli_serve(argc - 1, argv + 1);
    }
    fprintf(stderr, "cpu-extender: unknown command \"%s\" (see --help)\n", cmd);
    return 2;
}

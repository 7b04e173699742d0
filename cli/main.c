/*
 * cpu-extender: command dispatch.
 *
 *   cpu-extender [serve] [options]         serve the extender (default)
 *   cpu-extender probe [--ready] [options] exec probe for kubelet
 *   cpu-extender config check FILE         validate a config file
 *   cpu-extender rank --pod F [--nodes F]   rank nodes (a file or the cluster) for a pod
 *   cpu-extender simulate --pods F ...     place many pods under each strategy
 *
 * Exit codes: exit_statuses below, the one table of them.
 */
#include <errno.h>
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

/* Every command's exit statuses, the one table: each command's --help
 * prints its own from here, and tests/e2e/test_cli.c checks the man page's
 * EXIT STATUS and the binary's behaviour against what --help prints. An
 * output that cannot be written is 1 for every command (finish()). */
static const struct exit_status {
    const char *command;
    int code;
    const char *meaning;
} exit_statuses[] = {
    {"serve", 0, "stopped by SIGTERM or SIGINT"},
    {"serve", 1, "failed at run time: the listener cannot be opened, or standard output failed"},
    {"serve", 2, "bad usage or configuration, or a cluster named but unusable"},
    {"probe", 0, "the server answered 200"},
    {"probe", 1, "it did not (the reason on standard error), or standard output failed"},
    {"probe", 2, "bad usage or configuration"},
    {"rank", 0, "a node fits"},
    {"rank", 1, "no node fits; or the cluster, memory or standard output failed"},
    {"rank", 2, "bad usage, or an input file missing, unreadable or not what it should be"},
    {"simulate", 0, "every pod was placed under every strategy run"},
    {"simulate", 1, "the cluster, memory or standard output failed"},
    {"simulate", 2, "bad usage, or an input file missing, unreadable or not what it should be"},
    {"simulate", 3, "some pod fits on no node"},
    {"config", 0, "the file is valid (with warnings or not)"},
    {"config", 1, "standard output failed"},
    {"config", 2, "the file is invalid, or bad usage"},
};

/* The exit statuses of @command, as --help ends: "  N  meaning". */
static void print_exit_statuses(FILE *out, const char *command)
{
    fprintf(out, "\nExit status:\n");
    for (size_t i = 0; i < sizeof(exit_statuses) / sizeof(exit_statuses[0]); i++)
        if (strcmp(exit_statuses[i].command, command) == 0)
            fprintf(out, "  %d  %s\n", exit_statuses[i].code, exit_statuses[i].meaning);
}

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
        "  cpu-extender COMMAND --help             the command's own help, with its exit\n"
        "                                          statuses\n",
        CPU_EXTENDER_VERSION);
    print_exit_statuses(out, "serve");
    fputc('\n', out);
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
            "accepted (cpu-extender --help): the scoring ones change the ranking. With -o\n"
            "given (yaml, json or name), stdout has only that and stderr only warnings and\n"
            "errors: no table. Each flag that takes a value takes it as --flag VALUE or\n"
            "--flag=VALUE (-o also as -oVALUE). From files, the used sources usage and max are\n"
            "refused (node files carry no usage).\n");
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
            "accepted (cpu-extender --help); --flag VALUE and --flag=VALUE are the same.\n");
}

/* A command's --help is its help, then its exit statuses (serve's usage
 * prints them before the options). */
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

/* @status, unless standard output could not be written (a full disk, a
 * closed pipe): then 1 whatever the command decided, for a caller of
 * $(...) would take a truncated answer for a whole one. */
static int finish(const char *cmd, int status)
{
    if (fflush(stdout) == 0 && !ferror(stdout))
        return status;
    fprintf(stderr, "cpu-extender%s%s: cannot write standard output: %s\n", cmd ? " " : "",
            cmd ? cmd : "", errno != 0 ? strerror(errno) : "a write failed");
    return 1;
}

int main(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : "serve";
    int first = 2; /* argv[first] is the command's first argument */

    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return finish(NULL, 0);
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("cpu-extender %s\n", CPU_EXTENDER_VERSION);
        return finish(NULL, 0);
    }
    if (strncmp(cmd, "--", 2) == 0) { /* options without a command: serve */
        cmd = "serve";
        first = 1;
    }
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
        if (strcmp(cmd, commands[i].name) != 0)
            continue;
        int n = argc > first ? argc - first : 0;
        if (n > 0 && cfg_wants_help(n, argv + first)) {
            commands[i].help(stdout);
            if (commands[i].help != usage)
                print_exit_statuses(stdout, cmd);
            return finish(first == 1 ? NULL : cmd, 0);
        }
        int status = commands[i].run(n, argv + first);
        errno = 0;
        return finish(cmd, status);
    }
    fprintf(stderr, "cpu-extender: unknown command \"%s\" (see --help)\n", cmd);
    return 2;
}

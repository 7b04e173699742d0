/*
 * `cpu-extender rank --pod pod.json [--nodes nodes.json [--existing
 * pods.json]]`: where kube-scheduler with this extender would put one pod,
 * for a person. Each node is judged by the placement model
 * (placement/constraints.h: kube-scheduler's filters, then ours) and the
 * nodes that pass are scored as prioritize would score them; without
 * --nodes, the nodes, their pods and usage come from a live cluster
 * (--kubeconfig, KUBECONFIG, ~/.kube/config, or in-cluster). The table
 * (best first), the best node and advice go to standard error, and to
 * standard output the pod as a new object pinned to the best node (YAML,
 * or -o json), or for a controller's pod the patch that pins its template;
 * -o table prints only the table, on standard output, -o name only
 * node/NAME.
 */
#ifndef WHATIF_RANK_H
#define WHATIF_RANK_H

/* `cpu-extender rank ...`: exit status 0 when a node fits, 1 when none
 * does or the cluster failed, 2 for bad usage or bad input (the message
 * names the file, the object and the field). */
int whatif_rank_main(int argc, char **argv);

#endif

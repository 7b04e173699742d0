/*
 * What `rank` and `simulate` start from, read once: the nodes as the
 * placement model sees them (labels, taints, unschedulable, pod count and
 * kube-scheduler's requested) with our used view as `serve` would score
 * them, and the pods to place.
 *
 * Nodes come from a NodeList file (`kubectl get nodes -o json`), with the
 * pods already bound from a PodList file (`--existing`: their requests are
 * summed per node as the cluster state sums them, and kube-scheduler's
 * NodeInfo counts them), or from a live cluster (its state for what is
 * used, a GET of the Node objects for labels and taints). A pod given by
 * UID is left out of both (`rank` ranks a pod that may be running already:
 * its own request must not count against it).
 *
 * Every file is read whole and decoded before anything is used: a file that
 * fails anywhere yields nothing but the error, which names the file, the
 * object and the field.
 */
#ifndef WHATIF_INPUTS_H
#define WHATIF_INPUTS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/table.h"
#include "config/config.h"
#include "placement/simulate.h"
#include "scoring/used.h"
#include "server/cluster/cluster.h"

struct arena;

/* Largest input file `rank` and `simulate` read: far above any cluster
 * (50 000 pods of kubectl output are about 250 MB). */
#define WHATIF_INPUT_MAX ((size_t)4 << 30)

/* One node. */
struct whatif_node {
    struct table_entry by_name; /* first: in whatif_nodes.names, keyed by sim.facts.name */
    struct place_sim_node sim;  /* facts (name, labels, taints, ...) and res (alloc, our used) */
    const char *invalid;        /* why its data is unusable (a fixed text), NULL when usable */
    const char *hostname;       /* its kubernetes.io/hostname label, NULL when it has none */
    bool has_max_pods;          /* status.allocatable.pods was given */
    /* Where used came from: existing pods (a PodList or the cluster), with
     * each resource's source and outcome; else the used annotation. */
    bool from_state;
    enum score_used_source source[SCORE_NRES];
    enum score_used_outcome outcome[SCORE_NRES];
    enum score_used_outcome worst; /* stale-full before stale-pass before the others */
    /* The node's usage window in the cluster state (from_state, a cluster):
     * samples in it, their aggregate and the newest; samples 0 for none. */
    size_t usage_samples;
    int64_t usage_aggregate[SCORE_NRES];
    int64_t usage_newest[SCORE_NRES];
};
_Static_assert(offsetof(struct whatif_node, by_name) == 0,
               "a table entry is its node (whatif/inputs.c)");

struct whatif_nodes {
    struct arena *a; /* holds every string and array */
    struct whatif_node *nodes;
    size_t n;
    struct table names; /* the nodes by name (buckets in a), for the pods' nodeName */
    bool with_existing; /* used came from pods (--existing or the cluster) */
    /* Pods charged to a node (--existing or the cluster), and the pod left
     * out by UID. */
    size_t charged, excluded;
};

/*
 * Reads the nodes of @nodes_path ("-": standard input) and, when
 * @existing_path is not NULL, the pods already bound from it, leaving out
 * the pod whose metadata.uid is @exclude_uid (NULL or "": none), into
 * *@out. With @strict (simulate), a node whose data is unusable is an
 * error; otherwise it is kept with its reason, as the service keeps it.
 * Returns 0, or -EINVAL (bad input), -ENOENT / -EIO (unreadable file) or
 * -ENOMEM with the message in @err (ERR_LEN).
 */
int whatif_nodes_from_files(const struct cfg *cfg, const char *nodes_path,
                            const char *existing_path, const char *exclude_uid, bool strict,
                            struct whatif_nodes *out, char *err);

/*
 * Reads every node of the cluster @cl: waits for its first lists, GETs the
 * Node objects for what the state does not keep, and takes what is used
 * from the state as `serve` does; pod @exclude_uid (on node
 * @exclude_node) is taken out of its node's sums. As whatif_nodes_from_files.
 */
int whatif_nodes_from_cluster(const struct cfg *cfg, struct cluster *cl, const char *exclude_uid,
                              const char *exclude_node, struct whatif_nodes *out, char *err);

/* Frees what @n holds (a zeroed one is fine). */
void whatif_nodes_destroy(struct whatif_nodes *n);

/* Says "cpu-extender @tool: " and the formatted @fmt as one line on
 * stderr and returns @status: a command's failure and its exit status in
 * one statement. */
int whatif_fail(int status, const char *tool, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* How the file @path is named in messages: "-" is "standard input". */
const char *whatif_file_name(const char *path);

/* Whether argv[*@i] is the flag @name ("--pod") or its short form @short
 * (NULL for none), with its value in any of kubectl's spellings: "--pod F",
 * "--pod=F", "-o F", "-oF". Returns 1 with the value in *@value and *@i on
 * its last argument, 0 for another argument, or 2 (the exit status) when
 * the value is missing, said on stderr as "cpu-extender @tool: flag -o
 * needs a value". */
int whatif_flag(const char *tool, int argc, char **argv, int *i, const char *name,
                const char *short_name, const char **value);

/*
 * What used each resource of @nodes actually came from, against what @c
 * asked, in one line into @out (@len bytes): "cpu: usage on 3 nodes;
 * memory: requests on 3 nodes", with the nodes that fell back or went
 * stale counted ("cpu: requests on 1 node, usage on 2 nodes (usage asked;
 * 1 without it: stalePolicy requests applied)"). Returns whether some node
 * did not use the source asked.
 */
bool whatif_used_summary(const struct cfg *c, const struct whatif_nodes *nodes, char *out,
                         size_t len);

/* What tells rank from simulate where they start and end alike. */
struct whatif_tool {
    const char *name;        /* "rank": messages start "cpu-extender rank: " */
    const char *stdin_flags; /* the three file flags, "--pod, --nodes and --existing" */
    const char *files_usage; /* ends the refusal of a usage source on node files */
    const char *max;         /* ends the refusal of used source max; NULL: allowed */
    const char *hint;        /* the file flags that do without a cluster */
    /* The command proper, on its flags @args: returns the exit status. */
    int (*run)(const struct cfg *c, const void *args, struct cluster *cl);
};

/*
 * What rank and simulate share after their flags: the rules of the file
 * flags (--existing needs --nodes; one of @first, @nodes, @existing at most
 * is "-"), the configuration from @rest[0..@n), a used source that node
 * files cannot give refused (and max, when @t refuses it), the log level at
 * warn at least, and without @nodes the cluster (--kubeconfig, KUBECONFIG,
 * ~/.kube/config, in-cluster: serve's order). Then @t's run, after which the
 * cluster is stopped and the arena pool drained. Returns the exit status; a
 * failure is said on stderr as "cpu-extender rank: ...".
 */
int whatif_start(const struct whatif_tool *t, const char *first, const char *nodes,
                 const char *existing, const void *args, int n, char **rest);

/* One pod to place. */
struct whatif_pod {
    struct place_sim_pod sim;
    const char *ns, *name; /* "default" when the file gives no namespace */
};

/*
 * Reads the pods of @path ("-": standard input) into *@out (*@n of them,
 * malloc'd; free with free()), every string in @a, in file order. With
 * @usage (not NULL: simulate on a cluster's usage), each pod charges the
 * resources whose used source is usage its in-flight estimate
 * (inFlightEstimate: place_sim_pod's charge), as serve counts a pod placed
 * but not yet in the samples. Returns as whatif_nodes_from_files().
 */
int whatif_pods_from_file(struct arena *a, const char *path, const struct cfg *usage,
                          struct whatif_pod **out, size_t *n, char *err);

#endif

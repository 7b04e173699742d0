/*
 * JSON <-> plain structs: turns kube-scheduler's ExtenderArgs (and the
 * kubectl objects `rank` reads) into what scoring/ works on.
 *
 * Go decoding rules are mirrored where they matter: the top-level keys
 * (Pod, Nodes, NodeNames) match case-insensitively, a duplicate key's last
 * occurrence wins, `null` is the same as absent, and quantity strings are
 * trimmed of surrounding space. Everything decoded lives in the caller's
 * arena (cJSON's hooks) and is only valid until it is released.
 */
#ifndef SERVER_CODEC_H
#define SERVER_CODEC_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "config/config.h"
#include "scoring/podreq.h"
#include "scoring/resources.h"

#define CODEC_ERR_LEN 256

/* One candidate node. */
struct codec_node {
    const char *name;
    struct score_node res;
    const char *invalid; /* why the node's data is unusable, or NULL */
    cJSON *json;         /* the Node object as received; NULL in NodeNames mode */
};

struct codec_pod {
    const char *ns;        /* metadata.namespace, "" when absent */
    const char *name;      /* metadata.name, "" when absent */
    const char *uid;       /* metadata.uid, "" when absent */
    const char *node_name; /* spec.nodeName, "" when unassigned */
    const char *phase;     /* status.phase, "" when absent */
    const cJSON *labels;   /* metadata.labels (an object), NULL when absent */
    long long priority;    /* spec.priority, 0 when absent (as kube-scheduler reads it) */
    struct score_pod_request request;
};

struct codec_args {
    struct codec_pod pod;
    bool node_names_mode; /* NodeNames was sent (nodeCacheCapable: true) */
    struct codec_node *nodes;
    size_t n_nodes;
    cJSON *node_list; /* the Nodes member (a NodeList), NULL in NodeNames mode */
};

/* One candidate node of a preemption and the victims kube-scheduler chose
 * there, highest priority first. request is set for the victims sent as
 * full pods (NodeNameToVictims); has_request says so. */
struct codec_victims {
    const char *node;
    const char **uids;
    struct score_pod_request *request;
    bool has_request;
    size_t n;
    long long num_pdb_violations;
};

/* ExtenderPreemptionArgs. meta_form: the victims came as UIDs
 * (NodeNameToMetaVictims, nodeCacheCapable: true). */
struct codec_preempt_args {
    struct codec_pod pod;
    bool meta_form;
    struct codec_victims *nodes; /* in the order of the request */
    size_t n_nodes;
};

/* ExtenderBindingArgs. */
struct codec_bind_args {
    const char *pod_name;
    const char *pod_namespace;
    const char *pod_uid; /* "" when absent */
    const char *node;
};

/*
 * Parses ExtenderPreemptionArgs (both forms; when both maps are set the
 * meta form wins, as kube-scheduler only ever sends one) into the thread's
 * arena. Returns 0, or -EINVAL / -E2BIG (more than cfg->max_nodes nodes) /
 * -ENOMEM with @err.
 */
int srv_decode_preempt(const char *body, size_t len, const struct cfg *cfg,
                       struct codec_preempt_args *out, char err[CODEC_ERR_LEN]);

/*
 * Parses ExtenderBindingArgs. Names must be non-empty and free of '/',
 * '?', '#' and '%' (they become a URL path). Returns 0 or -EINVAL with @err.
 */
int srv_decode_bind(const char *body, size_t len, struct codec_bind_args *out,
                    char err[CODEC_ERR_LEN]);

/*
 * Parses the ExtenderArgs in @body (@len bytes followed by a NUL, which
 * cJSON needs to reject trailing garbage) into *@out, allocating from the
 * arena attached to this thread. Node problems do not fail the call: they
 * set codec_node.invalid.
 * Returns 0, or -EINVAL (malformed request: answer 400) / -E2BIG (more than
 * cfg->max_nodes nodes) / -ENOMEM with a message in @err.
 */
int srv_decode_args(const char *body, size_t len, const struct cfg *cfg, struct codec_args *out,
                    char err[CODEC_ERR_LEN]);

/*
 * Decodes one v1.Pod object. Returns 0 or -EINVAL with a message naming the
 * field in @err (wrong JSON type, invalid, negative or overflowing quantity).
 */
int srv_decode_pod(const cJSON *pod, struct codec_pod *out, char err[CODEC_ERR_LEN]);

/*
 * Decodes one v1.Node object into *@out. A missing or non-string
 * metadata.name is the only error (-EINVAL); bad capacity data sets
 * out->invalid instead.
 */
int srv_decode_node(cJSON *node, const struct cfg *cfg, struct codec_node *out,
                    char err[CODEC_ERR_LEN]);

/* Reads the cpu (millicores) and memory (bytes) quantities of the
 * ResourceList @list into @out (0 when absent). Returns 0 or -EINVAL with
 * @err for a non-object, a malformed or a negative quantity. */
int srv_decode_quantities(const cJSON *list, int64_t out[SCORE_NRES], char err[CODEC_ERR_LEN]);

/*
 * Checks the raw bytes of @body (@len bytes followed by a NUL) and parses
 * it into the thread's arena as one JSON object, naming @what (the Go type)
 * in messages. Returns 0 with *@out, or -EINVAL with @err.
 */
int srv_parse_object(const char *body, size_t len, const char *what, cJSON **out,
                     char err[CODEC_ERR_LEN]);

/* Decodes the "Pod" member of a verb's request object @root (matched as
 * Go matches fields). Returns 0 or -EINVAL with @err ("Pod: missing", or
 * the pod field at fault). */
int srv_decode_pod_member(const cJSON *root, struct codec_pod *out, char err[CODEC_ERR_LEN]);

/* Returns the last member of @obj whose name matches @key ignoring case,
 * as Go's decoder matches struct fields; NULL when absent or null. */
cJSON *srv_json_member_folded(const cJSON *obj, const char *key);

/* Returns the last member of @obj named @key exactly (Go keeps the last of
 * duplicate keys), or NULL when absent or JSON null. */
cJSON *srv_json_member(const cJSON *obj, const char *key);

#endif

#include "server/codec/args.h"

#include <errno.h>
#include <string.h>

#include "base/arena.h"
#include "base/err.h"
#include "server/codec/ints.h"
#include "server/codec/json.h"
#include "server/codec/nodelist.h"
#include "server/codec/pod.h"

/* What the last of each top-level member said. */
enum member_kind {
    M_ABSENT = 0, /* or null */
    M_SET,
};

struct top {
    enum member_kind pod, nodes, names;
    bool pod_twice;    /* two non-empty Pod objects: Go would merge them */
    bool pod_wrong;    /* a Pod that is no object: Go keeps that error to the end */
    bool priority_bad; /* some Pod's spec.priority is not an int32 as Go reads one */
    struct codec_span pod_json;
    cJSON *pod_tree;                   /* the last Pod, read into the arena as it was scanned */
    struct codec_list_scan nodes_scan; /* a repeated "Nodes" merges into it */
    struct codec_args names_args;      /* NodeNames, kept apart until the last member says which */
    struct codec_fault nodes_fault, names_fault;
};

/* Is @v "{}" (white space allowed inside)? Go decoding a second Pod into
 * an empty one gets the second. */
static bool empty_object(struct codec_span v)
{
    size_t i = 1;
    if (v.len == 0 || v.p[0] != '{')
        return false;
    while (i < v.len && (v.p[i] == ' ' || v.p[i] == '\t' || v.p[i] == '\n' || v.p[i] == '\r'))
        i++;
    return i < v.len && v.p[i] == '}';
}

/* spec.priority, an *int32 in Go: checked in every Pod given. */
static const struct codec_int_path pod_priority = {.names = {"spec", "priority"},
                                                   .depth = 2,
                                                   .fold = 3,
                                                   .min = INT32_MIN,
                                                   .max = INT32_MAX,
                                                   .what =
                                                       "Pod.spec.priority: want a 32-bit integer"};

/* One top-level member of ExtenderArgs, keys matched as Go matches the
 * untagged fields (case folded), duplicates read as Go reads them: null
 * clears, a later NodeNames replaces, a later Nodes merges (nodelist.h).
 * A Pod given twice, both non-empty, is refused: Go would merge the two
 * field by field, a mix no client means. */
static int top_member(struct arena *a, struct codec_scan *s, struct codec_str key,
                      const struct cfg *cfg, struct codec_args *out, struct top *t)
{
    char c = codec_scan_peek(s);
    if (codec_str_is(key, "Pod", true)) {
        t->pod_twice =
            (t->pod_twice || (t->pod == M_SET && !empty_object(t->pod_json))) && c != 'n';
        t->pod_wrong = t->pod_wrong || (c != '{' && c != 'n');
        t->pod = c == 'n' ? M_ABSENT : M_SET;
        t->pod_json.p = s->p;
        int rc = codec_json_value(a, s, &t->pod_tree);
        t->pod_json.len = (size_t)(s->p - t->pod_json.p);
        t->priority_bad =
            t->priority_bad || (rc == 0 && !codec_ints_ok(t->pod_tree, &pod_priority));
        return rc;
    }
    bool nodes = codec_str_is(key, "Nodes", true);
    if (!nodes && !codec_str_is(key, "NodeNames", true))
        return codec_scan_skip(s);
    enum member_kind *kind = nodes ? &t->nodes : &t->names;
    struct codec_fault *f = nodes ? &t->nodes_fault : &t->names_fault;
    f->rc = 0;
    if (c == 'n') {
        *kind = M_ABSENT;
        if (nodes)
            codec_list_scan_reset(&t->nodes_scan, out); /* a nil *NodeList */
        return codec_scan_skip(s);
    }
    *kind = M_SET;
    return nodes ? codec_nodelist_scan(a, s, cfg, false, "Nodes", out, &t->nodes_scan, f)
                 : codec_names_scan(a, s, cfg, &t->names_args, f);
}

int codec_args_decode(struct arena *a, const char *body, size_t len, const struct cfg *cfg,
                      struct codec_args *out, char *err)
{
    struct codec_scan s;
    struct top t;
    int rc;

    memset(out, 0, sizeof(*out));
    memset(&t, 0, sizeof(t));
    if (len == 0)
        return err_fail(err, -EINVAL, "empty body: want ExtenderArgs JSON");
    codec_scan_init(&s, body, len);
    if (codec_scan_peek(&s) != '{') {
        if (codec_scan_skip(&s) == 0 && codec_scan_end(&s) == 0)
            codec_scan_fail(&s, CODEC_SCAN_SYNTAX, "want a JSON object (ExtenderArgs)");
    } else if (codec_scan_object(&s) == 0) {
        for (bool first = true;; first = false) {
            struct codec_str key;
            bool more;
            if (codec_scan_member(&s, first, &key, &more) != 0 || !more)
                break;
            if (top_member(a, &s, key, cfg, out, &t) != 0)
                break;
        }
        codec_scan_end(&s);
    }
    if (s.why != NULL) {
        if (strncmp(s.why, "want a JSON object", 18) == 0)
            err_set(err, "%s", s.why);
        else
            codec_scan_error(&s, err);
        return -EINVAL;
    }
    /* The pod of the request, its tree built as the scanner read it:
     * decoded, then its integers as Go reads them. */
    if (t.pod_wrong)
        return err_fail(err, -EINVAL, "Pod: want an object");
    if (t.pod_twice)
        return err_fail(err, -EINVAL, "Pod: given twice");
    if ((rc = codec_pod_decode(a, t.pod == M_ABSENT ? NULL : t.pod_tree, &out->pod, err)) != 0)
        return rc;
    if (t.priority_bad)
        return err_fail(err, -EINVAL, "%s", pod_priority.what);
    if (t.nodes != M_ABSENT && t.names != M_ABSENT)
        return err_fail(err, -EINVAL, "both Nodes and NodeNames are set: want exactly one");
    const struct codec_fault *f = t.nodes != M_ABSENT ? &t.nodes_fault : &t.names_fault;
    if (t.nodes == M_ABSENT && t.names == M_ABSENT)
        return err_fail(err, -EINVAL, "neither Nodes nor NodeNames is set");
    if (f->rc != 0)
        return err_fail(err, f->rc, "%s", f->err);
    if (t.names != M_ABSENT) {
        out->nodes = t.names_args.nodes;
        out->n_nodes = t.names_args.n_nodes;
        out->list_members = NULL;
        out->n_list_members = 0;
        out->node_names_mode = true;
    }
    return 0;
}

#include "server/codec/answer.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "base/arena.h"
#include "base/err.h"
#include "server/codec/scan.h"

void codec_error_text(const char *msg, char *out)
{
    size_t i;
    for (i = 0; msg[i] != '\0' && i + 1 < ERR_LEN; i++)
        out[i] = msg[i] == '%' ? '#' : msg[i];
    out[i] = '\0';
    err_utf8_trim(out);
}

void codec_answer_error(struct buf *o, const char *text)
{
    buf_str(o, "{\"Error\":");
    buf_json_str(o, text);
    buf_str(o, "}\n");
}

static bool passes(const struct codec_node_answer *ans, size_t i)
{
    return ans == NULL || ans[i].verdict == SCORE_FITS;
}

/* {"Nodes":{<the request's members>, up to the items. */
static void write_list_head(struct buf *o, const struct codec_args *args)
{
    bool metadata = false;
    buf_str(o, "{\"Nodes\":{");
    for (size_t i = 0; i < args->n_list_members; i++) {
        const struct codec_member *m = &args->list_members[i];
        struct codec_str key = {m->key.p + 1, m->key.len - 2,
                                memchr(m->key.p, '\\', m->key.len) != NULL};
        metadata = metadata || codec_str_is(key, "metadata", false);
        buf_raw(o, m->key.p, m->key.len);
        buf_str(o, ":");
        buf_raw(o, m->value.p, m->value.len);
        buf_str(o, ",");
    }
    if (!metadata)
        buf_str(o, "\"metadata\":{},");
    buf_str(o, "\"items\":[");
}

/* Is the body between Node objects @a and @b (in that order) exactly one
 * comma, so that one span can carry both, or @b with the comma before it?
 * kube-scheduler's bodies are compact (Go's encoding/json); with white
 * space between items a span per item and "," pieces keep the answer the
 * same bytes as a copy would be. */
static bool adjacent(const struct codec_node *a, const struct codec_node *b)
{
    const char *end = a->json.p + a->json.len;
    return b->json.p == end + 1 && *end == ',';
}

/* The passing items as spans of the body (see codec_answer_filter). */
static size_t item_spans(const struct codec_args *args, const struct codec_node_answer *ans,
                         struct buf_piece *spans)
{
    static const char comma[] = ",";
    size_t n = 0;
    long last = -1; /* the last item written */
    for (size_t i = 0; i < args->n_nodes; i++) {
        const struct codec_node *node = &args->nodes[i];
        if (!passes(ans, i))
            continue;
        const char *end = node->json.p + node->json.len;
        if (last >= 0 && (size_t)last == i - 1 && adjacent(&args->nodes[i - 1], node)) {
            spans[n - 1].len = (size_t)(end - spans[n - 1].p); /* the run goes on */
        } else if (last >= 0 && i > 0 && adjacent(&args->nodes[i - 1], node)) {
            const char *from = args->nodes[i - 1].json.p + args->nodes[i - 1].json.len;
            spans[n++] = (struct buf_piece){from, (size_t)(end - from)};
        } else {
            if (last >= 0)
                spans[n++] = (struct buf_piece){comma, 1};
            spans[n++] = (struct buf_piece){node->json.p, node->json.len};
        }
        last = (long)i;
    }
    return n;
}

/* ,"@name":{"node": "reason", ...} for the nodes with @verdict. */
static void write_failed(struct buf *o, const char *name, const struct codec_args *args,
                         const struct codec_node_answer *ans, enum score_verdict verdict)
{
    const char *sep = "";
    buf_str(o, ",\"");
    buf_str(o, name);
    buf_str(o, "\":{");
    for (size_t i = 0; ans != NULL && i < args->n_nodes; i++) {
        if (ans[i].verdict != verdict)
            continue;
        buf_str(o, sep);
        buf_json_str(o, args->nodes[i].name);
        buf_str(o, ":");
        buf_json_str(o, ans[i].reason);
        sep = ",";
    }
    buf_str(o, "}");
}

/* About the size of the filter answer's text (names and reasons as
 * written, the failed nodes' and in NodeNames mode the passing ones', about
 * 48 bytes each besides the name, and the room a string's escaping reserves:
 * 6 bytes a byte): sized so that the buffer does not grow, which in the
 * arena leaves the old room behind. */
static size_t filter_hint(const struct codec_args *args)
{
    size_t hint = 128 + args->n_list_members * 8, longest = 0;
    for (size_t i = 0; i < args->n_list_members; i++)
        hint += args->list_members[i].key.len + args->list_members[i].value.len;
    for (size_t i = 0; i < args->n_nodes; i++) {
        size_t n = strlen(args->nodes[i].name);
        hint += 48 + n;
        longest = n > longest ? n : longest;
    }
    return hint + 6 * longest;
}

const struct buf_piece *codec_answer_filter(struct arena *a, const struct codec_args *args,
                                            const struct codec_node_answer *ans, size_t *n)
{
    struct buf o;
    struct buf_piece *pieces = NULL;
    size_t n_spans = 0, head = 0, len;
    /* Room for one piece before the spans and one after them. */
    if (!args->node_names_mode &&
        (pieces = arena_calloc(a, 2 * args->n_nodes + 2, sizeof(*pieces))) == NULL)
        return NULL;
    buf_init_arena(&o, a, filter_hint(args));
    if (args->node_names_mode) {
        const char *sep = "";
        buf_str(&o, "{\"Nodes\":null,\"NodeNames\":[");
        for (size_t i = 0; i < args->n_nodes; i++) {
            if (!passes(ans, i))
                continue;
            buf_str(&o, sep);
            buf_json_str(&o, args->nodes[i].name);
            sep = ",";
        }
        buf_str(&o, "]");
    } else {
        write_list_head(&o, args);
        head = o.len;
        n_spans = item_spans(args, ans, pieces + 1);
        buf_str(&o, "]},\"NodeNames\":null");
    }
    write_failed(&o, "FailedNodes", args, ans, SCORE_UNFIT);
    write_failed(&o, "FailedAndUnresolvableNodes", args, ans, SCORE_UNRESOLVABLE);
    buf_str(&o, ",\"Error\":\"\"}\n");
    if (pieces == NULL && !o.failed)
        pieces = arena_alloc(a, sizeof(*pieces));
    char *text = pieces != NULL ? buf_take(&o, &len) : NULL;
    if (text == NULL)
        return NULL;
    if (args->node_names_mode) {
        pieces[0] = (struct buf_piece){text, len};
        *n = 1;
        return pieces;
    }
    pieces[0] = (struct buf_piece){text, head};
    pieces[n_spans + 1] = (struct buf_piece){text + head, len - head};
    *n = n_spans + 2;
    return pieces;
}

void codec_answer_prioritize(struct buf *o, struct arena *a, const struct codec_args *args,
                             const struct codec_node_answer *ans)
{
    /* {"Host":"<name>","Score":10} per node, and the room a string's
     * escaping reserves (6 bytes a byte): sized so that the buffer does
     * not grow, which in the arena leaves the old room behind. */
    size_t hint = 64, longest = 0;
    for (size_t i = 0; i < args->n_nodes; i++) {
        size_t n = strlen(args->nodes[i].name);
        hint += 32 + n;
        longest = n > longest ? n : longest;
    }
    buf_init_arena(o, a, hint + 6 * longest);
    buf_str(o, "[");
    for (size_t i = 0; i < args->n_nodes; i++) {
        buf_str(o, i ? ",{\"Host\":" : "{\"Host\":");
        buf_json_str(o, args->nodes[i].name);
        buf_str(o, ",\"Score\":");
        buf_int(o, ans != NULL ? ans[i].score : 0);
        buf_str(o, "}");
    }
    buf_str(o, "]\n");
}

size_t codec_answer_preempt(struct buf *o, struct arena *a, const struct codec_preempt_args *args,
                            const bool *keep)
{
    size_t kept = 0, hint = 64, longest = 0;
    /* Sized as the prioritize answer is. */
    for (size_t i = 0; i < args->n_nodes; i++) {
        const struct codec_victims *v = &args->nodes[i];
        size_t n = strlen(v->node);
        hint += 64 + n + 16 * v->n;
        longest = n > longest ? n : longest;
        for (size_t k = 0; k < v->n; k++) {
            n = strlen(v->uids[k]);
            hint += n;
            longest = n > longest ? n : longest;
        }
    }
    buf_init_arena(o, a, hint + 6 * longest);
    buf_str(o, "{\"NodeNameToMetaVictims\":{");
    for (size_t i = 0; i < args->n_nodes; i++) {
        const struct codec_victims *v = &args->nodes[i];
        if (v->n == 0 || !keep[i])
            continue;
        buf_str(o, kept++ ? "," : "");
        buf_json_str(o, v->node);
        buf_str(o, ":{\"Pods\":[");
        for (size_t k = 0; k < v->n; k++) {
            buf_str(o, k ? ",{\"UID\":" : "{\"UID\":");
            buf_json_str(o, v->uids[k]);
            buf_str(o, "}");
        }
        buf_str(o, "],\"NumPDBViolations\":");
        buf_int(o, v->num_pdb_violations);
        buf_str(o, "}");
    }
    buf_str(o, "}}\n");
    return kept;
}

#include "server/verbs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "server/decide.h"
#include "server/jsonout.h"
#include "server/jspan.h"
#include "server/log.h"

/* Hands the built answer to @out; an allocation failure becomes a 500
 * with a static body. */
static void finish(struct jsonout *o, unsigned status, struct verb_reply *out)
{
    out->body = srv_out_take(o, &out->len);
    out->status = out->body != NULL ? status : 500;
}

void srv_verb_error(unsigned status, const char *msg, struct verb_reply *out)
{
    /* kube-scheduler passes Error to fmt.Errorf as a format: no '%' may reach it. */
    char clean[CODEC_ERR_LEN];
    size_t i;
    struct jsonout o;
    for (i = 0; msg[i] != '\0' && i + 1 < sizeof(clean); i++)
        clean[i] = msg[i] == '%' ? '#' : msg[i];
    clean[i] = '\0';
    srv_utf8_trim(clean);
    memcpy(out->error, clean, i + 1);
    srv_out_init(&o, sizeof(clean) + 16);
    srv_out_str(&o, "{\"Error\":");
    srv_out_quoted(&o, clean);
    srv_out_str(&o, "}");
    finish(&o, status, out);
    out->nodes = 0;
}

/* Copies a NodeList member other than "items" as it came. */
static void copy_member(void *ctx, struct jspan key, struct jspan value)
{
    struct jsonout *o = ctx;
    if (srv_span_key_is(key, "items", false))
        return;
    srv_out_raw(o, key.p, key.len);
    srv_out_str(o, ":");
    srv_out_raw(o, value.p, value.len);
    srv_out_str(o, ",");
}

/* {"Nodes":{<the request's members>,"items":[<passing nodes, byte for byte>]}};
 * every node passes when @eval is NULL.
 * Returns -EPROTO if the spans do not match the decoded nodes (they always
 * should: both take the last "Nodes" and "items"). */
static int write_node_list(struct jsonout *o, const char *body, size_t len,
                           const struct codec_args *args, const struct node_eval *eval)
{
    struct node_list_spans spans = {.max_elements = args->n_nodes};
    bool metadata = false;

    spans.elements = cJSON_malloc(args->n_nodes * sizeof(*spans.elements) + 1);
    if (spans.elements == NULL)
        return -ENOMEM;
    srv_span_node_list(body, len, &spans);
    if (!spans.found || spans.n_elements != args->n_nodes)
        return -EPROTO;
    srv_out_str(o, "{\"Nodes\":{");
    if (spans.overflow) {
        srv_span_members(spans.list, copy_member, o);
        struct jspan ignored;
        metadata = srv_span_member(spans.list, "metadata", false, &ignored);
    } else {
        for (size_t i = 0; i < spans.n_members; i++) {
            copy_member(o, spans.keys[i], spans.values[i]);
            metadata = metadata || srv_span_key_is(spans.keys[i], "metadata", false);
        }
    }
    if (!metadata)
        srv_out_str(o, "\"metadata\":{},");
    srv_out_str(o, "\"items\":[");
    const char *sep = "";
    for (size_t i = 0; i < spans.n_elements; i++) {
        if (eval != NULL && eval[i].verdict != SCORE_FITS)
            continue;
        srv_out_str(o, sep);
        srv_out_raw(o, spans.elements[i].p, spans.elements[i].len);
        sep = ",";
    }
    srv_out_str(o, "]},\"NodeNames\":null");
    return 0;
}

/* {"node": "reason", ...} for the nodes with @verdict (none when @eval is
 * NULL). */
static void write_failed(struct jsonout *o, const char *name, const struct codec_args *args,
                         const struct node_eval *eval, enum score_verdict verdict)
{
    const char *sep = "";
    srv_out_str(o, ",\"");
    srv_out_str(o, name);
    srv_out_str(o, "\":{");
    for (size_t i = 0; eval != NULL && i < args->n_nodes; i++) {
        if (eval[i].verdict != verdict)
            continue;
        srv_out_str(o, sep);
        srv_out_quoted(o, args->nodes[i].name);
        srv_out_str(o, ":");
        srv_out_quoted(o, eval[i].reason);
        sep = ",";
    }
    srv_out_str(o, "}");
}

void srv_filter(const struct srv_verb_ctx *ctx, const char *body, size_t len,
                struct verb_reply *out)
{
    struct srv_decided d;
    struct jsonout o;

    if (srv_decide(ctx, SRV_VERB_FILTER, body, len, &d, out) != 0)
        return;
    const struct codec_args *args = &d.args;
    const struct node_eval *eval = d.neutral ? NULL : d.eval;
    /* The passing Node objects dominate the answer: they go back unchanged,
     * since kube-scheduler uses the returned objects from here on. */
    srv_out_init(&o, args->node_names_mode ? 64 + 32 * args->n_nodes : len + 1024);
    if (args->node_names_mode) {
        const char *sep = "";
        srv_out_str(&o, "{\"Nodes\":null,\"NodeNames\":[");
        for (size_t i = 0; i < args->n_nodes; i++) {
            if (eval != NULL && eval[i].verdict != SCORE_FITS)
                continue;
            srv_out_str(&o, sep);
            srv_out_quoted(&o, args->nodes[i].name);
            sep = ",";
        }
        srv_out_str(&o, "]");
    } else if (write_node_list(&o, body, len, args, eval) != 0) {
        free(srv_out_take(&o, &len));
        srv_verb_error(500, "internal error: node spans do not match the request", out);
        return;
    }
    write_failed(&o, "FailedNodes", args, eval, SCORE_UNFIT);
    write_failed(&o, "FailedAndUnresolvableNodes", args, eval, SCORE_UNRESOLVABLE);
    srv_out_str(&o, ",\"Error\":\"\"}");
    finish(&o, 200, out);
    out->nodes = args->n_nodes;
}

void srv_prioritize(const struct srv_verb_ctx *ctx, const char *body, size_t len,
                    struct verb_reply *out)
{
    struct srv_decided d;
    struct jsonout o;

    if (srv_decide(ctx, SRV_VERB_PRIORITIZE, body, len, &d, out) != 0)
        return;
    const struct codec_args *args = &d.args;
    srv_out_init(&o, 64 + 48 * args->n_nodes);
    srv_out_str(&o, "[");
    for (size_t i = 0; i < args->n_nodes; i++) {
        srv_out_str(&o, i ? ",{\"Host\":" : "{\"Host\":");
        srv_out_quoted(&o, args->nodes[i].name);
        srv_out_str(&o, ",\"Score\":");
        srv_out_int(&o, d.neutral ? 0 : d.eval[i].explain.score);
        srv_out_str(&o, "}");
    }
    srv_out_str(&o, "]");
    finish(&o, 200, out);
    out->nodes = args->n_nodes;
}

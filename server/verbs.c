#include "server/verbs.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "server/log.h"

/* Said once per process: in NodeNames mode there is nothing to score yet. */
static atomic_flag names_mode_logged = ATOMIC_FLAG_INIT;

static void set_body(cJSON *json, unsigned status, struct verb_reply *out)
{
    char *text = json != NULL ? cJSON_PrintUnformatted(json) : NULL;
    if (text == NULL) {
        out->status = 500;
        out->body = "{\"Error\":\"out of memory\"}";
    } else {
        out->status = status;
        out->body = text;
    }
    out->len = strlen(out->body);
}

void srv_verb_error(unsigned status, const char *msg, struct verb_reply *out)
{
    cJSON *o = cJSON_CreateObject();
    /* kube-scheduler passes Error to fmt.Errorf as a format: no '%' may reach it. */
    char clean[CODEC_ERR_LEN];
    size_t i;
    for (i = 0; msg[i] != '\0' && i + 1 < sizeof(clean); i++)
        clean[i] = msg[i] == '%' ? '#' : msg[i];
    clean[i] = '\0';
    if (o != NULL && cJSON_AddStringToObject(o, "Error", clean) == NULL)
        o = NULL;
    set_body(o, status, out);
}

void srv_evaluate(const struct cfg *cfg, const struct codec_args *args, struct node_eval *eval)
{
    for (size_t i = 0; i < args->n_nodes; i++) {
        const struct codec_node *n = &args->nodes[i];
        struct node_eval *e = &eval[i];
        memset(e, 0, sizeof(*e));
        e->reason = "";
        e->explain.strategy = cfg->score.strategy;
        if (args->node_names_mode)
            continue;
        if (n->invalid != NULL) {
            e->verdict = SCORE_UNRESOLVABLE;
            e->reason = n->invalid;
            continue;
        }
        e->verdict =
            score_fit(cfg->score.threshold_percent, &n->res, args->pod.request.real, e->reason_buf);
        if (e->verdict != SCORE_FITS)
            e->reason = e->reason_buf;
        score_node_value(&cfg->score, &n->res, &args->pod.request, &e->explain);
    }
    /* The scores of every node, failing ones included, so that a prioritize
     * call (which only sees nodes that passed) and rank agree. */
    struct score_explain *ex = cJSON_malloc(args->n_nodes * sizeof(*ex) + 1);
    if (ex == NULL)
        return;
    for (size_t i = 0; i < args->n_nodes; i++)
        ex[i] = eval[i].explain;
    score_finish(&cfg->score, ex, args->n_nodes);
    for (size_t i = 0; i < args->n_nodes; i++)
        eval[i].explain.score = args->nodes[i].invalid != NULL ? 0 : ex[i].score;
}

/* Decodes and evaluates; on failure the reply is already set. */
static int decode_and_evaluate(const struct cfg *cfg, const char *body, size_t len,
                               struct codec_args *args, struct node_eval **eval,
                               struct verb_reply *out)
{
    char err[CODEC_ERR_LEN];
    int rc = srv_decode_args(body, len, cfg, args, err);
    if (rc != 0) {
        srv_verb_error(rc == -ENOMEM ? 500 : 400, err, out);
        return rc;
    }
    if (args->node_names_mode && !atomic_flag_test_and_set(&names_mode_logged))
        log_msg(CFG_LOG_WARN,
                "NodeNames request: no cluster state, passing every node with score 0",
                "hint=\"set nodeCacheCapable: false so that requests carry the Node objects\"");
    *eval = cJSON_malloc(args->n_nodes * sizeof(**eval) + 1);
    if (*eval == NULL) {
        srv_verb_error(500, "out of memory", out);
        return -ENOMEM;
    }
    srv_evaluate(cfg, args, *eval);
    return 0;
}

void srv_filter(const struct cfg *cfg, const char *body, size_t len, struct verb_reply *out)
{
    struct codec_args args;
    struct node_eval *eval;
    cJSON *res, *failed, *unresolvable, *passed;
    size_t n_passed = 0;

    if (decode_and_evaluate(cfg, body, len, &args, &eval, out) != 0)
        return;
    res = cJSON_CreateObject();
    failed = cJSON_CreateObject();
    unresolvable = cJSON_CreateObject();
    passed = cJSON_CreateArray();
    if (res == NULL || failed == NULL || unresolvable == NULL || passed == NULL)
        goto out_of_memory;

    cJSON *items = (cJSON *)srv_json_member(args.node_list, "items");
    for (size_t i = 0; i < args.n_nodes; i++) {
        const struct codec_node *n = &args.nodes[i];
        switch (eval[i].verdict) {
        case SCORE_FITS:
            n_passed++;
            /* The passing Node objects go back unchanged: kube-scheduler uses
             * the returned objects from here on. Moving them out of the
             * request tree costs nothing in the arena. */
            if (!cJSON_AddItemToArray(passed, n->json != NULL
                                                  ? cJSON_DetachItemViaPointer(items, n->json)
                                                  : cJSON_CreateString(n->name)))
                goto out_of_memory;
            break;
        case SCORE_UNFIT:
            if (cJSON_AddStringToObject(failed, n->name, eval[i].reason) == NULL)
                goto out_of_memory;
            break;
        case SCORE_UNRESOLVABLE:
            if (cJSON_AddStringToObject(unresolvable, n->name, eval[i].reason) == NULL)
                goto out_of_memory;
            break;
        }
    }

    if (args.node_names_mode) {
        cJSON_AddNullToObject(res, "Nodes");
        cJSON_AddItemToObject(res, "NodeNames", passed);
    } else {
        /* Reuse the request's NodeList (its metadata too) with only the
         * passing items left in it. */
        cJSON *list = args.node_list;
        /* Detach every "items", duplicates too: only the answer's may remain. */
        cJSON *stale = cJSON_DetachItemFromObjectCaseSensitive(list, "items");
        while (stale != NULL)
            stale = cJSON_DetachItemFromObjectCaseSensitive(list, "items");
        cJSON_AddItemToObject(list, "items", passed);
        cJSON *meta = (cJSON *)srv_json_member(list, "metadata");
        if (meta == NULL)
            cJSON_AddItemToObject(list, "metadata", cJSON_CreateObject());
        cJSON_AddItemReferenceToObject(res, "Nodes", list);
        cJSON_AddNullToObject(res, "NodeNames");
    }
    cJSON_AddItemToObject(res, "FailedNodes", failed);
    cJSON_AddItemToObject(res, "FailedAndUnresolvableNodes", unresolvable);
    cJSON_AddStringToObject(res, "Error", "");
    set_body(res, 200, out);
    log_msg(CFG_LOG_DEBUG, "filter", "pod=%s/%s nodes=%zu passed=%zu", args.pod.ns, args.pod.name,
            args.n_nodes, n_passed);
    return;

out_of_memory:
    srv_verb_error(500, "out of memory", out);
}

void srv_prioritize(const struct cfg *cfg, const char *body, size_t len, struct verb_reply *out)
{
    struct codec_args args;
    struct node_eval *eval;
    cJSON *list;

    if (decode_and_evaluate(cfg, body, len, &args, &eval, out) != 0)
        return;
    list = cJSON_CreateArray();
    if (list == NULL)
        goto out_of_memory;
    for (size_t i = 0; i < args.n_nodes; i++) {
        cJSON *hp = cJSON_CreateObject();
        if (hp == NULL || cJSON_AddStringToObject(hp, "Host", args.nodes[i].name) == NULL ||
            cJSON_AddNumberToObject(hp, "Score", eval[i].explain.score) == NULL ||
            !cJSON_AddItemToArray(list, hp))
            goto out_of_memory;
    }
    set_body(list, 200, out);
    log_msg(CFG_LOG_DEBUG, "prioritize", "pod=%s/%s nodes=%zu", args.pod.ns, args.pod.name,
            args.n_nodes);
    return;

out_of_memory:
    srv_verb_error(500, "out of memory", out);
}

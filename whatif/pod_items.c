#include "whatif/pod_items.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "server/codec/json.h"
#include "server/codec/pod.h"

struct item_list {
    struct whatif_item *items;
    size_t n, cap;
};

static int push(struct item_list *l, struct whatif_item it)
{
    if (l->n == l->cap) {
        size_t more = l->cap ? l->cap * 2 : 256;
        struct whatif_item *grown = realloc(l->items, more * sizeof(*grown));
        if (grown == NULL)
            return -ENOMEM;
        l->items = grown;
        l->cap = more;
    }
    l->items[l->n++] = it;
    return 0;
}

/* The kinds a top-level value may have. */
enum doc_kind {
    DOC_NONE = 0, /* no kind: decided by the presence of items */
    DOC_LIST,     /* PodList or List */
    DOC_POD,
    DOC_OTHER,
};

static enum doc_kind kind_of(struct codec_str kind)
{
    if (codec_str_is(kind, "PodList", false) || codec_str_is(kind, "List", false))
        return DOC_LIST;
    if (codec_str_is(kind, "Pod", false))
        return DOC_POD;
    return DOC_OTHER;
}

/* The items array at the scan point: one span per element, each a Pod
 * object (@doc: the top-level value's number, for messages). */
static int items(struct codec_scan *s, uint32_t doc, struct item_list *l, char *err)
{
    bool more;
    if (codec_scan_array(s) != 0)
        return -EINVAL;
    for (int32_t i = 0;; i++) {
        if (codec_scan_element(s, i == 0, &more) != 0)
            return -EINVAL;
        if (!more)
            break;
        struct whatif_item it = {{s->p, 0}, doc, i};
        if (codec_scan_peek(s) != '{') {
            if (codec_scan_skip(s) != 0)
                return -EINVAL;
            return err_fail(err, -EINVAL, "object %u items[%d]: want a Pod object", doc + 1, i);
        }
        it.json.p = s->p;
        if (codec_scan_skip(s) != 0)
            return -EINVAL;
        it.json.len = (size_t)(s->p - it.json.p);
        if (push(l, it) != 0)
            return err_fail(err, -ENOMEM, "out of memory");
    }
    return 0;
}

/* One top-level value at the scan point: its items (kept from @first) or
 * itself as one pod. */
static int document(struct codec_scan *s, uint32_t doc, struct item_list *l, char *err)
{
    struct codec_str kind = {0}, key;
    bool has_kind = false, has_items = false, more;
    size_t first = l->n;
    struct codec_span self = {s->p, 0};

    if (codec_scan_peek(s) != '{') {
        /* Not JSON at all is said as such, with its byte. */
        if (codec_scan_skip(s) != 0)
            return -EINVAL;
        return err_fail(err, -EINVAL, "object %u: want a Pod or a PodList object", doc + 1);
    }
    self.p = s->p;
    if (codec_scan_object(s) != 0)
        return -EINVAL;
    for (bool f = true;; f = false) {
        if (codec_scan_member(s, f, &key, &more) != 0)
            return -EINVAL;
        if (!more)
            break;
        char c = codec_scan_peek(s);
        if (codec_str_is(key, "kind", true) && c == '"') {
            if (codec_scan_string(s, &kind) != 0)
                return -EINVAL;
            has_kind = true;
            continue;
        }
        bool is_items = codec_str_is(key, "items", true) && (c == '[' || c == 'n');
        if (is_items) {
            /* A repeated items replaces the one before, as Go reads a slice. */
            l->n = first;
            has_items = true;
        }
        if (is_items && c == '[') {
            int rc = items(s, doc, l, err);
            if (rc != 0)
                return rc;
        } else if (codec_scan_skip(s) != 0) {
            return -EINVAL;
        }
    }
    self.len = (size_t)(s->p - self.p);
    enum doc_kind k = has_kind ? kind_of(kind) : has_items ? DOC_LIST : DOC_POD;
    if (k == DOC_OTHER) {
        char name[64];
        size_t n = codec_str_decode(kind, name, sizeof(name));
        return err_fail(err, -EINVAL,
                        "object %u: a %s, not pods (want a Pod, a PodList or a List of pods)",
                        doc + 1, n == (size_t)-1 ? "object of another kind" : name);
    }
    if (k == DOC_POD) {
        l->n = first; /* the object is the pod, whatever else it holds */
        if (push(l, (struct whatif_item){self, doc, -1}) != 0)
            return err_fail(err, -ENOMEM, "out of memory");
    }
    return 0;
}

int whatif_pod_items(const char *body, size_t len, struct whatif_item **items, size_t *n, char *err)
{
    struct codec_scan s;
    struct item_list l = {0};
    uint32_t doc = 0;
    int rc = 0;

    *items = NULL;
    *n = 0;
    codec_scan_init(&s, body, len);
    for (; s.why == NULL && rc == 0 && codec_scan_peek(&s) != '\0'; doc++)
        rc = document(&s, doc, &l, err);
    if (s.why != NULL) {
        codec_scan_error(&s, err);
        rc = -EINVAL;
    } else if (rc == 0 && doc == 0) {
        rc = err_fail(err, -EINVAL, "empty: want a Pod or a PodList");
    }
    if (rc != 0) {
        free(l.items);
        return rc;
    }
    *items = l.items;
    *n = l.n;
    return 0;
}

void whatif_item_name(const struct whatif_item *it, uint32_t docs, char *buf, size_t len)
{
    if (docs <= 1 && it->index >= 0)
        snprintf(buf, len, "items[%d]", it->index);
    else if (it->index >= 0)
        snprintf(buf, len, "object %u items[%d]", it->doc + 1, it->index);
    else if (docs <= 1)
        snprintf(buf, len, "the Pod");
    else
        snprintf(buf, len, "object %u", it->doc + 1);
}

int whatif_pod_kind_check(const cJSON *pod, char *err)
{
    const cJSON *kind = codec_json_field(pod, "kind");
    if (kind == NULL || (cJSON_IsString(kind) && strcmp(kind->valuestring, "Pod") == 0))
        return 0;
    if (!cJSON_IsString(kind))
        return err_fail(err, -EINVAL, "kind: want a string");
    return err_fail(err, -EINVAL, "a %.100s, not a Pod", kind->valuestring);
}

int whatif_pod_one_check(const cJSON *pod, char *err)
{
    const cJSON *kind = codec_json_field(pod, "kind");
    if (kind != NULL && !cJSON_IsString(kind))
        return err_fail(err, -EINVAL, "kind: want a string");
    /* A list (a PodList, a List, or items without a kind) or another kind */
    if (kind == NULL ? codec_json_field(pod, "items") != NULL
                     : strcmp(kind->valuestring, "Pod") != 0)
        return err_fail(err, -EINVAL,
                        "a %.100s, not a Pod: give one pod (kubectl get pod NAME -o json)",
                        kind != NULL ? kind->valuestring : "list");
    if (kind != NULL)
        return 0;
    /* Without a kind, only a pod's spec makes it a pod: an ExtenderArgs
     * (examples/filter.json) or {} would rank an empty request. */
    const cJSON *nodes = codec_json_field(pod, "Nodes");
    if (codec_json_field(pod, "Pod") != NULL &&
        (nodes != NULL || codec_json_field(pod, "NodeNames") != NULL))
        return err_fail(
            err, -EINVAL,
            "an ExtenderArgs (Pod, %s), not a Pod: give one pod (kubectl get pod NAME -o "
            "json)",
            nodes != NULL ? "Nodes" : "NodeNames");
    if (!cJSON_IsArray(codec_json_field(codec_json_field(pod, "spec"), "containers")))
        return err_fail(
            err, -EINVAL,
            "neither kind Pod nor spec.containers, not a Pod: give one pod (kubectl get "
            "pod NAME -o json)");
    return 0;
}

int whatif_pod_item_decode(struct arena *tmp, const struct whatif_item *it, uint32_t docs,
                           const cJSON **tree, struct codec_pod *pod, struct score_pod_request *req,
                           char *err)
{
    cJSON *t;
    char name[64], who[600] = "";

    whatif_item_name(it, docs, name, sizeof(name));
    int rc = codec_json_tree(tmp, it->json.p, it->json.len, &t, err);
    if (rc != 0) {
        err_prefix(err, "%s: ", name);
        return rc;
    }
    const cJSON *meta = codec_json_field(t, "metadata");
    const cJSON *ns = codec_json_field(meta, "namespace"), *n = codec_json_field(meta, "name");
    /* A pod without a namespace is in "default"; another kind (a Node)
     * may have none at all, and is named as it is. */
    rc = whatif_pod_kind_check(t, err);
    bool has_ns = cJSON_IsString(ns) && ns->valuestring[0] != '\0';
    if (cJSON_IsString(n) && (has_ns || rc == 0))
        snprintf(who, sizeof(who), " (%.253s/%.253s)", has_ns ? ns->valuestring : "default",
                 n->valuestring);
    else if (cJSON_IsString(n))
        snprintf(who, sizeof(who), " (%.253s)", n->valuestring);
    if (rc == 0)
        rc = codec_pod_decode(tmp, t, pod, err);
    if (rc == 0 && score_pod_request(&pod->spec, req) != 0)
        rc = err_fail(err, -EINVAL, "Pod: total request does not fit in int64");
    if (rc != 0) {
        err_prefix(err, "%s%s: ", name, who);
        return rc;
    }
    *tree = t;
    return 0;
}

#include "whatif/pod_constraints.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "base/err.h"
#include "server/codec/json.h"

#define REQUIRED "requiredDuringSchedulingIgnoredDuringExecution"

struct pc_walk {
    struct arena *a;
    char *err;
};

static int nomem(struct pc_walk *w)
{
    return err_fail(w->err, -ENOMEM, "out of memory");
}

static int want(struct pc_walk *w, const char *path, const char *what)
{
    return err_fail(w->err, -EINVAL, "%s: want %s", path, what);
}

/* A string field: a copy in *@out, "" when absent or null. */
static int string_field(struct pc_walk *w, const cJSON *obj, const char *key, const char *path,
                        const char **out)
{
    const cJSON *v = codec_json_field(obj, key);
    *out = "";
    if (v == NULL)
        return 0;
    if (!cJSON_IsString(v))
        return err_fail(w->err, -EINVAL, "%s.%s: want a string", path, key);
    *out = arena_strndup(w->a, v->valuestring, strlen(v->valuestring));
    return *out == NULL ? nomem(w) : 0;
}

/* An array field (NULL when absent or null) or -EINVAL. */
static int array_field(struct pc_walk *w, const cJSON *obj, const char *key, const char *path,
                       const cJSON **out)
{
    *out = codec_json_field(obj, key);
    if (*out != NULL && !cJSON_IsArray(*out))
        return err_fail(w->err, -EINVAL, "%s.%s: want an array", path, key);
    return 0;
}

static int node_selector(struct pc_walk *w, const cJSON *spec, struct place_pod_constraints *out)
{
    const cJSON *sel = codec_json_field(spec, "nodeSelector"), *item;
    if (sel == NULL)
        return 0;
    if (!cJSON_IsObject(sel))
        return want(w, "Pod.spec.nodeSelector", "an object");
    size_t n = (size_t)cJSON_GetArraySize(sel), k = 0;
    struct place_label *l = arena_calloc(w->a, n + 1, sizeof(*l));
    if (l == NULL)
        return nomem(w);
    cJSON_ArrayForEach(item, sel)
    {
        if (!cJSON_IsString(item) && !cJSON_IsNull(item))
            return err_fail(w->err, -EINVAL, "Pod.spec.nodeSelector[\"%.200s\"]: want a string",
                            item->string);
        /* A Go map keeps the last value of a key; null is "". */
        const char *v = cJSON_IsString(item) ? item->valuestring : "";
        size_t i = 0;
        while (i < k && strcmp(l[i].key, item->string) != 0)
            i++;
        if (i == k) {
            l[k].key = arena_strndup(w->a, item->string, strlen(item->string));
            if (l[k++].key == NULL)
                return nomem(w);
        }
        l[i].value = arena_strndup(w->a, v, strlen(v));
        if (l[i].value == NULL)
            return nomem(w);
    }
    out->node_selector = l;
    out->n_node_selector = k;
    return 0;
}

/* The array @key of @obj, whose elements must be objects: each read by @fn
 * (its path "@path.@key[i]" for messages) into the next of @n_out elements
 * of @size bytes, an array in the arena put in *@out (left alone for none). */
static int objects(struct pc_walk *w, const cJSON *obj, const char *key, const char *path,
                   size_t size, void *out, size_t *n_out,
                   int (*fn)(struct pc_walk *w, const cJSON *item, const char *at, void *elem))
{
    const cJSON *list, *item;
    char at[320];
    size_t i = 0;

    if (array_field(w, obj, key, path, &list) != 0)
        return -EINVAL;
    size_t n = list != NULL ? (size_t)cJSON_GetArraySize(list) : 0;
    if (n == 0)
        return 0;
    char *elems = arena_calloc(w->a, n, size);
    if (elems == NULL)
        return nomem(w);
    cJSON_ArrayForEach(item, list)
    {
        snprintf(at, sizeof(at), "%s.%s[%zu]", path, key, i);
        if (!cJSON_IsObject(item))
            return want(w, at, "an object");
        int rc = fn(w, item, at, elems + i++ * size);
        if (rc != 0)
            return rc;
    }
    memcpy(out, &elems, sizeof(elems)); /* *out is a pointer to the caller's type */
    *n_out = n;
    return 0;
}

static int requirement(struct pc_walk *w, const cJSON *r, const char *at, void *elem)
{
    struct place_requirement *req = elem;
    const char *op;
    const cJSON *values, *v;
    size_t j = 0;

    int rc = string_field(w, r, "key", at, &req->key);
    if (rc == 0)
        rc = string_field(w, r, "operator", at, &op);
    if (rc == 0)
        rc = array_field(w, r, "values", at, &values);
    if (rc != 0)
        return rc;
    if (place_selector_op_parse(op, &req->op) != 0)
        return err_fail(w->err, -EINVAL,
                        "%s.operator: want In, NotIn, Exists, DoesNotExist, Gt or Lt, not "
                        "\"%.100s\"",
                        at, op);
    size_t nv = values != NULL ? (size_t)cJSON_GetArraySize(values) : 0;
    const char **vals = arena_calloc(w->a, nv + 1, sizeof(*vals));
    if (vals == NULL)
        return nomem(w);
    cJSON_ArrayForEach(v, values)
    {
        if (!cJSON_IsString(v))
            return err_fail(w->err, -EINVAL, "%s.values[%zu]: want a string", at, j);
        vals[j] = arena_strndup(w->a, v->valuestring, strlen(v->valuestring));
        if (vals[j++] == NULL)
            return nomem(w);
    }
    req->values = vals;
    req->n_values = nv;
    return 0;
}

static int term(struct pc_walk *w, const cJSON *t, const char *at, void *elem)
{
    struct place_selector_term *term = elem;
    int rc = objects(w, t, "matchExpressions", at, sizeof(struct place_requirement),
                     &term->match_expressions, &term->n_match_expressions, requirement);
    return rc != 0 ? rc
                   : objects(w, t, "matchFields", at, sizeof(struct place_requirement),
                             &term->match_fields, &term->n_match_fields, requirement);
}

static int affinity(struct pc_walk *w, const cJSON *spec, struct place_pod_constraints *out)
{
    static const char *const path = "Pod.spec.affinity.nodeAffinity." REQUIRED;
    const cJSON *aff = codec_json_field(spec, "affinity"), *na, *req;

    if (aff == NULL)
        return 0;
    if (!cJSON_IsObject(aff))
        return want(w, "Pod.spec.affinity", "an object");
    if ((na = codec_json_field(aff, "nodeAffinity")) == NULL)
        return 0;
    if (!cJSON_IsObject(na))
        return want(w, "Pod.spec.affinity.nodeAffinity", "an object");
    if ((req = codec_json_field(na, REQUIRED)) == NULL)
        return 0;
    if (!cJSON_IsObject(req))
        return want(w, path, "an object");
    out->has_required_affinity = true;
    /* no term: no node matches (the API server refuses it) */
    return objects(w, req, "nodeSelectorTerms", path, sizeof(struct place_selector_term),
                   &out->affinity_terms, &out->n_affinity_terms, term);
}

static int toleration(struct pc_walk *w, const cJSON *t, const char *at, void *elem)
{
    struct place_toleration *tol = elem;
    const char *op, *effect;

    int rc = string_field(w, t, "key", at, &tol->key);
    if (rc == 0)
        rc = string_field(w, t, "operator", at, &op);
    if (rc == 0)
        rc = string_field(w, t, "value", at, &tol->value);
    if (rc == 0)
        rc = string_field(w, t, "effect", at, &effect);
    if (rc != 0)
        return rc;
    if (place_toleration_op_parse(op, &tol->op) != 0)
        return err_fail(w->err, -EINVAL, "%s.operator: want Equal or Exists, not \"%.100s\"", at,
                        op);
    if (place_taint_effect_parse(effect, true, &tol->effect) != 0)
        return err_fail(w->err, -EINVAL,
                        "%s.effect: want NoSchedule, PreferNoSchedule, NoExecute or empty, not "
                        "\"%.100s\"",
                        at, effect);
    return 0;
}

int whatif_pod_constraints_decode(struct arena *a, const cJSON *pod,
                                  struct place_pod_constraints *out, char *err)
{
    struct pc_walk w = {.a = a, .err = err};
    const cJSON *spec;
    int rc;

    memset(out, 0, sizeof(*out));
    out->node_name = "";
    if (!cJSON_IsObject(pod))
        return want(&w, "Pod", "an object");
    if ((spec = codec_json_field(pod, "spec")) == NULL)
        return 0;
    if (!cJSON_IsObject(spec))
        return want(&w, "Pod.spec", "an object");
    if ((rc = string_field(&w, spec, "nodeName", "Pod.spec", &out->node_name)) != 0 ||
        (rc = node_selector(&w, spec, out)) != 0 || (rc = affinity(&w, spec, out)) != 0)
        return rc;
    return objects(&w, spec, "tolerations", "Pod.spec", sizeof(struct place_toleration),
                   &out->tolerations, &out->n_tolerations, toleration);
}

void whatif_pod_controller(const cJSON *pod, struct whatif_pod_owner *out)
{
    const cJSON *refs = codec_json_field(codec_json_field(pod, "metadata"), "ownerReferences"), *r;
    out->kind = out->name = "";
    if (!cJSON_IsArray(refs))
        return;
    cJSON_ArrayForEach(r, refs)
    {
        const cJSON *kind = codec_json_field(r, "kind"), *name = codec_json_field(r, "name");
        if (cJSON_IsTrue(codec_json_field(r, "controller")) && cJSON_IsString(kind) &&
            cJSON_IsString(name)) {
            out->kind = kind->valuestring;
            out->name = name->valuestring;
            return;
        }
    }
}

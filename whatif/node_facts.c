#include "whatif/node_facts.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "base/err.h"

struct facts_walk {
    struct arena *a;
    struct codec_scan *s;
    struct whatif_node_facts *out;
    size_t label_cap;
    char *err;
};

/* A fault of the walk: the scanner's (the bytes were validated before, so
 * only on a caller's mistake) or ours, already in @err. */
static int scan_fault(struct facts_walk *w)
{
    if (w->s->why != NULL) {
        codec_scan_error(w->s, w->err);
        return -EINVAL;
    }
    return 0;
}

static int nomem(struct facts_walk *w)
{
    return err_fail(w->err, -ENOMEM, "out of memory");
}

/* Passes over the value at the scan point. */
static int skip(struct facts_walk *w)
{
    return codec_scan_skip(w->s) != 0 ? scan_fault(w) : 0;
}

/* Calls @fn for each member of the object just entered, with the scan
 * point at the member's value, which @fn reads or skips: the one loop
 * over members of every object below. The first failure is returned. */
static int each_member(struct facts_walk *w,
                       int (*fn)(struct facts_walk *w, struct codec_str key, void *ctx), void *ctx)
{
    for (bool first = true;; first = false) {
        struct codec_str key;
        bool more;
        if (codec_scan_member(w->s, first, &key, &more) != 0)
            return scan_fault(w);
        if (!more)
            return 0;
        int rc = fn(w, key, ctx);
        if (rc != 0)
            return rc;
    }
}

/* A string value at the scan point into *@out (a copy in the arena); null
 * leaves *@out alone (Go keeps a string field as it was), unless @null_is
 * is given, which it becomes (a map element: Go stores the zero value). */
static int string_value(struct facts_walk *w, const char *path, const char **out,
                        const char *null_is)
{
    struct codec_str str;
    char c = codec_scan_peek(w->s);
    if (c == 'n') {
        if (null_is != NULL)
            *out = null_is;
        return skip(w);
    }
    if (c != '"')
        return err_fail(w->err, -EINVAL, "%s: want a string", path);
    if (codec_scan_string(w->s, &str) != 0)
        return scan_fault(w);
    char *copy = codec_str_copy(w->a, str);
    if (copy == NULL)
        return nomem(w);
    *out = copy;
    return 0;
}

/* @arr (@n elements of @size bytes, room for *@cap) with room for one
 * more: itself, or a copy twice as large in the arena (@first at first);
 * NULL when out of memory. */
static void *grow(struct facts_walk *w, void *arr, size_t n, size_t *cap, size_t first, size_t size)
{
    if (n < *cap)
        return arr;
    size_t more = *cap ? *cap * 2 : first;
    void *grown = arena_alloc(w->a, more * size);
    if (grown != NULL && n > 0)
        memcpy(grown, arr, n * size);
    *cap = grown != NULL ? more : *cap;
    return grown;
}

static int put_label(struct facts_walk *w, const char *key, const char *value)
{
    struct whatif_node_facts *f = w->out;
    for (size_t i = 0; i < f->n_labels; i++) {
        if (strcmp(f->labels[i].key, key) == 0) {
            f->labels[i].value = value; /* a Go map keeps the last */
            return 0;
        }
    }
    if ((f->labels = grow(w, f->labels, f->n_labels, &w->label_cap, 16, sizeof(*f->labels))) ==
        NULL)
        return nomem(w);
    f->labels[f->n_labels++] = (struct place_label){key, value};
    return 0;
}

static int label(struct facts_walk *w, struct codec_str key, void *ctx)
{
    (void)ctx;
    char *k = codec_str_copy(w->a, key);
    if (k == NULL)
        return nomem(w);
    const char *v = "";
    char path[256];
    snprintf(path, sizeof(path), "metadata.labels[\"%.200s\"]", k);
    int rc = string_value(w, path, &v, "");
    return rc == 0 ? put_label(w, k, v) : rc;
}

/* Enters the object at the scan point for a struct field @path: 1 when it
 * is one (walk its members), 0 when null (nothing to read), else -EINVAL. */
static int struct_field(struct facts_walk *w, const char *path)
{
    char c = codec_scan_peek(w->s);
    if (c == 'n')
        return skip(w);
    if (c != '{')
        return err_fail(w->err, -EINVAL, "%s: want an object", path);
    return codec_scan_object(w->s) != 0 ? scan_fault(w) : 1;
}

/* The object at the scan point (@path), each of its members read by @fn;
 * null is nothing to read. */
static int object_field(struct facts_walk *w, const char *path,
                        int (*fn)(struct facts_walk *w, struct codec_str key, void *ctx))
{
    int rc = struct_field(w, path);
    return rc <= 0 ? rc : each_member(w, fn, NULL);
}

static int metadata_member(struct facts_walk *w, struct codec_str key, void *ctx)
{
    (void)ctx;
    if (!codec_str_is(key, "labels", true))
        return skip(w);
    if (codec_scan_peek(w->s) == 'n')
        w->out->n_labels = 0; /* null clears a map */
    return object_field(w, "metadata.labels", label);
}

/* One taint as it is read: where, and its effect's text until checked. */
struct taint_read {
    struct place_taint *t;
    const char *path, *effect;
};

static int taint_member(struct facts_walk *w, struct codec_str key, void *ctx)
{
    static const char *const names[] = {"key", "value", "effect"};
    struct taint_read *r = ctx;
    const char **to[] = {&r->t->key, &r->t->value, &r->effect};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (codec_str_is(key, names[i], true)) {
            char field[96];
            snprintf(field, sizeof(field), "%s.%s", r->path, names[i]);
            return string_value(w, field, to[i], NULL);
        }
    }
    return skip(w);
}

static int taint(struct facts_walk *w, size_t i, struct place_taint *t)
{
    char path[64];
    snprintf(path, sizeof(path), "spec.taints[%zu]", i);
    int rc = struct_field(w, path);
    if (rc == 0) /* a null taint has no effect */
        return err_fail(w->err, -EINVAL, "%s: want an object", path);
    if (rc < 0)
        return rc;
    t->key = t->value = "";
    struct taint_read r = {.t = t, .path = path, .effect = ""};
    if ((rc = each_member(w, taint_member, &r)) != 0)
        return rc;
    if (place_taint_effect_parse(r.effect, false, &t->effect) != 0)
        return err_fail(w->err, -EINVAL,
                        "%s.effect: want NoSchedule, PreferNoSchedule or NoExecute, not \"%.100s\"",
                        path, r.effect);
    return 0;
}

static int taints(struct facts_walk *w)
{
    struct whatif_node_facts *f = w->out;
    size_t cap = 0;
    char c = codec_scan_peek(w->s);
    f->n_taints = 0; /* a repeated array replaces; null clears */
    f->taints = NULL;
    if (c == 'n')
        return skip(w);
    if (c != '[')
        return err_fail(w->err, -EINVAL, "spec.taints: want an array");
    if (codec_scan_array(w->s) != 0)
        return scan_fault(w);
    for (bool first = true;; first = false) {
        bool more;
        if (codec_scan_element(w->s, first, &more) != 0)
            return scan_fault(w);
        if (!more)
            return 0;
        f->taints = grow(w, f->taints, f->n_taints, &cap, 4, sizeof(*f->taints));
        int rc = f->taints != NULL ? taint(w, f->n_taints, &f->taints[f->n_taints]) : nomem(w);
        if (rc != 0)
            return rc;
        f->n_taints++;
    }
}

static int spec_member(struct facts_walk *w, struct codec_str key, void *ctx)
{
    (void)ctx;
    if (codec_str_is(key, "taints", true))
        return taints(w);
    if (codec_str_is(key, "containers", true)) {
        w->out->has_containers = true;
        return skip(w);
    }
    if (codec_str_is(key, "unschedulable", true)) {
        char c = codec_scan_peek(w->s);
        if (c != 't' && c != 'f' && c != 'n')
            return err_fail(w->err, -EINVAL, "spec.unschedulable: want true or false");
        if (c != 'n') /* null leaves a bool alone */
            w->out->unschedulable = c == 't';
    }
    return skip(w);
}

static int node_member(struct facts_walk *w, struct codec_str key, void *ctx)
{
    (void)ctx;
    if (codec_str_is(key, "kind", true))
        return string_value(w, "kind", &w->out->kind, NULL);
    if (codec_str_is(key, "metadata", true))
        return object_field(w, "metadata", metadata_member);
    if (codec_str_is(key, "spec", true))
        return object_field(w, "spec", spec_member);
    return skip(w);
}

int whatif_node_facts_decode(struct arena *a, struct codec_span node, struct whatif_node_facts *out,
                             char *err)
{
    struct codec_scan s;
    struct facts_walk w = {.a = a, .s = &s, .out = out, .err = err};

    memset(out, 0, sizeof(*out));
    out->kind = "";
    codec_scan_init(&s, node.p, node.len);
    if (codec_scan_peek(&s) != '{')
        return err_fail(err, -EINVAL, "want a Node object");
    if (codec_scan_object(&s) != 0)
        return scan_fault(&w);
    return each_member(&w, node_member, NULL);
}

const char *whatif_node_facts_label(const struct whatif_node_facts *f, const char *key)
{
    for (size_t i = 0; i < f->n_labels; i++)
        if (strcmp(f->labels[i].key, key) == 0)
            return f->labels[i].value;
    return NULL;
}

int whatif_nodelist_kind(struct arena *a, const struct codec_args *args, const char **kind,
                         char *err)
{
    *kind = "";
    for (size_t i = 0; i < args->n_list_members; i++) {
        const struct codec_member *m = &args->list_members[i];
        struct codec_scan s;
        struct codec_str key;
        struct facts_walk w = {.a = a, .s = &s, .err = err};
        /* The key span holds its quotes: read it as the string it is. */
        codec_scan_init(&s, m->key.p, m->key.len);
        if (codec_scan_string(&s, &key) != 0 || !codec_str_is(key, "kind", true))
            continue;
        codec_scan_init(&s, m->value.p, m->value.len);
        int rc = string_value(&w, "kind", kind, NULL); /* null leaves it as it was */
        if (rc != 0)
            return rc;
    }
    return 0;
}

#include "server/codec/nodelist.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "scoring/quantity.h"
#include "server/codec/quantities.h"

/* Records a fault unless one is kept already. */
__attribute__((format(printf, 3, 4))) static void fault_set(struct codec_fault *f, int rc,
                                                            const char *fmt, ...)
{
    if (f->rc != 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->err, sizeof(f->err), fmt, ap);
    va_end(ap);
    err_utf8_trim(f->err);
    f->rc = rc;
}

/* What a member's value is, as far as the decoder cares. */
enum vkind {
    V_ABSENT = 0,
    V_NULL,
    V_STRING,
    V_OBJECT,
    V_OTHER,
};

/* The last value of a key: its kind, and the string when it is one. */
struct qval {
    enum vkind kind;
    struct codec_str str;
};

enum { Q_CPU = SCORE_CPU, Q_MEMORY = SCORE_MEMORY, Q_PODS, Q_COUNT };

/* What one Node object said. A repeated key is read as Go reads it into
 * the typed Node: a struct (metadata, status) or a map (annotations,
 * allocatable) repeated merges into what came before, a null clears a map
 * and leaves a struct or a string alone, and a map entry or a string is
 * the last one given. A value of the wrong type anywhere is remembered
 * (Go would refuse the Node for it). */
struct node_scan {
    bool meta_bad, name_bad, status_bad, alloc_bad, ann_bad;
    struct qval name, ann[SCORE_NRES], q[Q_COUNT];
};

static enum vkind kind_at(struct codec_scan *s)
{
    switch (codec_scan_peek(s)) {
    case '{':
        return V_OBJECT;
    case '"':
        return V_STRING;
    case 'n':
        return V_NULL;
    default:
        return V_OTHER;
    }
}

/* A member value whose string we may want: kept, then passed over. */
static int read_qval(struct codec_scan *s, struct qval *v)
{
    v->kind = kind_at(s);
    if (v->kind == V_STRING)
        return codec_scan_string(s, &v->str);
    return codec_scan_skip(s);
}

struct node_ctx {
    const struct cfg *cfg;
    struct node_scan *n;
};

static int annotation(struct codec_scan *s, struct codec_str key, void *ctx)
{
    struct node_ctx *c = ctx;
    for (int r = 0; r < SCORE_NRES; r++)
        if (c->cfg->used_annotation[r][0] != '\0' &&
            codec_str_is(key, c->cfg->used_annotation[r], false))
            return read_qval(s, &c->n->ann[r]);
    return codec_scan_skip(s);
}

/* A struct or map member @key's value by the rules of node_scan: an
 * object is walked with @fn, null clears @map (@map_len bytes) when the
 * field is a map, another type sets *@bad. */
static int nested(struct codec_scan *s,
                  int (*fn)(struct codec_scan *s, struct codec_str key, void *ctx), void *ctx,
                  void *map, size_t map_len, bool *bad)
{
    enum vkind k = kind_at(s);
    if (k == V_OBJECT)
        return codec_scan_members(s, fn, ctx);
    if (k == V_NULL && map != NULL)
        memset(map, 0, map_len);
    else if (k != V_NULL)
        *bad = true;
    return codec_scan_skip(s);
}

static int metadata(struct codec_scan *s, struct codec_str key, void *ctx)
{
    struct node_ctx *c = ctx;
    struct node_scan *n = c->n;
    if (codec_str_is(key, "name", true)) {
        enum vkind k = kind_at(s);
        if (k == V_STRING)
            return read_qval(s, &n->name);
        n->name_bad = n->name_bad || k != V_NULL; /* null leaves a string alone */
        return codec_scan_skip(s);
    }
    if (codec_str_is(key, "annotations", true))
        return nested(s, annotation, ctx, n->ann, sizeof(n->ann), &n->ann_bad);
    return codec_scan_skip(s);
}

static int allocatable(struct codec_scan *s, struct codec_str key, void *ctx)
{
    static const char *const names[Q_COUNT] = {
        [Q_CPU] = "cpu", [Q_MEMORY] = "memory", [Q_PODS] = "pods"};
    struct node_ctx *c = ctx;
    for (int q = 0; q < Q_COUNT; q++) /* resource names are map keys: not folded */
        if (codec_str_is(key, names[q], false))
            return read_qval(s, &c->n->q[q]);
    return codec_scan_skip(s);
}

static int status(struct codec_scan *s, struct codec_str key, void *ctx)
{
    struct node_ctx *c = ctx;
    if (!codec_str_is(key, "allocatable", true))
        return codec_scan_skip(s);
    return nested(s, allocatable, ctx, c->n->q, sizeof(c->n->q), &c->n->alloc_bad);
}

static int node_member(struct codec_scan *s, struct codec_str key, void *ctx)
{
    struct node_ctx *c = ctx;
    if (codec_str_is(key, "metadata", true))
        return nested(s, metadata, ctx, NULL, 0, &c->n->meta_bad);
    if (codec_str_is(key, "status", true))
        return nested(s, status, ctx, NULL, 0, &c->n->status_bad);
    return codec_scan_skip(s);
}

/* A quantity value as Quantity.UnmarshalJSON reads it: the string's bytes
 * as they stand, so an escape is not decoded (and no quantity holds a
 * backslash: kube-scheduler could not read such a node back from the
 * filter's answer); absent or null is 0. Returns 0 or -EINVAL. */
static int quantity(const struct qval *v, enum score_unit unit, int64_t *out)
{
    const char *why;
    *out = 0;
    if (v->kind == V_ABSENT || v->kind == V_NULL)
        return 0;
    if (v->kind != V_STRING || v->str.escaped)
        return -EINVAL;
    return codec_quantity_text(v->str.p, v->str.len, unit, out, &why);
}

/* The node's data from what its object said: the first problem is the
 * reason. */
static void node_data(const struct cfg *cfg, const struct node_scan *n, struct codec_node *out)
{
    static const char *const reasons[2][SCORE_NRES] = {
        {"invalid allocatable cpu", "invalid allocatable memory"},
        {"invalid cpu-used annotation", "invalid memory-used annotation"},
    };
    if (n->status_bad) {
        out->invalid = "invalid node status";
        return;
    }
    if (n->alloc_bad) {
        out->invalid = "invalid allocatable";
        return;
    }
    if (n->ann_bad) {
        out->invalid = "invalid annotations";
        return;
    }
    for (int r = 0; r < SCORE_NRES && out->invalid == NULL; r++) {
        enum score_unit unit = r == SCORE_CPU ? SCORE_UNIT_MILLI : SCORE_UNIT_BASE;
        if (quantity(&n->q[r], unit, &out->res.alloc[r]) != 0 || out->res.alloc[r] < 0)
            out->invalid = reasons[0][r];
        else if (cfg->used_annotation[r][0] != '\0' &&
                 (quantity(&n->ann[r], unit, &out->res.used[r]) != 0 || out->res.used[r] < 0))
            out->invalid = reasons[1][r];
        out->res.used_non_zero[r] = out->res.used[r];
    }
    if (quantity(&n->q[Q_PODS], SCORE_UNIT_BASE, &out->pods) != 0 ||
        n->q[Q_PODS].kind != V_STRING || out->pods < 0)
        out->pods = -1;
}

/* One element of "items" (or the bare Node) at the scan point into @out.
 * Returns -EINVAL for the scanner's faults; a node without a name is the
 * request's (-ENOENT here, named by the caller). */
static int node(struct arena *a, struct codec_scan *s, const struct cfg *cfg,
                struct codec_node *out)
{
    struct node_scan n;
    struct node_ctx ctx = {cfg, &n};

    memset(&n, 0, sizeof(n));
    memset(out, 0, sizeof(*out));
    out->pods = -1;
    codec_scan_peek(s);
    out->json.p = s->p;
    bool object = kind_at(s) == V_OBJECT;
    if ((object ? codec_scan_members(s, node_member, &ctx) : codec_scan_skip(s)) != 0)
        return -EINVAL;
    out->json.len = (size_t)(s->p - out->json.p);
    if (!object || n.meta_bad || n.name_bad || n.name.kind != V_STRING || n.name.str.len == 0)
        return -ENOENT;
    if ((out->name = codec_str_copy(a, n.name.str)) == NULL)
        return -ENOMEM;
    node_data(cfg, &n, out);
    return 0;
}

/* Room for one more node in out->nodes (it grows by doubling, up to
 * max-nodes + 1 records). */
static struct codec_node *next_slot(struct arena *a, struct codec_args *out, size_t *cap)
{
    if (out->n_nodes == *cap) {
        size_t more = *cap ? *cap * 2 : 64;
        struct codec_node *grown = arena_alloc(a, more * sizeof(*grown));
        if (grown == NULL)
            return NULL;
        if (out->n_nodes > 0)
            memcpy(grown, out->nodes, out->n_nodes * sizeof(*grown));
        out->nodes = grown;
        *cap = more;
    }
    return &out->nodes[out->n_nodes];
}

/* The elements of "items": nodes up to max-nodes, counted past it, in
 * *@count. */
static int items(struct arena *a, struct codec_scan *s, const struct cfg *cfg, const char *what,
                 struct codec_args *out, size_t *cap, struct codec_fault *f, size_t *count_out)
{
    struct codec_node spare;
    size_t count = 0;
    if (codec_scan_array(s) != 0)
        return -EINVAL;
    for (bool first = true;; first = false, count++) {
        bool more;
        if (codec_scan_element(s, first, &more) != 0)
            return -EINVAL;
        if (!more)
            break;
        if (count >= (size_t)cfg->max_nodes) {
            if (codec_scan_skip(s) != 0) /* counted, validated, not decoded */
                return -EINVAL;
            continue;
        }
        struct codec_node *slot = next_slot(a, out, cap);
        if (slot == NULL) {
            fault_set(f, -ENOMEM, "out of memory");
            slot = &spare;
        }
        int rc = node(a, s, cfg, slot);
        if (rc == -EINVAL)
            return rc;
        if (rc == -ENOENT)
            fault_set(f, -EINVAL, "%s.items[%zu]: node without a metadata.name string", what,
                      count);
        else if (rc == -ENOMEM)
            fault_set(f, rc, "out of memory");
        if (slot != &spare)
            out->n_nodes++;
    }
    if (count > (size_t)cfg->max_nodes) {
        /* Counted before any node is looked at, as the limit is checked
         * first: it wins over a faulty node. */
        f->rc = 0;
        fault_set(f, -E2BIG, "%zu nodes, more than max-nodes (%d)", count, cfg->max_nodes);
    }
    *count_out = count;
    return 0;
}

static int add_member(struct arena *a, struct codec_args *out, size_t *cap, struct codec_span key,
                      struct codec_span value)
{
    if (out->n_list_members == *cap) {
        size_t more = *cap ? *cap * 2 : 8;
        struct codec_member *grown = arena_alloc(a, more * sizeof(*grown));
        if (grown == NULL)
            return -ENOMEM;
        if (out->n_list_members > 0)
            memcpy(grown, out->list_members, out->n_list_members * sizeof(*grown));
        out->list_members = grown;
        *cap = more;
    }
    out->list_members[out->n_list_members++] = (struct codec_member){key, value};
    return 0;
}

/* The "items" member at the scan point, into out->nodes and @ls. */
static int list_items(struct arena *a, struct codec_scan *s, const struct cfg *cfg,
                      const char *what, struct codec_args *out, struct codec_list_scan *ls)
{
    char c = codec_scan_peek(s);
    size_t before = ls->items_len;
    out->n_nodes = 0;
    ls->items_len = 0;
    memset(&ls->items_fault, 0, sizeof(ls->items_fault));
    if (c != '[') {
        if (c != 'n')
            fault_set(&ls->items_fault, -EINVAL, "%s.items: want an array", what);
        return codec_scan_skip(s); /* null: a nil slice, no nodes */
    }
    if (items(a, s, cfg, what, out, &ls->node_cap, &ls->items_fault, &ls->items_len) != 0)
        return -EINVAL;
    if (before > 0 && ls->items_len > 0)
        fault_set(&ls->twice, -EINVAL, "%s.items: given twice", what);
    return 0;
}

struct list_ctx {
    struct arena *a;
    const struct cfg *cfg;
    const char *what;
    struct codec_args *out;
    struct codec_list_scan *ls;
};

/* One member of a NodeList: "items" read, the others kept as spans. */
static int list_member(struct codec_scan *s, struct codec_str key, void *ctx)
{
    struct list_ctx *c = ctx;
    if (codec_str_is(key, "items", true))
        return list_items(c->a, s, c->cfg, c->what, c->out, c->ls);
    struct codec_span k = {key.p - 1, key.len + 2}, v = {s->p, 0};
    if (codec_scan_skip(s) != 0)
        return -EINVAL;
    v.len = (size_t)(s->p - v.p);
    if (add_member(c->a, c->out, &c->ls->member_cap, k, v) != 0)
        fault_set(&c->ls->other, -ENOMEM, "out of memory");
    return 0;
}

void codec_list_scan_reset(struct codec_list_scan *ls, struct codec_args *out)
{
    size_t node_cap = ls->node_cap, member_cap = ls->member_cap;
    memset(ls, 0, sizeof(*ls));
    ls->node_cap = node_cap;
    ls->member_cap = member_cap;
    out->n_nodes = 0;
    out->n_list_members = 0;
}

/* Does the object at the scan point have an "items" member (a List, not
 * a bare Node)? Looks ahead without moving @s. */
static bool has_items(const struct codec_scan *s)
{
    struct codec_scan probe = *s;
    if (codec_scan_object(&probe) != 0)
        return true; /* malformed: list() finds the fault */
    for (bool first = true;; first = false) {
        struct codec_str key;
        bool more;
        if (codec_scan_member(&probe, first, &key, &more) != 0)
            return true;
        if (!more)
            return false;
        if (codec_str_is(key, "items", true))
            return true;
        if (codec_scan_skip(&probe) != 0)
            return true;
    }
}

/* A bare Node at the scan point as a list of one. */
static int bare_node(struct arena *a, struct codec_scan *s, const struct cfg *cfg, const char *what,
                     struct codec_args *out, struct codec_list_scan *ls)
{
    struct codec_node *slot = next_slot(a, out, &ls->node_cap);
    if (slot == NULL) {
        fault_set(&ls->other, -ENOMEM, "out of memory");
        return codec_scan_skip(s);
    }
    int rc = node(a, s, cfg, slot);
    if (rc == -EINVAL)
        return rc;
    if (rc == -ENOENT)
        fault_set(&ls->other, -EINVAL, "%s: node without a metadata.name string", what);
    else if (rc == -ENOMEM)
        fault_set(&ls->other, rc, "out of memory");
    else
        out->n_nodes = 1;
    return 0;
}

int codec_nodelist_scan(struct arena *a, struct codec_scan *s, const struct cfg *cfg,
                        bool single_ok, const char *what, struct codec_args *out,
                        struct codec_list_scan *ls, struct codec_fault *f)
{
    int rc;
    out->node_names_mode = false;
    if (codec_scan_peek(s) != '{') {
        fault_set(&ls->other, -EINVAL, "%s: want a NodeList object", what);
        rc = codec_scan_skip(s);
    } else if (!single_ok || has_items(s)) {
        struct list_ctx c = {a, cfg, what, out, ls};
        rc = codec_scan_members(s, list_member, &c);
    } else {
        rc = bare_node(a, s, cfg, what, out, ls);
    }
    /* The list's faults as they stand after this "Nodes", first kept first. */
    memset(f, 0, sizeof(*f));
    const struct codec_fault *order[] = {&ls->other, &ls->twice, &ls->items_fault};
    for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
        if (order[i]->rc != 0)
            fault_set(f, order[i]->rc, "%s", order[i]->err);
    return rc;
}

int codec_names_scan(struct arena *a, struct codec_scan *s, const struct cfg *cfg,
                     struct codec_args *out, struct codec_fault *f)
{
    size_t cap = 0, count = 0;
    out->n_nodes = 0;
    out->n_list_members = 0;
    out->node_names_mode = true;
    if (codec_scan_peek(s) != '[') {
        fault_set(f, -EINVAL, "NodeNames: want an array of strings");
        return codec_scan_skip(s);
    }
    if (codec_scan_array(s) != 0)
        return -EINVAL;
    for (bool first = true;; first = false, count++) {
        bool more;
        struct codec_str name;
        if (codec_scan_element(s, first, &more) != 0)
            return -EINVAL;
        if (!more)
            break;
        if (codec_scan_peek(s) != '"') {
            fault_set(f, -EINVAL, "NodeNames[%zu]: want a string", count);
            if (codec_scan_skip(s) != 0)
                return -EINVAL;
            continue;
        }
        if (codec_scan_string(s, &name) != 0)
            return -EINVAL;
        if (count >= (size_t)cfg->max_nodes)
            continue;
        struct codec_node *slot = next_slot(a, out, &cap);
        char *copy = slot != NULL ? codec_str_copy(a, name) : NULL;
        if (copy == NULL) {
            fault_set(f, -ENOMEM, "out of memory");
            continue;
        }
        *slot = (struct codec_node){.name = copy, .pods = -1};
        out->n_nodes++;
    }
    if (count > (size_t)cfg->max_nodes) {
        f->rc = 0;
        fault_set(f, -E2BIG, "%zu nodes, more than max-nodes (%d)", count, cfg->max_nodes);
    }
    return 0;
}

int codec_nodelist_decode(struct arena *a, const char *body, size_t len, const struct cfg *cfg,
                          const char *what, struct codec_args *out, char *err)
{
    struct codec_scan s;
    struct codec_fault f = {0};

    struct codec_list_scan ls = {0};
    memset(out, 0, sizeof(*out));
    codec_scan_init(&s, body, len);
    if (s.why == NULL && codec_nodelist_scan(a, &s, cfg, true, what, out, &ls, &f) == 0)
        codec_scan_end(&s);
    if (s.why != NULL) {
        codec_scan_error(&s, err);
        err_prefix(err, "%s: ", what);
        return -EINVAL;
    }
    if (f.rc != 0)
        return err_fail(err, f.rc, "%s", f.err);
    return 0;
}

int codec_node_decode(struct arena *a, const char *body, size_t len, const struct cfg *cfg,
                      struct codec_node *out, char *err)
{
    struct codec_scan s;

    codec_scan_init(&s, body, len);
    int rc = s.why == NULL ? node(a, &s, cfg, out) : -EINVAL;
    if (rc != -EINVAL)
        codec_scan_end(&s);
    if (s.why != NULL) {
        codec_scan_error(&s, err);
        err_prefix(err, "Node: ");
        return -EINVAL;
    }
    if (rc == -ENOENT)
        return err_fail(err, -EINVAL, "node without a metadata.name string");
    if (rc == -ENOMEM)
        err_set(err, "out of memory");
    return rc;
}

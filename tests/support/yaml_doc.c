#include "tests/support/yaml_doc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/fixtures.h"

static int fail(char err[YDOC_ERR_LEN], int rc, const char *path, const yaml_parser_t *p)
{
    if (p != NULL)
        snprintf(err, YDOC_ERR_LEN, "%s:%zu:%zu: %s %s", path, p->problem_mark.line + 1,
                 p->problem_mark.column + 1, p->problem != NULL ? p->problem : "YAML error",
                 p->context != NULL ? p->context : "");
    else
        snprintf(err, YDOC_ERR_LEN, "%s: %s", path, strerror(-rc));
    return rc;
}

/* Parses f->text (f->path names it in errors). */
static int load_docs(struct ydoc_file *f, char err[YDOC_ERR_LEN])
{
    const char *path = f->path;
    yaml_parser_t parser;
    int rc = 0;

    if (yaml_parser_initialize(&parser) == 0) {
        rc = fail(err, -ENOMEM, path, NULL);
        goto out_free_file;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)f->text, f->len);
    for (;;) {
        yaml_document_t doc;
        if (yaml_parser_load(&parser, &doc) == 0) {
            rc = fail(err, -EINVAL, path, &parser);
            goto out_delete_parser;
        }
        const yaml_node_t *root = yaml_document_get_root_node(&doc);
        if (root == NULL) {
            yaml_document_delete(&doc); /* end of the stream */
            break;
        }
        if (ydoc_is_plain(root) && root->data.scalar.length == 0) {
            yaml_document_delete(&doc); /* "---" with nothing after it */
            continue;
        }
        yaml_document_t *grown = realloc(f->docs, (f->n_docs + 1) * sizeof(*grown));
        if (grown == NULL) {
            yaml_document_delete(&doc);
            rc = fail(err, -ENOMEM, path, NULL);
            goto out_delete_parser;
        }
        f->docs = grown;
        f->docs[f->n_docs++] = doc;
    }
out_delete_parser:
    yaml_parser_delete(&parser);
out_free_file:
    if (rc != 0)
        ydoc_free(f);
    return rc;
}

int ydoc_load(struct ydoc_file *f, const char *path, char err[YDOC_ERR_LEN])
{
    memset(f, 0, sizeof(*f));
    f->path = strdup(path);
    if (f->path == NULL)
        return fail(err, -ENOMEM, path, NULL);
    f->text = file_slurp(path, &f->len);
    if (f->text == NULL) {
        int rc = fail(err, -ENOENT, path, NULL);
        ydoc_free(f);
        return rc;
    }
    return load_docs(f, err);
}

int ydoc_load_text(struct ydoc_file *f, const char *name, const char *text, size_t len,
                   char err[YDOC_ERR_LEN])
{
    memset(f, 0, sizeof(*f));
    f->path = strdup(name);
    f->text = malloc(len + 1);
    if (f->path == NULL || f->text == NULL) {
        ydoc_free(f);
        return fail(err, -ENOMEM, name, NULL);
    }
    memcpy(f->text, text, len);
    f->text[len] = '\0';
    f->len = len;
    return load_docs(f, err);
}

void ydoc_free(struct ydoc_file *f)
{
    for (size_t i = 0; i < f->n_docs; i++)
        yaml_document_delete(&f->docs[i]);
    free(f->docs);
    f->docs = NULL;
    f->n_docs = 0;
    free(f->text);
    f->text = NULL;
    free(f->path);
    f->path = NULL;
}

yaml_node_t *ydoc_root(yaml_document_t *d)
{
    return yaml_document_get_root_node(d);
}

static bool scalar_is(const yaml_node_t *n, const char *s, size_t len)
{
    return n != NULL && n->type == YAML_SCALAR_NODE && n->data.scalar.length == len &&
           memcmp(n->data.scalar.value, s, len) == 0;
}

static yaml_node_t *get_n(yaml_document_t *d, const yaml_node_t *map, const char *key, size_t len)
{
    if (map == NULL || map->type != YAML_MAPPING_NODE)
        return NULL;
    for (const yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        if (scalar_is(yaml_document_get_node(d, p->key), key, len))
            return yaml_document_get_node(d, p->value);
    }
    return NULL;
}

yaml_node_t *ydoc_get(yaml_document_t *d, const yaml_node_t *map, const char *key)
{
    return get_n(d, map, key, strlen(key));
}

yaml_node_t *ydoc_path(yaml_document_t *d, const yaml_node_t *n, const char *path)
{
    const char *seg = path;

    for (;;) {
        const char *dot = strchr(seg, '.');
        size_t len = dot != NULL ? (size_t)(dot - seg) : strlen(seg);
        yaml_node_t *next = get_n(d, n, seg, len);
        if (next == NULL || dot == NULL)
            return next;
        n = next;
        seg = dot + 1;
    }
}

size_t ydoc_len(const yaml_node_t *n)
{
    if (n == NULL)
        return 0;
    if (n->type == YAML_SEQUENCE_NODE)
        return (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (n->type == YAML_MAPPING_NODE)
        return (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
    return 0;
}

yaml_node_t *ydoc_item(yaml_document_t *d, const yaml_node_t *seq, size_t i)
{
    if (seq == NULL || seq->type != YAML_SEQUENCE_NODE || i >= ydoc_len(seq))
        return NULL;
    return yaml_document_get_node(d, seq->data.sequence.items.start[i]);
}

bool ydoc_pair(yaml_document_t *d, const yaml_node_t *map, size_t i, yaml_node_t **key,
               yaml_node_t **value)
{
    if (map == NULL || map->type != YAML_MAPPING_NODE || i >= ydoc_len(map))
        return false;
    *key = yaml_document_get_node(d, map->data.mapping.pairs.start[i].key);
    *value = yaml_document_get_node(d, map->data.mapping.pairs.start[i].value);
    return true;
}

yaml_node_t *ydoc_find(yaml_document_t *d, const yaml_node_t *seq, const char *key,
                       const char *value)
{
    for (size_t i = 0; i < ydoc_len(seq); i++) {
        yaml_node_t *item = ydoc_item(d, seq, i);
        if (ydoc_is(ydoc_get(d, item, key), value))
            return item;
    }
    return NULL;
}

bool ydoc_is(const yaml_node_t *n, const char *s)
{
    return scalar_is(n, s, strlen(s));
}

const char *ydoc_str(const yaml_node_t *n)
{
    if (n == NULL || n->type != YAML_SCALAR_NODE)
        return NULL;
    return (const char *)n->data.scalar.value;
}

bool ydoc_is_plain(const yaml_node_t *n)
{
    return n != NULL && n->type == YAML_SCALAR_NODE &&
           n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

int ydoc_line(const yaml_node_t *n)
{
    return n != NULL ? (int)n->start_mark.line + 1 : 0;
}

/* @where = @prefix followed by "[i]". */
static void where_index(char *where, size_t len, const char *prefix, size_t i)
{
    snprintf(where, len, "%s[%zu]", prefix, i);
}

/* @where = @prefix followed by ".key" (no dot at the top). */
static void where_key(char *where, size_t len, const char *prefix, const char *key)
{
    snprintf(where, len, "%s%s%s", prefix, prefix[0] != '\0' ? "." : "", key);
}

static bool equal_at(yaml_document_t *da, const yaml_node_t *a, yaml_document_t *db,
                     const yaml_node_t *b, const char *prefix, char *where, size_t where_len)
{
    if (a == NULL || b == NULL || a->type != b->type)
        goto out_differ;
    switch (a->type) {
    case YAML_SCALAR_NODE:
        if (a->data.scalar.length != b->data.scalar.length ||
            memcmp(a->data.scalar.value, b->data.scalar.value, a->data.scalar.length) != 0 ||
            ydoc_is_plain(a) != ydoc_is_plain(b))
            goto out_differ;
        return true;
    case YAML_SEQUENCE_NODE:
        for (size_t i = 0; i < ydoc_len(a) || i < ydoc_len(b); i++) {
            char here[YDOC_ERR_LEN];
            where_index(here, sizeof(here), prefix, i);
            if (!equal_at(da, ydoc_item(da, a, i), db, ydoc_item(db, b, i), here, where, where_len))
                return false;
        }
        return true;
    case YAML_MAPPING_NODE:
        for (int pass = 0; pass < 2; pass++) {
            /* Pass 0: every key of a, compared with b. Pass 1: keys only in b. */
            yaml_document_t *dx = pass == 0 ? da : db, *dy = pass == 0 ? db : da;
            const yaml_node_t *x = pass == 0 ? a : b, *y = pass == 0 ? b : a;
            for (size_t i = 0; i < ydoc_len(x); i++) {
                yaml_node_t *k = NULL, *v = NULL;
                char here[YDOC_ERR_LEN];
                ydoc_pair(dx, x, i, &k, &v);
                const char *key = ydoc_str(k) != NULL ? ydoc_str(k) : "?";
                yaml_node_t *other = get_n(dy, y, key, strlen(key));
                where_key(here, sizeof(here), prefix, key);
                if (other == NULL) {
                    snprintf(where, where_len, "%s", here);
                    return false;
                }
                if (pass == 0 && !equal_at(dx, v, dy, other, here, where, where_len))
                    return false;
            }
        }
        return true;
    default:
        return true;
    }
out_differ:
    snprintf(where, where_len, "%s", prefix);
    return false;
}

bool ydoc_equal(yaml_document_t *da, const yaml_node_t *a, yaml_document_t *db,
                const yaml_node_t *b, char *where, size_t where_len)
{
    where[0] = '\0';
    return equal_at(da, a, db, b, "", where, where_len);
}

const char *ydoc_duplicate_key(yaml_document_t *d, int *line)
{
    for (yaml_node_t *n = d->nodes.start; n < d->nodes.top; n++) {
        if (n->type != YAML_MAPPING_NODE)
            continue;
        for (size_t i = 0; i < ydoc_len(n); i++) {
            yaml_node_t *ki = NULL, *kj = NULL, *v = NULL;
            ydoc_pair(d, n, i, &ki, &v);
            for (size_t j = i + 1; j < ydoc_len(n) && ki->type == YAML_SCALAR_NODE; j++) {
                ydoc_pair(d, n, j, &kj, &v);
                if (scalar_is(kj, ydoc_str(ki), ki->data.scalar.length)) {
                    *line = ydoc_line(kj);
                    return ydoc_str(kj);
                }
            }
        }
    }
    return NULL;
}

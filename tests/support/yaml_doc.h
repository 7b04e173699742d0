/*
 * Reading YAML files in tests: every document of a stream through libyaml's
 * document API, with lookups by key path and a structural comparison.
 * Nodes belong to their document; nothing here is thread-safe.
 */
#ifndef TESTS_SUPPORT_YAML_DOC_H
#define TESTS_SUPPORT_YAML_DOC_H

#include <stdbool.h>
#include <stddef.h>

#include <yaml.h>

#define YDOC_ERR_LEN 256

/* One file: its text and each of its documents, in order. */
struct ydoc_file {
    char *path; /* as given to ydoc_load() */
    char *text; /* the whole file, NUL-terminated */
    size_t len; /* bytes in text */
    size_t n_docs;
    yaml_document_t *docs;
};

/* Loads every document of @path into @f (documents without content, such
 * as a trailing "---", are dropped). Returns 0, or -ENOENT/-ENOMEM/-EINVAL
 * with the reason (file and line of a syntax error) in @err; @f then holds
 * nothing to free. */
int ydoc_load(struct ydoc_file *f, const char *path, char err[YDOC_ERR_LEN]);

/* The same for @len bytes of @text (copied), called @name in errors and in
 * f->path: a document made by the test, or another program's output. */
int ydoc_load_text(struct ydoc_file *f, const char *name, const char *text, size_t len,
                   char err[YDOC_ERR_LEN]);

/* Frees what ydoc_load() filled in; @f may be freed twice. */
void ydoc_free(struct ydoc_file *f);

/* The root node of @d (NULL for an empty document). */
yaml_node_t *ydoc_root(yaml_document_t *d);

/* The value of @key in mapping @map, the first when a key repeats; NULL
 * when @map is NULL or not a mapping, or the key is absent. */
yaml_node_t *ydoc_get(yaml_document_t *d, const yaml_node_t *map, const char *key);

/* Follows dot-separated mapping keys from @n ("spec.template.spec");
 * NULL as soon as one is missing. Keys themselves cannot contain dots. */
yaml_node_t *ydoc_path(yaml_document_t *d, const yaml_node_t *n, const char *path);

/* Entries of a sequence or pairs of a mapping; 0 for a scalar or NULL. */
size_t ydoc_len(const yaml_node_t *n);

/* Item @i of sequence @seq (NULL when out of range or not a sequence). */
yaml_node_t *ydoc_item(yaml_document_t *d, const yaml_node_t *seq, size_t i);

/* Key and value of pair @i of mapping @map. Returns false when out of
 * range or not a mapping. */
bool ydoc_pair(yaml_document_t *d, const yaml_node_t *map, size_t i, yaml_node_t **key,
               yaml_node_t **value);

/* The first mapping in sequence @seq whose @key is the scalar @value. */
yaml_node_t *ydoc_find(yaml_document_t *d, const yaml_node_t *seq, const char *key,
                       const char *value);

/* Whether @n is a scalar equal to @s, byte for byte. */
bool ydoc_is(const yaml_node_t *n, const char *s);

/* The scalar text of @n (libyaml keeps it NUL-terminated); NULL when @n
 * is NULL or not a scalar. */
const char *ydoc_str(const yaml_node_t *n);

/* Whether @n is a plain (unquoted, not block) scalar: the form in which
 * "true" or "1" are a boolean or a number to Kubernetes' YAML decoder. */
bool ydoc_is_plain(const yaml_node_t *n);

/* 1-based line where @n starts (0 for NULL). */
int ydoc_line(const yaml_node_t *n);

/* Whether two nodes hold the same data: mappings with the same keys and
 * equal values in any order, sequences item by item, scalars with the same
 * text and both plain or both not. On a difference, @where (of @where_len
 * bytes) gets the key path to it below the two nodes, e.g.
 * "extenders[0].weight" (empty when the nodes themselves differ). */
bool ydoc_equal(yaml_document_t *da, const yaml_node_t *a, yaml_document_t *db,
                const yaml_node_t *b, char *where, size_t where_len);

/* The first key that appears twice in one mapping anywhere in @d, with the
 * line of its second appearance in @line; NULL when there is none.
 * Kubernetes' decoder refuses such documents. */
const char *ydoc_duplicate_key(yaml_document_t *d, int *line);

#endif

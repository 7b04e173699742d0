/*
 * JSON trees in the codec: the scanner (scan.h: the grammar as strictly
 * as Go reads it) builds a cJSON tree in a request's arena as it reads the
 * bytes, in one pass; cJSON's own parser never sees a request. A number
 * keeps its bytes in valuestring beside valuedouble (ints.h reads them).
 * Member lookup matches fields as Go's decoder does. Never cJSON_Delete
 * such a tree nor add to it: it dies with its arena.
 */
#ifndef SERVER_CODEC_JSON_H
#define SERVER_CODEC_JSON_H

#include <stddef.h>

#include <cjson/cJSON.h>

struct arena;
struct codec_scan;

/* The value at the scan point of @s as a tree in @a, the scan point after
 * it. Returns 0; -EINVAL with the fault in @s; -ENOMEM. */
int codec_json_value(struct arena *a, struct codec_scan *s, cJSON **out);

/* The whole of @body (@len bytes) as one JSON value in *@out. Returns 0;
 * -EINVAL with the scanner's words in @err (ERR_LEN); -ENOMEM ("out of
 * memory": the server's fault, not the client's). */
int codec_json_tree(struct arena *a, const char *body, size_t len, cJSON **out, char *err);

/* codec_json_tree() of a body that must be one JSON object, naming @what
 * (the Go type) in messages. */
int codec_json_parse(struct arena *a, const char *body, size_t len, const char *what, cJSON **out,
                     char *err);

/* Returns the last member of @obj named @key exactly, as Go reads a map
 * key (a resource name, an annotation), or NULL when absent or JSON null.
 * Go keeps the last of duplicate keys. */
cJSON *codec_json_member(const cJSON *obj, const char *key);

/* Returns the last member of @obj that is the struct field @key as Go's
 * decoder matches fields (codec_name_folds(): case folded); NULL when
 * absent or null. */
cJSON *codec_json_field(const cJSON *obj, const char *key);

#endif

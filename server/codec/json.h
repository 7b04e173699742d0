/*
 * cJSON in the codec: trees parsed into a request's arena, and member
 * lookup as Go's decoder matches fields. cJSON's allocator hooks are
 * process-global; this module owns them and routes cJSON's allocations into
 * an arena only while codec_json_parse() runs on that thread, so trees
 * built anywhere else (config, watch events) are plain malloc'd cJSON.
 * Never cJSON_Delete a tree from codec_json_parse: it dies with its arena.
 */
#ifndef SERVER_CODEC_JSON_H
#define SERVER_CODEC_JSON_H

#include <stddef.h>

#include <cjson/cJSON.h>

struct arena;

/* Installs the hooks. Call once in main() before threads start. */
void codec_json_install_hooks(void);

/*
 * Validates @body (@len bytes) with the scanner (scan.h: the JSON grammar
 * as strictly as Go reads it) and parses it into @a as one JSON object, naming @what (the Go type)
 * in messages. Returns 0 with *@out; -EINVAL with @err (ERR_LEN) for a malformed body; -ENOMEM when
 * the arena ran out (the server's fault, not the client's).
 */
int codec_json_parse(struct arena *a, const char *body, size_t len, const char *what, cJSON **out,
                     char *err);

/* Only cJSON's parse of the value in @body (@len bytes, which may stand
 * inside a larger body) into @a: the tree in *@out and 0; -EINVAL with the
 * offset where it stopped in *@at; -ENOMEM. What codec_json_parse() builds
 * on, and the benchmark's cJSON floor. */
int codec_json_tree(struct arena *a, const char *body, size_t len, cJSON **out, size_t *at);

/* Returns the last member of @obj named @key exactly, as Go reads a map
 * key (a resource name, an annotation), or NULL when absent or JSON null.
 * Go keeps the last of duplicate keys. */
cJSON *codec_json_member(const cJSON *obj, const char *key);

/* Returns the last member of @obj that is the struct field @key as Go's
 * decoder matches fields (codec_name_folds(): case folded); NULL when
 * absent or null. */
cJSON *codec_json_field(const cJSON *obj, const char *key);

#endif

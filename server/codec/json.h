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
 * Checks the raw bytes of @body (@len bytes followed by a NUL, which cJSON
 * needs to reject trailing garbage; codec_check_bytes) and parses it into
 * @a as one JSON object, naming @what (the Go type) in messages. Returns 0
 * with *@out; -EINVAL with @err (ERR_LEN) for a malformed body; -ENOMEM
 * when the arena ran out (the server's fault, not the client's).
 */
int codec_json_parse(struct arena *a, const char *body, size_t len, const char *what, cJSON **out,
                     char *err);

/* Only cJSON's parse of @body (@len bytes and a NUL) into @a: the tree in
 * *@out and 0; -EINVAL with the offset where it stopped in *@at; -ENOMEM.
 * What codec_json_parse() builds on, and the benchmark's parse floor. */
int codec_json_tree(struct arena *a, const char *body, size_t len, cJSON **out, size_t *at);

/* Returns the last member of @obj named @key exactly (Go keeps the last of
 * duplicate keys), or NULL when absent or JSON null. */
cJSON *codec_json_member(const cJSON *obj, const char *key);

/* Returns the last member of @obj whose name matches @key ignoring case,
 * as Go's decoder matches struct fields; NULL when absent or null. */
cJSON *codec_json_member_folded(const cJSON *obj, const char *key);

#endif

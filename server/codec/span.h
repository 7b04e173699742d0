/*
 * Byte spans in a JSON body that cJSON has already accepted: where a
 * member's value or an array's elements start and end. The filter answer
 * copies the passing Node objects from the request byte for byte with these
 * instead of printing them again from the tree (printing costs more than
 * parsing did, and the copy is exactly what arrived).
 *
 * The body must be valid JSON (codec_json_parse accepted it):
 * these functions skip values by counting brackets outside strings and do
 * not validate anything themselves.
 */
#ifndef SERVER_CODEC_SPAN_H
#define SERVER_CODEC_SPAN_H

#include <stdbool.h>
#include <stddef.h>

struct codec_span {
    const char *p; /* first byte of the value (or key, with its quotes) */
    size_t len;
};

/* The whole top-level value of @body (@len bytes), without surrounding space. */
struct codec_span codec_span_root(const char *body, size_t len);

/*
 * Finds the value of member @key in object @obj: the last one whose name,
 * unescaped, equals @key exactly, or ignoring ASCII case when @fold (Go's
 * rules for untagged struct fields). Returns false when there is none or
 * @obj is not an object.
 */
bool codec_span_member(struct codec_span obj, const char *key, bool fold, struct codec_span *out);

/* Calls @fn for every member of object @obj with the key (quoted) and
 * value spans, in document order. */
void codec_span_members(struct codec_span obj,
                        void (*fn)(void *ctx, struct codec_span key, struct codec_span value),
                        void *ctx);

/* What the filter answer needs from a request with a NodeList, found in a
 * single pass: the last top-level "Nodes" object (key folded), its members
 * other than "items" (up to CODEC_SPAN_MAX_MEMBERS; @overflow past that), and the
 * elements of its last "items" array. */
#define CODEC_SPAN_MAX_MEMBERS 16

struct codec_node_list_spans {
    bool found;
    struct codec_span list;
    struct codec_span keys[CODEC_SPAN_MAX_MEMBERS], values[CODEC_SPAN_MAX_MEMBERS];
    size_t n_members;
    bool overflow;
    struct codec_span *elements; /* caller's array of max_elements */
    size_t max_elements, n_elements;
};

/* Fills @out (whose elements/max_elements the caller set) from @body. */
void codec_span_node_list(const char *body, size_t len, struct codec_node_list_spans *out);

/* True when @key (a quoted key span) unescapes to @name (ASCII case folded
 * when @fold). */
bool codec_span_key_is(struct codec_span key, const char *name, bool fold);

#endif

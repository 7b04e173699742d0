/*
 * Byte spans in a JSON body that cJSON has already accepted: where a
 * member's value or an array's elements start and end. The filter answer
 * copies the passing Node objects from the request byte for byte with these
 * instead of printing them again from the tree (printing costs more than
 * parsing did, and the copy is exactly what arrived).
 *
 * The body must be valid JSON (cJSON_ParseWithLengthOpts accepted it):
 * these functions skip values by counting brackets outside strings and do
 * not validate anything themselves.
 */
#ifndef SERVER_JSPAN_H
#define SERVER_JSPAN_H

#include <stdbool.h>
#include <stddef.h>

struct jspan {
    const char *p; /* first byte of the value (or key, with its quotes) */
    size_t len;
};

/* The whole top-level value of @body (@len bytes), without surrounding space. */
struct jspan srv_span_root(const char *body, size_t len);

/*
 * Finds the value of member @key in object @obj: the last one whose name,
 * unescaped, equals @key exactly, or ignoring ASCII case when @fold (Go's
 * rules for untagged struct fields). Returns false when there is none or
 * @obj is not an object.
 */
bool srv_span_member(struct jspan obj, const char *key, bool fold, struct jspan *out);

/* Calls @fn for every member of object @obj with the key (quoted) and
 * value spans, in document order. */
void srv_span_members(struct jspan obj, void (*fn)(void *ctx, struct jspan key, struct jspan value),
                      void *ctx);

/*
 * Stores the spans of the elements of array @arr into @out (room for @max)
 * and returns how many there are (more than @max means not all were
 * stored). A non-array (e.g. null) has 0 elements.
 */
size_t srv_span_elements(struct jspan arr, struct jspan *out, size_t max);

/* What the filter answer needs from a request with a NodeList, found in a
 * single pass: the last top-level "Nodes" object (key folded), its members
 * other than "items" (up to SPAN_MAX_MEMBERS; @overflow past that), and the
 * elements of its last "items" array. */
#define SPAN_MAX_MEMBERS 16

struct node_list_spans {
    bool found;
    struct jspan list;
    struct jspan keys[SPAN_MAX_MEMBERS], values[SPAN_MAX_MEMBERS];
    size_t n_members;
    bool overflow;
    struct jspan *elements; /* caller's array of max_elements */
    size_t max_elements, n_elements;
};

/* Fills @out (whose elements/max_elements the caller set) from @body. */
void srv_span_node_list(const char *body, size_t len, struct node_list_spans *out);

/* True when @key (a quoted key span) unescapes to @name (ASCII case folded
 * when @fold). */
bool srv_span_key_is(struct jspan key, const char *name, bool fold);

#endif

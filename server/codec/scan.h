/*
 * A validating JSON scanner: one pass over a request body that checks it
 * against the grammar of RFC 8259, as strictly as Go's encoding/json reads
 * it (kube-scheduler decodes our answers with it, and the filter answer
 * copies request bytes verbatim), and lets the decoders take only what they
 * need: no tree, no allocation while it walks.
 *
 * Refused, each with its byte offset: anything off the grammar (leading
 * zeros, "-.5", "1.", "+1", bare words, a missing or extra comma, trailing
 * bytes after the value), raw control characters in strings (tab and line
 * feed included, as in Go), bytes that are not well-formed UTF-8, unknown
 * or short escapes, and beyond Go, on purpose: "\u0000" (a NUL would cut a
 * C string), a lone UTF-16 surrogate in an escape (Go reads it as U+FFFD,
 * a name that is not the one sent), a byte-order mark, and nesting deeper
 * than CODEC_MAX_DEPTH.
 *
 * The scanner is pull-style: codec_scan_object() / codec_scan_member() walk
 * an object's members, codec_scan_array() / codec_scan_element() an
 * array's elements, codec_scan_skip() validates and passes over any value.
 * Every function returns 0, or -EINVAL once the body is found malformed;
 * the first failure stays in the struct (codec_scan_error() words it).
 */
#ifndef SERVER_CODEC_SCAN_H
#define SERVER_CODEC_SCAN_H

#include <stdbool.h>
#include <stddef.h>

#include "server/codec/str.h"

/* Deepest nesting of objects and arrays accepted. Kubernetes objects are a
 * dozen levels deep; json.c's tree builder recurses once per level (about
 * 100 bytes of stack each), as cJSON's parser, which stops at 1000. */
#define CODEC_MAX_DEPTH 1000

/* Bytes as they stand in a body: a value, a key with its quotes. */
struct codec_span {
    const char *p;
    size_t len;
};

struct codec_scan {
    const char *start, *p, *end;
    unsigned depth;
    const char *why; /* NULL until the body is found malformed */
    const char *at;  /* where */
    int cls;         /* what kind of fault (enum codec_scan_class) */
};

/* What was wrong, by the checks that found it: the error's first words. */
enum codec_scan_class {
    CODEC_SCAN_OK = 0,
    CODEC_SCAN_SYNTAX,  /* "malformed JSON" */
    CODEC_SCAN_CONTROL, /* "control character" */
    CODEC_SCAN_UTF8,    /* "invalid UTF-8" */
    CODEC_SCAN_ESCAPE,  /* "invalid escape", "invalid \u escape" */
    CODEC_SCAN_NUL,     /* "NUL character" */
    CODEC_SCAN_DEPTH,   /* "nested too deeply" */
    CODEC_SCAN_BOM,     /* "byte-order mark" */
};

/* Starts scanning @len bytes at @body (a byte-order mark is refused). */
void codec_scan_init(struct codec_scan *s, const char *body, size_t len);

/* Skips white space; returns the next byte, or 0 at the end. */
char codec_scan_peek(struct codec_scan *s);

/* Validates the value at the scan point and passes over it. */
int codec_scan_skip(struct codec_scan *s);

/* Reads the string at the scan point (it must be one) into @out. */
int codec_scan_string(struct codec_scan *s, struct codec_str *out);

/* Reads the number at the scan point (it must be one) into @out: its
 * bytes, checked against the grammar. */
int codec_scan_number(struct codec_scan *s, struct codec_span *out);

/* Enters the object at the scan point (it must be one). */
int codec_scan_object(struct codec_scan *s);

/*
 * The next member of the object entered last: its key in @key and the
 * scan point at its value (which the caller reads or skips), *@more true;
 * or, when the object closes, *@more false and the scan point after it.
 * @first is true for the first call on an object.
 */
int codec_scan_member(struct codec_scan *s, bool first, struct codec_str *key, bool *more);

/* Walks the object at the scan point (it must be one), calling @fn with
 * the scan point at each member's value, which @fn reads or skips;
 * returns -EINVAL as soon as the scanner or @fn fails. */
int codec_scan_members(struct codec_scan *s,
                       int (*fn)(struct codec_scan *s, struct codec_str key, void *ctx), void *ctx);

/* Enters the array at the scan point (it must be one). */
int codec_scan_array(struct codec_scan *s);

/* The next element of the array entered last: *@more true with the scan
 * point at it, or false when the array closes (scan point after it). */
int codec_scan_element(struct codec_scan *s, bool first, bool *more);

/* Checks that nothing but white space follows. */
int codec_scan_end(struct codec_scan *s);

/* Validates the whole of @body (@len bytes) as one JSON value. */
int codec_scan_validate(const char *body, size_t len, struct codec_scan *s);

/* Records a failure at the scan point (for the decoders' own grammar:
 * "want an object" is theirs, not the scanner's) and returns -EINVAL. */
int codec_scan_fail(struct codec_scan *s, int cls, const char *why);

/* Words the failure of @s into @err (ERR_LEN): "malformed JSON at byte 12
 * of 40: a number with a leading zero", "invalid UTF-8 at byte 7", ... */
void codec_scan_error(const struct codec_scan *s, char *err);

#endif

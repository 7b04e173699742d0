/*
 * A growable output buffer for JSON answers, written directly instead of
 * building and printing a cJSON tree: the answer of a 5000-node prioritize
 * is 5000 small objects, and a filter answer copies Node objects byte for
 * byte from the request. The buffer is malloc'd so that it can be handed to
 * libmicrohttpd without a copy.
 */
#ifndef SERVER_JSONOUT_H
#define SERVER_JSONOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct jsonout {
    char *buf;
    size_t len, cap;
    bool failed; /* an allocation failed; everything after is dropped */
};

/* Starts an empty buffer with room for about @hint bytes. */
void srv_out_init(struct jsonout *o, size_t hint);

/* Appends @len raw bytes. */
void srv_out_raw(struct jsonout *o, const char *s, size_t len);

/* Appends a NUL-terminated literal. */
void srv_out_str(struct jsonout *o, const char *s);

/* Appends @s as a JSON string: quotes, and escapes for '"', '\\' and control
 * characters. */
void srv_out_quoted(struct jsonout *o, const char *s);

/* Drops an incomplete UTF-8 sequence from the end of @s, as snprintf
 * leaves when it cuts a name into a fixed buffer: what JSON then carries
 * stays valid UTF-8. */
void srv_utf8_trim(char *s);

/* Appends a decimal integer. */
void srv_out_int(struct jsonout *o, int64_t v);

/* Takes the buffer (NUL-terminated) out of @o; the caller frees it.
 * Returns NULL when an allocation failed (then nothing is owned). */
char *srv_out_take(struct jsonout *o, size_t *len);

#endif

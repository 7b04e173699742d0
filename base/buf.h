/*
 * A growable output buffer, malloc'd so that it can be handed to
 * libmicrohttpd (or freed) without a copy, or in a request's arena (the
 * verbs' answers, which live and die with their request): JSON answers
 * written directly
 * instead of building and printing a tree (a 5000-node prioritize answer is
 * 5000 small objects, a filter answer copies Node objects byte for byte),
 * log lines, the /debug page, the metrics text.
 *
 * After an allocation failure everything appended is dropped and
 * buf_take() returns NULL: callers append without checking and check once.
 */
#ifndef BASE_BUF_H
#define BASE_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct arena;

struct buf {
    char *data;
    size_t len, cap;
    bool failed;         /* an allocation failed; everything after is dropped */
    struct arena *arena; /* where data lives; NULL: malloc */
};

/* A piece of an answer: @len bytes at @p. An answer may be several pieces
 * (text written into a buffer, bytes of the request sent back as they
 * came), sent one after the other without being joined. */
struct buf_piece {
    const char *p;
    size_t len;
};

/* Starts an empty buffer with room for about @hint bytes. */
void buf_init(struct buf *b, size_t hint);

/* The same in @a (NULL: malloc, as buf_init): growing leaves the old room
 * in the arena (size @hint well) and buf_take() hands out memory of @a. */
void buf_init_arena(struct buf *b, struct arena *a, size_t hint);

/* Appends @len raw bytes. */
void buf_raw(struct buf *b, const char *s, size_t len);

/* Appends a NUL-terminated string as it is. */
void buf_str(struct buf *b, const char *s);

/* Appends a decimal integer. */
void buf_int(struct buf *b, int64_t v);

/* Appends printf output. */
void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends the @len bytes of @s as a JSON string: quotes, escapes for '"',
 * '\\' and control characters, and U+FFFD for each byte that is not part
 * of well-formed UTF-8, so that any input gives valid JSON. */
void buf_json_strn(struct buf *b, const char *s, size_t len);

/* As buf_json_strn, for a NUL-terminated @s (inline: answers write one per
 * node). */
static inline void buf_json_str(struct buf *b, const char *s)
{
    buf_json_strn(b, s, strlen(s));
}

/* Takes the data (NUL-terminated) out of @b and its length into *@len;
 * the caller frees it (unless it is in an arena). NULL when an allocation
 * failed (nothing is owned). */
char *buf_take(struct buf *b, size_t *len);

#endif

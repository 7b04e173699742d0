/* A verb's reply joined into one string, for tests that compare answers
 * (header only: the fuzz targets link the product's objects and no test
 * support object). */
#ifndef TESTS_SUPPORT_REPLY_JOIN_H
#define TESTS_SUPPORT_REPLY_JOIN_H

#include <stdlib.h>
#include <string.h>

#include "server/verbs/reply.h"

/* The pieces of @r joined into one malloc'd NUL-terminated string (its
 * length in *@len when not NULL); the server sends them as they are. */
static inline char *reply_join(const struct verb_reply *r, size_t *len)
{
    char *s = malloc(r->len + 1);
    size_t at = 0;
    if (s == NULL)
        return NULL;
    for (size_t i = 0; i < r->n_pieces; i++) {
        memcpy(s + at, r->pieces[i].p, r->pieces[i].len);
        at += r->pieces[i].len;
    }
    s[at] = '\0';
    if (len != NULL)
        *len = at;
    return s;
}

#endif

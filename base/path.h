/* The one normaliser of URL paths: the extender's prefix, the prefix read
 * from a scheduler configuration and the path of each request must agree
 * on what "//a//b/" means. */
#ifndef BASE_PATH_H
#define BASE_PATH_H

#include <stdbool.h>
#include <stddef.h>

/* Copies the @len bytes of @in into @out (@n bytes, always terminated),
 * collapsing repeated slashes ("//a//b" -> "/a/b": kube-scheduler joins
 * urlPrefix and a verb written "/filter" with "/"), and with @trim drops
 * trailing ones too, so that a prefix "/" becomes "" and verbs are served
 * at "/filter". @out may be @in. Returns the length written. */
size_t path_squash(const char *in, size_t len, char *out, size_t n, bool trim);

#endif

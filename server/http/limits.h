/*
 * What a request's headers must satisfy before its body is read: the
 * checks that do not need libmicrohttpd, so that they are tested alone.
 */
#ifndef SERVER_HTTP_LIMITS_H
#define SERVER_HTTP_LIMITS_H

/* A Content-Length value: decimal digits only, no sign, no space, no
 * overflow (strtoull would read "12abc" as 12 and "-1" as a huge number).
 * Returns 0 with *@out, or -EINVAL. */
int http_content_length(const char *v, unsigned long long *out);

#endif

/*
 * The request-target as it came, before libmicrohttpd decodes it: the
 * path it names, and whether it must be refused. libmicrohttpd decodes
 * the path in place and ends it at a decoded NUL, so it would route
 * /scheduler/filter%00x to filter; here the path is decoded whole. No
 * libmicrohttpd in here, so that it is tested alone.
 */
#ifndef SERVER_HTTP_TARGET_H
#define SERVER_HTTP_TARGET_H

/* The longest path routed, its NUL included; a longer one routes nowhere. */
#define HTTP_PATH_MAX 1024

/*
 * Decodes the path of @target (up to '?'; the query is left to
 * libmicrohttpd) into @path. Returns NULL, or why the target is refused
 * (a static text): a raw control byte or space anywhere in it, a '%' not
 * followed by two hex digits in the path, or a path that decodes to a
 * control character (Go's url package refuses the raw ones; decoded ones
 * route nowhere in Go). A path too long for @path leaves it "".
 * An absolute-form target (http://host:port/path, RFC 9112 section 3.2.2:
 * a server must accept it) names its path after the authority; with no
 * path there, the path is "/".
 */
const char *http_target_read(const char *target, char path[HTTP_PATH_MAX]);

#endif

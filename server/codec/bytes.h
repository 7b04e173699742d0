/*
 * The byte-level checks of a request body before cJSON reads it: what cJSON
 * would let through but Go's decoder (and our span scanner) would not.
 */
#ifndef SERVER_CODEC_BYTES_H
#define SERVER_CODEC_BYTES_H

#include <stddef.h>

/*
 * Refuses bad escapes (cJSON reads "\uZZZZ" as a NUL that cuts its C
 * string) and NULs, control characters other than tab, line feed and
 * carriage return, bytes that are not well-formed UTF-8, and a byte-order
 * mark. Returns 0 or -EINVAL with the reason and byte offset in @err
 * (ERR_LEN bytes).
 */
int codec_check_bytes(const char *body, size_t len, char *err);

#endif

/* UTF-8 as RFC 3629 defines it: what the codec accepts in a request and
 * what the JSON writer lets through unchanged. */
#ifndef BASE_UTF8_H
#define BASE_UTF8_H

#include <stddef.h>

/* The length (2 to 4) of the well-formed multi-byte sequence at @s (@left
 * bytes from there; s[0] >= 0x80), or 0 when there is none: no overlongs,
 * no surrogates, nothing past U+10FFFF. */
size_t utf8_seq_len(const unsigned char *s, size_t left);

#endif

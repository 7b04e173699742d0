/*
 * Integers as Go reads them. cJSON keeps every number as a double, so
 * 1.0 and 1e2 would pass for the int32 spec.priority; Go's decoder refuses
 * them, and any non-integer occurrence of the field (a duplicate key's
 * earlier value included). This reads the numbers' own bytes.
 */
#ifndef SERVER_CODEC_INTS_H
#define SERVER_CODEC_INTS_H

#include <stdbool.h>
#include <stddef.h>

struct codec_scan;

/* Where the integers are: member names from the object down ("*" is any
 * member), those matched case-folded marked in @fold (bit i for names[i]),
 * the range they must be in, and the error when one is not. */
struct codec_int_path {
    const char *names[4];
    int depth;
    unsigned fold;
    long long min, max;
    const char *what;
};

/*
 * Checks every value at @path in the JSON object @json (@len bytes, valid
 * JSON: the scanner passed it): null, or an integer in [min, max] written
 * as one (no fraction, no exponent). Returns 0 or -EINVAL with path->what
 * in @err (ERR_LEN).
 */
int codec_ints_check(const char *json, size_t len, const struct codec_int_path *path, char *err);

/* The same on the value at the scan point of @s, validating and passing
 * over it as codec_scan_skip() does: *@bad is set (never cleared) when a
 * value at @path is not such an integer. Returns 0 or -EINVAL (the body is
 * malformed; the scanner's fault is in @s). */
int codec_ints_scan(struct codec_scan *s, const struct codec_int_path *path, bool *bad);

#endif

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

#include <cjson/cJSON.h>

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
 * Checks every value at @path in the tree @root (built by json.h, whose
 * numbers keep their bytes): null, or an integer in [min, max] written as
 * one (no fraction, no exponent), every occurrence of a repeated key
 * included. path->what is the caller's message when one is not.
 */
bool codec_ints_ok(const cJSON *root, const struct codec_int_path *path);

#endif

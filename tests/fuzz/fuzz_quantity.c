/*
 * libFuzzer target: score_quantity_parse on arbitrary bytes, in both units.
 * The input is passed as it comes (libFuzzer's buffer has exactly @size
 * bytes, so ASan sees any read past the end).
 *
 * Properties, besides ASan and UBSan:
 *  - the result is 0, -EINVAL or -ERANGE, with a reason on failure;
 *  - a non-negative result printed back ("%lld" for base units, "%lldm"
 *    for millis) parses to the same value in the same unit;
 *  - the units agree: base = ceil(milli / 1000) in magnitude, and a string
 *    that is not a quantity is refused in both.
 */
#ifdef FUZZ_TARGET
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scoring/quantity.h"
#include "tests/fuzz/fuzz.h"

static void fail(const char *what, const uint8_t *data, size_t size)
{
    fprintf(stderr, "fuzz_quantity: %s for \"%.*s\"\n", what, (int)size, (const char *)data);
    abort();
}

/* Parses @v printed in @unit again and compares. */
static void check_round_trip(int64_t v, enum score_unit unit, const uint8_t *data, size_t size)
{
    char text[32];
    const char *err = "";
    int64_t again = -1;
    int n = snprintf(text, sizeof(text), unit == SCORE_UNIT_MILLI ? "%lldm" : "%lld", (long long)v);
    if (score_quantity_parse(text, (size_t)n, unit, &again, &err) != 0 || again != v) {
        fprintf(stderr, "fuzz_quantity: %lld printed as \"%s\" parses to %lld (%s)\n", (long long)v,
                text, (long long)again, err);
        fail("round trip differs", data, size);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    const char *err[2];
    int64_t v[2] = {0, 0};
    int rc[2];

    for (int u = 0; u < 2; u++) {
        err[u] = "";
        rc[u] = score_quantity_parse(s, size, (enum score_unit)u, &v[u], &err[u]);
        if (rc[u] != 0 && rc[u] != -EINVAL && rc[u] != -ERANGE)
            fail("unexpected return code", data, size);
        if (rc[u] != 0 && err[u][0] == '\0')
            fail("failure without a reason", data, size);
        if (rc[u] == 0 && v[u] >= 0)
            check_round_trip(v[u], (enum score_unit)u, data, size);
    }
    if ((rc[SCORE_UNIT_BASE] == -EINVAL) != (rc[SCORE_UNIT_MILLI] == -EINVAL))
        fail("the units disagree on syntax", data, size);
    /* Fits in millis, so it fits in units; the magnitude is ceil(m / 1000). */
    if (rc[SCORE_UNIT_MILLI] == 0) {
        int64_t m = v[SCORE_UNIT_MILLI], b = v[SCORE_UNIT_BASE];
        uint64_t mag = m < 0 ? -(uint64_t)m : (uint64_t)m;
        uint64_t want = mag / 1000 + (mag % 1000 != 0);
        if (rc[SCORE_UNIT_BASE] != 0 || (b < 0 ? -(uint64_t)b : (uint64_t)b) != want ||
            (b != 0 && (b < 0) != (m < 0)))
            fail("units disagree on the value", data, size);
    }
    return 0;
}
#endif

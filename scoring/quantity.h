/*
 * Kubernetes resource.Quantity parsing, to the letter of apimachinery's
 * ParseQuantity + MilliValue()/Value().
 *
 * Grammar:  [+-] digits [. digits] suffix
 *   suffix  = "" | n u m k M G T P E | Ki Mi Gi Ti Pi Ei | (e|E) [+-] digits
 * The value is exact (no floating point); conversions round up (away from
 * zero), as MilliValue() and Value() do.
 */
#ifndef SCORING_QUANTITY_H
#define SCORING_QUANTITY_H

#include <stddef.h>
#include <stdint.h>

/* Quantity strings longer than this are rejected. Canonical quantities are
 * under 30 bytes; the cap keeps the exact arithmetic on a stack buffer. */
#define SCORE_QUANTITY_MAX_LEN  256
#define SCORE_QUANTITY_MAX_TEXT "256"

enum score_unit {
    SCORE_UNIT_BASE = 0, /* Value(): bytes, pods, ... */
    SCORE_UNIT_MILLI,    /* MilliValue(): CPU in millicores */
};

/*
 * Parses the quantity @s of @len bytes (not NUL-terminated, no surrounding
 * space) and stores it in @unit, rounded up, in *@out.
 * Negative quantities round away from zero (int64Amount semantics); callers
 * that need non-negative values check the sign themselves.
 * Returns 0, or -EINVAL (not a quantity) / -ERANGE (does not fit int64, or an
 * exponent outside [-INT32_MAX, INT32_MAX]) with a static reason in
 * *@why.
 * Thread-safe, no allocation.
 */
int score_quantity_parse(const char *s, size_t len, enum score_unit unit, int64_t *out,
                         const char **why);

#endif

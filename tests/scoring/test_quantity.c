/*
 * score_quantity_parse against apimachinery resource.Quantity: ParseQuantity, then
 * Value() = ceil(q) (SCORE_UNIT_BASE) or MilliValue() = ceil(q * 1000) (SCORE_UNIT_MILLI),
 * rounded away from zero. Expected values are worked out from the Kubernetes rules, not
 * from the code. Our deliberate differences from Go (absurd inputs only): -ERANGE when the
 * result does not fit int64 in the requested unit (Go returns 0, wraps or saturates, or caps
 * BinarySI at 2^63-1) and when the string is longer than SCORE_QUANTITY_MAX_LEN; an exponent
 * outside [-(2^31-1), 2^31-1], which Go refuses too (ErrSuffix), is -ERANGE here.
 */
#include <errno.h>
#include <string.h>

#include "scoring/quantity.h"
#include "tests/suites.h"

#define BASE  SCORE_UNIT_BASE
#define MILLI SCORE_UNIT_MILLI

/* Runs of '0' for long inputs: Z200 is 200 zeros. */
#define Z10  "0000000000"
#define Z50  Z10 Z10 Z10 Z10 Z10
#define Z200 Z50 Z50 Z50 Z50
#define Z250 Z200 Z50

struct vector {
    const char *s;
    size_t len; /* sizeof - 1, so embedded NULs count */
    enum score_unit unit;
    int rc;
    int64_t value; /* meaningful only when rc == 0 */
};

/* One vector per line: keep the table out of clang-format's reflow. */
/* clang-format off */
#define V(str, unit, rc, value) {str, sizeof(str) - 1, unit, rc, value}

static const struct vector vectors[] = {
    /* Every suffix, base unit: ceil(q). */
    V("1n", BASE, 0, 1),                                  /* 1e-9 -> 1 */
    V("1u", BASE, 0, 1),                                  /* 1e-6 -> 1 */
    V("1m", BASE, 0, 1),                                  /* 1e-3 -> 1 */
    V("1", BASE, 0, 1),
    V("1k", BASE, 0, 1000),                               /* 10^3 */
    V("1M", BASE, 0, 1000000),                            /* 10^6 */
    V("1G", BASE, 0, 1000000000),                         /* 10^9 */
    V("1T", BASE, 0, 1000000000000),                      /* 10^12 */
    V("1P", BASE, 0, 1000000000000000),                   /* 10^15 */
    V("1E", BASE, 0, 1000000000000000000),                /* 10^18: E alone is exa */
    V("1Ki", BASE, 0, 1024),                              /* 2^10 */
    V("1Mi", BASE, 0, 1048576),                           /* 2^20 */
    V("1Gi", BASE, 0, 1073741824),                        /* 2^30 */
    V("1Ti", BASE, 0, 1099511627776),                     /* 2^40 */
    V("1Pi", BASE, 0, 1125899906842624),                  /* 2^50 */
    V("1Ei", BASE, 0, 1152921504606846976),               /* 2^60 */
    /* Every suffix, milli unit: ceil(q * 1000). */
    V("1n", MILLI, 0, 1),                                 /* 1e-6 m -> 1 */
    V("1u", MILLI, 0, 1),                                 /* 1e-3 m -> 1 */
    V("1m", MILLI, 0, 1),
    V("1", MILLI, 0, 1000),
    V("1k", MILLI, 0, 1000000),
    V("1M", MILLI, 0, 1000000000),
    V("1G", MILLI, 0, 1000000000000),
    V("1T", MILLI, 0, 1000000000000000),
    V("1P", MILLI, 0, 1000000000000000000),               /* 10^18 m still fits */
    V("1E", MILLI, -ERANGE, 0),                           /* 10^21 m > 2^63-1 */
    V("1Ki", MILLI, 0, 1024000),
    V("1Mi", MILLI, 0, 1048576000),
    V("1Gi", MILLI, 0, 1073741824000),
    V("1Ti", MILLI, 0, 1099511627776000),
    V("1Pi", MILLI, 0, 1125899906842624000),              /* 1.13e18 fits */
    V("1Ei", MILLI, -ERANGE, 0),                          /* 1.15e21 */
    V("500m", MILLI, 0, 500),
    V("1500u", MILLI, 0, 2),                              /* 1.5 m -> 2 */
    V("123456789n", MILLI, 0, 124),                       /* 123.456789 m -> 124 */
    V("123456789n", BASE, 0, 1),                          /* 0.123456789 -> 1 */
    V("9E", BASE, 0, 9000000000000000000),                /* < 2^63-1 */
    V("10E", BASE, -ERANGE, 0),                           /* 10^19 */
    /* Decimal exponents. */
    V("1e3", BASE, 0, 1000),
    V("1e3", MILLI, 0, 1000000),
    V("1E3", BASE, 0, 1000),                              /* E followed by digits: exponent */
    V("1e+3", BASE, 0, 1000),
    V("1E+3", BASE, 0, 1000),
    V("1e003", BASE, 0, 1000),                            /* leading zeros in the exponent */
    V("1e0", BASE, 0, 1),
    V("1e-3", BASE, 0, 1),                                /* 0.001 -> 1 */
    V("1e-3", MILLI, 0, 1),
    V("2.5e-3", MILLI, 0, 3),                             /* 2.5 m -> 3 */
    V("25e-1", BASE, 0, 3),                               /* 2.5 -> 3 */
    V("1.5e3", BASE, 0, 1500),
    V("1.5e3", MILLI, 0, 1500000),
    V("12e6", BASE, 0, 12000000),
    V("1e9", BASE, 0, 1000000000),
    V("1e-9", MILLI, 0, 1),                               /* 1e-6 m -> 1 */
    V("1e-10", BASE, 0, 1),                               /* 0.1n rounds up to 1n, then -> 1 */
    V("1e-10", MILLI, 0, 1),
    V("1E18", BASE, 0, 1000000000000000000),
    V("1e19", BASE, -ERANGE, 0),                          /* > 2^63-1 */
    V("9.223372036854775807e18", BASE, 0, INT64_MAX),     /* exactly 2^63-1 */
    V("9.223372036854775808e18", BASE, -ERANGE, 0),       /* 2^63 */
    /* Exponent bounds. quantitySuffixer.interpret accepts [-(2^31-1), 2^31-1]
     * since kubernetes#141203 (before, it truncated the int64 it parsed to int32):
     * -2^31 is refused as well, because ParseQuantity negates the exponent into
     * an int32 inf.Scale. Both sides of both ends, with signs, leading zeros,
     * fractions, both units and a zero mantissa. */
    V("1e2147483647", BASE, -ERANGE, 0),                  /* accepted, value too big */
    V("1e+2147483647", MILLI, -ERANGE, 0),
    V("1E+0002147483647", BASE, -ERANGE, 0),              /* leading zeros, as ParseInt */
    V("0e2147483647", BASE, 0, 0),                        /* 0 * 10^(2^31-1) = 0 */
    V("0e+2147483647", MILLI, 0, 0),
    V("1e2147483648", BASE, -ERANGE, 0),                  /* 2^31: refused */
    V("0e2147483648", BASE, -ERANGE, 0),                  /* exponent checked even for 0 */
    V("1e+02147483648", MILLI, -ERANGE, 0),
    V("1e-2147483647", BASE, 0, 1),                       /* -(2^31-1): accepted, 1n -> 1 */
    V("1e-2147483647", MILLI, 0, 1),
    V("1E-02147483647", BASE, 0, 1),
    V("-1e-2147483647", BASE, 0, -1),                     /* -1n, away from zero */
    V("0e-2147483647", BASE, 0, 0),
    V("1.5e-2147483647", MILLI, 0, 1),                    /* Go wraps its int32 scale here */
    V("1E-2147483648", BASE, -ERANGE, 0),                 /* -2^31: refused (was read as 1n) */
    V("1E-2147483648", MILLI, -ERANGE, 0),
    V("1e-2147483648", BASE, -ERANGE, 0),
    V("-1e-2147483648", BASE, -ERANGE, 0),
    V("0e-2147483648", BASE, -ERANGE, 0),
    V("1e-02147483648", MILLI, -ERANGE, 0),
    V("1.5e-2147483648", MILLI, -ERANGE, 0),
    V("1e-2147483649", BASE, -ERANGE, 0),                 /* below -2^31 */
    V("1e4294967296", BASE, -ERANGE, 0),                  /* 2^32: Go used to truncate to e0 */
    V("1e4294967297", BASE, -ERANGE, 0),                  /* quantity_overflow_test.go: was 1e1 */
    V("0e4294967296", BASE, -ERANGE, 0),
    V("1e9223372036854775807", BASE, -ERANGE, 0),         /* fits ParseInt, not int32 */
    V("1e-9223372036854775808", BASE, -ERANGE, 0),
    V("1e99999999999999999999", BASE, -ERANGE, 0),        /* beyond ParseInt */
    V("1e00000000000000000000000003", BASE, 0, 1000),     /* 23 leading zeros: e3 */
    /* Suffix and exponent do not combine: the exponent is the whole suffix. */
    V("1Ke3", BASE, -EINVAL, 0),
    V("1ke3", BASE, -EINVAL, 0),
    V("1Kie3", BASE, -EINVAL, 0),
    V("1me3", BASE, -EINVAL, 0),
    V("1Ee3", BASE, -EINVAL, 0),                          /* ParseInt("e3") fails */
    V("1eE3", BASE, -EINVAL, 0),
    V("1e3k", BASE, -EINVAL, 0),                          /* letters after the digits */
    V("1e3Ki", BASE, -EINVAL, 0),
    V("1E+-3", BASE, -EINVAL, 0),                         /* one sign only */
    V("1e-+3", BASE, -EINVAL, 0),
    V("1E-", BASE, -EINVAL, 0),
    /* Fractions with binary suffixes: exact, then ceil. */
    V("1.5Gi", BASE, 0, 1610612736),                      /* 1536Mi */
    V("1.5Mi", BASE, 0, 1572864),                         /* 1536Ki */
    V("1.5Ti", MILLI, 0, 1649267441664000),               /* 1.5 * 2^40 * 1000 */
    V("0.5Ki", BASE, 0, 512),
    V("0.5Ki", MILLI, 0, 512000),
    V("1.1Ki", BASE, 0, 1127),                            /* 1126.4 -> 1127 */
    V("1.1Ki", MILLI, 0, 1126400),                        /* exact */
    V("0.001Ki", BASE, 0, 2),                             /* 1.024 -> 2 */
    V("0.001Ki", MILLI, 0, 1024),
    V("0.0001Ki", MILLI, 0, 103),                         /* 0.1024 -> 102.4 m -> 103 */
    V("0.3Mi", BASE, 0, 314573),                          /* 314572.8 -> 314573 */
    V("0.1Ei", BASE, 0, 115292150460684698),              /* 2^60 / 10 = ...697.6 */
    V("7.5Ei", BASE, 0, 8646911284551352320),             /* 15 * 2^59 */
    V("7.999999999Ei", BASE, 0, 9223372035701854304),     /* 2^63 - 1152921504.606... */
    V("7Ei", BASE, 0, 8070450532247928832),               /* 7 * 2^60 */
    V("8Ei", BASE, -ERANGE, 0),                           /* 2^63 (Go caps at 2^63-1) */
    /* Rounding up. */
    V("0.1m", MILLI, 0, 1),                               /* 0.1 m -> 1 */
    V("0.1m", BASE, 0, 1),
    V("0.0001", MILLI, 0, 1),                             /* 0.1 m -> 1 */
    V("1.0001", MILLI, 0, 1001),                          /* 1000.1 m -> 1001 */
    V("1.5", BASE, 0, 2),
    V("1.5", MILLI, 0, 1500),
    V("100m", BASE, 0, 1),                                /* 0.1 -> 1 */
    V("1.999999999", BASE, 0, 2),
    V("1.999999999", MILLI, 0, 2000),                     /* 1999.999999 m -> 2000 */
    V("1.0000000001", BASE, 0, 2),                        /* sub-nano fraction still counts */
    V("1.0000000001", MILLI, 0, 1001),
    /* Canonical values from real node fixtures. */
    V("1920m", MILLI, 0, 1920),
    V("3900m", MILLI, 0, 3900),
    V("4", MILLI, 0, 4000),
    V("7574524Ki", BASE, 0, 7756312576),                  /* 7574524 * 1024 */
    V("15963132Ki", BASE, 0, 16346247168),                /* 15963132 * 1024 */
    V("8Gi", BASE, 0, 8589934592),
    V("93492209510", BASE, 0, 93492209510),               /* ephemeral-storage */
    V("110", BASE, 0, 110),                               /* pods */
    /* Leading zeros. */
    V("0", BASE, 0, 0),                                   /* Go's fast path */
    V("000", BASE, 0, 0),
    V("007", BASE, 0, 7),
    V("0.5", BASE, 0, 1),
    V("0.5", MILLI, 0, 500),
    V("00.5", MILLI, 0, 500),
    /* Signs: negatives round away from zero. */
    V("+1", BASE, 0, 1),
    V("+500m", MILLI, 0, 500),
    V("-1", BASE, 0, -1),
    V("-0", BASE, 0, 0),
    V("-1.5", BASE, 0, -2),
    V("-1.5", MILLI, 0, -1500),
    V("-0.1m", MILLI, 0, -1),
    V("-1n", BASE, 0, -1),
    V("-1Ki", BASE, 0, -1024),
    V("-9223372036854775807", BASE, 0, -INT64_MAX),
    V("-9223372036854775808", BASE, 0, INT64_MIN),        /* -2^63 fits: Go gives MinInt64 */
    V("-9223372036854775807.1", BASE, 0, INT64_MIN),      /* rounds away from zero to -2^63 */
    V("-9.223372036854775808e18", BASE, 0, INT64_MIN),
    V("-8Ei", BASE, -ERANGE, 0),                          /* -2^63, but Go caps BinarySI at -(2^63-1) */
    V("-9223372036854775809", BASE, -ERANGE, 0),
    V("-9223372036854775807.0001", BASE, 0, INT64_MIN),
    V("-9223372036854775808.0001", BASE, -ERANGE, 0),
    V("-9223372036854775.807", MILLI, 0, -INT64_MAX),
    V("-9223372036854775.808", MILLI, 0, INT64_MIN),
    V("-9223372036854775.8081", MILLI, -ERANGE, 0),
    V("-9223372036854775808m", MILLI, 0, INT64_MIN),
    V("--1", BASE, -EINVAL, 0),                           /* suffix "-1" */
    V("+-1", BASE, -EINVAL, 0),
    V("1-", BASE, -EINVAL, 0),                            /* suffix "-" */
    /* Go scanner quirks that parse. */
    V(".", BASE, 0, 0),                                   /* no digits at all: 0 */
    V("-", BASE, 0, 0),
    V("+", BASE, 0, 0),
    V("Ki", BASE, 0, 0),                                  /* 0 * 2^10 */
    V("m", MILLI, 0, 0),
    V("e3", BASE, 0, 0),                                  /* 0 * 10^3 */
    V("1.", BASE, 0, 1),
    V(".5", BASE, 0, 1),
    V(".5", MILLI, 0, 500),
    V("1.G", BASE, 0, 1000000000),                        /* "1." then G */
    /* A number without any digit is 0 only on ParseQuantity's int64 fast path
     * (scale >= -9, or a binary suffix up to Ti); on the inf.Dec path
     * SetString("") fails with ErrNumeric. One digit, even "0", is enough. */
    V("n", BASE, 0, 0),                                   /* scale -9: fast path */
    V("e-9", MILLI, 0, 0),
    V("E-09", BASE, 0, 0),
    V(".E-9", BASE, 0, 0),
    V("+.e-9", BASE, 0, 0),
    V("e2147483647", BASE, 0, 0),
    V("Ti", BASE, 0, 0),                                  /* precision 15-1-12-1 = 1 */
    V(".Ti", BASE, 0, 0),
    V("-Ti", MILLI, 0, 0),
    V("e-10", BASE, -EINVAL, 0),                          /* scale -10: inf.Dec */
    V("E-10", MILLI, -EINVAL, 0),
    V("e-010", BASE, -EINVAL, 0),
    V("-e-10", BASE, -EINVAL, 0),
    V(".e-10", BASE, -EINVAL, 0),
    V("-.e-10", BASE, -EINVAL, 0),
    V("+.E-18", BASE, -EINVAL, 0),
    V("e-2147483647", BASE, -EINVAL, 0),
    V("Pi", BASE, -EINVAL, 0),                            /* precision 15-1-15-1 < 0 */
    V("Ei", MILLI, -EINVAL, 0),
    V("+Pi", BASE, -EINVAL, 0),
    V(".Pi", BASE, -EINVAL, 0),
    V("-Ei", BASE, -EINVAL, 0),
    V("0e-10", BASE, 0, 0),                               /* "0" parses on either path */
    V("0.e-10", BASE, 0, 0),
    V(".0e-10", MILLI, 0, 0),
    V("0Pi", BASE, 0, 0),
    V(".0Ei", BASE, 0, 0),
    /* Go scanner quirks that fail. */
    V("1e", BASE, -EINVAL, 0),                            /* e needs digits */
    V("1K", BASE, -EINVAL, 0),                            /* only lower-case k */
    V("1ki", BASE, -EINVAL, 0),
    V("1KI", BASE, -EINVAL, 0),
    V("1i", BASE, -EINVAL, 0),
    V("1mi", BASE, -EINVAL, 0),
    V("1nu", BASE, -EINVAL, 0),
    V(" 1", BASE, -EINVAL, 0),                            /* no whitespace */
    V("1 ", BASE, -EINVAL, 0),
    V("1.2.3", BASE, -EINVAL, 0),
    V("1e3e", BASE, -EINVAL, 0),
    V("1e3.5", BASE, -EINVAL, 0),
    V("1ee3", BASE, -EINVAL, 0),
    V("1e-", BASE, -EINVAL, 0),
    V("1e+", BASE, -EINVAL, 0),
    V("", BASE, -EINVAL, 0),
    V("abc", BASE, -EINVAL, 0),
    V("1m5", BASE, -EINVAL, 0),                           /* suffix "m5" */
    V("1Mi5", BASE, -EINVAL, 0),
    V("1KiB", BASE, -EINVAL, 0),
    V("0x10", BASE, -EINVAL, 0),
    V("1,5", BASE, -EINVAL, 0),
    V("1\0", BASE, -EINVAL, 0),                           /* embedded NUL inside len */
    V("\xc2\xb5" "1", BASE, -EINVAL, 0),                    /* UTF-8 micro sign */
    /* Huge values. */
    V("9223372036854775807", BASE, 0, INT64_MAX),         /* 2^63-1 */
    V("9223372036854775808", BASE, -ERANGE, 0),           /* 2^63 */
    V("9223372036854775807", MILLI, -ERANGE, 0),          /* *1000 */
    V("9223372036854775.807", MILLI, 0, INT64_MAX),       /* exactly 2^63-1 m */
    V("9223372036854775.8071", MILLI, -ERANGE, 0),        /* ceil -> 2^63 m */
    V("9223372036854775807m", MILLI, 0, INT64_MAX),
    V("9223372036854775807m", BASE, 0, 9223372036854776), /* ceil(...775.807) */
    V("99999999999999999999999", BASE, -ERANGE, 0),
    /* Very long digit strings, exact arithmetic. */
    V("1." Z200 "1", BASE, 0, 2),                         /* 1 + 1e-201 -> 2 */
    V("1." Z200 "1", MILLI, 0, 1001),                     /* 1000 + 1e-198 -> 1001 */
    V("0." Z200 "1", MILLI, 0, 1),                        /* tiny positive -> 1 */
    V("0." Z200 "1e202", BASE, 0, 10),                    /* 1e-201 * 1e202 */
    V("1" Z200 "e-200", MILLI, 0, 1000),                  /* 1e200 * 1e-200 */
    V(Z250 "000001", BASE, 0, 1),                         /* 256 bytes: the limit */
    V(Z250 "0000001", BASE, -ERANGE, 0),                  /* 257 bytes */
};
/* clang-format on */

#define N_VECTORS (sizeof(vectors) / sizeof(vectors[0]))

/* The tables of apimachinery's own tests, ported: kubernetes/apimachinery
 * pkg/api/resource at master of 2026-07-23 (eed236c), quantity_overflow_test.go from
 * kubernetes/kubernetes after kubernetes#141170 (2026-08). Expected values are upstream's
 * expected Quantity, read through Value() (BASE) and MilliValue() (MILLI) = ceil, away
 * from zero; where that does not fit int64 we refuse (-ERANGE) and Go caps or saturates. */
/* clang-format off */
static const struct vector upstream[] = {
    /* quantity_test.go TestQuantityParse, table: each input, then "-" and "+" before it
     * (the test does both); values are the expected Quantity's Value() and MilliValue(). */
    V("0", BASE, 0, 0),
    V("0", MILLI, 0, 0),
    V("0n", BASE, 0, 0),
    V("0n", MILLI, 0, 0),
    V("0u", BASE, 0, 0),
    V("0u", MILLI, 0, 0),
    V("0m", BASE, 0, 0),
    V("0m", MILLI, 0, 0),
    V("0Ki", BASE, 0, 0),
    V("0Ki", MILLI, 0, 0),
    V("0k", BASE, 0, 0),
    V("0k", MILLI, 0, 0),
    V("0Mi", BASE, 0, 0),
    V("0Mi", MILLI, 0, 0),
    V("0M", BASE, 0, 0),
    V("0M", MILLI, 0, 0),
    V("0Gi", BASE, 0, 0),
    V("0Gi", MILLI, 0, 0),
    V("0G", BASE, 0, 0),
    V("0G", MILLI, 0, 0),
    V("0Ti", BASE, 0, 0),
    V("0Ti", MILLI, 0, 0),
    V("0T", BASE, 0, 0),
    V("0T", MILLI, 0, 0),
    V("1", BASE, 0, 1),
    V("1", MILLI, 0, 1000),
    V("1Ki", BASE, 0, 1024),
    V("1Ki", MILLI, 0, 1024000),
    V("8Ki", BASE, 0, 8192),
    V("8Ki", MILLI, 0, 8192000),
    V("7Mi", BASE, 0, 7340032),
    V("7Mi", MILLI, 0, 7340032000),
    V("6Gi", BASE, 0, 6442450944),
    V("6Gi", MILLI, 0, 6442450944000),
    V("5Ti", BASE, 0, 5497558138880),
    V("5Ti", MILLI, 0, 5497558138880000),
    V("4Pi", BASE, 0, 4503599627370496),
    V("4Pi", MILLI, 0, 4503599627370496000),
    V("3Ei", BASE, 0, 3458764513820540928),
    V("3Ei", MILLI, -ERANGE, 0), /* > int64 */
    V("10Ti", BASE, 0, 10995116277760),
    V("10Ti", MILLI, 0, 10995116277760000),
    V("100Ti", BASE, 0, 109951162777600),
    V("100Ti", MILLI, 0, 109951162777600000),
    V("5n", BASE, 0, 1),
    V("5n", MILLI, 0, 1),
    V("4u", BASE, 0, 1),
    V("4u", MILLI, 0, 1),
    V("3m", BASE, 0, 1),
    V("3m", MILLI, 0, 3),
    V("9", BASE, 0, 9),
    V("9", MILLI, 0, 9000),
    V("8k", BASE, 0, 8000),
    V("8k", MILLI, 0, 8000000),
    V("50k", BASE, 0, 50000),
    V("50k", MILLI, 0, 50000000),
    V("7M", BASE, 0, 7000000),
    V("7M", MILLI, 0, 7000000000),
    V("6G", BASE, 0, 6000000000),
    V("6G", MILLI, 0, 6000000000000),
    V("5T", BASE, 0, 5000000000000),
    V("5T", MILLI, 0, 5000000000000000),
    V("40T", BASE, 0, 40000000000000),
    V("40T", MILLI, 0, 40000000000000000),
    V("300T", BASE, 0, 300000000000000),
    V("300T", MILLI, 0, 300000000000000000),
    V("2P", BASE, 0, 2000000000000000),
    V("2P", MILLI, 0, 2000000000000000000),
    V("1E", BASE, 0, 1000000000000000000),
    V("1E", MILLI, -ERANGE, 0), /* > int64 */
    V("1E-3", BASE, 0, 1),
    V("1E-3", MILLI, 0, 1),
    V("1e3", BASE, 0, 1000),
    V("1e3", MILLI, 0, 1000000),
    V("1E6", BASE, 0, 1000000),
    V("1E6", MILLI, 0, 1000000000),
    V("1e9", BASE, 0, 1000000000),
    V("1e9", MILLI, 0, 1000000000000),
    V("1E12", BASE, 0, 1000000000000),
    V("1E12", MILLI, 0, 1000000000000000),
    V("1e15", BASE, 0, 1000000000000000),
    V("1e15", MILLI, 0, 1000000000000000000),
    V("1E18", BASE, 0, 1000000000000000000),
    V("1E18", MILLI, -ERANGE, 0), /* > int64 */
    V("1e14", BASE, 0, 100000000000000),
    V("1e14", MILLI, 0, 100000000000000000),
    V("1e13", BASE, 0, 10000000000000),
    V("1e13", MILLI, 0, 10000000000000000),
    V("1e3", BASE, 0, 1000),
    V("1e3", MILLI, 0, 1000000),
    V("100.035k", BASE, 0, 100035),
    V("100.035k", MILLI, 0, 100035000),
    V("0.001", BASE, 0, 1),
    V("0.001", MILLI, 0, 1),
    V("0.0005k", BASE, 0, 1),
    V("0.0005k", MILLI, 0, 500),
    V("0.005", BASE, 0, 1),
    V("0.005", MILLI, 0, 5),
    V("0.05", BASE, 0, 1),
    V("0.05", MILLI, 0, 50),
    V("0.5", BASE, 0, 1),
    V("0.5", MILLI, 0, 500),
    V("0.00050k", BASE, 0, 1),
    V("0.00050k", MILLI, 0, 500),
    V("0.00500", BASE, 0, 1),
    V("0.00500", MILLI, 0, 5),
    V("0.05000", BASE, 0, 1),
    V("0.05000", MILLI, 0, 50),
    V("0.50000", BASE, 0, 1),
    V("0.50000", MILLI, 0, 500),
    V("0.5e0", BASE, 0, 1),
    V("0.5e0", MILLI, 0, 500),
    V("0.5e-1", BASE, 0, 1),
    V("0.5e-1", MILLI, 0, 50),
    V("0.5e-2", BASE, 0, 1),
    V("0.5e-2", MILLI, 0, 5),
    V("0.5e0", BASE, 0, 1),
    V("0.5e0", MILLI, 0, 500),
    V("10.035M", BASE, 0, 10035000),
    V("10.035M", MILLI, 0, 10035000000),
    V("1.2e3", BASE, 0, 1200),
    V("1.2e3", MILLI, 0, 1200000),
    V("1.3E+6", BASE, 0, 1300000),
    V("1.3E+6", MILLI, 0, 1300000000),
    V("1.40e9", BASE, 0, 1400000000),
    V("1.40e9", MILLI, 0, 1400000000000),
    V("1.53E12", BASE, 0, 1530000000000),
    V("1.53E12", MILLI, 0, 1530000000000000),
    V("1.6e15", BASE, 0, 1600000000000000),
    V("1.6e15", MILLI, 0, 1600000000000000000),
    V("1.7E18", BASE, 0, 1700000000000000000),
    V("1.7E18", MILLI, -ERANGE, 0), /* > int64 */
    V("9.01", BASE, 0, 10),
    V("9.01", MILLI, 0, 9010),
    V("8.1k", BASE, 0, 8100),
    V("8.1k", MILLI, 0, 8100000),
    V("7.123456M", BASE, 0, 7123456),
    V("7.123456M", MILLI, 0, 7123456000),
    V("6.987654321G", BASE, 0, 6987654321),
    V("6.987654321G", MILLI, 0, 6987654321000),
    V("5.444T", BASE, 0, 5444000000000),
    V("5.444T", MILLI, 0, 5444000000000000),
    V("40.1T", BASE, 0, 40100000000000),
    V("40.1T", MILLI, 0, 40100000000000000),
    V("300.2T", BASE, 0, 300200000000000),
    V("300.2T", MILLI, 0, 300200000000000000),
    V("2.5P", BASE, 0, 2500000000000000),
    V("2.5P", MILLI, 0, 2500000000000000000),
    V("1.01E", BASE, 0, 1010000000000000000),
    V("1.01E", MILLI, -ERANGE, 0), /* > int64 */
    V("3.001n", BASE, 0, 1),
    V("3.001n", MILLI, 0, 1),
    V("1.1E-9", BASE, 0, 1),
    V("1.1E-9", MILLI, 0, 1),
    V("0.0000000001", BASE, 0, 1),
    V("0.0000000001", MILLI, 0, 1),
    V("0.0000000005", BASE, 0, 1),
    V("0.0000000005", MILLI, 0, 1),
    V("0.00000000050", BASE, 0, 1),
    V("0.00000000050", MILLI, 0, 1),
    V("0.5e-9", BASE, 0, 1),
    V("0.5e-9", MILLI, 0, 1),
    V("0.9n", BASE, 0, 1),
    V("0.9n", MILLI, 0, 1),
    V("0.00000012345", BASE, 0, 1),
    V("0.00000012345", MILLI, 0, 1),
    V("0.00000012354", BASE, 0, 1),
    V("0.00000012354", MILLI, 0, 1),
    V("9Ei", BASE, -ERANGE, 0), /* Go caps BinarySI at 2^63-1 */
    V("9Ei", MILLI, -ERANGE, 0), /* Go caps BinarySI at 2^63-1 */
    V("9223372036854775807Ki", BASE, -ERANGE, 0), /* Go caps BinarySI at 2^63-1 */
    V("9223372036854775807Ki", MILLI, -ERANGE, 0), /* Go caps BinarySI at 2^63-1 */
    V("12E", BASE, -ERANGE, 0), /* > int64 */
    V("12E", MILLI, -ERANGE, 0), /* > int64 */
    V("100.035Ki", BASE, 0, 102436),
    V("100.035Ki", MILLI, 0, 102435840),
    V("0.5Mi", BASE, 0, 524288),
    V("0.5Mi", MILLI, 0, 524288000),
    V("0.05Gi", BASE, 0, 53687092),
    V("0.05Gi", MILLI, 0, 53687091200),
    V("0.025Ti", BASE, 0, 27487790695),
    V("0.025Ti", MILLI, 0, 27487790694400),
    V("0.000000000001Ki", BASE, 0, 1),
    V("0.000000000001Ki", MILLI, 0, 1),
    V(".001", BASE, 0, 1),
    V(".001", MILLI, 0, 1),
    V(".0001k", BASE, 0, 1),
    V(".0001k", MILLI, 0, 100),
    V("1.", BASE, 0, 1),
    V("1.", MILLI, 0, 1000),
    V("1.G", BASE, 0, 1000000000),
    V("1.G", MILLI, 0, 1000000000000),
    V("-0", BASE, 0, 0),
    V("-0", MILLI, 0, 0),
    V("-0n", BASE, 0, 0),
    V("-0n", MILLI, 0, 0),
    V("-0u", BASE, 0, 0),
    V("-0u", MILLI, 0, 0),
    V("-0m", BASE, 0, 0),
    V("-0m", MILLI, 0, 0),
    V("-0Ki", BASE, 0, 0),
    V("-0Ki", MILLI, 0, 0),
    V("-0k", BASE, 0, 0),
    V("-0k", MILLI, 0, 0),
    V("-0Mi", BASE, 0, 0),
    V("-0Mi", MILLI, 0, 0),
    V("-0M", BASE, 0, 0),
    V("-0M", MILLI, 0, 0),
    V("-0Gi", BASE, 0, 0),
    V("-0Gi", MILLI, 0, 0),
    V("-0G", BASE, 0, 0),
    V("-0G", MILLI, 0, 0),
    V("-0Ti", BASE, 0, 0),
    V("-0Ti", MILLI, 0, 0),
    V("-0T", BASE, 0, 0),
    V("-0T", MILLI, 0, 0),
    V("-1", BASE, 0, -1),
    V("-1", MILLI, 0, -1000),
    V("-1Ki", BASE, 0, -1024),
    V("-1Ki", MILLI, 0, -1024000),
    V("-8Ki", BASE, 0, -8192),
    V("-8Ki", MILLI, 0, -8192000),
    V("-7Mi", BASE, 0, -7340032),
    V("-7Mi", MILLI, 0, -7340032000),
    V("-6Gi", BASE, 0, -6442450944),
    V("-6Gi", MILLI, 0, -6442450944000),
    V("-5Ti", BASE, 0, -5497558138880),
    V("-5Ti", MILLI, 0, -5497558138880000),
    V("-4Pi", BASE, 0, -4503599627370496),
    V("-4Pi", MILLI, 0, -4503599627370496000),
    V("-3Ei", BASE, 0, -3458764513820540928),
    V("-3Ei", MILLI, -ERANGE, 0), /* > int64 */
    V("-10Ti", BASE, 0, -10995116277760),
    V("-10Ti", MILLI, 0, -10995116277760000),
    V("-100Ti", BASE, 0, -109951162777600),
    V("-100Ti", MILLI, 0, -109951162777600000),
    V("-5n", BASE, 0, -1),
    V("-5n", MILLI, 0, -1),
    V("-4u", BASE, 0, -1),
    V("-4u", MILLI, 0, -1),
    V("-3m", BASE, 0, -1),
    V("-3m", MILLI, 0, -3),
    V("-9", BASE, 0, -9),
    V("-9", MILLI, 0, -9000),
    V("-8k", BASE, 0, -8000),
    V("-8k", MILLI, 0, -8000000),
    V("-50k", BASE, 0, -50000),
    V("-50k", MILLI, 0, -50000000),
    V("-7M", BASE, 0, -7000000),
    V("-7M", MILLI, 0, -7000000000),
    V("-6G", BASE, 0, -6000000000),
    V("-6G", MILLI, 0, -6000000000000),
    V("-5T", BASE, 0, -5000000000000),
    V("-5T", MILLI, 0, -5000000000000000),
    V("-40T", BASE, 0, -40000000000000),
    V("-40T", MILLI, 0, -40000000000000000),
    V("-300T", BASE, 0, -300000000000000),
    V("-300T", MILLI, 0, -300000000000000000),
    V("-2P", BASE, 0, -2000000000000000),
    V("-2P", MILLI, 0, -2000000000000000000),
    V("-1E", BASE, 0, -1000000000000000000),
    V("-1E", MILLI, -ERANGE, 0), /* > int64 */
    V("-1E-3", BASE, 0, -1),
    V("-1E-3", MILLI, 0, -1),
    V("-1e3", BASE, 0, -1000),
    V("-1e3", MILLI, 0, -1000000),
    V("-1E6", BASE, 0, -1000000),
    V("-1E6", MILLI, 0, -1000000000),
    V("-1e9", BASE, 0, -1000000000),
    V("-1e9", MILLI, 0, -1000000000000),
    V("-1E12", BASE, 0, -1000000000000),
    V("-1E12", MILLI, 0, -1000000000000000),
    V("-1e15", BASE, 0, -1000000000000000),
    V("-1e15", MILLI, 0, -1000000000000000000),
    V("-1E18", BASE, 0, -1000000000000000000),
    V("-1E18", MILLI, -ERANGE, 0), /* > int64 */
    V("-1e14", BASE, 0, -100000000000000),
    V("-1e14", MILLI, 0, -100000000000000000),
    V("-1e13", BASE, 0, -10000000000000),
    V("-1e13", MILLI, 0, -10000000000000000),
    V("-1e3", BASE, 0, -1000),
    V("-1e3", MILLI, 0, -1000000),
    V("-100.035k", BASE, 0, -100035),
    V("-100.035k", MILLI, 0, -100035000),
    V("-0.001", BASE, 0, -1),
    V("-0.001", MILLI, 0, -1),
    V("-0.0005k", BASE, 0, -1),
    V("-0.0005k", MILLI, 0, -500),
    V("-0.005", BASE, 0, -1),
    V("-0.005", MILLI, 0, -5),
    V("-0.05", BASE, 0, -1),
    V("-0.05", MILLI, 0, -50),
    V("-0.5", BASE, 0, -1),
    V("-0.5", MILLI, 0, -500),
    V("-0.00050k", BASE, 0, -1),
    V("-0.00050k", MILLI, 0, -500),
    V("-0.00500", BASE, 0, -1),
    V("-0.00500", MILLI, 0, -5),
    V("-0.05000", BASE, 0, -1),
    V("-0.05000", MILLI, 0, -50),
    V("-0.50000", BASE, 0, -1),
    V("-0.50000", MILLI, 0, -500),
    V("-0.5e0", BASE, 0, -1),
    V("-0.5e0", MILLI, 0, -500),
    V("-0.5e-1", BASE, 0, -1),
    V("-0.5e-1", MILLI, 0, -50),
    V("-0.5e-2", BASE, 0, -1),
    V("-0.5e-2", MILLI, 0, -5),
    V("-0.5e0", BASE, 0, -1),
    V("-0.5e0", MILLI, 0, -500),
    V("-10.035M", BASE, 0, -10035000),
    V("-10.035M", MILLI, 0, -10035000000),
    V("-1.2e3", BASE, 0, -1200),
    V("-1.2e3", MILLI, 0, -1200000),
    V("-1.3E+6", BASE, 0, -1300000),
    V("-1.3E+6", MILLI, 0, -1300000000),
    V("-1.40e9", BASE, 0, -1400000000),
    V("-1.40e9", MILLI, 0, -1400000000000),
    V("-1.53E12", BASE, 0, -1530000000000),
    V("-1.53E12", MILLI, 0, -1530000000000000),
    V("-1.6e15", BASE, 0, -1600000000000000),
    V("-1.6e15", MILLI, 0, -1600000000000000000),
    V("-1.7E18", BASE, 0, -1700000000000000000),
    V("-1.7E18", MILLI, -ERANGE, 0), /* > int64 */
    V("-9.01", BASE, 0, -10),
    V("-9.01", MILLI, 0, -9010),
    V("-8.1k", BASE, 0, -8100),
    V("-8.1k", MILLI, 0, -8100000),
    V("-7.123456M", BASE, 0, -7123456),
    V("-7.123456M", MILLI, 0, -7123456000),
    V("-6.987654321G", BASE, 0, -6987654321),
    V("-6.987654321G", MILLI, 0, -6987654321000),
    V("-5.444T", BASE, 0, -5444000000000),
    V("-5.444T", MILLI, 0, -5444000000000000),
    V("-40.1T", BASE, 0, -40100000000000),
    V("-40.1T", MILLI, 0, -40100000000000000),
    V("-300.2T", BASE, 0, -300200000000000),
    V("-300.2T", MILLI, 0, -300200000000000000),
    V("-2.5P", BASE, 0, -2500000000000000),
    V("-2.5P", MILLI, 0, -2500000000000000000),
    V("-1.01E", BASE, 0, -1010000000000000000),
    V("-1.01E", MILLI, -ERANGE, 0), /* > int64 */
    V("-3.001n", BASE, 0, -1),
    V("-3.001n", MILLI, 0, -1),
    V("-1.1E-9", BASE, 0, -1),
    V("-1.1E-9", MILLI, 0, -1),
    V("-0.0000000001", BASE, 0, -1),
    V("-0.0000000001", MILLI, 0, -1),
    V("-0.0000000005", BASE, 0, -1),
    V("-0.0000000005", MILLI, 0, -1),
    V("-0.00000000050", BASE, 0, -1),
    V("-0.00000000050", MILLI, 0, -1),
    V("-0.5e-9", BASE, 0, -1),
    V("-0.5e-9", MILLI, 0, -1),
    V("-0.9n", BASE, 0, -1),
    V("-0.9n", MILLI, 0, -1),
    V("-0.00000012345", BASE, 0, -1),
    V("-0.00000012345", MILLI, 0, -1),
    V("-0.00000012354", BASE, 0, -1),
    V("-0.00000012354", MILLI, 0, -1),
    V("-9Ei", BASE, -ERANGE, 0), /* Go caps BinarySI at 2^63-1 */
    V("-9Ei", MILLI, -ERANGE, 0), /* Go caps BinarySI at 2^63-1 */
    V("-9223372036854775807Ki", BASE, -ERANGE, 0), /* Go caps BinarySI at 2^63-1 */
    V("-9223372036854775807Ki", MILLI, -ERANGE, 0), /* Go caps BinarySI at 2^63-1 */
    V("-12E", BASE, -ERANGE, 0), /* > int64 */
    V("-12E", MILLI, -ERANGE, 0), /* > int64 */
    V("-100.035Ki", BASE, 0, -102436),
    V("-100.035Ki", MILLI, 0, -102435840),
    V("-0.5Mi", BASE, 0, -524288),
    V("-0.5Mi", MILLI, 0, -524288000),
    V("-0.05Gi", BASE, 0, -53687092),
    V("-0.05Gi", MILLI, 0, -53687091200),
    V("-0.025Ti", BASE, 0, -27487790695),
    V("-0.025Ti", MILLI, 0, -27487790694400),
    V("-0.000000000001Ki", BASE, 0, -1),
    V("-0.000000000001Ki", MILLI, 0, -1),
    V("-.001", BASE, 0, -1),
    V("-.001", MILLI, 0, -1),
    V("-.0001k", BASE, 0, -1),
    V("-.0001k", MILLI, 0, -100),
    V("-1.", BASE, 0, -1),
    V("-1.", MILLI, 0, -1000),
    V("-1.G", BASE, 0, -1000000000),
    V("-1.G", MILLI, 0, -1000000000000),
    V("+0", BASE, 0, 0),
    V("+0", MILLI, 0, 0),
    V("+0n", BASE, 0, 0),
    V("+0n", MILLI, 0, 0),
    V("+0u", BASE, 0, 0),
    V("+0u", MILLI, 0, 0),
    V("+0m", BASE, 0, 0),
    V("+0m", MILLI, 0, 0),
    V("+0Ki", BASE, 0, 0),
    V("+0Ki", MILLI, 0, 0),
    V("+0k", BASE, 0, 0),
    V("+0k", MILLI, 0, 0),
    V("+0Mi", BASE, 0, 0),
    V("+0Mi", MILLI, 0, 0),
    V("+0M", BASE, 0, 0),
    V("+0M", MILLI, 0, 0),
    V("+0Gi", BASE, 0, 0),
    V("+0Gi", MILLI, 0, 0),
    V("+0G", BASE, 0, 0),
    V("+0G", MILLI, 0, 0),
    V("+0Ti", BASE, 0, 0),
    V("+0Ti", MILLI, 0, 0),
    V("+0T", BASE, 0, 0),
    V("+0T", MILLI, 0, 0),
    V("+1", BASE, 0, 1),
    V("+1", MILLI, 0, 1000),
    V("+1Ki", BASE, 0, 1024),
    V("+1Ki", MILLI, 0, 1024000),
    V("+8Ki", BASE, 0, 8192),
    V("+8Ki", MILLI, 0, 8192000),
    V("+7Mi", BASE, 0, 7340032),
    V("+7Mi", MILLI, 0, 7340032000),
    V("+6Gi", BASE, 0, 6442450944),
    V("+6Gi", MILLI, 0, 6442450944000),
    V("+5Ti", BASE, 0, 5497558138880),
    V("+5Ti", MILLI, 0, 5497558138880000),
    V("+4Pi", BASE, 0, 4503599627370496),
    V("+4Pi", MILLI, 0, 4503599627370496000),
    V("+3Ei", BASE, 0, 3458764513820540928),
    V("+3Ei", MILLI, -ERANGE, 0), /* > int64 */
    V("+10Ti", BASE, 0, 10995116277760),
    V("+10Ti", MILLI, 0, 10995116277760000),
    V("+100Ti", BASE, 0, 109951162777600),
    V("+100Ti", MILLI, 0, 109951162777600000),
    V("+5n", BASE, 0, 1),
    V("+5n", MILLI, 0, 1),
    V("+4u", BASE, 0, 1),
    V("+4u", MILLI, 0, 1),
    V("+3m", BASE, 0, 1),
    V("+3m", MILLI, 0, 3),
    V("+9", BASE, 0, 9),
    V("+9", MILLI, 0, 9000),
    V("+8k", BASE, 0, 8000),
    V("+8k", MILLI, 0, 8000000),
    V("+50k", BASE, 0, 50000),
    V("+50k", MILLI, 0, 50000000),
    V("+7M", BASE, 0, 7000000),
    V("+7M", MILLI, 0, 7000000000),
    V("+6G", BASE, 0, 6000000000),
    V("+6G", MILLI, 0, 6000000000000),
    V("+5T", BASE, 0, 5000000000000),
    V("+5T", MILLI, 0, 5000000000000000),
    V("+40T", BASE, 0, 40000000000000),
    V("+40T", MILLI, 0, 40000000000000000),
    V("+300T", BASE, 0, 300000000000000),
    V("+300T", MILLI, 0, 300000000000000000),
    V("+2P", BASE, 0, 2000000000000000),
    V("+2P", MILLI, 0, 2000000000000000000),
    V("+1E", BASE, 0, 1000000000000000000),
    V("+1E", MILLI, -ERANGE, 0), /* > int64 */
    V("+1E-3", BASE, 0, 1),
    V("+1E-3", MILLI, 0, 1),
    V("+1e3", BASE, 0, 1000),
    V("+1e3", MILLI, 0, 1000000),
    V("+1E6", BASE, 0, 1000000),
    V("+1E6", MILLI, 0, 1000000000),
    V("+1e9", BASE, 0, 1000000000),
    V("+1e9", MILLI, 0, 1000000000000),
    V("+1E12", BASE, 0, 1000000000000),
    V("+1E12", MILLI, 0, 1000000000000000),
    V("+1e15", BASE, 0, 1000000000000000),
    V("+1e15", MILLI, 0, 1000000000000000000),
    V("+1E18", BASE, 0, 1000000000000000000),
    V("+1E18", MILLI, -ERANGE, 0), /* > int64 */
    V("+1e14", BASE, 0, 100000000000000),
    V("+1e14", MILLI, 0, 100000000000000000),
    V("+1e13", BASE, 0, 10000000000000),
    V("+1e13", MILLI, 0, 10000000000000000),
    V("+1e3", BASE, 0, 1000),
    V("+1e3", MILLI, 0, 1000000),
    V("+100.035k", BASE, 0, 100035),
    V("+100.035k", MILLI, 0, 100035000),
    V("+0.001", BASE, 0, 1),
    V("+0.001", MILLI, 0, 1),
    V("+0.0005k", BASE, 0, 1),
    V("+0.0005k", MILLI, 0, 500),
    V("+0.005", BASE, 0, 1),
    V("+0.005", MILLI, 0, 5),
    V("+0.05", BASE, 0, 1),
    V("+0.05", MILLI, 0, 50),
    V("+0.5", BASE, 0, 1),
    V("+0.5", MILLI, 0, 500),
    V("+0.00050k", BASE, 0, 1),
    V("+0.00050k", MILLI, 0, 500),
    V("+0.00500", BASE, 0, 1),
    V("+0.00500", MILLI, 0, 5),
    V("+0.05000", BASE, 0, 1),
    V("+0.05000", MILLI, 0, 50),
    V("+0.50000", BASE, 0, 1),
    V("+0.50000", MILLI, 0, 500),
    V("+0.5e0", BASE, 0, 1),
    V("+0.5e0", MILLI, 0, 500),
    V("+0.5e-1", BASE, 0, 1),
    V("+0.5e-1", MILLI, 0, 50),
    V("+0.5e-2", BASE, 0, 1),
    V("+0.5e-2", MILLI, 0, 5),
    V("+0.5e0", BASE, 0, 1),
    V("+0.5e0", MILLI, 0, 500),
    V("+10.035M", BASE, 0, 10035000),
    V("+10.035M", MILLI, 0, 10035000000),
    V("+1.2e3", BASE, 0, 1200),
    V("+1.2e3", MILLI, 0, 1200000),
    V("+1.3E+6", BASE, 0, 1300000),
    V("+1.3E+6", MILLI, 0, 1300000000),
    V("+1.40e9", BASE, 0, 1400000000),
    V("+1.40e9", MILLI, 0, 1400000000000),
    V("+1.53E12", BASE, 0, 1530000000000),
    V("+1.53E12", MILLI, 0, 1530000000000000),
    V("+1.6e15", BASE, 0, 1600000000000000),
    V("+1.6e15", MILLI, 0, 1600000000000000000),
    V("+1.7E18", BASE, 0, 1700000000000000000),
    V("+1.7E18", MILLI, -ERANGE, 0), /* > int64 */
    V("+9.01", BASE, 0, 10),
    V("+9.01", MILLI, 0, 9010),
    V("+8.1k", BASE, 0, 8100),
    V("+8.1k", MILLI, 0, 8100000),
    V("+7.123456M", BASE, 0, 7123456),
    V("+7.123456M", MILLI, 0, 7123456000),
    V("+6.987654321G", BASE, 0, 6987654321),
    V("+6.987654321G", MILLI, 0, 6987654321000),
    V("+5.444T", BASE, 0, 5444000000000),
    V("+5.444T", MILLI, 0, 5444000000000000),
    V("+40.1T", BASE, 0, 40100000000000),
    V("+40.1T", MILLI, 0, 40100000000000000),
    V("+300.2T", BASE, 0, 300200000000000),
    V("+300.2T", MILLI, 0, 300200000000000000),
    V("+2.5P", BASE, 0, 2500000000000000),
    V("+2.5P", MILLI, 0, 2500000000000000000),
    V("+1.01E", BASE, 0, 1010000000000000000),
    V("+1.01E", MILLI, -ERANGE, 0), /* > int64 */
    V("+3.001n", BASE, 0, 1),
    V("+3.001n", MILLI, 0, 1),
    V("+1.1E-9", BASE, 0, 1),
    V("+1.1E-9", MILLI, 0, 1),
    V("+0.0000000001", BASE, 0, 1),
    V("+0.0000000001", MILLI, 0, 1),
    V("+0.0000000005", BASE, 0, 1),
    V("+0.0000000005", MILLI, 0, 1),
    V("+0.00000000050", BASE, 0, 1),
    V("+0.00000000050", MILLI, 0, 1),
    V("+0.5e-9", BASE, 0, 1),
    V("+0.5e-9", MILLI, 0, 1),
    V("+0.9n", BASE, 0, 1),
    V("+0.9n", MILLI, 0, 1),
    V("+0.00000012345", BASE, 0, 1),
    V("+0.00000012345", MILLI, 0, 1),
    V("+0.00000012354", BASE, 0, 1),
    V("+0.00000012354", MILLI, 0, 1),
    V("+9Ei", BASE, -ERANGE, 0), /* Go caps BinarySI at 2^63-1 */
    V("+9Ei", MILLI, -ERANGE, 0), /* Go caps BinarySI at 2^63-1 */
    V("+9223372036854775807Ki", BASE, -ERANGE, 0), /* Go caps BinarySI at 2^63-1 */
    V("+9223372036854775807Ki", MILLI, -ERANGE, 0), /* Go caps BinarySI at 2^63-1 */
    V("+12E", BASE, -ERANGE, 0), /* > int64 */
    V("+12E", MILLI, -ERANGE, 0), /* > int64 */
    V("+100.035Ki", BASE, 0, 102436),
    V("+100.035Ki", MILLI, 0, 102435840),
    V("+0.5Mi", BASE, 0, 524288),
    V("+0.5Mi", MILLI, 0, 524288000),
    V("+0.05Gi", BASE, 0, 53687092),
    V("+0.05Gi", MILLI, 0, 53687091200),
    V("+0.025Ti", BASE, 0, 27487790695),
    V("+0.025Ti", MILLI, 0, 27487790694400),
    V("+0.000000000001Ki", BASE, 0, 1),
    V("+0.000000000001Ki", MILLI, 0, 1),
    V("+.001", BASE, 0, 1),
    V("+.001", MILLI, 0, 1),
    V("+.0001k", BASE, 0, 1),
    V("+.0001k", MILLI, 0, 100),
    V("+1.", BASE, 0, 1),
    V("+1.", MILLI, 0, 1000),
    V("+1.G", BASE, 0, 1000000000),
    V("+1.G", MILLI, 0, 1000000000000),
    /* quantity_test.go TestQuantityParse, invalid. */
    V("1.1.M", BASE, -EINVAL, 0),
    V("1+1.0M", BASE, -EINVAL, 0),
    V("0.1mi", BASE, -EINVAL, 0),
    V("0.1am", BASE, -EINVAL, 0),
    V("aoeu", BASE, -EINVAL, 0),
    V(".5i", BASE, -EINVAL, 0),
    V("1i", BASE, -EINVAL, 0),
    V("-3.01i", BASE, -EINVAL, 0),
    V("-3.01e-", BASE, -EINVAL, 0),
    V(" 1", BASE, -EINVAL, 0),
    V("1 ", BASE, -EINVAL, 0),
    /* quantity_test.go TestParseQuantity: 18 to 20 digits around the int64 limits, values
     * from wantAsDec. */
    V("-999999999999999999", BASE, 0, -999999999999999999),
    V("-999999999999999999", MILLI, -ERANGE, 0), /* > int64 */
    V("999999999999999999", BASE, 0, 999999999999999999),
    V("999999999999999999", MILLI, -ERANGE, 0), /* > int64 */
    V("-999999999999999999.0", BASE, 0, -999999999999999999),
    V("-999999999999999999.0", MILLI, -ERANGE, 0), /* > int64 */
    V("999999999999999999.0", BASE, 0, 999999999999999999),
    V("999999999999999999.0", MILLI, -ERANGE, 0), /* > int64 */
    V("-999999999999999999.1", BASE, 0, -1000000000000000000),
    V("-999999999999999999.1", MILLI, -ERANGE, 0), /* > int64 */
    V("999999999999999999.1", BASE, 0, 1000000000000000000),
    V("999999999999999999.1", MILLI, -ERANGE, 0), /* > int64 */
    V("-9999999999999999999", BASE, -ERANGE, 0), /* > int64 */
    V("-9999999999999999999", MILLI, -ERANGE, 0), /* > int64 */
    V("9999999999999999999", BASE, -ERANGE, 0), /* > int64 */
    V("9999999999999999999", MILLI, -ERANGE, 0), /* > int64 */
    V("-1E", BASE, 0, -1000000000000000000),
    V("-1E", MILLI, -ERANGE, 0), /* > int64 */
    V("1E", BASE, 0, 1000000000000000000),
    V("1E", MILLI, -ERANGE, 0), /* > int64 */
    V("-1000000000000000000", BASE, 0, -1000000000000000000),
    V("-1000000000000000000", MILLI, -ERANGE, 0), /* > int64 */
    V("1000000000000000000", BASE, 0, 1000000000000000000),
    V("1000000000000000000", MILLI, -ERANGE, 0), /* > int64 */
    V("-9999999999999999999.0", BASE, -ERANGE, 0), /* > int64 */
    V("-9999999999999999999.0", MILLI, -ERANGE, 0), /* > int64 */
    V("9999999999999999999.0", BASE, -ERANGE, 0), /* > int64 */
    V("9999999999999999999.0", MILLI, -ERANGE, 0), /* > int64 */
    V("-1.0E", BASE, 0, -1000000000000000000),
    V("-1.0E", MILLI, -ERANGE, 0), /* > int64 */
    V("1.0E", BASE, 0, 1000000000000000000),
    V("1.0E", MILLI, -ERANGE, 0), /* > int64 */
    V("-1000000000000000000.0", BASE, 0, -1000000000000000000),
    V("-1000000000000000000.0", MILLI, -ERANGE, 0), /* > int64 */
    V("1000000000000000000.0", BASE, 0, 1000000000000000000),
    V("1000000000000000000.0", MILLI, -ERANGE, 0), /* > int64 */
    V("-9999999999999999999000m", BASE, -ERANGE, 0), /* > int64 */
    V("-9999999999999999999000m", MILLI, -ERANGE, 0), /* > int64 */
    V("9999999999999999999000m", BASE, -ERANGE, 0), /* > int64 */
    V("9999999999999999999000m", MILLI, -ERANGE, 0), /* > int64 */
    V("-9999999999999999999.1", BASE, -ERANGE, 0), /* > int64 */
    V("-9999999999999999999.1", MILLI, -ERANGE, 0), /* > int64 */
    V("9999999999999999999.1", BASE, -ERANGE, 0), /* > int64 */
    V("9999999999999999999.1", MILLI, -ERANGE, 0), /* > int64 */
    V("-1.0000000000000000001E", BASE, 0, -1000000000000000001),
    V("-1.0000000000000000001E", MILLI, -ERANGE, 0), /* > int64 */
    V("1.0000000000000000001E", BASE, 0, 1000000000000000001),
    V("1.0000000000000000001E", MILLI, -ERANGE, 0), /* > int64 */
    V("-1000000000000000000.1", BASE, 0, -1000000000000000001),
    V("-1000000000000000000.1", MILLI, -ERANGE, 0), /* > int64 */
    V("1000000000000000000.1", BASE, 0, 1000000000000000001),
    V("1000000000000000000.1", MILLI, -ERANGE, 0), /* > int64 */
    V("-1.000000000000000001E", BASE, 0, -1000000000000000001),
    V("-1.000000000000000001E", MILLI, -ERANGE, 0), /* > int64 */
    V("1.000000000000000001E", BASE, 0, 1000000000000000001),
    V("1.000000000000000001E", MILLI, -ERANGE, 0), /* > int64 */
    V("-1000000000000000001", BASE, 0, -1000000000000000001),
    V("-1000000000000000001", MILLI, -ERANGE, 0), /* > int64 */
    V("1000000000000000001", BASE, 0, 1000000000000000001),
    V("1000000000000000001", MILLI, -ERANGE, 0), /* > int64 */
    V("-10E", BASE, -ERANGE, 0), /* > int64 */
    V("-10E", MILLI, -ERANGE, 0), /* > int64 */
    V("10E", BASE, -ERANGE, 0), /* > int64 */
    V("10E", MILLI, -ERANGE, 0), /* > int64 */
    V("-10000000000000000000", BASE, -ERANGE, 0), /* > int64 */
    V("-10000000000000000000", MILLI, -ERANGE, 0), /* > int64 */
    V("10000000000000000000", BASE, -ERANGE, 0), /* > int64 */
    V("10000000000000000000", MILLI, -ERANGE, 0), /* > int64 */
    V("-10.0E", BASE, -ERANGE, 0), /* > int64 */
    V("-10.0E", MILLI, -ERANGE, 0), /* > int64 */
    V("10.0E", BASE, -ERANGE, 0), /* > int64 */
    V("10.0E", MILLI, -ERANGE, 0), /* > int64 */
    V("-10000000000000000000.0", BASE, -ERANGE, 0), /* > int64 */
    V("-10000000000000000000.0", MILLI, -ERANGE, 0), /* > int64 */
    V("10000000000000000000.0", BASE, -ERANGE, 0), /* > int64 */
    V("10000000000000000000.0", MILLI, -ERANGE, 0), /* > int64 */
    V("-10000000000000000000000m", BASE, -ERANGE, 0), /* > int64 */
    V("-10000000000000000000000m", MILLI, -ERANGE, 0), /* > int64 */
    V("10000000000000000000000m", BASE, -ERANGE, 0), /* > int64 */
    V("10000000000000000000000m", MILLI, -ERANGE, 0), /* > int64 */
    V("-10.0000000000000000001E", BASE, -ERANGE, 0), /* > int64 */
    V("-10.0000000000000000001E", MILLI, -ERANGE, 0), /* > int64 */
    V("10.0000000000000000001E", BASE, -ERANGE, 0), /* > int64 */
    V("10.0000000000000000001E", MILLI, -ERANGE, 0), /* > int64 */
    V("-10000000000000000000.1", BASE, -ERANGE, 0), /* > int64 */
    V("-10000000000000000000.1", MILLI, -ERANGE, 0), /* > int64 */
    V("10000000000000000000.1", BASE, -ERANGE, 0), /* > int64 */
    V("10000000000000000000.1", MILLI, -ERANGE, 0), /* > int64 */
    V("-10.000000000000000001E", BASE, -ERANGE, 0), /* > int64 */
    V("-10.000000000000000001E", MILLI, -ERANGE, 0), /* > int64 */
    V("10.000000000000000001E", BASE, -ERANGE, 0), /* > int64 */
    V("10.000000000000000001E", MILLI, -ERANGE, 0), /* > int64 */
    V("-10000000000000000001", BASE, -ERANGE, 0), /* > int64 */
    V("-10000000000000000001", MILLI, -ERANGE, 0), /* > int64 */
    V("10000000000000000001", BASE, -ERANGE, 0), /* > int64 */
    V("10000000000000000001", MILLI, -ERANGE, 0), /* > int64 */
    V("-9223372036854775809", BASE, -ERANGE, 0), /* > int64 */
    V("-9223372036854775809", MILLI, -ERANGE, 0), /* > int64 */
    V("9223372036854775806", BASE, 0, 9223372036854775806),
    V("9223372036854775806", MILLI, -ERANGE, 0), /* > int64 */
    V("-9223372036854775809.0", BASE, -ERANGE, 0), /* > int64 */
    V("-9223372036854775809.0", MILLI, -ERANGE, 0), /* > int64 */
    V("9223372036854775806.0", BASE, 0, 9223372036854775806),
    V("9223372036854775806.0", MILLI, -ERANGE, 0), /* > int64 */
    V("-9223372036854775809000m", BASE, -ERANGE, 0), /* > int64 */
    V("-9223372036854775809000m", MILLI, -ERANGE, 0), /* > int64 */
    V("9223372036854775806000m", BASE, 0, 9223372036854775806),
    V("9223372036854775806000m", MILLI, -ERANGE, 0), /* > int64 */
    V("-9223372036854775809.1", BASE, -ERANGE, 0), /* > int64 */
    V("-9223372036854775809.1", MILLI, -ERANGE, 0), /* > int64 */
    V("9223372036854775806.1", BASE, 0, INT64_MAX),
    V("9223372036854775806.1", MILLI, -ERANGE, 0), /* > int64 */
    V("-9223372036854775808", BASE, 0, INT64_MIN),
    V("-9223372036854775808", MILLI, -ERANGE, 0), /* > int64 */
    V("9223372036854775807", BASE, 0, INT64_MAX),
    V("9223372036854775807", MILLI, -ERANGE, 0), /* > int64 */
    V("-9223372036854775808.0", BASE, 0, INT64_MIN),
    V("-9223372036854775808.0", MILLI, -ERANGE, 0), /* > int64 */
    V("9223372036854775807.0", BASE, 0, INT64_MAX),
    V("9223372036854775807.0", MILLI, -ERANGE, 0), /* > int64 */
    V("-9223372036854775808000m", BASE, 0, INT64_MIN),
    V("-9223372036854775808000m", MILLI, -ERANGE, 0), /* > int64 */
    V("9223372036854775807000m", BASE, 0, INT64_MAX),
    V("9223372036854775807000m", MILLI, -ERANGE, 0), /* > int64 */
    V("-9223372036854775808.1", BASE, -ERANGE, 0), /* > int64 */
    V("-9223372036854775808.1", MILLI, -ERANGE, 0), /* > int64 */
    V("9223372036854775807.1", BASE, -ERANGE, 0), /* > int64 */
    V("9223372036854775807.1", MILLI, -ERANGE, 0), /* > int64 */
    V("-9223372036854775807", BASE, 0, -INT64_MAX),
    V("-9223372036854775807", MILLI, -ERANGE, 0), /* > int64 */
    V("9223372036854775808", BASE, -ERANGE, 0), /* > int64 */
    V("9223372036854775808", MILLI, -ERANGE, 0), /* > int64 */
    V("-9223372036854775807.0", BASE, 0, -INT64_MAX),
    V("-9223372036854775807.0", MILLI, -ERANGE, 0), /* > int64 */
    V("9223372036854775808.0", BASE, -ERANGE, 0), /* > int64 */
    V("9223372036854775808.0", MILLI, -ERANGE, 0), /* > int64 */
    V("-9223372036854775807000m", BASE, 0, -INT64_MAX),
    V("-9223372036854775807000m", MILLI, -ERANGE, 0), /* > int64 */
    V("9223372036854775808000m", BASE, -ERANGE, 0), /* > int64 */
    V("9223372036854775808000m", MILLI, -ERANGE, 0), /* > int64 */
    V("-9223372036854775807.1", BASE, 0, INT64_MIN),
    V("-9223372036854775807.1", MILLI, -ERANGE, 0), /* > int64 */
    V("9223372036854775808.1", BASE, -ERANGE, 0), /* > int64 */
    V("9223372036854775808.1", MILLI, -ERANGE, 0), /* > int64 */
    /* quantity_test.go TestQuantityParseEmit: the value of the canonical form. */
    V("1Ki", BASE, 0, 1024), /* = 1Ki */
    V("1Ki", MILLI, 0, 1024000), /* = 1Ki */
    V("1Mi", BASE, 0, 1048576), /* = 1Mi */
    V("1Mi", MILLI, 0, 1048576000), /* = 1Mi */
    V("1Gi", BASE, 0, 1073741824), /* = 1Gi */
    V("1Gi", MILLI, 0, 1073741824000), /* = 1Gi */
    V("1024Mi", BASE, 0, 1073741824), /* = 1Gi */
    V("1024Mi", MILLI, 0, 1073741824000), /* = 1Gi */
    V("1000M", BASE, 0, 1000000000), /* = 1G */
    V("1000M", MILLI, 0, 1000000000000), /* = 1G */
    V(".001Ki", BASE, 0, 2), /* = 1024m */
    V(".001Ki", MILLI, 0, 1024), /* = 1024m */
    V(".000001Ki", BASE, 0, 1), /* = 1024u */
    V(".000001Ki", MILLI, 0, 2), /* = 1024u */
    V(".000000001Ki", BASE, 0, 1), /* = 1024n */
    V(".000000001Ki", MILLI, 0, 1), /* = 1024n */
    V(".000000000001Ki", BASE, 0, 1), /* = 2n */
    V(".000000000001Ki", MILLI, 0, 1), /* = 2n */
    V("-1Ki", BASE, 0, -1024), /* = -1Ki */
    V("-1Ki", MILLI, 0, -1024000), /* = -1Ki */
    V("-1Mi", BASE, 0, -1048576), /* = -1Mi */
    V("-1Mi", MILLI, 0, -1048576000), /* = -1Mi */
    V("-1Gi", BASE, 0, -1073741824), /* = -1Gi */
    V("-1Gi", MILLI, 0, -1073741824000), /* = -1Gi */
    V("-1024Mi", BASE, 0, -1073741824), /* = -1Gi */
    V("-1024Mi", MILLI, 0, -1073741824000), /* = -1Gi */
    V("-1000M", BASE, 0, -1000000000), /* = -1G */
    V("-1000M", MILLI, 0, -1000000000000), /* = -1G */
    V("-.001Ki", BASE, 0, -2), /* = -1024m */
    V("-.001Ki", MILLI, 0, -1024), /* = -1024m */
    V("-.000001Ki", BASE, 0, -1), /* = -1024u */
    V("-.000001Ki", MILLI, 0, -2), /* = -1024u */
    V("-.000000001Ki", BASE, 0, -1), /* = -1024n */
    V("-.000000001Ki", MILLI, 0, -1), /* = -1024n */
    V("-.000000000001Ki", BASE, 0, -1), /* = -2n */
    V("-.000000000001Ki", MILLI, 0, -1), /* = -2n */
    /* quantity_test.go TestParseQuantityString: the value of num.denom * suffix. */
    V("0.025Ti", BASE, 0, 27487790695),
    V("0.025Ti", MILLI, 0, 27487790694400),
    V("1.025Ti", BASE, 0, 1126999418471),
    V("1.025Ti", MILLI, 0, 1126999418470400),
    V("-1.025Ti", BASE, 0, -1126999418471),
    V("-1.025Ti", MILLI, 0, -1126999418470400),
    V(".", BASE, 0, 0),
    V(".", MILLI, 0, 0),
    V("-.", BASE, 0, 0),
    V("-.", MILLI, 0, 0),
    V("1E-3", BASE, 0, 1),
    V("1E-3", MILLI, 0, 1),
    /* quantity_overflow_test.go quantityAccessorCases, the rows loaded with MustParse (Go's
     * wantValue / wantMilli where they fit; where they do not, Go caps or saturates and we
     * refuse) and quantityParseErrorCases. */
    V("9223372036854775807", BASE, 0, INT64_MAX),
    V("9223372036854775807", MILLI, -ERANGE, 0), /* Go: 9223372036854775807 (capped or saturated) */
    V("1E", BASE, 0, 1000000000000000000),
    V("1E", MILLI, -ERANGE, 0), /* Go: 9223372036854775807 (capped or saturated) */
    V("8Ei", BASE, -ERANGE, 0), /* Go: 9223372036854775807 (capped or saturated) */
    V("8Ei", MILLI, -ERANGE, 0), /* Go: 9223372036854775807 (capped or saturated) */
    V("-8Ei", BASE, -ERANGE, 0), /* Go: -9223372036854775807 (capped or saturated) */
    V("-8Ei", MILLI, -ERANGE, 0), /* Go: -9223372036854775808 (capped or saturated) */
    V("20Ei", BASE, -ERANGE, 0), /* Go: 9223372036854775807 (capped or saturated) */
    V("20Ei", MILLI, -ERANGE, 0), /* Go: 9223372036854775807 (capped or saturated) */
    V("-20Ei", BASE, -ERANGE, 0), /* Go: -9223372036854775807 (capped or saturated) */
    V("-20Ei", MILLI, -ERANGE, 0), /* Go: -9223372036854775808 (capped or saturated) */
    V("9223372036854775808", BASE, -ERANGE, 0), /* Go: 9223372036854775807 (capped or saturated) */
    V("9223372036854775808", MILLI, -ERANGE, 0), /* Go: 9223372036854775807 (capped or saturated) */
    V("18446744073709551616", BASE, -ERANGE, 0), /* Go: 9223372036854775807 (capped or saturated) */
    V("18446744073709551616", MILLI, -ERANGE, 0), /* Go: 9223372036854775807 (capped or saturated) */
    V("100E", BASE, -ERANGE, 0), /* Go: 9223372036854775807 (capped or saturated) */
    V("100E", MILLI, -ERANGE, 0), /* Go: 9223372036854775807 (capped or saturated) */
    V("1000E", BASE, -ERANGE, 0), /* Go: 9223372036854775807 (capped or saturated) */
    V("1000E", MILLI, -ERANGE, 0), /* Go: 9223372036854775807 (capped or saturated) */
    V("5000E", BASE, -ERANGE, 0), /* Go: 9223372036854775807 (capped or saturated) */
    V("5000E", MILLI, -ERANGE, 0), /* Go: 9223372036854775807 (capped or saturated) */
    V("1e100", BASE, -ERANGE, 0), /* Go: 9223372036854775807 (capped or saturated) */
    V("1e100", MILLI, -ERANGE, 0), /* Go: 9223372036854775807 (capped or saturated) */
    V("-9223372036854775808", BASE, 0, INT64_MIN),
    V("-9223372036854775808", MILLI, -ERANGE, 0), /* Go: -9223372036854775808 (capped or saturated) */
    V("-9223372036854775807", BASE, 0, -INT64_MAX),
    V("-9223372036854775807", MILLI, -ERANGE, 0), /* Go: -9223372036854775808 (capped or saturated) */
    V("-1e30", BASE, -ERANGE, 0), /* Go: -9223372036854775808 (capped or saturated) */
    V("-1e30", MILLI, -ERANGE, 0), /* Go: -9223372036854775808 (capped or saturated) */
    V("-100E", BASE, -ERANGE, 0), /* Go: -9223372036854775808 (capped or saturated) */
    V("-100E", MILLI, -ERANGE, 0), /* Go: -9223372036854775808 (capped or saturated) */
    V("-1000E", BASE, -ERANGE, 0), /* Go: -9223372036854775808 (capped or saturated) */
    V("-1000E", MILLI, -ERANGE, 0), /* Go: -9223372036854775808 (capped or saturated) */
    V("-9.5Gi", BASE, 0, -10200547328),
    V("-9.5Gi", MILLI, 0, -10200547328000),
    V("-9.5000000001Gi", BASE, 0, -10200547329),
    V("-9.5000000001Gi", MILLI, 0, -10200547328108),
    V("1e4294967297", BASE, -ERANGE, 0), /* parseErrorCases: refused since kubernetes#141203 */
    /* quantity_example_test.go ExampleMustParse. */
    V("5Gi", BASE, 0, 5368709120),
    V("5Gi", MILLI, 0, 5368709120000),
    V("5G", BASE, 0, 5000000000),
    V("5G", MILLI, 0, 5000000000000),
    V("5300m", BASE, 0, 6),
    V("5300m", MILLI, 0, 5300),
    V("5.4", BASE, 0, 6),
    V("5.4", MILLI, 0, 5400),
    /* quantity_test.go TestQuantityRoundUp: RoundUp(0) is Value(), RoundUp(-3) MilliValue(). */
    V("9.01", BASE, 0, 10),
    V("9.01", MILLI, 0, 9010),
    V("-9.01", BASE, 0, -10),
    V("-9.01", MILLI, 0, -9010),
};
/* clang-format on */

#define N_UPSTREAM (sizeof(upstream) / sizeof(upstream[0]))

static void check_vector(const struct vector *v)
{
    const char *err = "";
    int64_t out = 0x5a5a5a5a;

    int rc = score_quantity_parse(v->s, v->len, v->unit, &out, &err);

    ck_assert_msg(rc == v->rc, "\"%.40s\" (len %zu, %s): rc %d, want %d (err \"%s\")", v->s, v->len,
                  v->unit == MILLI ? "milli" : "base", rc, v->rc, err);
    if (v->rc == 0) {
        ck_assert_msg(out == v->value, "\"%.40s\" (%s): %lld, want %lld", v->s,
                      v->unit == MILLI ? "milli" : "base", (long long)out, (long long)v->value);
    } else {
        ck_assert_msg(err[0] != '\0', "\"%.40s\": no reason in err", v->s);
    }
}

START_TEST(test_vector)
{
    check_vector(&vectors[_i]);
}
END_TEST

START_TEST(test_upstream_vector)
{
    check_vector(&upstream[_i]);
}
END_TEST

/* Only len bytes are read: no NUL terminator needed, trailing bytes ignored. */
START_TEST(test_len_bounds)
{
    const char *err = "";
    int64_t out = -1;
    const char buf[4] = {'1', '2', '3', '4'}; /* not NUL-terminated */

    ck_assert_int_eq(score_quantity_parse(buf, 2, SCORE_UNIT_BASE, &out, &err), 0);
    ck_assert_int_eq(out, 12);
    ck_assert_int_eq(score_quantity_parse(buf, sizeof(buf), SCORE_UNIT_MILLI, &out, &err), 0);
    ck_assert_int_eq(out, 1234000);
    ck_assert_int_eq(score_quantity_parse("500mx", 4, SCORE_UNIT_MILLI, &out, &err), 0);
    ck_assert_int_eq(out, 500);
    ck_assert_int_eq(score_quantity_parse("1Kix", 2, SCORE_UNIT_BASE, &out, &err), -EINVAL);
    ck_assert_int_eq(score_quantity_parse("1", 0, SCORE_UNIT_BASE, &out, &err), -EINVAL);
    ck_assert_str_ne(err, "");
}
END_TEST

Suite *quantity_suite(void)
{
    Suite *s = suite_create("quantity");
    TCase *tc = tcase_create("quantity");
    tcase_add_loop_test(tc, test_vector, 0, (int)N_VECTORS);
    tcase_add_loop_test(tc, test_upstream_vector, 0, (int)N_UPSTREAM);
    tcase_add_test(tc, test_len_bounds);
    suite_add_tcase(s, tc);
    return s;
}

#include "scoring/quantity.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

/* A scanned quantity: sign, significant digits and the suffix that scales
 * them. */
struct scanned {
    bool negative;
    bool has_digits; /* the number has at least one digit, even "0" */
    const char *num; /* integer digits, leading zeros stripped */
    size_t num_len;
    const char *frac; /* fraction digits */
    size_t frac_len;
    const char *suffix;
    size_t suffix_len;
};

/* value = D * 10^exp10 * 2^exp2, D the significant digits. */
struct scale {
    int64_t exp10;
    int exp2;
};

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_suffix_char(char c)
{
    return c != '\0' && strchr("eEinumkKMGTP", c) != NULL;
}

/* Skips a run of digits from @pos; returns the position after it. */
static size_t skip_digits(const char *s, size_t len, size_t pos)
{
    while (pos < len && is_digit(s[pos]))
        pos++;
    return pos;
}

/* The number part of parseQuantityString: [+-], leading zeros, integer
 * digits, then "." and fraction digits. Its quirks ("." and "-" are zero,
 * "1." is one) are part of what the API server accepts. Returns the position
 * after the number. */
static size_t scan_number(const char *s, size_t len, struct scanned *q)
{
    size_t pos = 0;

    if (pos < len && (s[pos] == '-' || s[pos] == '+')) {
        q->negative = s[pos] == '-';
        pos++;
    }
    size_t start = pos;
    while (pos < len && s[pos] == '0')
        pos++;
    q->num = s + pos;
    pos = skip_digits(s, len, pos);
    q->num_len = (size_t)(s + pos - q->num);
    q->has_digits = pos > start;
    if (pos < len && s[pos] == '.') {
        pos++;
        q->frac = s + pos;
        pos = skip_digits(s, len, pos);
        q->frac_len = (size_t)(s + pos - q->frac);
        q->has_digits = q->has_digits || q->frac_len > 0;
    }
    return pos;
}

/* The suffix part: a run of suffix letters, one optional sign, digits, and
 * nothing after them (a suffix may follow a lone sign). Which suffixes mean
 * something is interpret_suffix's business. */
static int scan(const char *s, size_t len, struct scanned *q)
{
    memset(q, 0, sizeof(*q));
    size_t pos = scan_number(s, len, q);
    q->suffix = s + pos;
    while (pos < len && is_suffix_char(s[pos]))
        pos++;
    if (pos < len && (s[pos] == '-' || s[pos] == '+'))
        pos++;
    pos = skip_digits(s, len, pos);
    if (pos != len)
        return -EINVAL;
    q->suffix_len = (size_t)(s + len - q->suffix);
    return 0;
}

/* The exponent after e/E, as strconv.ParseInt reads it: [+-]digits, any
 * number of leading zeros. Accepted range [-INT32_MAX, INT32_MAX], what
 * interpret accepts since kubernetes#141203: INT32_MIN is refused too, since
 * ParseQuantity negates the exponent into an int32 inf.Scale, where
 * -INT32_MIN does not fit. */
static int parse_exponent(const char *s, size_t n, int64_t *out, const char **why)
{
    size_t i = 0;
    bool negative = false;

    if (i < n && (s[i] == '-' || s[i] == '+')) {
        negative = s[i] == '-';
        i++;
    }
    if (i == n)
        goto bad_exponent;
    int64_t e = 0;
    for (; i < n; i++) {
        if (!is_digit(s[i]))
            goto bad_exponent;
        e = e * 10 + (s[i] - '0');
        if (e > INT32_MAX) {
            *why = "quantity exponent out of range";
            return -ERANGE;
        }
    }
    *out = negative ? -e : e;
    return 0;

bad_exponent:
    *why = "unknown quantity suffix";
    return -EINVAL;
}

/* Maps the suffix to powers of ten and two, like quantitySuffixer.interpret:
 * the SI tables first ("E" alone is exa), then e/E and an exponent. */
static int interpret_suffix(const struct scanned *q, struct scale *sc, const char **why)
{
    static const struct {
        const char *name;
        int exp10;
        int exp2;
    } table[] = {
        {"", 0, 0},    {"n", -9, 0},  {"u", -6, 0},  {"m", -3, 0},  {"k", 3, 0},   {"M", 6, 0},
        {"G", 9, 0},   {"T", 12, 0},  {"P", 15, 0},  {"E", 18, 0},  {"Ki", 0, 10}, {"Mi", 0, 20},
        {"Gi", 0, 30}, {"Ti", 0, 40}, {"Pi", 0, 50}, {"Ei", 0, 60},
    };
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        if (q->suffix_len == strlen(table[i].name) &&
            memcmp(q->suffix, table[i].name, q->suffix_len) == 0) {
            sc->exp10 = table[i].exp10;
            sc->exp2 = table[i].exp2;
            return 0;
        }
    }
    if (q->suffix_len < 2 || (q->suffix[0] != 'e' && q->suffix[0] != 'E')) {
        *why = "unknown quantity suffix";
        return -EINVAL;
    }
    sc->exp2 = 0;
    return parse_exponent(q->suffix + 1, q->suffix_len - 1, &sc->exp10, why);
}

/* A number without any digit ("", "+", ".", "-.") is 0 on ParseQuantity's
 * int64 fast path, but where the suffix sends it to inf.Dec the empty number
 * does not parse (ErrNumeric): a power of ten below 10^-9 (the fast path
 * needs scale >= Nano), or Pi and Ei (the binary fast path needs a precision
 * 15 - 1 - exp2 * 3 / 10 - 1 >= 0, true up to Ti). */
static int check_digitless(const struct scanned *q, const struct scale *sc, const char **why)
{
    if (q->has_digits || (sc->exp10 >= -9 && sc->exp2 < 50))
        return 0;
    *why = "quantity has no digits";
    return -EINVAL;
}

/* Copies the significant digits D = num ++ frac, without leading or trailing
 * zeros, to @buf (2 * SCORE_QUANTITY_MAX_LEN bytes) and moves the decimal
 * point into sc->exp10. Returns the number of digits (0 for a zero value);
 * *@d points at the first one. */
static size_t significant_digits(const struct scanned *q, char *buf, const char **d,
                                 struct scale *sc)
{
    size_t n = q->num_len;
    if (q->num_len > 0)
        memcpy(buf, q->num, q->num_len);
    if (q->frac_len > 0) /* q->frac is NULL without a '.' */
        memcpy(buf + n, q->frac, q->frac_len);
    n += q->frac_len;
    sc->exp10 -= (int64_t)q->frac_len;
    size_t lead = 0;
    while (lead < n && buf[lead] == '0')
        lead++;
    *d = buf + lead;
    n -= lead;
    while (n > 0 && (*d)[n - 1] == '0') {
        n--;
        sc->exp10++;
    }
    return n;
}

/* Parses at most 19 digits into *out; fails if the number exceeds @limit
 * (at most 2^63, which 19 digits can exceed but not wrap). */
static bool digits_to_uint64(const char *d, size_t n, uint64_t limit, uint64_t *out)
{
    uint64_t v = 0;
    if (n > 19)
        return false;
    for (size_t i = 0; i < n; i++)
        v = v * 10 + (uint64_t)(d[i] - '0');
    *out = v;
    return v <= limit;
}

static bool mul_checked(uint64_t a, uint64_t b, uint64_t limit, uint64_t *out)
{
    return !__builtin_mul_overflow(a, b, out) && *out <= limit;
}

/* D * 10^k * 2^exp2 for k >= 0: an integer, exact, or over @limit. */
static int scale_up(const char *d, size_t n, int64_t k, int exp2, uint64_t limit, uint64_t *out)
{
    uint64_t v;
    if ((int64_t)n + k > 19 || !digits_to_uint64(d, n, limit, &v))
        return -ERANGE;
    for (int64_t i = 0; i < k; i++)
        if (!mul_checked(v, 10, limit, &v))
            return -ERANGE;
    return mul_checked(v, (uint64_t)1 << exp2, limit, out) ? 0 : -ERANGE;
}

/* ceil(0.f[0]f[1]...f[n-1] * 2^exp2): the fraction digits are multiplied in
 * place from the right; the carry out is the integer part, and any non-zero
 * digit left behind is a remainder that rounds up. The carry stays below
 * 2^exp2 + 1, so 9 * 2^60 + carry fits in uint64. */
static uint64_t ceil_fraction_times_pow2(char *f, size_t n, int exp2)
{
    uint64_t carry = 0;
    bool remainder = false;
    for (size_t i = n; i-- > 0;) {
        uint64_t t = ((uint64_t)f[i] << exp2) + carry;
        f[i] = (char)(t % 10);
        carry = t / 10;
        remainder = remainder || f[i] != 0;
    }
    return carry + (remainder ? 1 : 0);
}

/* ceil(D * 10^-m * 2^exp2) for m > 0. D = H * 10^m + F with F the last m
 * digits: the value is H * 2^exp2 + ceil(F / 10^m * 2^exp2). Only binary
 * suffixes have exp2 > 0, and their m is at most the fraction length, so F
 * fits in a 2 * SCORE_QUANTITY_MAX_LEN buffer. */
static int scale_down(const char *d, size_t n, uint64_t m, int exp2, uint64_t limit, uint64_t *out)
{
    uint64_t h = 0, frac_part;
    if (n > m && !digits_to_uint64(d, n - (size_t)m, limit, &h))
        return -ERANGE;
    if (!mul_checked(h, (uint64_t)1 << exp2, limit, &h))
        return -ERANGE;
    if (exp2 == 0) {
        frac_part = 1; /* F > 0: D has no trailing zero */
    } else {
        char f[2 * SCORE_QUANTITY_MAX_LEN];
        size_t fn = (size_t)m;
        size_t from_d = n > m ? (size_t)m : n;
        memset(f, 0, fn - from_d);
        for (size_t i = 0; i < from_d; i++)
            f[fn - from_d + i] = (char)(d[n - from_d + i] - '0');
        frac_part = ceil_fraction_times_pow2(f, fn, exp2);
    }
    if (__builtin_add_overflow(h, frac_part, out) || *out > limit)
        return -ERANGE;
    return 0;
}

int score_quantity_parse(const char *s, size_t len, enum score_unit unit, int64_t *out,
                         const char **why)
{
    struct scanned q;
    struct scale sc = {0};
    char buf[2 * SCORE_QUANTITY_MAX_LEN];
    const char *d;
    uint64_t result;
    int rc;

    if (len == 0) {
        *why = "empty quantity";
        return -EINVAL;
    }
    if (len > SCORE_QUANTITY_MAX_LEN) {
        *why = "quantity longer than " SCORE_QUANTITY_MAX_TEXT " bytes";
        return -ERANGE;
    }
    if (scan(s, len, &q) != 0) {
        *why = "quantity does not match [+-]digits[.digits][suffix]";
        return -EINVAL;
    }
    rc = interpret_suffix(&q, &sc, why);
    if (rc == 0)
        rc = check_digitless(&q, &sc, why);
    if (rc != 0)
        return rc;

    size_t n = significant_digits(&q, buf, &d, &sc);
    if (n == 0) {
        *out = 0;
        return 0;
    }
    int64_t k = sc.exp10 + (unit == SCORE_UNIT_MILLI ? 3 : 0);
    /* int64 reaches -2^63, and Value() gives MinInt64 for it; but a binary
     * value of that magnitude is one Go caps to -(2^63-1), refused here. */
    uint64_t limit = q.negative && sc.exp2 == 0 ? (uint64_t)INT64_MAX + 1 : INT64_MAX;
    rc = k >= 0 ? scale_up(d, n, k, sc.exp2, limit, &result)
                : scale_down(d, n, (uint64_t)-k, sc.exp2, limit, &result);
    if (rc != 0) {
        *why = unit == SCORE_UNIT_MILLI ? "quantity does not fit in int64 millis"
                                        : "quantity does not fit in int64 units";
        return rc;
    }
    if (q.negative)
        *out = result > INT64_MAX ? INT64_MIN : -(int64_t)result;
    else
        *out = (int64_t)result;
    return 0;
}

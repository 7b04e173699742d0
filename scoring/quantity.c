#include "scoring/quantity.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* A scanned quantity: sign, significant digits and the power of ten and of
 * two that scale them. value = digits * 10^exp10 * 2^exp2. */
struct scanned {
    bool negative;
    const char *num; /* integer digits, leading zeros stripped */
    size_t num_len;
    const char *frac; /* fraction digits */
    size_t frac_len;
    const char *suffix;
    size_t suffix_len;
};

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_suffix_char(char c)
{
    return c != '\0' && strchr("eEinumkKMGTP", c) != NULL;
}

/* The scanner of apimachinery's parseQuantityString, step by step: its
 * quirks ("." and "-" are zero, "1." is one, a suffix may follow a lone
 * sign) are part of what the API server accepts. */
static int scan(const char *s, size_t len, struct scanned *q)
{
    size_t pos = 0;

    memset(q, 0, sizeof(*q));
    if (pos < len && (s[pos] == '-' || s[pos] == '+')) {
        q->negative = s[pos] == '-';
        pos++;
    }
    while (pos < len && s[pos] == '0')
        pos++;
    q->num = s + pos;
    while (pos < len && is_digit(s[pos]))
        pos++;
    q->num_len = (size_t)(s + pos - q->num);
    if (pos < len && s[pos] == '.') {
        pos++;
        q->frac = s + pos;
        while (pos < len && is_digit(s[pos]))
            pos++;
        q->frac_len = (size_t)(s + pos - q->frac);
    }
    q->suffix = s + pos;
    while (pos < len && is_suffix_char(s[pos]))
        pos++;
    if (pos < len && (s[pos] == '-' || s[pos] == '+'))
        pos++;
    while (pos < len && is_digit(s[pos]))
        pos++;
    if (pos != len)
        return -EINVAL;
    q->suffix_len = (size_t)(s + len - q->suffix);
    return 0;
}

static bool suffix_is(const struct scanned *q, const char *name)
{
    return q->suffix_len == strlen(name) && memcmp(q->suffix, name, q->suffix_len) == 0;
}

/* Maps the suffix to powers of ten and two, like quantitySuffixer.interpret.
 * The exponent range is [-INT32_MAX, INT32_MAX], what interpret accepts since
 * kubernetes#141203: INT32_MIN is refused too, since ParseQuantity negates the
 * exponent into an int32 inf.Scale, where -INT32_MIN does not fit. */
static int interpret_suffix(const struct scanned *q, int64_t *exp10, int *exp2,
                            char err[SCORE_ERR_LEN])
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
        if (suffix_is(q, table[i].name)) {
            *exp10 = table[i].exp10;
            *exp2 = table[i].exp2;
            return 0;
        }
    }
    if (q->suffix_len < 2 || (q->suffix[0] != 'e' && q->suffix[0] != 'E'))
        goto bad_suffix;

    size_t i = 1;
    bool negative = false;
    if (q->suffix[i] == '-' || q->suffix[i] == '+') {
        negative = q->suffix[i] == '-';
        i++;
    }
    if (i == q->suffix_len)
        goto bad_suffix;
    int64_t e = 0;
    for (; i < q->suffix_len; i++) {
        if (!is_digit(q->suffix[i]))
            goto bad_suffix;
        e = e * 10 + (q->suffix[i] - '0');
        if (e > INT32_MAX) {
            snprintf(err, SCORE_ERR_LEN, "quantity exponent out of range");
            return -ERANGE;
        }
    }
    *exp10 = negative ? -e : e;
    *exp2 = 0;
    return 0;

bad_suffix:
    snprintf(err, SCORE_ERR_LEN, "unknown quantity suffix");
    return -EINVAL;
}

/* Parses at most 19 digits into *out; fails if the number exceeds INT64_MAX. */
static bool digits_to_int64(const char *d, size_t n, uint64_t *out)
{
    uint64_t v = 0;
    if (n > 19)
        return false;
    for (size_t i = 0; i < n; i++)
        v = v * 10 + (uint64_t)(d[i] - '0');
    *out = v;
    return v <= INT64_MAX;
}

static bool mul_checked(uint64_t a, uint64_t b, uint64_t *out)
{
    return !__builtin_mul_overflow(a, b, out) && *out <= INT64_MAX;
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

int score_quantity_parse(const char *s, size_t len, enum score_unit unit, int64_t *out,
                         char err[SCORE_ERR_LEN])
{
    struct scanned q;
    int64_t exp10 = 0;
    int exp2 = 0;
    int rc;

    if (len == 0) {
        snprintf(err, SCORE_ERR_LEN, "empty quantity");
        return -EINVAL;
    }
    if (len > SCORE_QUANTITY_MAX_LEN) {
        snprintf(err, SCORE_ERR_LEN, "quantity longer than %d bytes", SCORE_QUANTITY_MAX_LEN);
        return -ERANGE;
    }
    if (scan(s, len, &q) != 0) {
        snprintf(err, SCORE_ERR_LEN, "quantity does not match [+-]digits[.digits][suffix]");
        return -EINVAL;
    }
    rc = interpret_suffix(&q, &exp10, &exp2, err);
    if (rc != 0)
        return rc;

    /* Significant digits D = num ++ frac, without leading or trailing zeros;
     * value = D * 10^exp10 * 2^exp2. */
    char digits[2 * SCORE_QUANTITY_MAX_LEN];
    size_t n = 0;
    if (q.num_len > 0)
        memcpy(digits, q.num, q.num_len);
    n = q.num_len;
    if (q.frac_len > 0) /* q.frac is NULL without a '.' */
        memcpy(digits + n, q.frac, q.frac_len);
    n += q.frac_len;
    exp10 -= (int64_t)q.frac_len;
    size_t lead = 0;
    while (lead < n && digits[lead] == '0')
        lead++;
    const char *d = digits + lead;
    n -= lead;
    while (n > 0 && d[n - 1] == '0') {
        n--;
        exp10++;
    }
    if (n == 0) {
        *out = 0;
        return 0;
    }

    int64_t k = exp10 + (unit == SCORE_UNIT_MILLI ? 3 : 0);
    uint64_t result;
    if (k >= 0) {
        uint64_t v;
        if ((int64_t)n + k > 19 || !digits_to_int64(d, n, &v))
            goto out_of_range;
        for (int64_t i = 0; i < k; i++)
            if (!mul_checked(v, 10, &v))
                goto out_of_range;
        if (!mul_checked(v, (uint64_t)1 << exp2, &result))
            goto out_of_range;
    } else {
        /* D = H * 10^m + F with F the last m digits: value = H * 2^exp2 +
         * ceil(F / 10^m * 2^exp2). Only binary suffixes have exp2 > 0, and
         * their m is at most the fraction length, so F fits in digits[]. */
        uint64_t m = (uint64_t)-k;
        uint64_t h = 0, frac_part;
        if (n > m && !digits_to_int64(d, n - (size_t)m, &h))
            goto out_of_range;
        if (!mul_checked(h, (uint64_t)1 << exp2, &h))
            goto out_of_range;
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
        if (__builtin_add_overflow(h, frac_part, &result) || result > INT64_MAX)
            goto out_of_range;
    }
    *out = q.negative ? -(int64_t)result : (int64_t)result;
    return 0;

out_of_range:
    snprintf(err, SCORE_ERR_LEN, "quantity does not fit in int64 %s",
             unit == SCORE_UNIT_MILLI ? "millis" : "units");
    return -ERANGE;
}

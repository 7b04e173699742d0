#include "scoring/usage_window.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    int percentile; /* 0: not a percentile */
} aggs[] = {
    [SCORE_AGG_LATEST] = {"latest", 0}, [SCORE_AGG_AVG] = {"avg", 0},
    [SCORE_AGG_MAX] = {"max", 0},       [SCORE_AGG_P50] = {"p50", 50},
    [SCORE_AGG_P90] = {"p90", 90},      [SCORE_AGG_P95] = {"p95", 95},
    [SCORE_AGG_P99] = {"p99", 99},
};

#define N_AGGS (sizeof(aggs) / sizeof(aggs[0]))

const char *score_usage_agg_name(enum score_usage_agg a)
{
    return aggs[a].name;
}

/* Parses one of those names (@len bytes at @name); returns 0 or -EINVAL. */
static int agg_parse(const char *name, size_t len, enum score_usage_agg *out)
{
    for (size_t i = 0; i < N_AGGS; i++) {
        if (strlen(aggs[i].name) == len && memcmp(aggs[i].name, name, len) == 0) {
            *out = (enum score_usage_agg)i;
            return 0;
        }
    }
    return -EINVAL;
}

int score_usage_agg_parse_list(const char *text, enum score_usage_agg out[SCORE_NRES])
{
    static const char *const res[SCORE_NRES] = {[SCORE_CPU] = "cpu", [SCORE_MEMORY] = "memory"};
    enum score_usage_agg a;

    if (strchr(text, '=') == NULL) {
        if (agg_parse(text, strlen(text), &a) != 0)
            return -EINVAL;
        for (int r = 0; r < SCORE_NRES; r++)
            out[r] = a;
        return 0;
    }
    bool seen[SCORE_NRES] = {false};
    for (int r = 0; r < SCORE_NRES; r++)
        out[r] = SCORE_AGG_LATEST;
    while (*text != '\0') {
        size_t len = strcspn(text, ","), klen = strcspn(text, "=");
        int r = 0;
        if (klen >= len)
            return -EINVAL;
        while (r < SCORE_NRES && !(strlen(res[r]) == klen && memcmp(res[r], text, klen) == 0))
            r++;
        if (r == SCORE_NRES || seen[r] || agg_parse(text + klen + 1, len - klen - 1, &out[r]) != 0)
            return -EINVAL;
        seen[r] = true;
        text += len;
        if (*text == ',' && *++text == '\0')
            return -EINVAL; /* a trailing comma */
    }
    return 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The @p-th percentile of the @n values of @v (sorted in place). */
static int64_t percentile(int64_t *v, size_t n, int p)
{
    qsort(v, n, sizeof(*v), cmp_i64);
    size_t rank = (size_t)p * (n - 1), lo = rank / 100, rem = rank % 100;
    if (rem == 0 || lo + 1 >= n)
        return v[lo];
    return v[lo] + (int64_t)(((__int128)(v[lo + 1] - v[lo]) * (__int128)rem) / 100);
}

size_t score_usage_aggregate(const struct score_usage_sample *s, size_t n, double window_seconds,
                             const enum score_usage_agg agg[SCORE_NRES], int64_t out[SCORE_NRES],
                             int64_t *scratch)
{
    size_t first = n > 0 ? n - 1 : 0;

    memset(out, 0, SCORE_NRES * sizeof(*out));
    if (n == 0)
        return 0;
    while (first > 0 && s[first - 1].time > s[n - 1].time - window_seconds)
        first--;
    size_t m = n - first;
    for (int r = 0; r < SCORE_NRES; r++) {
        __int128 sum = 0;
        int64_t max = s[first].value[r];
        for (size_t i = first; i < n; i++) {
            sum += s[i].value[r];
            max = s[i].value[r] > max ? s[i].value[r] : max;
            scratch[i - first] = s[i].value[r];
        }
        switch (agg[r]) {
        case SCORE_AGG_LATEST:
            out[r] = s[n - 1].value[r];
            break;
        case SCORE_AGG_AVG:
            out[r] = (int64_t)(sum / (__int128)m);
            break;
        case SCORE_AGG_MAX:
            out[r] = max;
            break;
        default:
            out[r] = percentile(scratch, m, aggs[agg[r]].percentile);
            break;
        }
    }
    return m;
}

#include "server/codec/ints.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "base/err.h"
#include "server/codec/scan.h"

/* Is @num (a number's bytes) an integer in [min, max]? */
static bool is_int_in(struct codec_span num, long long min, long long max)
{
    const char *p = num.p, *end = num.p + num.len;
    bool neg = p < end && *p == '-';
    unsigned long long v = 0, limit = neg ? (unsigned long long)(-(min + 1)) + 1
                                          : (unsigned long long)(max < 0 ? 0 : max);
    if (neg)
        p++;
    if (p == end)
        return false;
    for (; p < end; p++) {
        if (*p < '0' || *p > '9')
            return false; /* a fraction or an exponent */
        unsigned d = (unsigned)(*p - '0');
        if (v > limit / 10 || (v == limit / 10 && d > limit % 10))
            return false;
        v = v * 10 + d;
    }
    return !neg || min < 0 || v == 0;
}

static int check(struct codec_scan *s, const struct codec_int_path *path, int level, bool *bad);

/* The members of the object at the scan point, those on the path followed. */
static int walk(struct codec_scan *s, const struct codec_int_path *path, int level, bool *bad)
{
    if (codec_scan_peek(s) != '{')
        return codec_scan_skip(s);
    if (codec_scan_object(s) != 0)
        return -EINVAL;
    for (bool first = true;; first = false) {
        struct codec_str key;
        bool more;
        if (codec_scan_member(s, first, &key, &more) != 0)
            return -EINVAL;
        if (!more)
            return 0;
        const char *name = path->names[level];
        bool on_path = strcmp(name, "*") == 0 || codec_str_is(key, name, path->fold >> level & 1);
        if ((on_path ? check(s, path, level + 1, bad) : codec_scan_skip(s)) != 0)
            return -EINVAL;
    }
}

static int check(struct codec_scan *s, const struct codec_int_path *path, int level, bool *bad)
{
    if (level < path->depth)
        return walk(s, path, level, bad);
    char c = codec_scan_peek(s);
    if (c == 'n')
        return codec_scan_skip(s);
    if (c == '-' || (c >= '0' && c <= '9')) {
        struct codec_span num;
        if (codec_scan_number(s, &num) != 0)
            return -EINVAL;
        *bad = *bad || !is_int_in(num, path->min, path->max);
        return 0;
    }
    *bad = true; /* a string, a bool, an object: not an integer */
    return codec_scan_skip(s);
}

int codec_ints_check(const char *json, size_t len, const struct codec_int_path *path, char *err)
{
    struct codec_scan s;
    bool bad = false;
    codec_scan_init(&s, json, len);
    if (walk(&s, path, 0, &bad) != 0 || bad) {
        err_set(err, "%s", path->what);
        return -EINVAL;
    }
    return 0;
}

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

struct walk_ctx {
    const struct codec_int_path *path;
    int level;
    bool *bad;
};

static int on_member(struct codec_scan *s, struct codec_str key, void *ctx)
{
    const struct walk_ctx *c = ctx;
    const char *name = c->path->names[c->level];
    bool on_path = strcmp(name, "*") == 0 || codec_str_is(key, name, c->path->fold >> c->level & 1);
    return on_path ? check(s, c->path, c->level + 1, c->bad) : codec_scan_skip(s);
}

/* The members of the object at the scan point, those on the path followed. */
static int walk(struct codec_scan *s, const struct codec_int_path *path, int level, bool *bad)
{
    struct walk_ctx c = {path, level, bad};
    if (codec_scan_peek(s) != '{')
        return codec_scan_skip(s);
    return codec_scan_members(s, on_member, &c);
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

int codec_ints_scan(struct codec_scan *s, const struct codec_int_path *path, bool *bad)
{
    return check(s, path, 0, bad);
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

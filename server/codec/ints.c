#include "server/codec/ints.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "server/codec/scan.h"
#include "server/codec/str.h"

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

/* Is every value at @path below @v, from @level on, such an integer? */
static bool all_ints(const cJSON *v, const struct codec_int_path *path, int level)
{
    const cJSON *m;

    if (level == path->depth)
        return cJSON_IsNull(v) ||
               (cJSON_IsNumber(v) && v->valuestring != NULL &&
                is_int_in((struct codec_span){v->valuestring, strlen(v->valuestring)}, path->min,
                          path->max));
    const char *name = path->names[level];
    bool any = strcmp(name, "*") == 0, fold = path->fold >> level & 1;
    const cJSON *obj = cJSON_IsObject(v) ? v : NULL;
    cJSON_ArrayForEach(m, obj)
    {
        bool on_path = any || (fold ? codec_name_folds(m->string, strlen(m->string), name)
                                    : strcmp(m->string, name) == 0);
        if (on_path && !all_ints(m, path, level + 1))
            return false;
    }
    return true;
}

bool codec_ints_ok(const cJSON *root, const struct codec_int_path *path)
{
    return all_ints(root, path, 0);
}

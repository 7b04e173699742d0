#include "server/codec/quantities.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "base/err.h"
#include "scoring/quantity.h"
#include "server/codec/json.h"

/* The length of the white space (unicode.IsSpace) at @p, 0 if none. */
static size_t space_at(const unsigned char *p, size_t left)
{
    if (left >= 1 && (*p == ' ' || (*p >= '\t' && *p <= '\r')))
        return 1;
    if (left >= 2 && p[0] == 0xc2 && (p[1] == 0x85 || p[1] == 0xa0))
        return 2; /* U+0085 NEL, U+00A0 NBSP */
    if (left < 3)
        return 0;
    unsigned cp = (unsigned)(p[0] & 0x0f) << 12 | (unsigned)(p[1] & 0x3f) << 6 | (p[2] & 0x3f);
    if ((p[0] & 0xf0) != 0xe0)
        return 0;
    bool space = cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 || cp == 0x2029 ||
                 cp == 0x202f || cp == 0x205f || cp == 0x3000;
    return space ? 3 : 0;
}

/* The length of the white space that ends at @end, 0 if none. */
static size_t space_before(const unsigned char *start, const unsigned char *end)
{
    for (size_t n = 1; n <= 3 && (size_t)(end - start) >= n; n++)
        if (space_at(end - n, n) == n)
            return n;
    return 0;
}

int codec_quantity_text(const char *p, size_t len, enum score_unit unit, int64_t *out,
                        const char **why)
{
    const unsigned char *s = (const unsigned char *)p, *end = s + len;
    size_t n;
    while (s < end && (n = space_at(s, (size_t)(end - s))) > 0)
        s += n;
    while (end > s && (n = space_before(s, end)) > 0)
        end -= n;
    return score_quantity_parse((const char *)s, (size_t)(end - s), unit, out, why);
}

static int quantity(const cJSON *v, enum score_unit unit, int64_t *out, char *why)
{
    if (v == NULL || cJSON_IsNull(v)) {
        *out = 0;
        return 0;
    }
    if (!cJSON_IsString(v))
        return err_fail(why, -EINVAL, "want a quantity string");
    const char *reason = "";
    int rc = codec_quantity_text(v->valuestring, strlen(v->valuestring), unit, out, &reason);
    if (rc != 0)
        err_set(why, "%s", reason);
    return rc;
}

int codec_resource_list(const cJSON *list, struct score_container *c, const char *path, char *err)
{
    if (list == NULL)
        return 0;
    if (!cJSON_IsObject(list))
        return err_fail(err, -EINVAL, "%s: want an object", path);
    for (int r = 0; r < SCORE_NRES; r++) {
        const char *name = score_resource_name((enum score_resource)r);
        /* Present even when null: only an absent key gets a default. */
        const cJSON *v = NULL, *item;
        cJSON_ArrayForEach(item, list)
        {
            if (item->string != NULL && strcmp(item->string, name) == 0)
                v = item;
        }
        if (v == NULL)
            continue;
        c->has[r] = true;
        if (quantity(v, r == SCORE_CPU ? SCORE_UNIT_MILLI : SCORE_UNIT_BASE, &c->req[r], err) !=
            0) {
            err_prefix(err, "%s.%s: ", path, name);
            return -EINVAL;
        }
        if (c->req[r] < 0)
            return err_fail(err, -EINVAL, "%s.%s: negative quantity", path, name);
    }
    return 0;
}

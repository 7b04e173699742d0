#include "server/codec/quantities.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "base/err.h"
#include "scoring/quantity.h"
#include "server/codec/json.h"

enum score_unit codec_unit_of(enum score_resource r)
{
    return r == SCORE_CPU ? SCORE_UNIT_MILLI : SCORE_UNIT_BASE;
}

int codec_quantity(const cJSON *v, enum score_unit unit, int64_t *out, char *why)
{
    if (v == NULL || cJSON_IsNull(v)) {
        *out = 0;
        return 0;
    }
    if (!cJSON_IsString(v)) {
        err_set(why, "want a quantity string");
        return -EINVAL;
    }
    const char *s = v->valuestring;
    size_t len = strlen(s);
    while (len > 0 && isspace((unsigned char)*s)) {
        s++;
        len--;
    }
    while (len > 0 && isspace((unsigned char)s[len - 1]))
        len--;
    const char *reason = "";
    int rc = score_quantity_parse(s, len, unit, out, &reason);
    if (rc != 0)
        err_set(why, "%s", reason);
    return rc;
}

int codec_quantities(const cJSON *list, int64_t out[SCORE_NRES], char *err)
{
    if (!cJSON_IsObject(list)) {
        err_set(err, "want an object of quantities");
        return -EINVAL;
    }
    for (int r = 0; r < SCORE_NRES; r++) {
        const char *name = score_resource_name((enum score_resource)r);
        if (codec_quantity(codec_json_member(list, name), codec_unit_of((enum score_resource)r),
                           &out[r], err) != 0) {
            err_prefix(err, "%s: ", name);
            return -EINVAL;
        }
        if (out[r] < 0) {
            err_set(err, "%s: negative", name);
            return -EINVAL;
        }
    }
    return 0;
}

int codec_resource_list(const cJSON *list, struct score_container *c, const char *path, char *err)
{
    if (list == NULL)
        return 0;
    if (!cJSON_IsObject(list)) {
        err_set(err, "%s: want an object", path);
        return -EINVAL;
    }
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
        if (codec_quantity(v, codec_unit_of((enum score_resource)r), &c->req[r], err) != 0) {
            err_prefix(err, "%s.%s: ", path, name);
            return -EINVAL;
        }
        if (c->req[r] < 0) {
            err_set(err, "%s.%s: negative quantity", path, name);
            return -EINVAL;
        }
    }
    return 0;
}

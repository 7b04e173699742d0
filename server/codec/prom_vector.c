#include "server/codec/prom_vector.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/err.h"
#include "server/codec/json.h"

/* The [time, "value"] pair of one series into @s. Returns 0 or -EINVAL. */
static int value_of(const cJSON *pair, enum score_unit unit, struct codec_prom_sample *s)
{
    const char *why;
    const cJSON *ts = cJSON_GetArrayItem(pair, 0), *v = cJSON_GetArrayItem(pair, 1);
    if (!cJSON_IsArray(pair) || cJSON_GetArraySize(pair) != 2 || !cJSON_IsNumber(ts) ||
        !isfinite(ts->valuedouble) || !cJSON_IsString(v))
        return -EINVAL;
    /* "NaN", "+Inf" and "-Inf" are not quantities, and a negative one is
     * refused below: none of them is a usage. */
    size_t n = strlen(v->valuestring);
    if (n == 0 || n > SCORE_QUANTITY_MAX_LEN || v->valuestring[0] == '-' ||
        score_quantity_parse(v->valuestring, n, unit, &s->value, &why) != 0 || s->value < 0)
        return -EINVAL;
    s->timestamp = ts->valuedouble;
    return 0;
}

int codec_prom_vector(const char *body, size_t len, const char *label, enum score_unit unit,
                      void (*fn)(void *ctx, const struct codec_prom_sample *s), void *ctx,
                      size_t *skipped, char *err)
{
    cJSON *root = cJSON_ParseWithLength(body, len);
    const cJSON *status = codec_json_member(root, "status");
    const cJSON *data = codec_json_member(root, "data");
    const cJSON *type = codec_json_member(data, "resultType");
    const cJSON *result = codec_json_member(data, "result"), *series;
    int calls = 0;

    *skipped = 0;
    if (!cJSON_IsObject(root)) {
        err_set(err, "Prometheus answer is not a JSON object");
        goto bad;
    }
    if (cJSON_IsString(status) && strcmp(status->valuestring, "error") == 0) {
        const cJSON *etype = codec_json_member(root, "errorType");
        const cJSON *emsg = codec_json_member(root, "error");
        err_set(err, "status error: %.64s: %.300s",
                cJSON_IsString(etype) ? etype->valuestring : "(no errorType)",
                cJSON_IsString(emsg) ? emsg->valuestring : "(no error)");
        goto bad;
    }
    if (!cJSON_IsString(status) || strcmp(status->valuestring, "success") != 0) {
        err_set(err, "Prometheus answer without status \"success\"");
        goto bad;
    }
    if (!cJSON_IsString(type) || strcmp(type->valuestring, "vector") != 0) {
        err_set(err, "Prometheus answered a %.32s, not an instant vector (one series per node)",
                cJSON_IsString(type) ? type->valuestring : "result without a resultType");
        goto bad;
    }
    if (!cJSON_IsArray(result)) {
        err_set(err, "Prometheus vector without a result array");
        goto bad;
    }
    cJSON_ArrayForEach(series, result)
    {
        struct codec_prom_sample s;
        const cJSON *node = codec_json_member(codec_json_member(series, "metric"), label);
        if (!cJSON_IsString(node) || node->valuestring[0] == '\0' ||
            value_of(codec_json_member(series, "value"), unit, &s) != 0) {
            (*skipped)++;
            continue;
        }
        s.node = node->valuestring;
        fn(ctx, &s);
        calls++;
    }
    cJSON_Delete(root);
    return calls;
bad:
    cJSON_Delete(root);
    return -EINVAL;
}

size_t codec_prom_vector_bound(size_t nodes)
{
    size_t series = nodes + nodes / 8 + CODEC_PROM_SPARE;
    return series * CODEC_PROM_SERIES_MAX + (64u << 10);
}

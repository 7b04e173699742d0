#include "server/codec/node_metrics.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "base/err.h"
#include "server/codec/json.h"
#include "server/codec/quantities.h"

/* RFC 3339 "2026-12-02T16:00:00Z" (UTC, optional fraction) into wall-clock
 * seconds. Returns 0 or -EINVAL. */
static int parse_time(const char *s, double *out)
{
    struct tm tm;
    memset(&tm, 0, sizeof(tm));
    const char *rest = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
    double frac = 0;
    if (rest == NULL)
        return -EINVAL;
    if (*rest == '.') {
        double scale = 0.1;
        for (rest++; *rest >= '0' && *rest <= '9'; rest++, scale /= 10)
            frac += (*rest - '0') * scale;
    }
    if (strcmp(rest, "Z") != 0)
        return -EINVAL;
    time_t t = timegm(&tm);
    if (t == (time_t)-1)
        return -EINVAL;
    *out = (double)t + frac;
    return 0;
}

/* A Go duration ("20s", "1m0.5s", "500ms", "1.5h") into seconds. Returns 0
 * or -EINVAL. */
static int parse_duration(const char *s, double *out)
{
    double total = 0;
    if (*s == '\0')
        return -EINVAL;
    while (*s != '\0') {
        char *end;
        double v = strtod(s, &end);
        if (end == s || v < 0)
            return -EINVAL;
        s = end;
        static const struct {
            const char *unit;
            double seconds;
        } units[] = {{"ns", 1e-9}, {"us", 1e-6}, {"\xc2\xb5s", 1e-6}, {"ms", 1e-3},
                     {"s", 1},     {"m", 60},    {"h", 3600}};
        size_t i;
        for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
            size_t n = strlen(units[i].unit);
            /* "m" must not take the "m" of "ms": longer units come first. */
            if (strncmp(s, units[i].unit, n) == 0) {
                total += v * units[i].seconds;
                s += n;
                break;
            }
        }
        if (i == sizeof(units) / sizeof(units[0]))
            return -EINVAL;
    }
    *out = total;
    return 0;
}

static int sample_of(const cJSON *item, struct codec_node_sample *s)
{
    char why[ERR_LEN];
    const cJSON *name = codec_json_member(codec_json_member(item, "metadata"), "name");
    const cJSON *ts = codec_json_member(item, "timestamp");
    const cJSON *window = codec_json_member(item, "window");
    const cJSON *usage = codec_json_member(item, "usage");
    struct score_container c = {0};

    s->window = 0;
    if (!cJSON_IsString(name) || !cJSON_IsString(ts) ||
        parse_time(ts->valuestring, &s->timestamp) != 0 ||
        (cJSON_IsString(window) && parse_duration(window->valuestring, &s->window) != 0) ||
        !cJSON_IsObject(usage) || codec_resource_list(usage, &c, "usage", why) != 0)
        return -EINVAL;
    s->node = name->valuestring;
    memcpy(s->usage, c.req, sizeof(s->usage));
    return 0;
}

int codec_node_metrics(const char *body, size_t len,
                       void (*fn)(void *ctx, const struct codec_node_sample *s), void *ctx,
                       size_t *skipped, char *err)
{
    cJSON *root = cJSON_ParseWithLength(body, len);
    const cJSON *items = codec_json_member(root, "items"), *item;
    int calls = 0;

    *skipped = 0;
    if (!cJSON_IsArray(items)) {
        err_set(err, "metrics.k8s.io answer without an items array");
        cJSON_Delete(root);
        return -EINVAL;
    }
    cJSON_ArrayForEach(item, items)
    {
        struct codec_node_sample s;
        if (sample_of(item, &s) != 0) {
            (*skipped)++;
            continue;
        }
        fn(ctx, &s);
        calls++;
    }
    cJSON_Delete(root);
    return calls;
}

size_t codec_node_metrics_bound(size_t nodes)
{
    size_t items = nodes + nodes / 8 + CODEC_NODE_METRICS_SPARE;
    return items * CODEC_NODE_METRICS_ITEM_MAX + (64u << 10);
}

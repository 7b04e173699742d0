#include "bench/measure.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "config/config.h"
#include "server/codec/scan.h"
#include "server/verbs/filter.h"
#include "server/verbs/prioritize.h"

int bench_mode_parse(const char *name, enum bench_mode *out)
{
    static const char *const names[] = {
        [BENCH_SCAN] = "scan",
        [BENCH_PARSE] = "parse",
        [BENCH_PRIORITIZE] = "prioritize",
        [BENCH_FILTER] = "filter",
    };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(name, names[i]) == 0) {
            *out = (enum bench_mode)i;
            return 0;
        }
    return -EINVAL;
}

void bench_cfg(struct cfg *c)
{
    cfg_defaults(c);
    c->max_nodes = 100000; /* the option's maximum: no generated body hits it */
}

void bench_init(void)
{
}

int bench_run_mode(enum bench_mode mode, const struct cfg *c, struct arena *a, const char *body,
                   size_t len)
{
    struct codec_scan s;
    struct verb_reply r;
    cJSON *root;

    switch (mode) {
    case BENCH_SCAN:
        return codec_scan_validate(body, len, &s) == 0 ? 0 : -EINVAL;
    case BENCH_PARSE:
        if ((root = cJSON_ParseWithLength(body, len)) == NULL)
            return -EINVAL;
        cJSON_Delete(root);
        return 0;
    case BENCH_PRIORITIZE:
    case BENCH_FILTER: {
        const struct verb_ctx ctx = {.cfg = c, .arena = a};
        if (mode == BENCH_FILTER)
            verb_filter(&ctx, body, len, &r);
        else
            verb_prioritize(&ctx, body, len, &r);
        /* The answer is in the arena (the server hands it to libmicrohttpd
         * and releases the arena once it is sent). */
        return r.status == 200 ? 0 : -EINVAL;
    }
    }
    return -EINVAL;
}

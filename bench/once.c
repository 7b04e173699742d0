/*
 * bench-once: runs one request in-process, for instruction counts.
 *
 *   valgrind --tool=callgrind --toggle-collect=bench_run bench-once MODE FILE
 *
 * MODE parse: only cJSON_ParseWithLengthOpts into a warm arena (the floor);
 * filter / prioritize: the whole handler (parse, decode, score, answer).
 * Instructions are counted, not time: the arena's first chunk allocations
 * are a few hundred instructions of the total.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "config/config.h"
#include "base/arena.h"
#include "server/codec/json.h"
#include "server/verbs/filter.h"
#include "server/verbs/prioritize.h"
#include "tests/support/fixtures.h"

void bench_run(const char *mode, const struct cfg *c, const char *body, size_t len);

__attribute__((noinline)) void bench_run(const char *mode, const struct cfg *c, const char *body,
                                         size_t len)
{
    struct verb_reply r;
    struct arena *a = arena_acquire();
    if (strcmp(mode, "parse") == 0) {
        cJSON *root;
        size_t at;
        if (codec_json_tree(a, body, len, &root, &at) != 0)
            exit(1);
    } else {
        const struct verb_ctx ctx = {.cfg = c, .arena = a};
        if (strcmp(mode, "filter") == 0)
            verb_filter(&ctx, body, len, &r);
        else
            verb_prioritize(&ctx, body, len, &r);
        free(r.body);
    }
    arena_release(a);
}

int main(int argc, char **argv)
{
    struct cfg c;
    size_t len;
    if (argc != 3) {
        fprintf(stderr, "usage: bench-once parse|filter|prioritize FILE\n");
        return 2;
    }
    char *body = file_slurp(argv[2], &len);
    if (body == NULL)
        return 1;
    cfg_defaults(&c);
    codec_json_install_hooks();
    bench_run(argv[1], &c, body, len);
    arena_pool_drain();
    free(body);
    return 0;
}

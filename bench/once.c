/*
 * bench-once: runs one request in-process, for instruction counts.
 *
 *   valgrind --tool=callgrind --toggle-collect=bench_run bench-once MODE FILE
 *
 * MODE scan: codec_scan_validate() over the body, one validating pass with
 * no output (the floor); parse: the body as a cJSON tree in a warm arena
 * (the floor before the scanner, for reference); filter / prioritize: the
 * whole handler (decode, score, answer) as bench/measure.c runs it for
 * bench-driver. Instructions are counted, not time: the arena's first
 * chunk allocations are a few hundred instructions of the total. Exits 1
 * when the body does not scan or parse or the verb does not answer 200.
 */
#include <stdio.h>
#include <stdlib.h>

#include "base/arena.h"
#include "bench/measure.h"
#include "config/config.h"
#include "tests/support/fixtures.h"

int bench_run(enum bench_mode mode, const struct cfg *c, const char *body, size_t len);

__attribute__((noinline)) int bench_run(enum bench_mode mode, const struct cfg *c, const char *body,
                                        size_t len)
{
    struct arena *a = arena_acquire();
    if (a == NULL)
        return -1;
    int rc = bench_run_mode(mode, c, a, body, len);
    arena_release(a);
    return rc;
}

int main(int argc, char **argv)
{
    struct cfg c;
    enum bench_mode mode;
    size_t len;
    if (argc != 3 || bench_mode_parse(argv[1], &mode) != 0) {
        fprintf(stderr, "usage: bench-once scan|parse|filter|prioritize FILE\n");
        return 2;
    }
    char *body = file_slurp(argv[2], &len);
    if (body == NULL) {
        fprintf(stderr, "bench-once: cannot read %s\n", argv[2]);
        return 1;
    }
    bench_cfg(&c);
    bench_init();
    int rc = bench_run(mode, &c, body, len);
    arena_pool_drain();
    free(body);
    if (rc != 0)
        fprintf(stderr, "bench-once: %s of %s failed\n", argv[1], argv[2]);
    return rc == 0 ? 0 : 1;
}

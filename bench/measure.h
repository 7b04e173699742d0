/*
 * The in-process measurements of the benchmark, one code path for
 * bench-driver (timed, beside the HTTP round trips) and bench-once
 * (instructions counted by callgrind), so that both measure the same thing.
 *
 *   scan        codec_scan_validate() over the body: one validating pass,
 *               no output (the floor the request decoder is held to)
 *   parse       cJSON's own parser over the body, malloc'd and deleted
 *               (the floor before the scanner, kept as a reference)
 *   prioritize  verb_prioritize() / verb_filter(), as the server calls them
 *   filter      without a cluster: decode, score, answer, and free the answer
 */
#ifndef BENCH_MEASURE_H
#define BENCH_MEASURE_H

#include <stddef.h>

struct arena;
struct cfg;

enum bench_mode {
    BENCH_SCAN = 0,
    BENCH_PARSE,
    BENCH_PRIORITIZE,
    BENCH_FILTER,
};

/* The mode named @name ("scan", "parse", "prioritize", "filter"); -EINVAL
 * for another name. */
int bench_mode_parse(const char *name, enum bench_mode *out);

/* The configuration both programs run the verbs with: the defaults, and
 * room for the largest generated NodeList. */
void bench_cfg(struct cfg *c);

/* Once before any bench_run_mode(): cJSON allocates in the arena, as in
 * the server. */
void bench_init(void);

/*
 * One run of @mode over @body (@len bytes followed by a NUL) in @a, a warm
 * arena from arena_acquire() that the caller releases. Returns 0, or -EINVAL
 * when the body does not scan or parse, or the verb did not answer 200 (a
 * benchmark of an error path would measure nothing it means to).
 */
int bench_run_mode(enum bench_mode mode, const struct cfg *c, struct arena *a, const char *body,
                   size_t len);

#endif

/*
 * The rows of simulate's summary, one cell per strategy, shared by the text
 * (simulate_print.c) and the page (simulate_html.c), and the amounts as
 * they are written.
 */
#ifndef WHATIF_SIMULATE_ROWS_H
#define WHATIF_SIMULATE_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "whatif/simulate_print.h"

/* One row: its label and how a strategy's cell is written (@k: which
 * figure); a heading has no cell. */
struct whatif_sim_row {
    const char *label;
    void (*cell)(const struct whatif_sim_report *r, const struct place_sim_result *res, int k,
                 char *buf, size_t n);
    int k;
};

/* The rows in order: pods placed and not, nodes used and given pods, cpu and
 * memory requested / allocatable (min, max, mean, cv), stranded. */
extern const struct whatif_sim_row whatif_sim_rows[];
extern const size_t whatif_sim_n_rows;

/* CPU as Kubernetes writes a quantity: millicores below a core ("250m"),
 * else cores with the decimals needed ("1.5", "28033.09"). */
void whatif_sim_cpu_amount(char *buf, size_t n, int64_t milli);

/* An amount of resource @r (SCORE_CPU millicores, else bytes) for the
 * summary. */
void whatif_sim_amount(char *buf, size_t n, int r, int64_t v);

#endif

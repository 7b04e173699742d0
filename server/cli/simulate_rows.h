/*
 * The rows of simulate's summary, one cell per strategy, shared by the text
 * (simulate_print.c) and the page (simulate_html.c), and the amounts as
 * they are written.
 */
#ifndef SERVER_CLI_SIMULATE_ROWS_H
#define SERVER_CLI_SIMULATE_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "server/cli/simulate_print.h"

/* One row: its label and how a strategy's cell is written (@k: which
 * figure); a heading has no cell. */
struct cli_sim_row {
    const char *label;
    void (*cell)(const struct cli_sim_report *r, const struct score_sim_result *res, int k,
                 char *buf, size_t n);
    int k;
};

/* The rows in order: pods placed and not, nodes used and given pods, cpu and
 * memory requested / allocatable (min, max, mean, cv), stranded. */
extern const struct cli_sim_row cli_sim_rows[];
extern const size_t cli_sim_n_rows;

/* CPU as Kubernetes writes a quantity: millicores below a core ("250m"),
 * else cores with the decimals needed ("1.5", "28033.09"). */
void cli_sim_cpu_amount(char *buf, size_t n, int64_t milli);

/* An amount of resource @r (SCORE_CPU millicores, else bytes) for the
 * summary. */
void cli_sim_amount(char *buf, size_t n, int r, int64_t v);

#endif

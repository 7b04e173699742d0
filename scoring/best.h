/*
 * Best-node selection, one rule for the verbs, `rank` and `simulate`: the
 * highest score, then the highest value (the finer 0..100 number behind
 * it), the first candidate offered on a tie. Candidates are offered in the
 * caller's order (request order for the verbs, name order for simulate),
 * only those the caller lets compete (e.g. the ones that fit).
 * Pure and thread-safe.
 */
#ifndef SCORING_BEST_H
#define SCORING_BEST_H

#include <stddef.h>

#include "scoring/strategy.h"

/* The best so far; start with score_best_init(). */
struct score_best {
    long index; /* -1 while nothing was offered */
    int score, value;
};

void score_best_init(struct score_best *b);

/* Offers candidate @index with its finished explanation @ex (score set by
 * score_finish()); it becomes the best when it beats the best so far. */
void score_best_offer(struct score_best *b, long index, const struct score_explain *ex);

#endif

#include "scoring/best.h"

void score_best_init(struct score_best *b)
{
    *b = (struct score_best){.index = -1};
}

void score_best_offer(struct score_best *b, long index, const struct score_explain *ex)
{
    /* Strictly better only: an equal candidate offered later never wins. */
    if (b->index >= 0 && (ex->score < b->score || (ex->score == b->score && ex->value <= b->value)))
        return;
    b->index = index;
    b->score = ex->score;
    b->value = ex->value;
}

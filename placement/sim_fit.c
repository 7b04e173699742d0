#include "placement/sim_fit.h"

/* @x clamped to -1 .. INT64_MAX: the same answer to "r > room" for every
 * request r in 1 .. INT64_MAX. */
static int64_t clamp_room(__int128 x)
{
    return x < 0 ? -1 : x > INT64_MAX ? INT64_MAX : (int64_t)x;
}

void place_sim_room_set(struct sim_fit_room *room, const struct place_sim_node_state *ns,
                        int64_t max_pods, const int threshold_percent[SCORE_NRES])
{
    const struct score_node *res = &ns->res;
    room->full = ns->pods >= max_pods;
    for (int k = 0; k < SCORE_NRES; k++) {
        /* score_fit at 100 %: (requested + r) * 100 <= alloc * 100. */
        room->k8s[k] = clamp_room((__int128)res->alloc[k] - ns->requested[k]);
        /* r * 100 <= x holds exactly for r <= floor(x / 100); for x >= 0
         * that is x / 100, and x < 0 admits no r > 0. */
        __int128 x = (__int128)res->alloc[k] * threshold_percent[k] - (__int128)res->used[k] * 100;
        room->ext[k] = x < 0 ? -1 : clamp_room(x / 100);
    }
}

#include "server/verbs/answers.h"

#include "base/arena.h"

const struct codec_node_answer *verb_node_answers(struct arena *a, const struct verb_node *eval,
                                                  size_t n)
{
    struct codec_node_answer *ans = arena_alloc(a, (n + 1) * sizeof(*ans));
    if (ans == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        ans[i].verdict = eval[i].verdict;
        ans[i].reason = eval[i].reason;
        ans[i].score = eval[i].explain.score;
    }
    return ans;
}

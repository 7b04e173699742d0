/* From what scoring said of each node to what the answer says of it. */
#ifndef SERVER_VERBS_ANSWERS_H
#define SERVER_VERBS_ANSWERS_H

#include <stddef.h>

#include "server/codec/types.h"
#include "server/verbs/evaluate.h"

struct arena;

/* The verdict, reason and score of each of the @n nodes of @eval, in @a
 * (the codec writes answers from these). NULL when out of memory. */
const struct codec_node_answer *verb_node_answers(struct arena *a, const struct verb_node *eval,
                                                  size_t n);

#endif

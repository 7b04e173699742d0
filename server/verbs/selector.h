/* The pod selector: which pods the extender scores at all. */
#ifndef SERVER_VERBS_SELECTOR_H
#define SERVER_VERBS_SELECTOR_H

#include "config/config.h"
#include "server/codec/types.h"
#include "server/ops/labels.h"

/* What a verb answers for @pod before any deadline is considered: nothing
 * of its own outside mode enforce and the selector (passthrough, or shadow:
 * judged but not answered), else what scoring says. One rule for filter,
 * prioritize and preempt. */
enum ops_answer verb_answer_kind(const struct cfg *cfg, const struct codec_pod *pod);

#endif

/*
 * How much memory a verb request may use, known before its body is read:
 * what the memory budget (server/http/budget.h) charges it at its headers
 * and the limit its arena is held to (arena_set_limit). Everything a
 * request holds is in its arena: the body, what is decoded from it, the
 * scores, the answer (the filter's NodeList answer sends the passing Node
 * objects from the body itself). The factors are measured on the bodies
 * kube-scheduler sends (tests/server/verbs/test_memory.c checks each
 * against them; docs/reliability.md, "Memory", has the figures).
 */
#ifndef SERVER_VERBS_MEMORY_H
#define SERVER_VERBS_MEMORY_H

#include <stddef.h>

#include "config/config.h"
#include "server/ops/labels.h"

/* Bytes of arena a request of @verb with a body of @body_len bytes
 * (the body cap when the length is not known) is charged, under cfg's
 * max-nodes. */
size_t verb_memory_charge(enum ops_verb verb, size_t body_len, const struct cfg *cfg);

#endif

/*
 * Values the documentation advises against: valid, so they are served,
 * but each is said once (`config check` prints them, `serve` logs them at
 * start) with what it costs.
 */
#ifndef CONFIG_ADVICE_H
#define CONFIG_ADVICE_H

#include "config/config.h"

/* Calls @fn once per piece of advice @c earns, with the config-file key it
 * is about and a sentence (static or in a buffer valid for the call);
 * returns how many there were. */
int cfg_advice(const struct cfg *c, void (*fn)(void *ctx, const char *key, const char *text),
               void *ctx);

#endif

/*
 * The configuration in use, swappable while requests run (SIGHUP or a
 * changed config file). Each request takes a reference for its whole life,
 * so a reload never changes the rules under a request in flight, and the
 * old configuration is freed when its last request ends.
 */
#ifndef CONFIG_LIVE_H
#define CONFIG_LIVE_H

#include <pthread.h>

#include "config/config.h"

struct cfg_live {
    pthread_mutex_t lock; /* guards current and the taking of references */
    struct cfg_ref *current;
};

/* Starts with a copy of @c. Returns 0 or -ENOMEM. */
int cfg_live_init(struct cfg_live *l, const struct cfg *c);

/* A reference to the configuration in use; give it back with
 * cfg_live_release(). Thread-safe. */
const struct cfg *cfg_live_acquire(struct cfg_live *l);

/* Gives back a reference from cfg_live_acquire(). Thread-safe. */
void cfg_live_release(const struct cfg *c);

/* Makes a copy of @next the configuration in use. Returns 0 or -ENOMEM
 * (the old one stays). Thread-safe. */
int cfg_live_swap(struct cfg_live *l, const struct cfg *next);

/* Drops the live reference; call when no request can run any more. */
void cfg_live_destroy(struct cfg_live *l);

#endif

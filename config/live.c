#include "config/live.h"

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* A configuration and the number of holders: the live slot counts as one. */
struct cfg_ref {
    struct cfg cfg;
    atomic_int refs;
};

static struct cfg_ref *ref_new(const struct cfg *c)
{
    struct cfg_ref *r = malloc(sizeof(*r));
    if (r == NULL)
        return NULL;
    r->cfg = *c;
    atomic_init(&r->refs, 1);
    return r;
}

static void ref_put(struct cfg_ref *r)
{
    if (r != NULL && atomic_fetch_sub(&r->refs, 1) == 1)
        free(r);
}

int cfg_live_init(struct cfg_live *l, const struct cfg *c)
{
    l->current = NULL;
    pthread_mutex_init(&l->lock, NULL);
    return cfg_live_swap(l, c);
}

const struct cfg *cfg_live_acquire(struct cfg_live *l)
{
    pthread_mutex_lock(&l->lock);
    struct cfg_ref *r = l->current;
    atomic_fetch_add(&r->refs, 1);
    pthread_mutex_unlock(&l->lock);
    return &r->cfg;
}

void cfg_live_release(const struct cfg *c)
{
    if (c == NULL)
        return;
    /* c is the first member of its cfg_ref (container_of). */
    ref_put((struct cfg_ref *)(void *)((char *)(uintptr_t)c - offsetof(struct cfg_ref, cfg)));
}

int cfg_live_swap(struct cfg_live *l, const struct cfg *next)
{
    struct cfg_ref *r = ref_new(next), *old;
    if (r == NULL)
        return -ENOMEM;
    pthread_mutex_lock(&l->lock);
    old = l->current;
    l->current = r;
    pthread_mutex_unlock(&l->lock);
    ref_put(old);
    return 0;
}

void cfg_live_destroy(struct cfg_live *l)
{
    ref_put(l->current);
    l->current = NULL;
    pthread_mutex_destroy(&l->lock);
}

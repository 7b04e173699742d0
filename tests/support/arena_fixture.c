#include "tests/support/arena_fixture.h"

#include "server/arena.h"

static struct arena *arena;

void arena_fixture_setup(void)
{
    arena = arena_acquire();
}

void arena_fixture_teardown(void)
{
    arena_release(arena);
    arena = NULL;
    arena_pool_drain();
}

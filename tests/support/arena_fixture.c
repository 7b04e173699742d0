#include "tests/support/arena_fixture.h"

#include <check.h>

#include "base/arena.h"

struct arena *test_arena;

void arena_fixture_setup(void)
{
    test_arena = arena_acquire();
    ck_assert_ptr_nonnull(test_arena);
}

void arena_fixture_teardown(void)
{
    arena_release(test_arena);
    test_arena = NULL;
    arena_pool_drain();
}

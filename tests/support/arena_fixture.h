/* A Check fixture that gives each test a request arena, as the server does
 * for a request: tcase_add_checked_fixture(tc, arena_fixture_setup,
 * arena_fixture_teardown), then test_arena in the test. */
#ifndef TESTS_SUPPORT_ARENA_FIXTURE_H
#define TESTS_SUPPORT_ARENA_FIXTURE_H

struct arena;

/* The arena of the running test (NULL outside the fixture). */
extern struct arena *test_arena;

void arena_fixture_setup(void);
void arena_fixture_teardown(void);

#endif

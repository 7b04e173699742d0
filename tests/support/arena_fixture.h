/* A Check fixture that attaches an arena for the test, as the server does
 * for a request: tcase_add_checked_fixture(tc, arena_fixture_setup,
 * arena_fixture_teardown). */
#ifndef TESTS_SUPPORT_ARENA_FIXTURE_H
#define TESTS_SUPPORT_ARENA_FIXTURE_H

void arena_fixture_setup(void);
void arena_fixture_teardown(void);

#endif

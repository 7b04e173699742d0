/* base/arena.c: request memory. What its header promises: 16-byte aligned
 * allocations, zeroed arena_calloc and overflow caught, chunks added past
 * the first one without moving what was handed out, a limit that makes
 * allocations fail (and the grow function that may lift it), arena_used
 * counting what was touched, and a released arena coming back empty. */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "base/arena.h"
#include "tests/suites.h"

#define KIB ((size_t)1024)
#define MIB (KIB * KIB)

/* A fresh arena: the pool may hold a warm one whose chunk size depends
 * on the tests run before. */
static struct arena *fresh(void)
{
    arena_pool_drain();
    struct arena *a = arena_acquire();
    ck_assert_ptr_nonnull(a);
    return a;
}

START_TEST(arena_aligns_and_zeroes)
{
    struct arena *a = fresh();
    const size_t sizes[] = {1, 3, 16, 17, 100, 0};
    char *prev = NULL;
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        char *p = arena_alloc(a, sizes[i]);
        ck_assert_ptr_nonnull(p); /* even 0 bytes: a pointer of its own */
        ck_assert_uint_eq((uintptr_t)p % ARENA_ALIGN, 0);
        ck_assert_ptr_ne(p, prev);
        memset(p, 0xa5, sizes[i]);
        prev = p;
    }
    unsigned char *z = arena_calloc(a, 10, 7);
    ck_assert_ptr_nonnull(z);
    for (size_t i = 0; i < 70; i++)
        ck_assert_uint_eq(z[i], 0);
    char *s = arena_strndup(a, "node-1 and more", 6);
    ck_assert_str_eq(s, "node-1");
    /* Sizes that cannot be: NULL, not a short block. */
    ck_assert_ptr_null(arena_alloc(a, SIZE_MAX));
    ck_assert_ptr_null(arena_calloc(a, SIZE_MAX / 2, 4));
    arena_release(a);
}
END_TEST

START_TEST(arena_grows_past_a_chunk)
{
    struct arena *a = fresh();
    /* The first chunk is 1 MiB: three of 600 KiB need another one, and
     * what was handed out stays where it is. */
    char *p[3];
    for (int i = 0; i < 3; i++) {
        p[i] = arena_alloc(a, 600 * KIB);
        ck_assert_ptr_nonnull(p[i]);
        memset(p[i], 'a' + i, 600 * KIB);
    }
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(p[i][600 * KIB - 1], 'a' + i);
    ck_assert_uint_ge(arena_used(a), 3 * 600 * KIB);
    /* One larger than the next chunk gets a chunk its size. */
    char *big = arena_alloc(a, 9 * MIB);
    ck_assert_ptr_nonnull(big);
    big[9 * MIB - 1] = 'z';
    ck_assert_uint_ge(arena_used(a), 3 * 600 * KIB + 9 * MIB);
    arena_release(a);
}
END_TEST

START_TEST(arena_counts_what_it_hands_out)
{
    struct arena *a = fresh();
    ck_assert_uint_eq(arena_used(a), 0);
    ck_assert_ptr_nonnull(arena_alloc(a, 100));
    ck_assert_uint_eq(arena_used(a), 112); /* rounded up to the alignment */
    ck_assert_ptr_nonnull(arena_alloc(a, 16));
    ck_assert_uint_eq(arena_used(a), 128);
    arena_release(a);
    /* Back from the pool, the same arena is empty and works. */
    a = arena_acquire();
    ck_assert_ptr_nonnull(a);
    ck_assert_uint_eq(arena_used(a), 0);
    ck_assert_ptr_nonnull(arena_alloc(a, 100));
    ck_assert_uint_eq(arena_used(a), 112);
    arena_release(a);
    arena_release(NULL); /* fine, as free(NULL) */
    arena_pool_drain();
}
END_TEST

START_TEST(arena_fails_past_its_limit)
{
    struct arena *a = fresh();
    arena_set_limit(a, 64 * KIB);
    ck_assert_ptr_null(arena_alloc(a, 100 * KIB)); /* more than the limit at once */
    ck_assert_ptr_nonnull(arena_alloc(a, 32 * KIB));
    ck_assert_ptr_null(arena_alloc(a, 40 * KIB)); /* 32 KiB left */
    ck_assert_ptr_nonnull(arena_alloc(a, 32 * KIB));
    ck_assert_ptr_null(arena_alloc(a, 1));
    ck_assert_uint_le(arena_used(a), 64 * KIB);
    arena_release(a);
    /* The limit ends with the request: the next one may take more. */
    a = arena_acquire();
    ck_assert_ptr_nonnull(arena_alloc(a, 2 * MIB));
    arena_release(a);

    /* A limit below the warm chunk's room cuts it. */
    a = fresh();
    ck_assert_ptr_nonnull(arena_alloc(a, 16)); /* maps the 1 MiB chunk */
    arena_set_limit(a, 16 * KIB);
    ck_assert_ptr_null(arena_alloc(a, 17 * KIB));
    ck_assert_ptr_nonnull(arena_alloc(a, 16 * KIB));
    ck_assert_ptr_null(arena_alloc(a, 1));
    arena_release(a);
    arena_pool_drain();
}
END_TEST

struct grant {
    size_t budget; /* grants an ask up to this, else nothing */
    int calls;
};

static size_t grant_upto(void *ctx, size_t want)
{
    struct grant *g = ctx;
    g->calls++;
    if (want > g->budget)
        return 0;
    g->budget -= want;
    return want;
}

START_TEST(arena_limit_grows_by_its_function)
{
    struct arena *a = fresh();
    struct grant g = {.budget = 50 * KIB};
    arena_set_limit(a, 64 * KIB);
    arena_set_grow(a, grant_upto, &g);
    /* Asked for a whole chunk first (refused), then for what 100 KiB
     * needs beyond the limit: 36 KiB, granted. */
    ck_assert_ptr_nonnull(arena_alloc(a, 100 * KIB));
    ck_assert_int_eq(g.calls, 2);
    ck_assert_uint_eq(g.budget, 14 * KIB);
    /* Nothing left to grant beyond the 14 KiB: 20 KiB more fails. */
    ck_assert_ptr_null(arena_alloc(a, 20 * KIB));
    arena_release(a); /* clears the function */
    a = arena_acquire();
    arena_set_limit(a, 16 * KIB);
    g.calls = 0;
    ck_assert_ptr_null(arena_alloc(a, 32 * KIB));
    ck_assert_int_eq(g.calls, 0);
    arena_release(a);
    arena_pool_drain();
}
END_TEST

Suite *arena_suite(void)
{
    Suite *s = suite_create("arena");
    TCase *tc = tcase_create("arena");
    tcase_add_test(tc, arena_aligns_and_zeroes);
    tcase_add_test(tc, arena_grows_past_a_chunk);
    tcase_add_test(tc, arena_counts_what_it_hands_out);
    tcase_add_test(tc, arena_fails_past_its_limit);
    tcase_add_test(tc, arena_limit_grows_by_its_function);
    suite_add_tcase(s, tc);
    return s;
}

/* The memory budget alone (server/http/budget.c): admission, waiting, the
 * default from a cgroup limit, and reading that limit from files laid out
 * as /proc/self/cgroup and /sys/fs/cgroup are. */
#include "server/http/budget.h"

#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tests/suites.h"

#define MiB (1ULL << 20)

static struct timespec in_ms(long ms)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    t.tv_sec += ms / 1000;
    t.tv_nsec += (ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

static double since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* The rule, worked out: limit less max(64 MiB, limit / 4). */
START_TEST(budget_derived_from_the_limit_leaves_headroom)
{
    ck_assert_uint_eq(http_budget_derive(256 * MiB), 192 * MiB);
    ck_assert_uint_eq(http_budget_derive(128 * MiB), 64 * MiB);
    ck_assert_uint_eq(http_budget_derive(1024 * MiB), 768 * MiB);
    ck_assert_uint_eq(http_budget_derive(100 * MiB), 36 * MiB);
    ck_assert_uint_eq(http_budget_derive(64 * MiB), 0); /* nothing left: no budget */
    ck_assert_uint_eq(http_budget_derive(UINT64_MAX), 0);
}
END_TEST

START_TEST(budget_admits_until_full_then_refuses_in_time)
{
    struct ops_metrics m;
    struct http_budget *b;
    ops_metrics_init(&m);
    ck_assert_int_eq(http_budget_new(100, &m, &b), 0);
    struct timespec now = in_ms(0);
    ck_assert_int_eq(http_budget_reserve(b, 60, &now), 0);
    ck_assert_int_eq(http_budget_reserve(b, 40, &now), 0);
    ck_assert_uint_eq(http_budget_reserved(b), 100);
    ck_assert_uint_eq(m.memory_reserved_bytes, 100);
    ck_assert_uint_eq(m.memory_budget_bytes, 100);
    /* full: waits until the deadline, then gives up */
    struct timespec t0 = in_ms(0), until = in_ms(200);
    ck_assert_int_eq(http_budget_reserve(b, 1, &until), -ETIMEDOUT);
    double took = since(&t0);
    ck_assert_msg(took >= 0.19 && took < 1.0, "waited %.3f s for a 200 ms deadline", took);
    ck_assert_uint_eq(m.memory_waits, 1);
    ck_assert_int_eq(http_budget_try(b, 1), -ENOSPC);
    /* more than all of it: at once, whatever the deadline */
    t0 = in_ms(0);
    until = in_ms(5000);
    ck_assert_int_eq(http_budget_reserve(b, 101, &until), -E2BIG);
    ck_assert(since(&t0) < 0.1);
    http_budget_release(b, 60);
    ck_assert_int_eq(http_budget_try(b, 60), 0);
    http_budget_release(b, 100);
    ck_assert_uint_eq(http_budget_reserved(b), 0);
    ck_assert_uint_eq(m.memory_reserved_bytes, 0);
    http_budget_free(b);
}
END_TEST

struct later {
    struct http_budget *b;
    unsigned long long bytes;
    long after_ms;
};

static void *release_later(void *arg)
{
    const struct later *l = arg;
    usleep((useconds_t)l->after_ms * 1000);
    http_budget_release(l->b, l->bytes);
    return NULL;
}

/* A waiting request gets in as soon as one in flight ends. */
START_TEST(budget_waiter_gets_in_when_room_is_released)
{
    struct http_budget *b;
    pthread_t t;
    ck_assert_int_eq(http_budget_new(100, NULL, &b), 0);
    struct timespec now = in_ms(0);
    ck_assert_int_eq(http_budget_reserve(b, 80, &now), 0);
    struct later l = {b, 80, 150};
    ck_assert_int_eq(pthread_create(&t, NULL, release_later, &l), 0);
    struct timespec t0 = in_ms(0), until = in_ms(2000);
    ck_assert_int_eq(http_budget_reserve(b, 50, &until), 0);
    double took = since(&t0);
    pthread_join(t, NULL);
    ck_assert_msg(took >= 0.14 && took < 1.5, "admitted after %.3f s", took);
    ck_assert_uint_eq(http_budget_reserved(b), 50);
    http_budget_release(b, 50);
    http_budget_free(b);
}
END_TEST

/* No budget: everything admitted, still counted for the gauge; a resize
 * applies to what comes next. */
START_TEST(budget_none_admits_everything_and_resizes)
{
    struct ops_metrics m;
    struct http_budget *b;
    ops_metrics_init(&m);
    ck_assert_int_eq(http_budget_new(0, &m, &b), 0);
    struct timespec now = in_ms(0);
    ck_assert_int_eq(http_budget_reserve(b, 1ULL << 40, &now), 0);
    ck_assert_int_eq(http_budget_try(b, 1ULL << 40), 0);
    ck_assert_uint_eq(m.memory_reserved_bytes, 2ULL << 40);
    http_budget_release(b, 2ULL << 40);
    http_budget_resize(b, 10);
    ck_assert_uint_eq(http_budget_size(b), 10);
    ck_assert_uint_eq(m.memory_budget_bytes, 10);
    ck_assert_int_eq(http_budget_reserve(b, 11, &now), -E2BIG);
    ck_assert_int_eq(http_budget_reserve(b, 10, &now), 0);
    http_budget_release(b, 10);
    http_budget_free(b);
}
END_TEST

/* A tree of files in a temporary directory. */
static char dir[64];

static void put(const char *rel, const char *text)
{
    char path[256], mk[256];
    snprintf(path, sizeof(path), "%s/%s", dir, rel);
    for (char *p = path + strlen(dir) + 1; (p = strchr(p, '/')) != NULL; p++) {
        snprintf(mk, sizeof(mk), "%.*s", (int)(p - path), path);
        mkdir(mk, 0700);
    }
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static void tree_setup(void)
{
    snprintf(dir, sizeof(dir), "/tmp/cpu-extender-budget-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void tree_teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

static int limit_of(uint64_t *limit, char *source)
{
    char proc[128], root[128];
    snprintf(proc, sizeof(proc), "%s/proc-self-cgroup", dir);
    snprintf(root, sizeof(root), "%s/sys", dir);
    return http_budget_cgroup_limit(proc, root, limit, source, 512);
}

/* cgroup v2: the smallest memory.max on the way up; "max" is none. */
START_TEST(budget_cgroup_v2_takes_the_smallest_limit_above)
{
    uint64_t limit;
    char source[512];
    put("proc-self-cgroup", "0::/kubepods/pod1/c1\n");
    put("sys/kubepods/memory.max", "max\n");
    put("sys/kubepods/pod1/memory.max", "536870912\n");
    put("sys/kubepods/pod1/c1/memory.max", "268435456\n");
    ck_assert_int_eq(limit_of(&limit, source), 0);
    ck_assert_uint_eq(limit, 256 * MiB);
    ck_assert_ptr_nonnull(strstr(source, "kubepods/pod1/c1/memory.max"));
    put("sys/kubepods/pod1/memory.max", "134217728\n"); /* the pod's is smaller */
    ck_assert_int_eq(limit_of(&limit, source), 0);
    ck_assert_uint_eq(limit, 128 * MiB);
    ck_assert_ptr_nonnull(strstr(source, "kubepods/pod1/memory.max"));
    put("sys/kubepods/pod1/memory.max", "max\n");
    put("sys/kubepods/pod1/c1/memory.max", "max\n");
    ck_assert_int_eq(limit_of(&limit, source), 0);
    ck_assert_uint_eq(limit, UINT64_MAX);
    ck_assert_str_eq(source, "");
}
END_TEST

/* In a container with its own cgroup namespace the path is "/" and the
 * container's cgroup is the mount's root. */
START_TEST(budget_cgroup_v2_in_a_container_reads_the_root)
{
    uint64_t limit;
    char source[512];
    put("proc-self-cgroup", "0::/\n");
    put("sys/memory.max", "268435456\n");
    ck_assert_int_eq(limit_of(&limit, source), 0);
    ck_assert_uint_eq(limit, 256 * MiB);
}
END_TEST

/* cgroup v1: the memory hierarchy's limit_in_bytes; its "unlimited" is a
 * page count near 2^63; a host path not under the mount falls back to
 * the mount's root (a container without a cgroup namespace). */
START_TEST(budget_cgroup_v1_memory_hierarchy)
{
    uint64_t limit;
    char source[512];
    put("proc-self-cgroup", "12:pids:/docker/abc\n5:cpu,cpuacct:/docker/abc\n"
                            "4:memory:/docker/abc\n0::/\n");
    put("sys/memory/docker/abc/memory.limit_in_bytes", "268435456\n");
    put("sys/memory/memory.limit_in_bytes", "9223372036854771712\n");
    ck_assert_int_eq(limit_of(&limit, source), 0);
    ck_assert_uint_eq(limit, 256 * MiB);
    ck_assert_ptr_nonnull(strstr(source, "memory/docker/abc/memory.limit_in_bytes"));
    put("proc-self-cgroup", "4:memory:/docker/other\n");
    ck_assert_int_eq(limit_of(&limit, source), 0);
    ck_assert_uint_eq(limit, UINT64_MAX); /* the root's: unlimited */
    put("sys/memory/memory.limit_in_bytes", "134217728\n");
    ck_assert_int_eq(limit_of(&limit, source), 0);
    ck_assert_uint_eq(limit, 128 * MiB);
}
END_TEST

START_TEST(budget_cgroup_without_memory_files_is_no_limit)
{
    uint64_t limit = 1;
    char source[512];
    ck_assert_int_eq(limit_of(&limit, source), -ENOENT); /* no /proc file at all */
    ck_assert_uint_eq(limit, UINT64_MAX);
    put("proc-self-cgroup", "3:cpu:/x\n0::/y\n");
    ck_assert_int_eq(limit_of(&limit, source), -ENOENT);
    ck_assert_uint_eq(limit, UINT64_MAX);
}
END_TEST

Suite *budget_suite(void)
{
    Suite *s = suite_create("budget");
    TCase *tc = tcase_create("budget");
    tcase_add_test(tc, budget_derived_from_the_limit_leaves_headroom);
    tcase_add_test(tc, budget_admits_until_full_then_refuses_in_time);
    tcase_add_test(tc, budget_waiter_gets_in_when_room_is_released);
    tcase_add_test(tc, budget_none_admits_everything_and_resizes);
    suite_add_tcase(s, tc);
    TCase *cg = tcase_create("cgroup");
    tcase_add_checked_fixture(cg, tree_setup, tree_teardown);
    tcase_add_test(cg, budget_cgroup_v2_takes_the_smallest_limit_above);
    tcase_add_test(cg, budget_cgroup_v2_in_a_container_reads_the_root);
    tcase_add_test(cg, budget_cgroup_v1_memory_hierarchy);
    tcase_add_test(cg, budget_cgroup_without_memory_files_is_no_limit);
    suite_add_tcase(s, cg);
    return s;
}

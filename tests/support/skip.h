/*
 * Tests that cannot run here say so instead of passing: Check has no
 * "skipped", and a test that returns early counts as passed. A skip is
 * recorded with the test's name and reason; the runner lists the skips
 * after Check's summary and, when TESTS_NO_SKIP=1 (.ci/run sets it),
 * fails the run for every skip that CI can run.
 */
#ifndef TESTS_SUPPORT_SKIP_H
#define TESTS_SUPPORT_SKIP_H

#include <check.h>
#include <stdio.h>

/* Something CI provides is missing here (a tool, a cgroup): a skip in CI
 * is a failure there. The caller returns from the test after it (a
 * helper may record it too: the name is Check's, of the running test). */
#define test_skip(...) skip_record(1, tcase_name(), __VA_ARGS__)

/* The build itself cannot measure this (RSS under ASan): a skip by
 * design, also in CI. The caller returns from the test after it. */
#define test_skip_unsupported(...) skip_record(0, tcase_name(), __VA_ARGS__)

void skip_record(int ci_can_run, const char *test, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The runner: skip_open() before the suites run (the tests run in forked
 * processes, so skips go through a file they inherit); skip_report()
 * after, which prints "skipped: N" and one line per skip to @out and
 * returns how many of them CI can run. */
void skip_open(void);
int skip_report(FILE *out);

#endif

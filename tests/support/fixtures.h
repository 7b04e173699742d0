/* Reading the captured kube-scheduler requests in tests/fixtures/captured. */
#ifndef TESTS_SUPPORT_FIXTURES_H
#define TESTS_SUPPORT_FIXTURES_H

#include <stddef.h>

/* The captured requests: $FIXTURE_DIR, else tests/fixtures/captured from the
 * working directory (the repository root, where make runs the tests). */
const char *fixture_dir(void);

/* Reads @rel under fixture_dir() (e.g. "nocache-3nodes/raw/000001-filter.req.json")
 * into a malloc'd NUL-terminated buffer; fails the test when missing. */
char *fixture_read(const char *rel, size_t *len);

/* Reads any file whole, NUL-terminated (base/file.h); NULL when it cannot
 * be read. */
char *file_slurp(const char *path, size_t *len);

/* Writes @text as the whole of @path; fails the test when it cannot. */
void file_write(const char *path, const char *text);

#endif

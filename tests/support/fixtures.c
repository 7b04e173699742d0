#include "tests/support/fixtures.h"

#include <check.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/err.h"
#include "base/file.h"

const char *fixture_dir(void)
{
    const char *d = getenv("FIXTURE_DIR");
    return d != NULL && d[0] != '\0' ? d : "tests/fixtures/captured";
}

char *file_slurp(const char *path, size_t *len)
{
    char err[ERR_LEN], *buf;
    return file_read(path, SIZE_MAX / 2, FILE_ANY, &buf, len, err) == 0 ? buf : NULL;
}

char *fixture_read(const char *rel, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", fixture_dir(), rel);
    char *buf = file_slurp(path, len);
    ck_assert_msg(buf != NULL, "cannot read fixture %s", path);
    return buf;
}

void file_write(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_msg(f != NULL, "cannot write %s", path);
    ck_assert_int_eq(fputs(text, f) >= 0, 1);
    ck_assert_int_eq(fclose(f), 0);
}

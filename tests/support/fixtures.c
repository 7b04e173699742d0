#include "tests/support/fixtures.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

const char *fixture_dir(void)
{
    const char *d = getenv("FIXTURE_DIR");
    return d != NULL && d[0] != '\0' ? d : "tests/fixtures/captured";
}

char *file_read(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    char *buf = malloc((size_t)size + 1);
    if (buf != NULL && fread(buf, 1, (size_t)size, f) == (size_t)size) {
        buf[size] = '\0';
        *len = (size_t)size;
    } else {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

char *fixture_read(const char *rel, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", fixture_dir(), rel);
    char *buf = file_read(path, len);
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

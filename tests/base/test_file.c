/* base/file.c: the one whole-file reader. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/file.h"
#include "tests/suites.h"

static char dir[64];

static void setup(void)
{
    snprintf(dir, sizeof(dir), "/tmp/cpu-extender-file-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}

static void write_bytes(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(data, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}

START_TEST(file_read_whole_file_with_a_nul_after)
{
    char path[128], err[ERR_LEN], *buf;
    size_t len;
    snprintf(path, sizeof(path), "%s/a", dir);
    write_bytes(path, "a\0b", 3);
    ck_assert_int_eq(file_read(path, 3, FILE_ANY, &buf, &len, err), 0);
    ck_assert_uint_eq(len, 3);
    ck_assert(memcmp(buf, "a\0b", 4) == 0); /* the NUL after the last byte too */
    file_free_secret(buf, len);
    write_bytes(path, "", 0);
    ck_assert_int_eq(file_read(path, 0, FILE_ANY, &buf, &len, err), 0);
    ck_assert_uint_eq(len, 0);
    ck_assert_int_eq(buf[0], '\0');
    free(buf);
}
END_TEST

START_TEST(file_read_refuses_past_the_limit)
{
    char path[128], err[ERR_LEN], *buf = NULL;
    size_t len;
    snprintf(path, sizeof(path), "%s/big", dir);
    write_bytes(path, "12345", 5);
    ck_assert_int_eq(file_read(path, 4, FILE_ANY, &buf, &len, err), -EFBIG);
    ck_assert_ptr_null(buf);
    ck_assert_ptr_nonnull(strstr(err, "too large"));
    ck_assert_ptr_nonnull(strstr(err, path));
    ck_assert_int_eq(file_read(path, 5, FILE_ANY, &buf, &len, err), 0);
    free(buf);
}
END_TEST

START_TEST(file_read_missing_and_directory_say_which)
{
    char path[128], err[ERR_LEN], *buf;
    size_t len;
    snprintf(path, sizeof(path), "%s/none", dir);
    ck_assert_int_eq(file_read(path, 10, FILE_ANY, &buf, &len, err), -ENOENT);
    ck_assert_ptr_nonnull(strstr(err, path));
    ck_assert_int_eq(file_read(dir, 10, FILE_ANY, &buf, &len, err), -EIO);
    ck_assert_ptr_nonnull(strstr(err, "not a file"));
}
END_TEST

/* "-" is standard input, of unknown size: read as it comes, up to the limit. */
START_TEST(file_read_dash_is_standard_input)
{
    char err[ERR_LEN], *buf;
    size_t len;
    int p[2], saved = dup(STDIN_FILENO);
    ck_assert_int_eq(pipe(p), 0);
    char big[100000];
    memset(big, 'x', sizeof(big));
    pid_t child = fork();
    if (child == 0) {
        close(p[0]);
        ssize_t w = write(p[1], big, sizeof(big));
        _exit(w == (ssize_t)sizeof(big) ? 0 : 1);
    }
    close(p[1]);
    dup2(p[0], STDIN_FILENO);
    close(p[0]);
    int rc = file_read("-", sizeof(big), FILE_ANY, &buf, &len, err);
    dup2(saved, STDIN_FILENO);
    close(saved);
    ck_assert_int_eq(rc, 0);
    ck_assert_uint_eq(len, sizeof(big));
    ck_assert(memcmp(buf, big, sizeof(big)) == 0);
    free(buf);
}
END_TEST

/* A FIFO (no writer) is refused at once, not waited on in open(2); a
 * regular file reads as with file_read. */
START_TEST(file_read_regular_refuses_a_fifo_without_blocking)
{
    char path[128], err[ERR_LEN], *buf;
    size_t len;
    snprintf(path, sizeof(path), "%s/fifo", dir);
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    alarm(5); /* the old open(2) would wait here for ever */
    ck_assert_int_eq(file_read(path, 10, FILE_REGULAR, &buf, &len, err), -EIO);
    alarm(0);
    ck_assert_ptr_nonnull(strstr(err, "not a regular file (a FIFO)"));
    ck_assert_ptr_nonnull(strstr(err, path));
    snprintf(path, sizeof(path), "%s/plain", dir);
    write_bytes(path, "abc", 3);
    ck_assert_int_eq(file_read(path, 10, FILE_REGULAR, &buf, &len, err), 0);
    ck_assert_str_eq(buf, "abc");
    free(buf);
}
END_TEST

Suite *file_suite(void)
{
    Suite *s = suite_create("file");
    TCase *tc = tcase_create("file");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, file_read_whole_file_with_a_nul_after);
    tcase_add_test(tc, file_read_refuses_past_the_limit);
    tcase_add_test(tc, file_read_missing_and_directory_say_which);
    tcase_add_test(tc, file_read_dash_is_standard_input);
    tcase_add_test(tc, file_read_regular_refuses_a_fifo_without_blocking);
    suite_add_tcase(s, tc);
    return s;
}

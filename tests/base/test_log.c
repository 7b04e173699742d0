/* base/log.c: one JSON object per line, typed fields escaped by the writer. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "base/log.h"
#include "tests/suites.h"

/* The line that @fn writes to stderr, captured through a temporary file. */
static char *capture(void (*fn)(void))
{
    char path[] = "/tmp/cpu-extender-log-XXXXXX";
    int fd = mkstemp(path), saved = dup(STDERR_FILENO);
    ck_assert_int_ge(fd, 0);
    fflush(stderr);
    dup2(fd, STDERR_FILENO);
    fn();
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    off_t n = lseek(fd, 0, SEEK_END);
    char *line = calloc(1, (size_t)n + 1);
    ck_assert_int_eq(pread(fd, line, (size_t)n, 0), n);
    close(fd);
    unlink(path);
    return line;
}

static void forged(void)
{
    /* A name from a request trying to end the string and add fields. */
    LOG(LOG_WARN, "bind failed", LOG_NSNAME("pod", "default", "web\",\"level\":\"debug"),
        LOG_STR("node", "n\n\x01\xff"), LOG_INT("total", -3), LOG_UINT("bodyBytes", 768),
        LOG_SECONDS("durationSeconds", 0.0000614), LOG_BOOL("ok", true), LOG_STR("none", NULL));
}

START_TEST(log_fields_cannot_forge_a_field)
{
    log_set_level(LOG_INFO);
    char *line = capture(forged);
    ck_assert_int_eq(line[strlen(line) - 1], '\n');
    cJSON *j = cJSON_Parse(line);
    ck_assert_ptr_nonnull(j);
    ck_assert_str_eq(cJSON_GetObjectItem(j, "level")->valuestring, "warn");
    ck_assert_str_eq(cJSON_GetObjectItem(j, "msg")->valuestring, "bind failed");
    ck_assert_str_eq(cJSON_GetObjectItem(j, "pod")->valuestring, "default/web\",\"level\":\"debug");
    ck_assert_str_eq(cJSON_GetObjectItem(j, "node")->valuestring, "n\n\x01\xef\xbf\xbd");
    ck_assert_int_eq((int)cJSON_GetObjectItem(j, "total")->valuedouble, -3);
    ck_assert_int_eq((int)cJSON_GetObjectItem(j, "bodyBytes")->valuedouble, 768);
    ck_assert_ptr_nonnull(strstr(line, "\"durationSeconds\":0.000061,"));
    ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(j, "ok")));
    ck_assert_str_eq(cJSON_GetObjectItem(j, "none")->valuestring, "");
    ck_assert_int_eq(cJSON_GetArraySize(j), 3 + 7); /* time, level, msg and the fields */
    cJSON_Delete(j);
    free(line);
}
END_TEST

static void no_fields(void)
{
    LOG(LOG_INFO, "stopped");
    LOG(LOG_DEBUG, "hidden at info");
}

START_TEST(log_without_fields_and_below_the_level)
{
    log_set_level(LOG_INFO);
    char *line = capture(no_fields);
    ck_assert_ptr_nonnull(strstr(line, "\"level\":\"info\",\"msg\":\"stopped\"}\n"));
    ck_assert_ptr_null(strstr(line, "hidden"));
    free(line);
}
END_TEST

Suite *log_suite(void)
{
    Suite *s = suite_create("log");
    TCase *tc = tcase_create("log");
    tcase_add_test(tc, log_fields_cannot_forge_a_field);
    tcase_add_test(tc, log_without_fields_and_below_the_level);
    suite_add_tcase(s, tc);
    return s;
}

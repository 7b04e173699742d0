/* server/http/respond.c: error bodies are valid JSON whatever the message. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "server/http/respond.h"
#include "tests/suites.h"

START_TEST(error_body_escapes_the_message)
{
    const char *msg = "bad \"path\" C:\\x\tend\x01";
    size_t len;
    char *body = http_error_body(msg, &len);
    ck_assert_ptr_nonnull(body);
    ck_assert_uint_eq(len, strlen(body));
    ck_assert_str_eq(body, "{\"Error\":\"bad \\\"path\\\" C:\\\\x\\u0009end\\u0001\"}\n");
    cJSON *j = cJSON_Parse(body);
    ck_assert_ptr_nonnull(j);
    ck_assert_str_eq(cJSON_GetObjectItem(j, "Error")->valuestring, msg);
    cJSON_Delete(j);
    free(body);
}
END_TEST

/* Sized from the message: nothing is cut, however long. */
START_TEST(error_body_is_sized_from_the_message)
{
    size_t n = 5000, len;
    char *msg = malloc(n + 1);
    ck_assert_ptr_nonnull(msg);
    memset(msg, 'x', n);
    msg[n] = '\0';
    char *body = http_error_body(msg, &len);
    ck_assert_ptr_nonnull(body);
    ck_assert_uint_eq(len, n + strlen("{\"Error\":\"\"}\n"));
    ck_assert_int_eq(body[len - 1], '\n'); /* as Go's json.Encoder ends */
    free(body);
    free(msg);
}
END_TEST

Suite *respond_suite(void)
{
    Suite *s = suite_create("respond");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, error_body_escapes_the_message);
    tcase_add_test(tc, error_body_is_sized_from_the_message);
    suite_add_tcase(s, tc);
    return s;
}

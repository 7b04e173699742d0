/* server/http/respond.c: error bodies are valid JSON whatever the message. */
#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "server/http/respond.h"
#include "tests/suites.h"
#include "tests/support/http_client.h"

/* Answers every request with http_send_error(@cls: the message). */
static enum MHD_Result send_error(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_len, void **req_cls)
{
    (void)url;
    (void)method;
    (void)version;
    (void)upload;
    (void)upload_len;
    (void)req_cls;
    return http_send_error(conn, 400, cls, NULL);
}

/* The body http_send_error() sends for @msg, read from a loopback
 * connection, its length in *@len; the caller frees it. */
static char *sent_error_body(const char *msg, size_t *len)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    struct MHD_Daemon *d = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, send_error, (void *)(uintptr_t)msg,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa, MHD_OPTION_END);
    ck_assert_ptr_nonnull(d);
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    ck_assert_ptr_nonnull(info);
    struct http_response r;
    ck_assert_int_eq(http_request(info->port, "GET", "/", NULL, 0, &r), 0);
    MHD_stop_daemon(d);
    ck_assert_int_eq(r.status, 400);
    ck_assert_ptr_nonnull(strstr(r.headers, "application/json"));
    *len = r.len;
    return r.body;
}

START_TEST(error_body_escapes_the_message)
{
    const char *msg = "bad \"path\" C:\\x\tend\x01";
    size_t len;
    char *body = sent_error_body(msg, &len);
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
    char *body = sent_error_body(msg, &len);
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

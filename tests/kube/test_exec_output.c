/* What a credential plugin prints, read without running one
 * (kube/exec_output.c): the ExecCredential checks and RFC 3339 times. */
#include "kube/exec_output.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "tests/suites.h"

START_TEST(exec_times_are_rfc3339_as_go_parses_them)
{
    static const struct {
        const char *text;
        double want; /* -1: refused */
    } cases[] = {
        {"2006-01-02T15:04:05Z", 1136214245},
        {"2006-01-02T15:04:05.25Z", 1136214245.25},
        {"2006-01-02T16:34:05+01:30", 1136214245},
        {"2006-01-02T08:04:05-07:00", 1136214245},
        {"2024-02-29T23:59:59Z", 1709251199}, /* a leap day */
        {"2006-01-02 15:04:05Z", -1},
        {"2006-01-02T15:04:05", -1}, /* no zone */
        {"2006-01-02t15:04:05z", -1},
        {"2006-01-02T15:04:05.Z", -1},
        {"2023-02-29T00:00:00Z", -1},
        {"2006-13-02T15:04:05Z", -1},
        {"2006-01-02T24:00:00Z", -1},
        {"2006-01-02T15:04:60Z", -1},
        {"2006-01-02T15:04:05+0100", -1},
        {"2006-1-02T15:04:05Z", -1},
        {"2006-01-02T15:04:05Z ", -1},
        {"", -1},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        double got = -1;
        bool ok = kube_exec_is_time(cases[i].text, &got);
        ck_assert_msg(ok == (cases[i].want >= 0), "case %zu (%s): %d", i, cases[i].text, ok);
        if (ok)
            ck_assert_msg(got == cases[i].want, "case %zu: %.3f", i, got);
    }
}
END_TEST

START_TEST(exec_output_is_checked_as_client_go_checks_it)
{
    static const char w[] = "kubeconfig /k: users[u].user.exec";
    static const char v1[] = "client.authentication.k8s.io/v1";
    const double now = 1136214245; /* 2006-01-02T15:04:05Z */
    static const struct {
        const char *out, *msg; /* msg NULL: accepted */
    } cases[] = {
        {"{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
         "\"status\":{\"token\":\"abc\",\"expirationTimestamp\":\"2006-01-02T15:04:06Z\"}}",
         NULL},
        {"{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
         "\"status\":{\"token\":\"abc\",\"expirationTimestamp\":\"2006-01-02T15:04:05Z\"}}",
         "the plugin returned a credential that expired at 2006-01-02T15:04:05Z"},
        {"{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
         "\"status\":{\"token\":\"abc\",\"expirationTimestamp\":\"tomorrow\"}}",
         "status.expirationTimestamp \"tomorrow\": not an RFC 3339 time"},
        {"{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
         "\"status\":{\"token\":\"a b\"}}",
         "status.token: spaces or control characters"},
        {"{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
         "\"status\":{\"token\":7}}",
         "the plugin's status has a field that is not a string"},
        {"{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
         "\"status\":{\"clientCertificateData\":\"-----BEGIN CERTIFICATE-----\\n\"}}",
         "exec plugin returned only certificate or key, not both"},
        {"{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
         "\"status\":{\"clientCertificateData\":\"x\",\"clientKeyData\":\"y\"}}",
         "status.clientCertificateData or clientKeyData: not PEM data"},
        {"{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\"}",
         "exec plugin didn't return a status field"},
        {"{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
         "\"status\":{\"token\":\"\"}}",
         "exec plugin didn't return a token or cert/key pair"},
        {"{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"Status\","
         "\"status\":{\"token\":\"abc\"}}",
         "decoding stdout: kind \"Status\", not ExecCredential"},
        {"{\"kind\":\"ExecCredential\",\"status\":{\"token\":\"abc\"}}",
         "exec plugin is configured to use API version client.authentication.k8s.io/v1, plugin "
         "returned version none"},
        {"{\"APIVERSION\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
         "\"status\":{\"token\":\"abc\"}}",
         "plugin returned version none"}, /* keys are case-sensitive, as in apimachinery */
        {"[]", "decoding stdout: not a JSON object"},
        {"", "decoding stdout: not a JSON object"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct kube_exec_status st;
        char err[ERR_LEN] = "", want[256];
        int rc = kube_exec_read_output(w, v1, cases[i].out, strlen(cases[i].out), now, &st, err);
        if (cases[i].msg == NULL) {
            ck_assert_msg(rc == 0, "case %zu: %s", i, err);
            ck_assert_str_eq(st.token, "abc");
            ck_assert(st.has_expiry);
            ck_assert(st.expiry == now + 1);
            kube_exec_status_wipe(&st);
            continue;
        }
        snprintf(want, sizeof(want), "%s: ", w);
        ck_assert_msg(rc == -EACCES, "case %zu: rc %d", i, rc);
        ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "case %zu: %s", i, err);
        ck_assert_msg(strstr(err, cases[i].msg) != NULL, "case %zu: %s", i, err);
        ck_assert_ptr_null(st.token);
        ck_assert(!st.has_expiry);
    }
}
END_TEST

Suite *exec_output_suite(void)
{
    Suite *s = suite_create("exec_output");
    TCase *tc = tcase_create("exec_output");
    tcase_add_test(tc, exec_times_are_rfc3339_as_go_parses_them);
    tcase_add_test(tc, exec_output_is_checked_as_client_go_checks_it);
    suite_add_tcase(s, tc);
    return s;
}

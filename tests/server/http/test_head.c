/* server/http/head.c: its inference pinned to the libmicrohttpd it was
 * verified on. */
#include <check.h>
#include <string.h>

#include <microhttpd.h>

#include "server/http/head.h"
#include "tests/suites.h"

/* head.c finds bare LFs, NULs and folded lines from where libmicrohttpd
 * leaves NULs in its own read buffer, which no documentation promises. On
 * another version this fails loudly instead of letting the refusals go
 * quietly: run CK_RUN_SUITE=http_framing on it and, when that passes, move
 * HTTP_HEAD_VERIFIED_MHD (server/http/head.h). */
START_TEST(head_inference_is_verified_on_this_libmicrohttpd)
{
    const char *v = MHD_get_version();
    ck_assert_msg(v != NULL && strcmp(v, HTTP_HEAD_VERIFIED_MHD) == 0,
                  "libmicrohttpd %s, but server/http/head.c's framing checks were verified on %s "
                  "only: run the http_framing suite on %s and, if it passes, set "
                  "HTTP_HEAD_VERIFIED_MHD to it",
                  v != NULL ? v : "(unknown)", HTTP_HEAD_VERIFIED_MHD, v != NULL ? v : "it");
}
END_TEST

Suite *head_suite(void)
{
    Suite *s = suite_create("head");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, head_inference_is_verified_on_this_libmicrohttpd);
    suite_add_tcase(s, tc);
    return s;
}

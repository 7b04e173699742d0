#include "tests/support/json_assert.h"

#include <check.h>

#include <cjson/cJSON.h>

void assert_json_eq(const char *got, const char *want)
{
    cJSON *g = cJSON_Parse(got), *w = cJSON_Parse(want);
    ck_assert_msg(g != NULL, "answer is not JSON: %s", got);
    ck_assert_msg(w != NULL, "expected value is not JSON: %s", want);
    ck_assert_msg(cJSON_Compare(g, w, 1), "got  %s\nwant %s", got, want);
    cJSON_Delete(g);
    cJSON_Delete(w);
}

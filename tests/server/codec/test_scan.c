/*
 * server/codec/scan.c: the JSON grammar of RFC 8259, as strictly as Go's
 * encoding/json reads it, plus the refusals of our own (NUL, unpaired
 * surrogates, a byte-order mark, nesting). Each row says what is refused and
 * where; the accepted rows are the edge of what Go accepts.
 */
#include <check.h>
#include <string.h>

#include "base/err.h"
#include "server/codec/scan.h"
#include "tests/suites.h"

struct row {
    const char *json;
    size_t len; /* sizeof: one row has a NUL inside */
    int cls;    /* CODEC_SCAN_OK when accepted */
    long at;    /* byte offset of the fault, -1: not checked */
};

#define ROW(json, cls, at)                                                                         \
    {                                                                                              \
        json, sizeof(json) - 1, cls, at                                                            \
    }

static const struct row rows[] = {
    /* accepted: the grammar's corners */
    ROW("{}", CODEC_SCAN_OK, -1),
    ROW(" \t\r\n[ ] \n", CODEC_SCAN_OK, -1),
    ROW("0", CODEC_SCAN_OK, -1),
    ROW("-0", CODEC_SCAN_OK, -1),
    ROW("-0.0e-0", CODEC_SCAN_OK, -1),
    ROW("1E+2", CODEC_SCAN_OK, -1),
    ROW("123456789012345678901234567890", CODEC_SCAN_OK, -1),
    ROW("\"\\u00e9\\ud83d\\ude00\\/\\b\\f\\n\\r\\t\\\"\\\\\"", CODEC_SCAN_OK, -1),
    ROW("\"n\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"", CODEC_SCAN_OK, -1),
    ROW("{\"a\":[true,false,null,{\"b\":{}}],\"a\":1}", CODEC_SCAN_OK, -1),
    ROW("\"\x7f\"", CODEC_SCAN_OK, -1), /* DEL is not a control character to JSON */
    /* numbers Go refuses (cJSON took some of them) */
    ROW("01", CODEC_SCAN_SYNTAX, 1),
    ROW("-01", CODEC_SCAN_SYNTAX, 2),
    ROW("-.5", CODEC_SCAN_SYNTAX, 1),
    ROW(".5", CODEC_SCAN_SYNTAX, 0),
    ROW("1.", CODEC_SCAN_SYNTAX, 2),
    ROW("1.e3", CODEC_SCAN_SYNTAX, 2),
    ROW("1e", CODEC_SCAN_SYNTAX, 2),
    ROW("1e+", CODEC_SCAN_SYNTAX, 3),
    ROW("+1", CODEC_SCAN_SYNTAX, 0),
    ROW("0x10", CODEC_SCAN_SYNTAX, 1),
    ROW("[1,2", CODEC_SCAN_SYNTAX, 4),
    ROW("Infinity", CODEC_SCAN_SYNTAX, 0),
    ROW("NaN", CODEC_SCAN_SYNTAX, 0),
    ROW("[-]", CODEC_SCAN_SYNTAX, 2),
    /* structure */
    ROW("", CODEC_SCAN_SYNTAX, 0),
    ROW("[1,]", CODEC_SCAN_SYNTAX, 3),
    ROW("{\"a\":1,}", CODEC_SCAN_SYNTAX, 7),
    ROW("{\"a\" 1}", CODEC_SCAN_SYNTAX, 5),
    ROW("{a:1}", CODEC_SCAN_SYNTAX, 1),
    ROW("{'a':1}", CODEC_SCAN_SYNTAX, 1),
    ROW("[1 2]", CODEC_SCAN_SYNTAX, 3),
    ROW("{\"a\":1]", CODEC_SCAN_SYNTAX, 6),
    ROW("[}", CODEC_SCAN_SYNTAX, 1),
    ROW("{}{}", CODEC_SCAN_SYNTAX, 2),
    ROW("{} x", CODEC_SCAN_SYNTAX, 3),
    ROW("tru", CODEC_SCAN_SYNTAX, 0),
    ROW("nul", CODEC_SCAN_SYNTAX, 0),
    ROW("True", CODEC_SCAN_SYNTAX, 0),
    ROW("\"abc", CODEC_SCAN_SYNTAX, 4),
    ROW("\"abc\\", CODEC_SCAN_SYNTAX, 4),
    /* characters */
    ROW("\"a\tb\"", CODEC_SCAN_CONTROL, 2), /* a raw tab in a string: Go refuses it */
    ROW("\"a\nb\"", CODEC_SCAN_CONTROL, 2),
    ROW("\"a\x01\"", CODEC_SCAN_CONTROL, 2),
    ROW("[1,\x0b 2]", CODEC_SCAN_CONTROL, 3),
    ROW("\x0c{}", CODEC_SCAN_CONTROL, 0),
    ROW("\"a\0b\"", CODEC_SCAN_CONTROL, 2),
    ROW("\"\xff\"", CODEC_SCAN_UTF8, 1),
    ROW("\"\xc0\xaf\"", CODEC_SCAN_UTF8, 1),
    ROW("\"\xed\xa0\x80\"", CODEC_SCAN_UTF8, 1),
    ROW("\"\xf4\x90\x80\x80\"", CODEC_SCAN_UTF8, 1),
    ROW("\"\xe2\x82\"", CODEC_SCAN_UTF8, 1),
    ROW("[\xc3\xa9]", CODEC_SCAN_SYNTAX, 1),
    /* escapes */
    ROW("\"\\q\"", CODEC_SCAN_ESCAPE, 1),
    ROW("\"\\u12\"", CODEC_SCAN_ESCAPE, 1),
    ROW("\"\\uZZZZ\"", CODEC_SCAN_ESCAPE, 1),
    ROW("\"\\u0000\"", CODEC_SCAN_NUL, 1),
    ROW("\"a\\\\u0000\"", CODEC_SCAN_OK, -1), /* an escaped backslash, then text */
    ROW("\"\\ud800\"", CODEC_SCAN_ESCAPE, 1),
    ROW("\"\\udc00\\ud800\"", CODEC_SCAN_ESCAPE, 1),
    ROW("\"\\ud800\\u0041\"", CODEC_SCAN_ESCAPE, 1),
    /* ours */
    ROW("\xef\xbb\xbf{}", CODEC_SCAN_BOM, 0),
};

START_TEST(scan_grammar_rows)
{
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct codec_scan s;
        int rc = codec_scan_validate(rows[i].json, rows[i].len, &s);
        ck_assert_msg((rc == 0) == (rows[i].cls == CODEC_SCAN_OK), "row %zu (%s): rc %d, why %s", i,
                      rows[i].json, rc, s.why ? s.why : "-");
        if (rows[i].cls == CODEC_SCAN_OK)
            continue;
        ck_assert_msg(s.cls == rows[i].cls, "row %zu (%s): class %d, want %d (%s)", i, rows[i].json,
                      s.cls, rows[i].cls, s.why);
        if (rows[i].at >= 0)
            ck_assert_msg(s.at - s.start == rows[i].at, "row %zu (%s): at %ld, want %ld", i,
                          rows[i].json, (long)(s.at - s.start), rows[i].at);
    }
}
END_TEST

START_TEST(scan_nesting_limit)
{
    char deep[2 * CODEC_MAX_DEPTH + 4];
    struct codec_scan s;
    size_t n = CODEC_MAX_DEPTH;
    memset(deep, '[', n);
    memset(deep + n, ']', n);
    ck_assert_int_eq(codec_scan_validate(deep, 2 * n, &s), 0);
    memset(deep, '[', n + 1);
    memset(deep + n + 1, ']', n + 1);
    ck_assert_int_ne(codec_scan_validate(deep, 2 * n + 2, &s), 0);
    ck_assert_int_eq(s.cls, CODEC_SCAN_DEPTH);
    char err[ERR_LEN];
    codec_scan_error(&s, err);
    ck_assert_ptr_nonnull(strstr(err, "nested too deeply"));
}
END_TEST

START_TEST(scan_error_texts_name_the_byte)
{
    struct codec_scan s;
    char err[ERR_LEN];
    ck_assert_int_ne(codec_scan_validate("[01]", 4, &s), 0);
    codec_scan_error(&s, err);
    ck_assert_str_eq(err, "malformed JSON at byte 2 of 4: a number with a leading zero");
    ck_assert_int_ne(codec_scan_validate("[\"\xff\"]", 4, &s), 0);
    codec_scan_error(&s, err);
    ck_assert_str_eq(err, "invalid UTF-8 at byte 2");
}
END_TEST

START_TEST(scan_pull_members_and_strings)
{
    const char *doc = "{ \"a\" : \"x\\u00e9\", \"b\":[1, {\"c\":null}], \"A\":2}";
    struct codec_scan s;
    struct codec_str key, str;
    bool more;
    char buf[16];
    codec_scan_init(&s, doc, strlen(doc));
    ck_assert_int_eq(codec_scan_object(&s), 0);
    ck_assert_int_eq(codec_scan_member(&s, true, &key, &more), 0);
    ck_assert(more && codec_str_is(key, "a", false));
    ck_assert_int_eq(codec_scan_string(&s, &str), 0);
    ck_assert(str.escaped);
    ck_assert_uint_eq(codec_str_decode(str, buf, sizeof(buf)), 3);
    ck_assert_str_eq(buf, "x\xc3\xa9");
    ck_assert_uint_eq(codec_str_decode(str, buf, 3), (size_t)-1); /* no room for the NUL */
    ck_assert_int_eq(codec_scan_member(&s, false, &key, &more), 0);
    ck_assert(more && codec_str_is(key, "B", true) && !codec_str_is(key, "B", false));
    ck_assert_int_eq(codec_scan_skip(&s), 0);
    ck_assert_int_eq(codec_scan_member(&s, false, &key, &more), 0);
    ck_assert(more && codec_str_is(key, "a", true));
    ck_assert_int_eq(codec_scan_skip(&s), 0);
    ck_assert_int_eq(codec_scan_member(&s, false, &key, &more), 0);
    ck_assert(!more);
    ck_assert_int_eq(codec_scan_end(&s), 0);
    /* a surrogate pair decodes to one four-byte character */
    const char *pair = "\"\\ud83d\\ude00\"";
    codec_scan_init(&s, pair, strlen(pair));
    ck_assert_int_eq(codec_scan_string(&s, &str), 0);
    ck_assert_uint_eq(codec_str_decode(str, buf, sizeof(buf)), 4);
    ck_assert_str_eq(buf, "\xf0\x9f\x98\x80");
}
END_TEST

Suite *scan_suite(void)
{
    Suite *s = suite_create("scan");
    TCase *tc = tcase_create("scan");
    tcase_add_test(tc, scan_grammar_rows);
    tcase_add_test(tc, scan_nesting_limit);
    tcase_add_test(tc, scan_error_texts_name_the_byte);
    tcase_add_test(tc, scan_pull_members_and_strings);
    suite_add_tcase(s, tc);
    return s;
}

/* Comparing JSON answers in tests: equal as values, not as text. */
#ifndef TESTS_SUPPORT_JSON_ASSERT_H
#define TESTS_SUPPORT_JSON_ASSERT_H

/* Fails the test unless @got and @want parse and are equal JSON values
 * (member order ignored, case-sensitive); the message shows both. */
void assert_json_eq(const char *got, const char *want);

#endif

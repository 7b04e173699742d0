/*
 * One size and one way for error messages: every function that can fail
 * with a reason takes a caller-owned `char err[ERR_LEN]` (Redis anet
 * style). A caller that hands a callee's message on adds its context in
 * front with err_prefix() instead of formatting the message into a second
 * buffer. A message is never longer than ERR_LEN - 1 bytes: when context
 * and message together would be, the end of the message is cut (the
 * context in front and the start of the message stay), always at a UTF-8
 * character boundary, so that JSON carrying it stays valid.
 */
#ifndef BASE_ERR_H
#define BASE_ERR_H

#define ERR_LEN 512

/* Formats @fmt into @err (ERR_LEN bytes) and returns @rc, so that a
 * failure's message and its exit are one statement:
 * return err_fail(err, -EINVAL, "...", ...). */
int err_fail(char *err, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* err_fail() without the exit: formats @fmt into @err. */
#define err_set(err, ...) ((void)err_fail((err), 0, __VA_ARGS__))

/* Puts the formatted @fmt in front of the message already in @err, e.g.
 * err_prefix(err, "Nodes.items[%zu]: ", i). */
void err_prefix(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Cuts an incomplete UTF-8 sequence off the end of @s (what a cut into a
 * fixed buffer leaves). */
void err_utf8_trim(char *s);

#endif

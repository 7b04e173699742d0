/*
 * The service log: one JSON object per line on stderr,
 *   {"time":"2026-12-02T20:53:06.123Z","level":"info","msg":"...",...}
 * filtered by level. Thread-safe: each line is written with a single
 * fputs under stdio's lock.
 */
#ifndef SERVER_LOG_H
#define SERVER_LOG_H

#include "config/config.h"

/* Sets the lowest level written. Thread-safe. */
void log_set_level(enum cfg_log_level level);

/* Would a line at @level be written? */
bool log_enabled(enum cfg_log_level level);

/*
 * Writes one line at @level. @fmt gives the fields after msg as key=value
 * pairs, separated by spaces, a value with spaces in double quotes, e.g.
 * log_msg(CFG_LOG_INFO, "listening", "addr=%s prefix=\"%s\"", addr, p).
 * Each becomes a JSON member: a whole decimal number as a number, anything
 * else as a string (escaped).
 */
void log_msg(enum cfg_log_level level, const char *msg, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Writes one line at @level whose fields are @members: JSON members
 * without braces ("\"a\":1,\"b\":\"x\""), written as given. */
void log_json(enum cfg_log_level level, const char *msg, const char *members);

/* Replaces each '"' in @s by '\'' and each control character by a space,
 * so that @s stays one quoted value (API server and libcurl messages quote
 * names). */
void log_unquote(char *s);

/*
 * Copies @src into @dst (@n bytes, cut at a character boundary) as
 * log_unquote() leaves it, and returns @dst: for a name from a request
 * written as key="%s".
 */
const char *log_clean(char *dst, size_t n, const char *src);

#endif

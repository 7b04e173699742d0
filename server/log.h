/*
 * The service log: one line per event on stderr, as logfmt
 * (time=... level=... msg="..." key=value), filtered by level.
 * Thread-safe: each line is written with a single fputs under stdio's lock.
 */
#ifndef SERVER_LOG_H
#define SERVER_LOG_H

#include "config/config.h"

/* Sets the lowest level written. Thread-safe. */
void log_set_level(enum cfg_log_level level);

/* Writes one line at @level; @fmt continues after msg, e.g.
 * log_msg(CFG_LOG_INFO, "listening", "addr=%s", addr). */
void log_msg(enum cfg_log_level level, const char *msg, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Replaces each '"' in @s by '\'' so that @s stays one quoted logfmt value
 * (API server and libcurl messages quote names). */
void log_unquote(char *s);

#endif

/*
 * The service log: one JSON object per line on stderr,
 *   {"time":"2026-12-02T20:53:06.123Z","level":"info","msg":"...",...}
 * filtered by level. Fields are typed values, escaped by the writer, so a
 * name from a request or a message from the API server can never break a
 * line or forge a field:
 *   LOG(LOG_INFO, "bound", LOG_NSNAME("pod", ns, name), LOG_STR("node", node));
 * Thread-safe: each line is written with a single fputs under stdio's lock.
 */
#ifndef BASE_LOG_H
#define BASE_LOG_H

#include <stdbool.h>
#include <stddef.h>

enum log_level {
    LOG_DEBUG = 0,
    LOG_INFO,
    LOG_WARN,
    LOG_ERROR,
};

enum log_type {
    LOG_T_STR = 0, /* a JSON string */
    LOG_T_INT,     /* a JSON number */
    LOG_T_UINT,
    LOG_T_SECONDS, /* a JSON number with microseconds */
    LOG_T_BOOL,
    LOG_T_NSNAME, /* "namespace/name" from two strings */
};

struct log_field {
    const char *key; /* [A-Za-z0-9_]; never time, level or msg */
    enum log_type type;
    union {
        const char *s;
        long long i;
        unsigned long long u;
        double d;
        bool b;
    } v;
    const char *s2; /* LOG_T_NSNAME: the name */
};

#define LOG_STR(k, x)     ((struct log_field){.key = (k), .type = LOG_T_STR, .v.s = (x)})
#define LOG_INT(k, x)     ((struct log_field){.key = (k), .type = LOG_T_INT, .v.i = (x)})
#define LOG_UINT(k, x)    ((struct log_field){.key = (k), .type = LOG_T_UINT, .v.u = (x)})
#define LOG_SECONDS(k, x) ((struct log_field){.key = (k), .type = LOG_T_SECONDS, .v.d = (x)})
#define LOG_BOOL(k, x)    ((struct log_field){.key = (k), .type = LOG_T_BOOL, .v.b = (x)})
#define LOG_NSNAME(k, ns, name)                                                                    \
    ((struct log_field){.key = (k), .type = LOG_T_NSNAME, .v.s = (ns), .s2 = (name)})

/* Writes one line at @level with the fields given after @msg (none is
 * fine). The leading {0} lets the list be empty; it is skipped. sizeof
 * does not evaluate its operand, so each field is evaluated once. */
#define LOG(level, msg, ...)                                                                       \
    log_write((level), (msg), (const struct log_field[]){{0}, __VA_ARGS__} + 1,                    \
              sizeof((const struct log_field[]){{0}, __VA_ARGS__}) / sizeof(struct log_field) - 1)

/* Writes one line at @level: msg and the @n fields of @f. NULL strings are
 * written as "". */
void log_write(enum log_level level, const char *msg, const struct log_field *f, size_t n);

/* Sets the lowest level written. Thread-safe. */
void log_set_level(enum log_level level);

/* Would a line at @level be written? */
bool log_enabled(enum log_level level);

/* "debug", "info", "warn" or "error". */
const char *log_level_name(enum log_level l);

#endif

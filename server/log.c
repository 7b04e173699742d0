#include "server/log.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

/* Set by main (start, reload), read by every thread: atomic, relaxed. */
static _Atomic int min_level = CFG_LOG_INFO;

void log_set_level(enum cfg_log_level level)
{
    atomic_store_explicit(&min_level, (int)level, memory_order_relaxed);
}

void log_msg(enum cfg_log_level level, const char *msg, const char *fmt, ...)
{
    char line[2048], stamp[32];
    struct timespec now;
    struct tm tm;
    int n;

    if ((int)level < atomic_load_explicit(&min_level, memory_order_relaxed))
        return;
    clock_gettime(CLOCK_REALTIME, &now);
    gmtime_r(&now.tv_sec, &tm);
    strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
    n = snprintf(line, sizeof(line), "time=%s.%03ldZ level=%s msg=\"%s\"", stamp,
                 now.tv_nsec / 1000000, cfg_log_level_name(level), msg);
    if (n > 0 && (size_t)n < sizeof(line) - 2 && fmt[0] != '\0') {
        va_list ap;
        line[n++] = ' ';
        va_start(ap, fmt);
        vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
        va_end(ap);
    }
    fprintf(stderr, "%s\n", line);
}

void log_unquote(char *s)
{
    for (; *s != '\0'; s++)
        if (*s == '"')
            *s = '\'';
}

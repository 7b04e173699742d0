#include "base/log.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"

/* Set by main (start, reload), read by every thread: atomic, relaxed. */
static _Atomic int min_level = LOG_INFO;

static const char *const level_names[] = {
    [LOG_DEBUG] = "debug",
    [LOG_INFO] = "info",
    [LOG_WARN] = "warn",
    [LOG_ERROR] = "error",
};

const char *log_level_name(enum log_level l)
{
    return level_names[l];
}

void log_set_level(enum log_level level)
{
    atomic_store_explicit(&min_level, (int)level, memory_order_relaxed);
}

bool log_enabled(enum log_level level)
{
    return (int)level >= atomic_load_explicit(&min_level, memory_order_relaxed);
}

static void field(struct buf *b, const struct log_field *f)
{
    buf_str(b, ",\"");
    buf_str(b, f->key);
    buf_str(b, "\":");
    switch (f->type) {
    case LOG_T_STR:
        buf_json_str(b, f->v.s != NULL ? f->v.s : "");
        break;
    case LOG_T_INT:
        buf_int(b, f->v.i);
        break;
    case LOG_T_UINT:
        buf_printf(b, "%llu", f->v.u);
        break;
    case LOG_T_SECONDS:
        buf_printf(b, "%.6f", f->v.d);
        break;
    case LOG_T_BOOL:
        buf_str(b, f->v.b ? "true" : "false");
        break;
    case LOG_T_NSNAME: {
        /* One JSON string from two: the pod as kubectl names it. */
        const char *ns = f->v.s != NULL ? f->v.s : "", *name = f->s2 != NULL ? f->s2 : "";
        size_t nl = strlen(ns), ml = strlen(name);
        char small[256], *joined = nl + ml + 2 <= sizeof(small) ? small : malloc(nl + ml + 2);
        if (joined == NULL) {
            b->failed = true;
            break;
        }
        memcpy(joined, ns, nl);
        joined[nl] = '/';
        memcpy(joined + nl + 1, name, ml);
        buf_json_strn(b, joined, nl + ml + 1);
        if (joined != small)
            free(joined);
        break;
    }
    }
}

void log_write(enum log_level level, const char *msg, const struct log_field *f, size_t n)
{
    char stamp[48];
    struct timespec now;
    struct tm tm;
    struct buf b;

    if (!log_enabled(level))
        return;
    clock_gettime(CLOCK_REALTIME, &now);
    gmtime_r(&now.tv_sec, &tm);
    size_t len = strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(stamp + len, sizeof(stamp) - len, ".%03ldZ", now.tv_nsec / 1000000);
    buf_init(&b, 256);
    buf_str(&b, "{\"time\":\"");
    buf_str(&b, stamp);
    buf_str(&b, "\",\"level\":\"");
    buf_str(&b, level_names[level]);
    buf_str(&b, "\",\"msg\":");
    buf_json_str(&b, msg);
    for (size_t i = 0; i < n; i++)
        field(&b, &f[i]);
    buf_str(&b, "}\n");
    char *line = buf_take(&b, &len);
    if (line != NULL)
        fputs(line, stderr);
    free(line);
}

#include "server/log.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "server/jsonout.h"

/* Set by main (start, reload), read by every thread: atomic, relaxed. */
static _Atomic int min_level = CFG_LOG_INFO;

void log_set_level(enum cfg_log_level level)
{
    atomic_store_explicit(&min_level, (int)level, memory_order_relaxed);
}

bool log_enabled(enum cfg_log_level level)
{
    return (int)level >= atomic_load_explicit(&min_level, memory_order_relaxed);
}

/* {"time":...,"level":...,"msg":..., then @members, then "}\n". */
static void write_line(enum cfg_log_level level, const char *msg, const char *members)
{
    char stamp[48];
    struct timespec now;
    struct tm tm;
    struct jsonout o;

    clock_gettime(CLOCK_REALTIME, &now);
    gmtime_r(&now.tv_sec, &tm);
    size_t n = strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(stamp + n, sizeof(stamp) - n, ".%03ldZ", now.tv_nsec / 1000000);
    srv_out_init(&o, 256 + strlen(members));
    srv_out_str(&o, "{\"time\":\"");
    srv_out_str(&o, stamp);
    srv_out_str(&o, "\",\"level\":\"");
    srv_out_str(&o, cfg_log_level_name(level));
    srv_out_str(&o, "\",\"msg\":");
    srv_out_quoted(&o, msg);
    if (members[0] != '\0') {
        srv_out_str(&o, ",");
        srv_out_str(&o, members);
    }
    srv_out_str(&o, "}\n");
    size_t len;
    char *line = srv_out_take(&o, &len);
    if (line != NULL)
        fputs(line, stderr);
    free(line);
}

void log_json(enum cfg_log_level level, const char *msg, const char *members)
{
    if (log_enabled(level))
        write_line(level, msg, members);
}

static bool is_integer(const char *v, size_t len)
{
    size_t i = v[0] == '-' ? 1 : 0;
    if (len == i || len - i > 18 || (v[i] == '0' && len - i > 1))
        return false;
    for (; i < len; i++)
        if (v[i] < '0' || v[i] > '9')
            return false;
    return true;
}

/* A field name we write ourselves: letters, digits and '_', and none of
 * the three every line starts with. Anything else is not a field. */
static bool is_key(const char *k, size_t len)
{
    static const char *const reserved[] = {"time", "level", "msg"};
    if (len == 0)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!((k[i] >= 'a' && k[i] <= 'z') || (k[i] >= 'A' && k[i] <= 'Z') ||
              (k[i] >= '0' && k[i] <= '9') || k[i] == '_'))
            return false;
    for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
        if (strlen(reserved[i]) == len && strncmp(reserved[i], k, len) == 0)
            return false;
    return true;
}

/* key=value key="quoted value" ... -> "key":value,"key":"quoted value".
 * Whatever does not read as a field (a value with a space that was not
 * quoted, say) goes, with the rest of the line, into "detail": the line
 * stays one valid JSON object with no field made up by a value. */
static void fields_to_json(const char *text, struct jsonout *o)
{
    const char *p = text, *sep = "";
    char buf[1024];

    while (*p != '\0') {
        while (*p == ' ')
            p++;
        size_t klen = strcspn(p, "= ");
        if (p[klen] != '=' || !is_key(p, klen)) {
            if (*p == '\0')
                break;
            srv_out_str(o, sep);
            srv_out_str(o, "\"detail\":");
            srv_out_quoted(o, p);
            return;
        }
        const char *v = p + klen + 1;
        size_t vlen;
        bool quoted = *v == '"';
        if (quoted) {
            v++;
            vlen = strcspn(v, "\"");
        } else {
            vlen = strcspn(v, " ");
        }
        srv_out_str(o, sep);
        srv_out_str(o, "\"");
        srv_out_raw(o, p, klen);
        srv_out_str(o, "\":");
        if (!quoted && is_integer(v, vlen)) {
            srv_out_raw(o, v, vlen);
        } else {
            snprintf(buf, sizeof(buf), "%.*s", (int)vlen, v);
            srv_out_quoted(o, buf);
        }
        sep = ",";
        p = v + vlen + (quoted && v[vlen] == '"');
    }
}

void log_msg(enum cfg_log_level level, const char *msg, const char *fmt, ...)
{
    char fields[2048];
    struct jsonout o;
    va_list ap;

    if (!log_enabled(level))
        return;
    va_start(ap, fmt);
    vsnprintf(fields, sizeof(fields), fmt, ap);
    va_end(ap);
    srv_out_init(&o, sizeof(fields) + 64);
    fields_to_json(fields, &o);
    size_t len;
    char *members = srv_out_take(&o, &len);
    write_line(level, msg, members != NULL ? members : "");
    free(members);
}

void log_unquote(char *s)
{
    for (; *s != '\0'; s++) {
        if (*s == '"')
            *s = '\'';
        else if ((unsigned char)*s < 0x20)
            *s = ' ';
    }
}

const char *log_clean(char *dst, size_t n, const char *src)
{
    snprintf(dst, n, "%s", src);
    srv_utf8_trim(dst);
    log_unquote(dst);
    return dst;
}

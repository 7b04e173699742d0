#include "tests/support/metrics_scrape.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/support/http_client.h"

char *metrics_get(int port)
{
    struct http_response r;
    int fd = http_connect(port);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(http_roundtrip(fd, "GET", "/metrics", NULL, 0, &r), 0);
    close(fd);
    ck_assert_int_eq(r.status, 200);
    ck_assert_msg(strstr(r.headers, "text/plain; version=0.0.4") != NULL, "%s", r.headers);
    char *body = strdup(r.body);
    http_response_free(&r);
    return body;
}

double metrics_value(const char *text, const char *series)
{
    size_t n = strlen(series);
    for (const char *line = text; line != NULL && *line != '\0';) {
        if (strncmp(line, series, n) == 0 && line[n] == ' ')
            return strtod(line + n + 1, NULL);
        line = strchr(line, '\n');
        if (line != NULL)
            line++;
    }
    return -1;
}

double metrics_must(const char *text, const char *series)
{
    double v = metrics_value(text, series);
    ck_assert_msg(v >= 0, "no series %s", series);
    return v;
}

int metrics_assert_histograms(const char *text)
{
    int checked = 0;
    /* Walk the _bucket lines in order: a series' buckets are consecutive. */
    char series[512] = "";
    double last = -1;
    for (const char *line = text; line != NULL && *line != '\0';) {
        const char *end = strchr(line, '\n');
        size_t len = end != NULL ? (size_t)(end - line) : strlen(line);
        const char *b = strstr(line, "_bucket{");
        /* le is the last label, or the only one */
        const char *le = b != NULL ? strstr(b, "le=\"") : NULL;
        if (le != NULL && le[-1] != ',' && le[-1] != '{')
            le = NULL;
        if (b != NULL && le != NULL && le < line + len) {
            size_t key = (size_t)(le - line);
            ck_assert_uint_lt(key, sizeof(series));
            const char *val = memchr(line, ' ', len);
            ck_assert_ptr_nonnull(val);
            double v = strtod(val + 1, NULL);
            if (strncmp(series, line, key) != 0 || series[key] != '\0') {
                memcpy(series, line, key);
                series[key] = '\0';
                last = -1;
            }
            ck_assert_msg(v >= last, "bucket decreases: %.*s", (int)len, line);
            last = v;
            if (strncmp(le, "le=\"+Inf\"}", 10) == 0) {
                /* name_count{labels} (or name_count) must equal the +Inf bucket */
                char count[600];
                size_t name = (size_t)(b - line);
                if (le[-1] == '{')
                    snprintf(count, sizeof(count), "%.*s_count", (int)name, line);
                else
                    snprintf(count, sizeof(count), "%.*s_count{%.*s}", (int)name, line,
                             (int)(le - 1 - b - 8), b + 8);
                ck_assert_msg(metrics_value(text, count) == v, "%s != +Inf bucket %g", count, v);
                checked++;
            }
        }
        line = end != NULL ? end + 1 : NULL;
    }
    return checked;
}

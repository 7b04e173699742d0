#include "server/http/target.h"

#include <stdbool.h>
#include <stddef.h>

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static bool is_control(unsigned char c)
{
    return c < 0x20 || c == 0x7f;
}

const char *http_target_read(const char *target, char path[HTTP_PATH_MAX])
{
    size_t j = 0;
    bool too_long = false;

    for (const char *p = target; *p != '\0'; p++)
        if (*p == ' ' || is_control((unsigned char)*p))
            return "control character or space in the request target";
    for (const char *p = target; *p != '\0' && *p != '?'; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '%') {
            int hi = hex_value(p[1]), lo = hi < 0 ? -1 : hex_value(p[2]);
            if (hi < 0 || lo < 0)
                return "invalid percent escape in the path";
            c = (unsigned char)(hi * 16 + lo);
            p += 2;
            if (is_control(c))
                return "control character in the path";
        }
        if (j + 1 < HTTP_PATH_MAX)
            path[j++] = (char)c;
        else
            too_long = true;
    }
    path[too_long ? 0 : j] = '\0'; /* too long: no route matches "" */
    return NULL;
}

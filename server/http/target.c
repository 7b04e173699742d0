#include "server/http/target.h"

#include <ctype.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

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
            if (!isxdigit((unsigned char)p[1]) || !isxdigit((unsigned char)p[2]))
                return "invalid percent escape in the path";
            c = (unsigned char)strtoul((const char[]){p[1], p[2], '\0'}, NULL, 16);
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

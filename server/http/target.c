#include "server/http/target.h"

#include <ctype.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool is_control(unsigned char c)
{
    return c < 0x20 || c == 0x7f;
}

/* Where the path of an absolute-form target begins (after the scheme and
 * authority; the scheme's case does not matter), or @target itself for
 * the origin form. */
static const char *skip_absolute_form(const char *target)
{
    size_t scheme = strncasecmp(target, "http://", 7) == 0    ? 7
                    : strncasecmp(target, "https://", 8) == 0 ? 8
                                                              : 0;
    if (scheme == 0)
        return target;
    return target + scheme + strcspn(target + scheme, "/?");
}

const char *http_target_read(const char *target, char path[HTTP_PATH_MAX])
{
    size_t j = 0;
    bool too_long = false;

    for (const char *p = target; *p != '\0'; p++)
        if (*p == ' ' || is_control((unsigned char)*p))
            return "control character or space in the request target";
    const char *at = skip_absolute_form(target);
    if (at != target && *at != '/')
        path[j++] = '/'; /* http://host or http://host?q: the path is "/" */
    for (const char *p = at; *p != '\0' && *p != '?'; p++) {
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

#include "server/http/limits.h"

#include <errno.h>
#include <limits.h>

int http_content_length(const char *v, unsigned long long *out)
{
    unsigned long long n = 0;
    if (*v == '\0')
        return -EINVAL;
    for (; *v != '\0'; v++) {
        unsigned d = (unsigned)(*v - '0');
        if (d > 9 || n > (ULLONG_MAX - d) / 10)
            return -EINVAL;
        n = n * 10 + d;
    }
    *out = n;
    return 0;
}

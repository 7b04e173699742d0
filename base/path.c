#include "base/path.h"

size_t path_squash(const char *in, size_t len, char *out, size_t n, bool trim)
{
    if (n == 0)
        return 0;
    size_t j = 0;
    /* j <= i, so writing in place never overtakes the reading. */
    for (size_t i = 0; i < len && in[i] != '\0' && j + 1 < n; i++)
        if (in[i] != '/' || j == 0 || out[j - 1] != '/')
            out[j++] = in[i];
    while (trim && j > 0 && out[j - 1] == '/')
        j--;
    out[j] = '\0';
    return j;
}

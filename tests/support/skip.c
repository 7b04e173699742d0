#include "tests/support/skip.h"

#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

/* Shared with the forked tests; O_APPEND keeps each skip's line whole. */
static FILE *skips;

void skip_open(void)
{
    skips = tmpfile();
    if (skips != NULL)
        (void)fcntl(fileno(skips), F_SETFL, O_APPEND);
}

void skip_record(int ci_can_run, const char *test, const char *fmt, ...)
{
    char why[512], line[700];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    why[strcspn(why, "\n")] = '\0';
    int len = snprintf(line, sizeof(line), "%c %s: %s\n", ci_can_run ? 'c' : 'u', test, why);
    if (len < 0)
        return;
    if ((size_t)len >= sizeof(line)) { /* cut, but still one line */
        len = (int)sizeof(line) - 1;
        line[len - 1] = '\n';
    }
    fprintf(stderr, "SKIP %s", line + 2);
    /* One write: lines of tests running at once do not interleave. */
    if (skips != NULL)
        (void)!write(fileno(skips), line, (size_t)len);
}

int skip_report(FILE *out)
{
    char line[700];
    int n = 0, ci = 0;

    if (skips == NULL)
        return 0;
    rewind(skips);
    while (fgets(line, sizeof(line), skips) != NULL)
        n++;
    fprintf(out, "skipped: %d\n", n);
    rewind(skips);
    while (fgets(line, sizeof(line), skips) != NULL) {
        ci += line[0] == 'c';
        line[strcspn(line, "\n")] = '\0';
        fprintf(out, "  %s%s\n", line + 2, line[0] == 'c' ? "" : " (by design in this build)");
    }
    fclose(skips);
    skips = NULL;
    return ci;
}

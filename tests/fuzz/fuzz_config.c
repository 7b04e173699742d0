/*
 * libFuzzer target: cfg_parse_text on arbitrary config documents.
 *
 * Properties, besides ASan and UBSan:
 *  - the result is 0 or -EINVAL, with a message on failure;
 *  - an accepted document's effective configuration, printed with
 *    cfg_print_json (what `config check` shows), is accepted again and
 *    prints the same.
 *
 * tests/fuzz/regressions/config/ holds the input that found "prefix": "/"
 * printed as "", which the parser refused (fixed in ef05278).
 */
#ifdef FUZZ_TARGET
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "tests/fuzz/fuzz.h"

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_config: %s\n%s\n", what, detail);
    abort();
}

/* The configuration as cfg_print_json writes it (malloc'd). */
static char *printed(const struct cfg *c, size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    if (f == NULL)
        abort();
    cfg_print_json(c, f);
    if (fclose(f) != 0)
        abort();
    return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[ERR_LEN];
    struct cfg c, again;
    char *buf = malloc(size + 1);

    if (buf == NULL)
        return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    cfg_defaults(&c);
    err[0] = '\0';
    int rc = cfg_parse_text(&c, buf, size, "fuzz", err);
    free(buf);
    if (rc != 0 && rc != -EINVAL)
        fail("unexpected return code", err);
    if (rc != 0) {
        if (err[0] == '\0' || memchr(err, '\0', sizeof(err)) == NULL)
            fail("failure without a message", "");
        return 0;
    }

    size_t len, len2;
    char *text = printed(&c, &len);
    cfg_defaults(&again);
    if (cfg_parse_text(&again, text, len, "printed", err) != 0)
        fail("the printed configuration is refused", err);
    char *text2 = printed(&again, &len2);
    if (len != len2 || memcmp(text, text2, len) != 0)
        fail("printing is not stable", text2);
    free(text);
    free(text2);
    return 0;
}
#endif

/*
 * Replays fuzz inputs without libFuzzer: a plain main() that calls a
 * target's LLVMFuzzerTestOneInput on every file of the directories (or on
 * the files) named on the command line, in name order. Linked with one
 * target by tests/fuzz/fuzz.mk (make fuzz-replay), with the normal compiler
 * and flags of the build variant, so the committed corpus runs in the
 * release and the ASan+UBSan builds without clang.
 * Exit 0 when every input ran; a failed property aborts.
 */
#ifdef FUZZ_TARGET
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/fuzz/fuzz.h"

/* Runs the file at @path; returns 0 or -1 when it cannot be read. */
static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    if (f == NULL || fstat(fileno(f), &st) != 0) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        if (f != NULL)
            fclose(f);
        return -1;
    }
    size_t size = (size_t)st.st_size;
    /* An exactly sized copy, so that ASan sees reads past the input. */
    uint8_t *data = malloc(size ? size : 1);
    if (data == NULL || fread(data, 1, size, f) != size) {
        fprintf(stderr, "replay: %s: read error\n", path);
        free(data);
        fclose(f);
        return -1;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    return 0;
}

static int not_hidden(const struct dirent *e)
{
    return e->d_name[0] != '.';
}

int main(int argc, char **argv)
{
    const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    size_t inputs = 0;

    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
            return 1;
        }
        if (!S_ISDIR(st.st_mode)) {
            if (run_file(argv[i]) != 0)
                return 1;
            inputs++;
            continue;
        }
        struct dirent **list;
        int n = scandir(argv[i], &list, not_hidden, alphasort);
        if (n < 0) {
            fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
            return 1;
        }
        for (int k = 0; k < n; k++) {
            char path[4096];
            snprintf(path, sizeof(path), "%s/%s", argv[i], list[k]->d_name);
            if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
                if (run_file(path) != 0)
                    return 1;
                inputs++;
            }
            free(list[k]);
        }
        free(list);
    }
    if (inputs == 0) {
        fprintf(stderr, "replay: %s: no inputs\n", name);
        return 1;
    }
    printf("fuzz-replay: %s %zu inputs ok\n", name, inputs);
    return 0;
}
#endif

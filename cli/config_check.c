#include "cli/config_check.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/advice.h"
#include "config/config.h"
#include "config/filter_need.h"
#include "config/load.h"

void cli_config_help(FILE *out)
{
    fprintf(out,
            "Usage: cpu-extender config check FILE\n\n"
            "Reads FILE (\"-\": standard input) as the server would read its --config over the\n"
            "built-in defaults, without the environment or flags, and checks it:\n"
            "  - JSON syntax (line and column of the first error), unknown and repeated keys,\n"
            "    every value's type and range, the options that go together;\n"
            "  - the files it names exist and can be read: tlsCert, tlsKey, clientCa, each\n"
            "    file of kubeconfig, and schedulerConfig, whose extenders entry for this\n"
            "    listener gives schedulerWeight and schedulerTimeoutMs;\n"
            "  - values the documentation advises against (warnings, exit status 0).\n"
            "Every message on stderr starts with the file's name. On success it says whether\n"
            "kube-scheduler needs the filter verb and prints the effective configuration on\n"
            "stdout.\n");
}

/* How FILE is named in messages. */
static const char *shown(const char *path)
{
    return strcmp(path, "-") == 0 ? "standard input" : path;
}

/* Whether the file @path can be opened for reading and is not a
 * directory; otherwise why not, in @why. */
static bool readable(const char *path, char *why, size_t n)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd == -1) {
        snprintf(why, n, "%s", strerror(errno));
        return false;
    }
    bool dir = fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
    close(fd);
    if (dir)
        snprintf(why, n, "a directory, not a file");
    return !dir;
}

/* Checks the file of option @key (@path, "" for none); counts failures. */
static int check_file(const struct cfg *c, const char *file, const char *key, const char *path)
{
    char why[256], at[64];
    if (path[0] == '\0' || readable(path, why, sizeof(why)))
        return 0;
    if (cfg_file_position(c, key, at, sizeof(at)))
        fprintf(stderr, "%s: %s: %s %s: %s\n", shown(file), at, key, path, why);
    else
        fprintf(stderr, "%s: %s %s: %s\n", shown(file), key, path, why);
    return 1;
}

/* Every file the configuration names; returns how many are unreadable. */
static int check_files(const char *file, const struct cfg *c)
{
    int bad = check_file(c, file, "tlsCert", c->tls_cert) +
              check_file(c, file, "tlsKey", c->tls_key) +
              check_file(c, file, "clientCa", c->client_ca) +
              check_file(c, file, "schedulerConfig", c->scheduler_config_path);
    /* Several kubeconfig files as in KUBECONFIG: a:b */
    char list[sizeof(c->kubeconfig)], *save = NULL;
    snprintf(list, sizeof(list), "%s", c->kubeconfig);
    for (char *one = strtok_r(list, ":", &save); one != NULL; one = strtok_r(NULL, ":", &save))
        bad += check_file(c, file, "kubeconfig", one);
    return bad;
}

static void print_advice(void *ctx, const char *key, const char *text)
{
    (void)key;
    fprintf(stderr, "%s: warning: %s\n", shown(ctx), text);
}

/* Whether kube-scheduler's configuration needs the filter verb, with and
 * without cluster state (config check cannot know which the service will
 * have). */
static void print_filter_need(const char *file, const struct cfg *c)
{
    const char *cluster = cfg_filter_need(c, true), *alone = cfg_filter_need(c, false);
    if (cluster == NULL)
        fprintf(stderr,
                "%s: filter verb, with cluster state: redundant (kube-scheduler's "
                "NodeResourcesFit rejects the same nodes): register prioritize only\n",
                file);
    else
        fprintf(stderr, "%s: filter verb, with cluster state: needed (%s)\n", file, cluster);
    if (alone == NULL)
        fprintf(stderr, "%s: filter verb, without a cluster: redundant\n", file);
    else
        fprintf(stderr, "%s: filter verb, without a cluster: needed (%s)\n", file, alone);
}

int cli_config_main(int argc, char **argv)
{
    struct cfg c;
    char err[ERR_LEN];

    /* --help is main()'s. */
    if (argc != 2 || strcmp(argv[0], "check") != 0) {
        fprintf(stderr,
                "usage: cpu-extender config check FILE   (see cpu-extender config --help)\n");
        return 2;
    }
    const char *file = argv[1];
    if (cfg_load_file_only(&c, file, err) != 0) {
        /* The file's own errors name it already ("config file NAME: ..."). */
        if (strncmp(err, "config file ", 12) == 0)
            fprintf(stderr, "%s\n", err);
        else
            fprintf(stderr, "%s: %s\n", shown(file), err);
        return 2;
    }
    int bad = check_files(file, &c);
    if (bad == 0 && cfg_apply_scheduler_config(&c, err) != 0) {
        fprintf(stderr, "%s: %s\n", shown(file), err);
        bad++;
    }
    if (bad != 0)
        return 2;
    cfg_advice(&c, print_advice, (void *)(uintptr_t)file);
    fprintf(stderr, "%s: ok\n", shown(file));
    print_filter_need(shown(file), &c);
    cfg_print_json(&c, stdout);
    return 0;
}

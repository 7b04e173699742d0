#include "cli/config_check.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/advice.h"
#include "config/config.h"
#include "config/descheduler.h"
#include "config/filter_need.h"
#include "config/load.h"
#include "base/file.h"
#include "whatif/inputs.h"

void cli_config_help(FILE *out)
{
    fprintf(out,
            "Usage: cpu-extender config check FILE [--descheduler-policy POLICY]\n\n"
            "Reads FILE (\"-\": standard input) as the server would read its --config over the\n"
            "built-in defaults, without the environment or flags, and checks it:\n"
            "  - JSON syntax (line and column of the first error), unknown and repeated keys,\n"
            "    every value's type and range, the options that go together;\n"
            "  - the files it names exist and can be read: tlsCert, tlsKey, clientCa, each\n"
            "    file of kubeconfig, and schedulerConfig, whose extenders entry for this\n"
            "    listener gives schedulerWeight and schedulerTimeoutMs;\n"
            "  - values the documentation advises against (warnings, exit status 0);\n"
            "  - with --descheduler-policy, the descheduler's policy (DeschedulerPolicy\n"
            "    v1alpha2 or v1alpha1): a warning per resource whose threshold\n"
            "    (cpuThresholdPercent, memoryThresholdPercent) is above LowNodeUtilization's\n"
            "    targetThresholds, where the descheduler evicts (pods would loop between\n"
            "    eviction and scheduling); an unreadable or invalid policy is an error.\n"
            "Every message on stderr starts with the file's name. On success it says whether\n"
            "kube-scheduler needs the filter verb and prints the effective configuration on\n"
            "stdout.\n");
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
    char why[256], at[64] = "";
    if (path[0] == '\0' || readable(path, why, sizeof(why)))
        return 0;
    if (cfg_file_position(c, key, at, sizeof(at) - 2))
        strcat(at, ": "); /* where in the file, when the file set it */
    fprintf(stderr, "%s: %s%s %s: %s\n", whatif_file_name(file), at, key, path, why);
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
    fprintf(stderr, "%s: warning: %s\n", whatif_file_name(ctx), text);
}

/* Whether kube-scheduler's configuration needs the filter verb, with and
 * without cluster state (config check cannot know which the service will
 * have). */
static void print_filter_need(const char *file, const struct cfg *c)
{
    for (int cluster = 1; cluster >= 0; cluster--) {
        const char *need = cfg_filter_need(c, cluster);
        const char *where = cluster ? "with cluster state" : "without a cluster";
        if (need != NULL)
            fprintf(stderr, "%s: filter verb, %s: needed (%s)\n", file, where, need);
        else
            fprintf(stderr, "%s: filter verb, %s: redundant%s\n", file, where,
                    cluster ? " (kube-scheduler's NodeResourcesFit rejects the same nodes): "
                              "register prioritize only"
                            : "");
    }
}

/* What LowNodeUtilization configuration @l means for our thresholds: a
 * warning per resource whose threshold is above its eviction line. */
static void check_line(const char *file, const char *policy, const struct cfg *c,
                       const struct cfg_descheduler_line *l)
{
    static const char *const key[SCORE_NRES] = {"cpuThresholdPercent", "memoryThresholdPercent"};
    if (!l->enabled)
        fprintf(stderr,
                "%s: note: %s: LowNodeUtilization (%s) is configured but not enabled: it evicts "
                "nothing\n",
                whatif_file_name(file), policy, l->where);
    if (l->deviation) {
        /* Its lines are the cluster's mean plus or minus a percentage, not
         * a share of the node: nothing to compare ours with. */
        fprintf(stderr,
                "%s: note: %s: LowNodeUtilization (%s) uses useDeviationThresholds: its "
                "targetThresholds are relative to the mean utilisation of the nodes, not "
                "percentages of a node, so they are not compared with %s and %s\n",
                whatif_file_name(file), policy, l->where, key[SCORE_CPU], key[SCORE_MEMORY]);
        return;
    }
    for (int r = 0; r < SCORE_NRES; r++) {
        int ours = c->score.threshold_percent[r];
        if (!l->enabled || !l->has_target[r] || (double)ours <= l->target[r])
            continue;
        const char *res = score_resource_name((enum score_resource)r);
        /* Ours is whole percent: the largest that is not above theirs. */
        int fix = (int)floor(l->target[r]);
        char lower[96] = "";
        /* Our threshold's least is 1 %: below that, only raising theirs helps. */
        if (fix >= 1)
            snprintf(lower, sizeof(lower), "set %s to %d or less, or ", key[r], fix);
        fprintf(stderr,
                "%s: warning: %s is %d %%%s, above the descheduler's LowNodeUtilization "
                "targetThresholds %s of %s %% (%s, %s:%zu:%zu): this extender places pods on a "
                "node until it reaches %d %%, the descheduler evicts from a node above %s %%, "
                "and pods loop between eviction and scheduling (koordinator#2477); %sraise "
                "targetThresholds %s to %d\n",
                whatif_file_name(file), key[r], ours,
                cfg_is_given(c, key[r]) ? "" : " (the default)", res, l->target_text[r], l->where,
                policy, l->line[r], l->column[r], ours, l->target_text[r], lower, res, ours);
    }
}

/* Reads @policy and warns where our thresholds sit above its eviction
 * lines. Returns 0, or 2 when it is unreadable or invalid. */
static int check_descheduler(const char *file, const char *policy, const struct cfg *c)
{
    char err[ERR_LEN], *text;
    size_t len;
    struct cfg_descheduler_policy *pol = malloc(sizeof(*pol));
    const char *sep = ": "; /* the policy's own errors start with its name */

    int rc = pol != NULL ? file_read(policy, 1u << 20, FILE_REGULAR, &text, &len, err)
                         : err_fail(err, -ENOMEM, "out of memory");
    if (rc == 0) {
        rc = cfg_descheduler_policy(text, len, policy, pol, err);
        free(text);
        sep = " ";
    }
    if (rc != 0) {
        fprintf(stderr, "%s: descheduler policy%s%s\n", whatif_file_name(file), sep, err);
        free(pol);
        return 2;
    }
    if (pol->n == 0)
        fprintf(stderr,
                "%s: note: %s (%s) has no LowNodeUtilization: no eviction line to "
                "compare with\n",
                whatif_file_name(file), policy, pol->api_version);
    for (size_t i = 0; i < pol->n; i++)
        check_line(file, policy, c, &pol->lines[i]);
    free(pol);
    return 0;
}

int cli_config_main(int argc, char **argv)
{
    struct cfg c;
    char err[ERR_LEN];
    const char *file = NULL, *policy = NULL;

    /* --help is main()'s. FILE and --descheduler-policy POLICY (or
     * --descheduler-policy=POLICY) in any order. */
    bool usage = argc < 2 || strcmp(argv[0], "check") != 0;
    for (int i = 1; i < argc && !usage; i++) {
        if (strcmp(argv[i], "--descheduler-policy") == 0 && i + 1 < argc && policy == NULL)
            policy = argv[++i];
        else if (strncmp(argv[i], "--descheduler-policy=", 21) == 0 && policy == NULL)
            policy = argv[i] + 21;
        else if (file == NULL && (argv[i][0] != '-' || strcmp(argv[i], "-") == 0))
            file = argv[i];
        else
            usage = true;
    }
    if (usage || file == NULL || (policy != NULL && policy[0] == '\0')) {
        fprintf(stderr, "usage: cpu-extender config check FILE [--descheduler-policy POLICY]   "
                        "(see cpu-extender config --help)\n");
        return 2;
    }
    if (cfg_load_file_only(&c, file, err) != 0) {
        /* The file's own errors name it already ("config file NAME: ..."). */
        if (strncmp(err, "config file ", 12) == 0)
            fprintf(stderr, "%s\n", err);
        else
            fprintf(stderr, "%s: %s\n", whatif_file_name(file), err);
        return 2;
    }
    int bad = check_files(file, &c);
    if (bad == 0 && cfg_apply_scheduler_config(&c, err) != 0) {
        fprintf(stderr, "%s: %s\n", whatif_file_name(file), err);
        bad++;
    }
    if (bad != 0)
        return 2;
    cfg_advice(&c, print_advice, (void *)(uintptr_t)file);
    if (policy != NULL && check_descheduler(file, policy, &c) != 0)
        return 2;
    fprintf(stderr, "%s: ok\n", whatif_file_name(file));
    print_filter_need(whatif_file_name(file), &c);
    cfg_print_json(&c, stdout);
    return 0;
}

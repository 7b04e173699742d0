#include "config/load.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "base/log.h"
#include "config/scheduler_config.h"

extern char **environ;

int cfg_apply_scheduler_config(struct cfg *c, char *err)
{
    char host[CFG_STR_LEN], *text = NULL;
    size_t len;
    int port = 0;
    struct cfg_extender_entry e;

    if (c->scheduler_config_path[0] == '\0')
        return 0;
    int rc = file_read(c->scheduler_config_path, 1u << 20, FILE_REGULAR, &text, &len, err);
    if (rc != 0) {
        err_prefix(err, "scheduler-config: ");
        return rc;
    }
    cfg_listen_split(c->listen, host, &port);
    rc = cfg_scheduler_extender(text, len, c->scheduler_config_path, port, c->prefix, &e, err);
    free(text);
    if (rc != 0)
        return rc;
    return cfg_set_from_scheduler(c, e.weight, e.timeout_ms, err);
}

int cfg_build_config(struct cfg *c, int argc, char **argv, const struct cfg *started, char *err)
{
    int positional[1], n = 0;
    if (cfg_load(c, argc, argv, environ, positional, 0, &n, err) != 0)
        return -EINVAL;
    if (started == NULL || started->scheduler_config_path[0] == '\0')
        return cfg_apply_scheduler_config(c, err) != 0 ? -EINVAL : 0;
    /* A reload: the file as kube-scheduler read it at start, whatever it
     * says now (both read it again when the pod restarts). */
    struct cfg now = *c;
    char why[ERR_LEN];
    snprintf(now.scheduler_config_path, sizeof(now.scheduler_config_path), "%s",
             started->scheduler_config_path);
    now.given = 0; /* what the file says, whatever the layers set */
    if (cfg_apply_scheduler_config(&now, why) != 0)
        LOG(LOG_WARN, "scheduler-config unreadable now: keeping the values read at start",
            LOG_STR("error", why));
    else if (now.scheduler_weight != started->scheduler_weight ||
             now.scheduler_timeout_ms != started->scheduler_timeout_ms)
        LOG(LOG_WARN,
            "scheduler-config changed on disk: kube-scheduler reads it at start only, so the "
            "values read then stay until a restart",
            LOG_STR("file", started->scheduler_config_path),
            LOG_INT("schedulerWeight", started->scheduler_weight),
            LOG_INT("schedulerTimeoutMs", started->scheduler_timeout_ms));
    snprintf(c->scheduler_config, sizeof(c->scheduler_config), "%s", started->scheduler_config);
    snprintf(c->scheduler_config_path, sizeof(c->scheduler_config_path), "%s",
             started->scheduler_config_path);
    return cfg_set_from_scheduler(c, started->scheduler_weight, started->scheduler_timeout_ms,
                                  err) != 0
               ? -EINVAL
               : 0;
}

int cfg_load_config(struct cfg *c, int argc, char **argv)
{
    char err[ERR_LEN];
    if (cfg_build_config(c, argc, argv, NULL, err) != 0) {
        fprintf(stderr, "cpu-extender: %s\n", err);
        return -EINVAL;
    }
    return 0;
}

int cfg_load_options(struct cfg *c, int argc, char **argv)
{
    char err[ERR_LEN];
    int positional[1], n = 0;
    if (cfg_load(c, argc, argv, environ, positional, 0, &n, err) != 0) {
        fprintf(stderr, "cpu-extender: %s\n", err);
        return -EINVAL;
    }
    return 0;
}

bool cfg_wants_help(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return true;
    return false;
}

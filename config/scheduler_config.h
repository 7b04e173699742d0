/*
 * The extender's entry of kube-scheduler's own configuration file (a
 * KubeSchedulerConfiguration, kubescheduler.config.k8s.io/v1 or a beta
 * version: the extenders stanza is the same in all of them), so that the
 * weight and httpTimeout kube-scheduler uses are written once, in its file,
 * and read from there (docs/manifests.md, "Set once").
 */
#ifndef CONFIG_SCHEDULER_CONFIG_H
#define CONFIG_SCHEDULER_CONFIG_H

#include <stddef.h>

/* kube-scheduler's timeout for an extender call without httpTimeout (or
 * with 0): NewHTTPExtender's default. */
#define KUBE_EXTENDER_DEFAULT_TIMEOUT_MS 5000

/* What kube-scheduler's file says about this extender. */
struct cfg_extender_entry {
    long long weight;     /* as written; kube-scheduler refuses < 1 with a prioritizeVerb */
    long long timeout_ms; /* httpTimeout, 5000 when absent or 0, 0 when negative (none) */
    int index;            /* its position in extenders[] */
    char url_prefix[256]; /* as written (cut at 255 bytes) */
};

/*
 * Finds in the KubeSchedulerConfiguration @text (@len bytes, YAML or JSON;
 * @name for messages) the extenders[] entry that reaches this extender:
 * the path of its urlPrefix (repeated slashes collapsed, a trailing one
 * dropped) equals @prefix (normalized the same way: "" is the root), and,
 * when more than one entry has that path, its port (80 or 443 by scheme
 * when absent) equals @port (0: any). A Service in between may map the
 * port, so the port decides only between entries of the same path.
 * Returns 0 with *@out, or -EINVAL with the reason naming @name and the
 * field in @err (ERR_LEN): not YAML, not a KubeSchedulerConfiguration, no
 * or several matching entries, a weight or httpTimeout kube-scheduler
 * would not read, or -ENOMEM.
 */
int cfg_scheduler_extender(const char *text, size_t len, const char *name, int port,
                           const char *prefix, struct cfg_extender_entry *out, char *err);

/*
 * Parses a Go duration ("5s", "1m30s", "1.5s", "250ms", "-1s", "0") into
 * whole milliseconds, truncated toward zero as time.Duration.Milliseconds()
 * does. Returns 0, or -EINVAL when @s is not a duration Go would read or
 * is out of range.
 */
int cfg_go_duration_ms(const char *s, long long *ms);

#endif

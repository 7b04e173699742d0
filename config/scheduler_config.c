#include "config/scheduler_config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "base/err.h"
#include "base/path.h"
#include "config/yaml.h"

/* Largest file read: a KubeSchedulerConfiguration is a few KiB. */
#define SCHED_FILE_MAX (1u << 20)

static const struct {
    const char *name;
    long long ns;
} units[] = {
    {"ns", 1LL},           {"us", 1000LL},      {"\xc2\xb5s", 1000LL}, /* U+00B5 micro sign */
    {"\xce\xbcs", 1000LL},                                             /* U+03BC Greek mu */
    {"ms", 1000000LL},     {"s", 1000000000LL}, {"m", 60000000000LL},  {"h", 3600000000000LL},
};

/* time.ParseDuration: [-+]?([0-9]*(\.[0-9]*)?unit)+, or "0". Exact
 * integer arithmetic in nanoseconds, as Go's. */
int cfg_go_duration_ms(const char *s, long long *ms)
{
    bool neg = false;
    __int128 total = 0;

    if (*s == '-' || *s == '+')
        neg = *s++ == '-';
    if (strcmp(s, "0") == 0) {
        *ms = 0;
        return 0;
    }
    if (*s == '\0')
        return -EINVAL;
    while (*s != '\0') {
        __int128 whole = 0, frac = 0, scale = 1;
        bool digits = false;
        for (; *s >= '0' && *s <= '9'; s++, digits = true) {
            whole = whole * 10 + (*s - '0');
            if (whole > INT64_MAX)
                return -EINVAL;
        }
        if (*s == '.') {
            s++;
            for (; *s >= '0' && *s <= '9'; s++, digits = true)
                if (scale < 1000000000000000000LL) { /* further digits are below 1 ns */
                    frac = frac * 10 + (*s - '0');
                    scale *= 10;
                }
        }
        if (!digits)
            return -EINVAL;
        size_t len = 0;
        while (s[len] != '\0' && s[len] != '.' && (s[len] < '0' || s[len] > '9'))
            len++;
        long long unit = 0;
        for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
            if (strlen(units[i].name) == len && strncmp(s, units[i].name, len) == 0)
                unit = units[i].ns;
        if (unit == 0)
            return -EINVAL; /* a missing or unknown unit */
        s += len;
        total += whole * unit + frac * unit / scale;
        if (total > INT64_MAX)
            return -EINVAL;
    }
    long long ns = (long long)total;
    *ms = (neg ? -ns : ns) / 1000000;
    return 0;
}

/* One parse: the document and where messages go. */
struct sched_parse {
    yaml_document_t doc;
    const char *name;
    char *err;
};

/* err_fail() with "scheduler-config NAME: " before @fmt: every message
 * names the file. */
#define FAIL(p, fmt, ...)                                                                          \
    err_fail((p)->err, -EINVAL, "scheduler-config %s: " fmt, (p)->name, __VA_ARGS__)

/* The port and normalized path of URL @url (http:// or https://), as
 * net/url reads it; -1 port when @url is not such a URL. */
static void split_url(const char *url, int *port, char *path, size_t n)
{
    const char *rest;
    int dflt;

    *port = -1;
    path[0] = '\0';
    if (strncmp(url, "http://", 7) == 0) {
        rest = url + 7;
        dflt = 80;
    } else if (strncmp(url, "https://", 8) == 0) {
        rest = url + 8;
        dflt = 443;
    } else {
        return;
    }
    size_t host_len = strcspn(rest, "/?#");
    const char *slash = rest + host_len;
    const char *close = memchr(rest, ']', host_len); /* [v6]:port */
    const char *from = close != NULL ? close : rest;
    const char *colon = memchr(from, ':', (size_t)(slash - from));
    *port = dflt;
    if (colon != NULL && colon + 1 < slash) {
        char *end;
        long v = strtol(colon + 1, &end, 10);
        *port = end == slash && v >= 0 && v <= 65535 ? (int)v : -1;
    }
    path_squash(slash, strcspn(slash, "?#"), path, n, true);
}

/* Reads entry @e (extenders[@i]) into @out. */
static int read_entry(struct sched_parse *p, const yaml_node_t *e, int i,
                      struct cfg_extender_entry *out)
{
    const yaml_node_t *wn = cfg_yaml_get(&p->doc, e, "weight");
    const char *w = cfg_yaml_text(wn), *t = cfg_yaml_text(cfg_yaml_get(&p->doc, e, "httpTimeout"));

    memset(out, 0, sizeof(*out));
    out->index = i;
    snprintf(out->url_prefix, sizeof(out->url_prefix), "%s",
             cfg_yaml_text(cfg_yaml_get(&p->doc, e, "urlPrefix")));
    if (wn != NULL && w == NULL)
        return FAIL(p, "extenders[%d].weight: want a whole number", i);
    if (w != NULL) {
        char *end;
        errno = 0;
        out->weight = strtoll(w, &end, 10);
        if (errno != 0 || end == w || *end != '\0')
            return FAIL(p, "extenders[%d].weight: \"%s\" is not a whole number", i, w);
    }
    out->timeout_ms = KUBE_EXTENDER_DEFAULT_TIMEOUT_MS;
    if (t != NULL) {
        long long ms;
        if (cfg_go_duration_ms(t, &ms) != 0)
            return FAIL(p, "extenders[%d].httpTimeout: \"%s\" is not a duration (e.g. 5s, 1m30s)",
                        i, t);
        /* 0 is NewHTTPExtender's default; below it, Go's client has no
         * timeout at all. */
        out->timeout_ms = ms == 0 ? KUBE_EXTENDER_DEFAULT_TIMEOUT_MS : ms < 0 ? 0 : ms;
    }
    return 0;
}

/* The entry of extenders (a sequence) for @port and @prefix. */
static int find_entry(struct sched_parse *p, const yaml_node_t *list, int port, const char *prefix,
                      struct cfg_extender_entry *out)
{
    char want[512], path[512];
    int by_path = 0, by_port = 0;
    const yaml_node_t *chosen = NULL;
    int chosen_index = -1;

    path_squash(prefix, strlen(prefix), want, sizeof(want), true);
    if (list == NULL || list->type != YAML_SEQUENCE_NODE)
        return err_fail(p->err, -EINVAL, "scheduler-config %s: no extenders list", p->name);
    int n = (int)(list->data.sequence.items.top - list->data.sequence.items.start);
    for (int i = 0; i < n; i++) {
        const yaml_node_t *e = yaml_document_get_node(&p->doc, list->data.sequence.items.start[i]);
        const char *url = cfg_yaml_text(cfg_yaml_get(&p->doc, e, "urlPrefix"));
        int uport;
        if (url == NULL)
            continue;
        split_url(url, &uport, path, sizeof(path));
        if (uport < 0 || strcmp(path, want) != 0)
            continue;
        bool port_ok = port == 0 || uport == port;
        /* The first with the path, unless one with the port comes. */
        if (by_path == 0 || (port_ok && by_port == 0)) {
            chosen = e;
            chosen_index = i;
        }
        by_path++;
        by_port += port_ok;
    }
    if (by_path == 0)
        return FAIL(p, "no extenders entry whose urlPrefix has the path \"%s\" of this extender",
                    want[0] != '\0' ? want : "/");
    if (by_path > 1 && by_port != 1)
        return FAIL(p,
                    "%d extenders entries have the path \"%s\" and %d of them the port %d: "
                    "cannot tell which is this extender",
                    by_path, want[0] != '\0' ? want : "/", by_port, port);
    return read_entry(p, chosen, chosen_index, out);
}

int cfg_scheduler_extender(const char *text, size_t len, const char *name, int port,
                           const char *prefix, struct cfg_extender_entry *out, char *err)
{
    struct sched_parse p = {.name = name, .err = err};
    struct cfg_yaml_error ye;
    int rc;

    if (len > SCHED_FILE_MAX)
        return FAIL(&p, "larger than %u MiB", SCHED_FILE_MAX >> 20);
    rc = cfg_yaml_load(text, len, "scheduler-config ", name, &p.doc, &ye, err);
    if (rc == -EBADMSG)
        return FAIL(&p, "YAML error at line %zu, column %zu: %s", ye.line, ye.column, ye.problem);
    if (rc != 0)
        return rc;
    const yaml_node_t *root = yaml_document_get_root_node(&p.doc);
    const char *kind = cfg_yaml_text(cfg_yaml_get(&p.doc, root, "kind"));
    const char *api = cfg_yaml_text(cfg_yaml_get(&p.doc, root, "apiVersion"));
    if (kind == NULL || strcmp(kind, "KubeSchedulerConfiguration") != 0 || api == NULL ||
        strncmp(api, "kubescheduler.config.k8s.io/", 28) != 0)
        rc = FAIL(&p, "not a KubeSchedulerConfiguration (kind %s, apiVersion %s)",
                  kind != NULL ? kind : "none", api != NULL ? api : "none");
    else
        rc = find_entry(&p, cfg_yaml_get(&p.doc, root, "extenders"), port, prefix, out);
    yaml_document_delete(&p.doc);
    return rc;
}

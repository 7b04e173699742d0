#include "config/descheduler.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "base/err.h"
#include "config/yaml.h"

/* A policy is a few kilobytes; this bounds what a wrong file costs. */
#define POLICY_MAX (1u << 20)

#define PLUGIN "LowNodeUtilization"

struct parse {
    yaml_document_t doc;
    const char *name;
    char *err;
    struct cfg_descheduler_policy *out;
};

static int fail_at(const struct parse *p, const yaml_node_t *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "NAME:LINE:COLUMN: what" (without a node: "NAME: what"). */
static int fail_at(const struct parse *p, const yaml_node_t *at, const char *fmt, ...)
{
    int n = at != NULL ? snprintf(p->err, ERR_LEN, "%s:%zu:%zu: ", p->name, at->start_mark.line + 1,
                                  at->start_mark.column + 1)
                       : snprintf(p->err, ERR_LEN, "%s: ", p->name);
    if (n > 0 && n < ERR_LEN) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->err + n, ERR_LEN - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -EINVAL;
}

static const yaml_node_t *get(struct parse *p, const yaml_node_t *map, const char *key)
{
    return cfg_yaml_get(&p->doc, map, key);
}

/* The descheduler reads its policy with sigs.k8s.io/yaml, whose YAML 1.1
 * booleans include yes, on and y in three spellings each. */
static bool is_true(const yaml_node_t *n)
{
    static const char *const yes[] = {"true", "True", "TRUE", "yes", "Yes", "YES",
                                      "on",   "On",   "ON",   "y",   "Y"};
    const char *t = cfg_yaml_text(n);
    for (size_t i = 0; t != NULL && i < sizeof(yes) / sizeof(yes[0]); i++)
        if (strcmp(t, yes[i]) == 0)
            return true;
    return false;
}

/* A YAML number as Go's decoder reads one: decimal digits, a point, an
 * exponent; not strtod's hexadecimal, leading spaces, inf or nan. */
static bool decimal_text(const char *t)
{
    return t != NULL && (isdigit((unsigned char)t[0]) || t[0] == '.') &&
           strspn(t, "0123456789.eE+-") == strlen(t);
}

/* The @i-th item of sequence @seq. */
static const yaml_node_t *item(struct parse *p, const yaml_node_t *seq, size_t i)
{
    return yaml_document_get_node(&p->doc, seq->data.sequence.items.start[i]);
}

static size_t items(const yaml_node_t *seq)
{
    return seq != NULL && seq->type == YAML_SEQUENCE_NODE
               ? (size_t)(seq->data.sequence.items.top - seq->data.sequence.items.start)
               : 0;
}

/* targetThresholds' cpu and memory into @l: numbers from 0 to 100. */
static int targets(struct parse *p, const yaml_node_t *map, struct cfg_descheduler_line *l)
{
    if (map == NULL)
        return 0;
    if (map->type != YAML_MAPPING_NODE)
        return fail_at(p, map, "targetThresholds: want a mapping of resource to percent");
    for (int r = 0; r < SCORE_NRES; r++) {
        const yaml_node_t *v = get(p, map, score_resource_name((enum score_resource)r));
        if (v == NULL)
            continue;
        const char *t = cfg_yaml_text(v);
        char *end = NULL;
        double x = decimal_text(t) ? strtod(t, &end) : NAN;
        if (!decimal_text(t) || end == t || *end != '\0' || !(x >= 0 && x <= 100))
            return fail_at(p, v, "targetThresholds.%s: want a percent from 0 to 100",
                           score_resource_name((enum score_resource)r));
        l->has_target[r] = true;
        l->target[r] = x;
        snprintf(l->target_text[r], sizeof(l->target_text[r]), "%s", t);
        l->line[r] = v->start_mark.line + 1;
        l->column[r] = v->start_mark.column + 1;
    }
    return 0;
}

/* One LowNodeUtilization's arguments (v1alpha2 args, v1alpha1
 * nodeResourceUtilizationThresholds) as a new line. */
static int add_line(struct parse *p, const yaml_node_t *args, const char *where, bool enabled)
{
    if (p->out->n == CFG_DESCHEDULER_MAX)
        return fail_at(p, args, "more than %d %s configurations", CFG_DESCHEDULER_MAX, PLUGIN);
    struct cfg_descheduler_line *l = &p->out->lines[p->out->n++];
    memset(l, 0, sizeof(*l));
    snprintf(l->where, sizeof(l->where), "%s", where);
    l->enabled = enabled;
    if (args == NULL)
        return 0;
    if (args->type != YAML_MAPPING_NODE)
        return fail_at(p, args, "%s arguments: want a mapping", PLUGIN);
    l->deviation = is_true(get(p, args, "useDeviationThresholds"));
    return targets(p, get(p, args, "targetThresholds"), l);
}

/* Whether @profile lists LowNodeUtilization under plugins.balance.enabled. */
static bool balance_enabled(struct parse *p, const yaml_node_t *profile)
{
    const yaml_node_t *en = get(p, get(p, get(p, profile, "plugins"), "balance"), "enabled");
    for (size_t i = 0; i < items(en); i++) {
        const char *t = cfg_yaml_text(item(p, en, i));
        if (t != NULL && strcmp(t, PLUGIN) == 0)
            return true;
    }
    return false;
}

static int v1alpha2(struct parse *p, const yaml_node_t *root)
{
    const yaml_node_t *profiles = get(p, root, "profiles");
    if (profiles != NULL && profiles->type != YAML_SEQUENCE_NODE)
        return fail_at(p, profiles, "profiles: want a list");
    for (size_t i = 0; i < items(profiles); i++) {
        const yaml_node_t *prof = item(p, profiles, i);
        const char *name = cfg_yaml_text(get(p, prof, "name"));
        char where[96];
        snprintf(where, sizeof(where), "profile %s", name != NULL ? name : "(no name)");
        const yaml_node_t *configs = get(p, prof, "pluginConfig");
        for (size_t k = 0; k < items(configs); k++) {
            const yaml_node_t *pc = item(p, configs, k);
            const char *plugin = cfg_yaml_text(get(p, pc, "name"));
            if (plugin == NULL || strcmp(plugin, PLUGIN) != 0)
                continue;
            int rc = add_line(p, get(p, pc, "args"), where, balance_enabled(p, prof));
            if (rc != 0)
                return rc;
        }
    }
    return 0;
}

static int v1alpha1(struct parse *p, const yaml_node_t *root)
{
    const yaml_node_t *s = get(p, get(p, root, "strategies"), PLUGIN);
    if (s == NULL)
        return 0;
    /* v1alpha1's DeschedulerStrategy.Enabled is a Go bool: a strategy
     * without enabled: true is listed but never run. */
    bool enabled = is_true(get(p, s, "enabled"));
    return add_line(p, get(p, get(p, s, "params"), "nodeResourceUtilizationThresholds"),
                    "strategies", enabled);
}

int cfg_descheduler_policy(const char *text, size_t len, const char *name,
                           struct cfg_descheduler_policy *out, char *err)
{
    struct parse p = {.name = name, .err = err, .out = out};
    struct cfg_yaml_error ye;
    int rc;

    memset(out, 0, sizeof(*out));
    if (len > POLICY_MAX)
        return fail_at(&p, NULL, "larger than %u MiB", POLICY_MAX >> 20);
    rc = cfg_yaml_load(text, len, "", name, &p.doc, &ye, err);
    if (rc == -EBADMSG)
        return err_fail(err, -EINVAL, "%s:%zu:%zu: YAML error: %s", name, ye.line, ye.column,
                        ye.problem);
    if (rc != 0)
        return rc;
    const yaml_node_t *root = yaml_document_get_root_node(&p.doc);
    const char *kind = cfg_yaml_text(get(&p, root, "kind"));
    const char *api = cfg_yaml_text(get(&p, root, "apiVersion"));
    if (kind == NULL || strcmp(kind, "DeschedulerPolicy") != 0) {
        rc = fail_at(&p, root, "not a DeschedulerPolicy (kind %s)", kind != NULL ? kind : "none");
    } else if (api != NULL && strcmp(api, "descheduler/v1alpha2") == 0) {
        snprintf(out->api_version, sizeof(out->api_version), "%s", api);
        rc = v1alpha2(&p, root);
    } else if (api != NULL && strcmp(api, "descheduler/v1alpha1") == 0) {
        snprintf(out->api_version, sizeof(out->api_version), "%s", api);
        rc = v1alpha1(&p, root);
    } else {
        rc = fail_at(&p, root, "apiVersion %s: want descheduler/v1alpha2 or descheduler/v1alpha1",
                     api != NULL ? api : "none");
    }
    yaml_document_delete(&p.doc);
    return rc;
}

/*
 * The Kubernetes manifests (every file under manifests/): API objects in
 * current API versions only, consistent with each other, with the
 * extender's routes and configuration, and with what docs/manifests.md and
 * the README state. The ConfigMap is made by manifests/kustomization.yaml
 * from the files the pod reads; the tests build it from the kustomization's
 * own fields, and where kubectl is on PATH also compare it with
 * `kubectl kustomize manifests/`. Paths are relative to the repository
 * root, the test runner's working directory. A failure names the file,
 * line and field.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "base/err.h"
#include "config/config.h"
#include "config/filter_need.h"
#include "scoring/quantity.h"
#include "server/http/budget.h"
#include "server/verbs/memory.h"
#include "tests/suites.h"
#include "tests/support/fixtures.h"
#include "tests/support/server_proc.h"
#include "tests/support/skip.h"
#include "tests/support/yaml_doc.h"

#define MAX_FILES 32
#define PATH_LEN  256

/* The API objects the manifests may hold, each in its current version. */
static const struct kind_rule {
    const char *kind;
    const char *api_version;
    bool namespaced;
    bool colon_in_name; /* RBAC names such as system:kube-scheduler */
} kind_rules[] = {
    {"ConfigMap", "v1", true, false},
    {"ServiceAccount", "v1", true, false},
    {"Pod", "v1", true, false}, /* the kubeadm static-pod patch */
    {"Deployment", "apps/v1", true, false},
    {"PodDisruptionBudget", "policy/v1", true, false},
    {"Role", "rbac.authorization.k8s.io/v1", true, true},
    {"RoleBinding", "rbac.authorization.k8s.io/v1", true, true},
    {"ClusterRole", "rbac.authorization.k8s.io/v1", false, true},
    {"ClusterRoleBinding", "rbac.authorization.k8s.io/v1", false, true},
    {"PrometheusRule", "monitoring.coreos.com/v1", true, false}, /* manifests/monitoring */
};

/* kustomize's own file: not an API object, never applied with -f. */
#define KUSTOMIZATION_API "kustomize.config.k8s.io/v1beta1"

/* Prometheus' own configuration files (no kind): not API objects; promtool
 * checks them (tests/monitoring). */
static const char *const prometheus_files[] = {
    "manifests/monitoring/rules.yaml",
    "manifests/monitoring/scrape-config.yaml",
};

/* kube-scheduler's configuration file: not an API object, never applied. */
static const char *const scheduler_config_versions[] = {
    "kubescheduler.config.k8s.io/v1",
    "kubescheduler.config.k8s.io/v1beta3",
};

/* The extender's routes (server/http/routes.c): <prefix>/<verb>. filterVerb
 * is registered only where the sidecar's configuration needs the filter
 * (config/filter_need.h), checked apart. */
static const char *const verb_fields[][2] = {
    {"prioritizeVerb", "prioritize"},
    {"preemptVerb", "preempt"},
    {"bindVerb", "bind"},
};

/* ClusterRole cpu-extender, as docs/manifests.md ("RBAC notes") lists it. */
static const struct rule {
    const char *api_group;
    const char *resources[3];
    const char *verbs[4];
} cpu_extender_rules[] = {
    {"", {"nodes", "pods"}, {"get", "list", "watch"}},
    {"", {"pods/binding"}, {"create"}},
    {"metrics.k8s.io", {"nodes"}, {"get", "list"}},
};

/* Roles that exist in every cluster (bootstrap policy): bindings may name them. */
static const char *const bootstrap_roles[] = {
    "ClusterRole/system:kube-scheduler",
    "ClusterRole/system:volume-scheduler",
    "Role/extension-apiserver-authentication-reader",
};

/* kubeadm --patches targets: a file in the patch directory whose name starts
 * with one of these is applied as a patch. */
static const char *const kubeadm_targets[] = {
    "kube-apiserver", "kube-controller-manager", "kube-scheduler",
    "etcd",           "kubeletconfiguration",    "corednsdeployment",
};

#define KUSTOMIZATION        "manifests/kustomization.yaml"
#define SCHED_DIR            "manifests/scheduler/"
#define SCHED_CONFIG         SCHED_DIR "scheduler-config.yaml"
#define SCHED_CONFIG_V1BETA3 SCHED_DIR "scheduler-config-v1beta3.yaml"
#define EXT_CONFIG           SCHED_DIR "config.json"
#define MONITORING_DIR       "manifests/monitoring/"
#define KUBEADM_DIR          "manifests/kubeadm/"
#define KUBEADM_PATCH        KUBEADM_DIR "kube-scheduler+strategic.yaml"
#define KUBEADM_SCHED_CONFIG KUBEADM_DIR "scheduler-config.yaml"
#define KUBEADM_EXT_CONFIG   KUBEADM_DIR "config.json"
#define CONFIGMAP_NAME       "cpu-extender-config"
#define DEPLOYMENT_NAME      "cpu-extender-scheduler"

struct manifests {
    size_t n_files;
    char *paths[MAX_FILES]; /* every file, sorted */
    size_t n_yaml;
    struct ydoc_file yaml[MAX_FILES];
    /* For a document made from a kustomization's generator: that
     * kustomization's directory ("manifests/"); NULL for a file. */
    char *generated_by[MAX_FILES];
};

/* One document of a loaded file. */
struct obj {
    struct ydoc_file *file;
    yaml_document_t *doc;
    yaml_node_t *root;
};

/* The extender's listen address and prefix, from one config.json. */
struct ext_cfg {
    const char *from; /* for messages */
    cJSON *json;
    struct cfg cfg; /* the file over the defaults, as the sidecar reads it */
    char listen[128];
    char prefix[128];
};

static void list_files(const char *dir, struct manifests *m)
{
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "cannot open %s (run the tests from the repository root)", dir);
    for (const struct dirent *e = readdir(d); e != NULL; e = readdir(d)) {
        char path[PATH_LEN];
        if (e->d_name[0] == '.')
            continue;
        int n = snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        ck_assert_msg(n > 0 && (size_t)n < sizeof(path), "%s/%s: path too long", dir, e->d_name);
        struct stat st;
        ck_assert_msg(stat(path, &st) == 0, "%s: %s", path, strerror(errno));
        if (S_ISDIR(st.st_mode)) {
            list_files(path, m);
            continue;
        }
        ck_assert_msg(m->n_files < MAX_FILES, "more than %d files under manifests/", MAX_FILES);
        m->paths[m->n_files] = strdup(path);
        ck_assert_ptr_nonnull(m->paths[m->n_files]);
        m->n_files++;
    }
    closedir(d);
}

static int compare_paths(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static bool has_prefix(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The directory of kustomization file @path, with its slash ("manifests/"). */
static char *kustomization_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = strndup(path, slash != NULL ? (size_t)(slash - path + 1) : 0);
    ck_assert_ptr_nonnull(dir);
    return dir;
}

/* The ConfigMaps that kustomization file @k (a loaded file of @m) generates,
 * as kustomize v2.0.3 and later write them, added to @m as documents: each
 * key the named file byte for byte, the kustomization's namespace, the
 * generatorOptions labels. Fails on any generator field it does not model,
 * rather than check something kustomize would render differently. */
static void kustomize_generate(struct manifests *m, struct ydoc_file *k)
{
    yaml_document_t *d = &k->docs[0];
    const yaml_node_t *root = ydoc_root(d);
    const yaml_node_t *gens = ydoc_get(d, root, "configMapGenerator");
    const yaml_node_t *opts = ydoc_get(d, root, "generatorOptions");
    const char *ns = ydoc_str(ydoc_get(d, root, "namespace"));
    char *dir = kustomization_dir(k->path);

    for (size_t i = 0; i < ydoc_len(opts); i++) {
        yaml_node_t *key = NULL, *v = NULL;
        ydoc_pair(d, opts, i, &key, &v);
        ck_assert_msg(ydoc_is(key, "labels") || ydoc_is(key, "disableNameSuffixHash"),
                      "%s:%d: generatorOptions.%s: not modelled by tests/manifests", k->path,
                      ydoc_line(key), ydoc_str(key));
    }
    if (ydoc_len(gens) > 0)
        /* Docs and commands name the ConfigMap; a hashed name would not be it. */
        ck_assert_msg(ydoc_is(ydoc_get(d, opts, "disableNameSuffixHash"), "true"),
                      "%s: generatorOptions.disableNameSuffixHash: want true", k->path);
    for (size_t i = 0; i < ydoc_len(gens); i++) {
        const yaml_node_t *g = ydoc_item(d, gens, i);
        const char *name = ydoc_str(ydoc_get(d, g, "name"));
        const yaml_node_t *files = ydoc_get(d, g, "files");
        char doc_name[PATH_LEN], err[YDOC_ERR_LEN];

        ck_assert_msg(name != NULL, "%s:%d: configMapGenerator[%zu].name: missing", k->path,
                      ydoc_line(g), i);
        for (size_t j = 0; j < ydoc_len(g); j++) {
            yaml_node_t *key = NULL, *v = NULL;
            ydoc_pair(d, g, j, &key, &v);
            ck_assert_msg(ydoc_is(key, "name") || ydoc_is(key, "files"),
                          "%s:%d: configMapGenerator[%s].%s: not modelled by tests/manifests",
                          k->path, ydoc_line(key), name, ydoc_str(key));
        }
        cJSON *cm = cJSON_CreateObject();
        cJSON_AddStringToObject(cm, "apiVersion", "v1");
        cJSON_AddStringToObject(cm, "kind", "ConfigMap");
        cJSON *meta = cJSON_AddObjectToObject(cm, "metadata");
        cJSON_AddStringToObject(meta, "name", name);
        if (ns != NULL)
            cJSON_AddStringToObject(meta, "namespace", ns);
        const yaml_node_t *labels = ydoc_get(d, opts, "labels");
        if (ydoc_len(labels) > 0) {
            cJSON *l = cJSON_AddObjectToObject(meta, "labels");
            for (size_t j = 0; j < ydoc_len(labels); j++) {
                yaml_node_t *key = NULL, *v = NULL;
                ydoc_pair(d, labels, j, &key, &v);
                cJSON_AddStringToObject(l, ydoc_str(key), ydoc_str(v));
            }
        }
        cJSON *data = cJSON_AddObjectToObject(cm, "data");
        for (size_t j = 0; j < ydoc_len(files); j++) {
            /* "KEY=PATH" or "PATH" (the key is then its base name). */
            const char *spec = ydoc_str(ydoc_item(d, files, j));
            ck_assert_msg(spec != NULL, "%s: configMapGenerator[%s].files[%zu]: not a string",
                          k->path, name, j);
            const char *eq = strchr(spec, '=');
            const char *rel = eq != NULL ? eq + 1 : spec;
            const char *base = strrchr(rel, '/');
            char key[PATH_LEN], path[PATH_LEN];
            size_t len;
            if (eq != NULL)
                snprintf(key, sizeof(key), "%.*s", (int)(eq - spec), spec);
            else
                snprintf(key, sizeof(key), "%s", base != NULL ? base + 1 : rel);
            ck_assert_msg(strstr(rel, "..") == NULL && rel[0] != '/',
                          "%s: %s: outside the kustomization's directory", k->path, rel);
            snprintf(path, sizeof(path), "%s%s", dir, rel);
            char *text = file_slurp(path, &len);
            ck_assert_msg(text != NULL, "%s: configMapGenerator[%s]: cannot read %s", k->path, name,
                          path);
            ck_assert_msg(strlen(text) == len, "%s: a NUL byte (binaryData is not modelled)", path);
            ck_assert_msg(cJSON_GetObjectItemCaseSensitive(data, key) == NULL,
                          "%s: configMapGenerator[%s]: key %s twice", k->path, name, key);
            cJSON_AddStringToObject(data, key, text);
            free(text);
        }
        char *json = cJSON_PrintUnformatted(cm);
        cJSON_Delete(cm);
        ck_assert_ptr_nonnull(json);
        ck_assert_msg(m->n_yaml < MAX_FILES, "more than %d YAML files under manifests/", MAX_FILES);
        snprintf(doc_name, sizeof(doc_name), "%s configMapGenerator %s", k->path, name);
        ck_assert_msg(ydoc_load_text(&m->yaml[m->n_yaml], doc_name, json, strlen(json), err) == 0,
                      "%s", err);
        m->generated_by[m->n_yaml] = strdup(dir);
        m->n_yaml++;
        free(json);
    }
    free(dir);
}

static void manifests_load(struct manifests *m)
{
    size_t n_files_yaml;

    memset(m, 0, sizeof(*m));
    list_files("manifests", m);
    qsort(m->paths, m->n_files, sizeof(m->paths[0]), compare_paths);
    for (size_t i = 0; i < m->n_files; i++) {
        char err[YDOC_ERR_LEN];
        if (!has_suffix(m->paths[i], ".yaml") && !has_suffix(m->paths[i], ".yml"))
            continue;
        ck_assert_msg(ydoc_load(&m->yaml[m->n_yaml], m->paths[i], err) == 0, "%s", err);
        ck_assert_msg(m->yaml[m->n_yaml].n_docs > 0, "%s: no YAML document", m->paths[i]);
        m->n_yaml++;
    }
    n_files_yaml = m->n_yaml;
    for (size_t i = 0; i < n_files_yaml; i++) {
        if (has_suffix(m->yaml[i].path, "/kustomization.yaml"))
            kustomize_generate(m, &m->yaml[i]);
    }
}

static void manifests_free(struct manifests *m)
{
    for (size_t i = 0; i < m->n_yaml; i++) {
        ydoc_free(&m->yaml[i]);
        free(m->generated_by[i]);
        m->generated_by[i] = NULL;
    }
    for (size_t i = 0; i < m->n_files; i++) {
        free(m->paths[i]);
        m->paths[i] = NULL;
    }
}

__attribute__((format(printf, 3, 4), noreturn)) static void
fail_at(const struct obj *o, const yaml_node_t *n, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    ck_abort_msg("%s:%d: %s", o->file->path, ydoc_line(n != NULL ? n : o->root), msg);
}

/* "." between a non-empty @where and the path after it. */
static const char *sep(const char *where)
{
    return where[0] != '\0' ? "." : "";
}

/* The node at @path below @n, failing with "<where>.<path>: missing". */
static yaml_node_t *need(const struct obj *o, const yaml_node_t *n, const char *where,
                         const char *path)
{
    yaml_node_t *v = ydoc_path(o->doc, n, path);
    if (v == NULL)
        fail_at(o, n, "%s%s%s: missing", where, sep(where), path);
    return v;
}

static const char *need_str(const struct obj *o, const yaml_node_t *n, const char *where,
                            const char *path)
{
    yaml_node_t *v = need(o, n, where, path);
    if (v->type != YAML_SCALAR_NODE)
        fail_at(o, v, "%s%s%s: not a scalar", where, sep(where), path);
    return ydoc_str(v);
}

static void expect_str(const struct obj *o, const yaml_node_t *n, const char *where,
                       const char *path, const char *want)
{
    const char *got = need_str(o, n, where, path);
    if (strcmp(got, want) != 0)
        fail_at(o, ydoc_path(o->doc, n, path), "%s%s%s: want \"%s\", got \"%s\"", where, sep(where),
                path, want, got);
}

/* A boolean as Kubernetes decodes it: the plain scalar true or false. */
static void expect_bool(const struct obj *o, const yaml_node_t *n, const char *where,
                        const char *path, bool want)
{
    yaml_node_t *v = need(o, n, where, path);
    if (!ydoc_is_plain(v) || !ydoc_is(v, want ? "true" : "false"))
        fail_at(o, v, "%s%s%s: want %s, got \"%s\"", where, sep(where), path,
                want ? "true" : "false", ydoc_str(v) != NULL ? ydoc_str(v) : "(not a scalar)");
}

static long long need_int(const struct obj *o, const yaml_node_t *n, const char *where,
                          const char *path)
{
    yaml_node_t *v = need(o, n, where, path);
    const char *s = ydoc_str(v);
    char *end;

    errno = 0;
    long long x = s != NULL && ydoc_is_plain(v) ? strtoll(s, &end, 10) : 0;
    if (s == NULL || !ydoc_is_plain(v) || errno != 0 || end == s || *end != '\0')
        fail_at(o, v, "%s%s%s: want an integer, got \"%s\"", where, sep(where), path,
                s != NULL ? s : "");
    return x;
}

static const struct kind_rule *kind_rule_of(const char *kind)
{
    for (size_t i = 0; i < sizeof(kind_rules) / sizeof(kind_rules[0]); i++) {
        if (strcmp(kind_rules[i].kind, kind) == 0)
            return &kind_rules[i];
    }
    return NULL;
}

static bool in_list(const char *s, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(s, list[i]) == 0)
            return true;
    }
    return false;
}

static bool is_kind(const struct obj *o, const char *kind)
{
    return ydoc_is(ydoc_get(o->doc, o->root, "kind"), kind);
}

/* Document @i of file @f as an obj. */
static struct obj obj_at(struct ydoc_file *f, size_t i)
{
    struct obj o = {f, &f->docs[i], ydoc_root(&f->docs[i])};
    return o;
}

/* The object @kind/@name (any namespace); false when there is none. */
static bool find_obj(struct manifests *m, const char *kind, const char *name, struct obj *out)
{
    for (size_t i = 0; i < m->n_yaml; i++) {
        for (size_t j = 0; j < m->yaml[i].n_docs; j++) {
            struct obj o = obj_at(&m->yaml[i], j);
            if (is_kind(&o, kind) && ydoc_is(ydoc_path(o.doc, o.root, "metadata.name"), name)) {
                *out = o;
                return true;
            }
        }
    }
    return false;
}

static struct obj need_obj(struct manifests *m, const char *kind, const char *name)
{
    struct obj o;
    ck_assert_msg(find_obj(m, kind, name, &o), "manifests/: no %s %s", kind, name);
    return o;
}

/* The first document of file @path. */
static struct obj need_file(struct manifests *m, const char *path)
{
    for (size_t i = 0; i < m->n_yaml; i++) {
        if (strcmp(m->yaml[i].path, path) == 0)
            return obj_at(&m->yaml[i], 0);
    }
    ck_abort_msg("%s: missing", path);
}

/* The value of flag @flag in command @cmd ("--flag=V" or "--flag", "V");
 * NULL when absent. */
static const char *flag_value(const struct obj *o, const yaml_node_t *cmd, const char *flag)
{
    size_t n = strlen(flag);
    for (size_t i = 0; i < ydoc_len(cmd); i++) {
        const char *arg = ydoc_str(ydoc_item(o->doc, cmd, i));
        if (arg == NULL || strncmp(arg, flag, n) != 0)
            continue;
        if (arg[n] == '=')
            return arg + n + 1;
        if (arg[n] == '\0')
            return ydoc_str(ydoc_item(o->doc, cmd, i + 1));
    }
    return NULL;
}

static bool has_arg(const struct obj *o, const yaml_node_t *cmd, const char *arg)
{
    for (size_t i = 0; i < ydoc_len(cmd); i++) {
        if (ydoc_is(ydoc_item(o->doc, cmd, i), arg))
            return true;
    }
    return false;
}

/* Where a file path seen by a container comes from. */
struct source {
    const yaml_node_t *mount;
    const yaml_node_t *volume;
    char key[PATH_LEN];  /* configMap volume: the ConfigMap key */
    char host[PATH_LEN]; /* hostPath volume: the path on the node */
};

/* Follows @path in container @c of pod spec @spec to its volume, failing
 * with @where when no mount or volume provides it. */
static struct source resolve(const struct obj *o, const yaml_node_t *spec, const yaml_node_t *c,
                             const char *where, const char *path)
{
    struct source s;
    const yaml_node_t *mounts = ydoc_get(o->doc, c, "volumeMounts");
    const char *rest = NULL;

    memset(&s, 0, sizeof(s));
    for (size_t i = 0, best = 0; i < ydoc_len(mounts); i++) {
        /* The deepest mount holding @path, as the container sees it. */
        yaml_node_t *mt = ydoc_item(o->doc, mounts, i);
        const char *mp = ydoc_str(ydoc_get(o->doc, mt, "mountPath"));
        size_t n = mp != NULL ? strlen(mp) : 0;
        if (n <= best || strncmp(path, mp, n) != 0 || (path[n] != '/' && path[n] != '\0'))
            continue;
        best = n;
        s.mount = mt;
        rest = path[n] == '/' ? path + n + 1 : "";
    }
    if (s.mount == NULL)
        fail_at(o, c, "%s: no volumeMount holds %s", where, path);
    const char *vname = need_str(o, s.mount, where, "name");
    s.volume = ydoc_find(o->doc, ydoc_get(o->doc, spec, "volumes"), "name", vname);
    if (s.volume == NULL)
        fail_at(o, s.mount, "%s: volumeMount %s has no volume", where, vname);
    const yaml_node_t *cm = ydoc_get(o->doc, s.volume, "configMap");
    const yaml_node_t *hp = ydoc_get(o->doc, s.volume, "hostPath");
    if (cm != NULL) {
        const yaml_node_t *item = ydoc_find(o->doc, ydoc_get(o->doc, cm, "items"), "path", rest);
        const char *key = item != NULL ? ydoc_str(ydoc_get(o->doc, item, "key")) : rest;
        if (ydoc_get(o->doc, cm, "items") != NULL && item == NULL)
            fail_at(o, cm, "%s: volume %s has no item with path %s", where, vname, rest);
        snprintf(s.key, sizeof(s.key), "%s", key != NULL ? key : "");
    } else if (hp != NULL) {
        const char *base = need_str(o, hp, vname, "path");
        snprintf(s.host, sizeof(s.host), "%s%s%s", base, rest[0] != '\0' ? "/" : "", rest);
    }
    return s;
}

static void ext_cfg_parse(struct ext_cfg *c, const char *from, const char *text)
{
    char err[ERR_LEN];
    c->from = from;
    c->json = cJSON_Parse(text);
    ck_assert_msg(cJSON_IsObject(c->json), "%s: not a JSON object", from);
    cfg_defaults(&c->cfg);
    ck_assert_msg(cfg_parse_text(&c->cfg, text, strlen(text), from, err) == 0, "%s", err);
    const cJSON *listen = cJSON_GetObjectItemCaseSensitive(c->json, "listen");
    const cJSON *prefix = cJSON_GetObjectItemCaseSensitive(c->json, "prefix");
    /* Absent keys take the documented defaults (README, "Configuration"). */
    snprintf(c->listen, sizeof(c->listen), "%s",
             cJSON_IsString(listen) ? listen->valuestring : "127.0.0.1:8888");
    snprintf(c->prefix, sizeof(c->prefix), "%s",
             cJSON_IsString(prefix) ? prefix->valuestring : "/scheduler");
}

/* config.json of the ConfigMap, which the Deployment's sidecar reads. */
static void ext_cfg_configmap(struct manifests *m, struct ext_cfg *c)
{
    struct obj cm = need_obj(m, "ConfigMap", CONFIGMAP_NAME);
    const yaml_node_t *data = need(&cm, cm.root, "ConfigMap", "data");
    const char *text = ydoc_str(ydoc_get(cm.doc, data, "config.json"));
    if (text == NULL)
        fail_at(&cm, data, "data.config.json: missing");
    ext_cfg_parse(c, "ConfigMap " CONFIGMAP_NAME " data.config.json (" EXT_CONFIG ")", text);
}

static void ext_cfg_file(struct ext_cfg *c, const char *path)
{
    size_t len;
    char *text = file_slurp(path, &len);
    ck_assert_msg(text != NULL, "%s: cannot read", path);
    ext_cfg_parse(c, path, text);
    free(text);
}

static void ext_cfg_free(struct ext_cfg *c)
{
    cJSON_Delete(c->json);
    c->json = NULL;
}

/* Milliseconds of a Go duration such as "5s", "500ms" or "1m30s"; -1 when
 * it is not one. */
static long long duration_ms(const char *s)
{
    long long total = 0;

    if (s == NULL || *s == '\0')
        return -1;
    while (*s != '\0') {
        static const struct {
            const char *unit;
            long long ms;
        } units[] = {{"ms", 1}, {"s", 1000}, {"m", 60000}, {"h", 3600000}};
        char *end;
        size_t u = 0;
        errno = 0;
        long long n = strtoll(s, &end, 10);
        if (errno != 0 || end == s || n < 0)
            return -1;
        while (u < 4 && !has_prefix(end, units[u].unit))
            u++;
        if (u == 4)
            return -1;
        total += n * units[u].ms;
        s = end + strlen(units[u].unit);
    }
    return total;
}

/* Runs `<binary> config check FILE` on @text. Returns its exit status, or
 * -ENOENT when the binary is not built; its output goes to @out. */
/* `cpu-extender config check` of config.json @text, with the scheduler's
 * file @sched_text beside it as scheduler-config.yaml (as the ConfigMap
 * mounts both keys in one directory). */
static int config_check(const char *text, const char *sched_text, char *out, size_t out_len)
{
    const char *bin = server_binary();
    char dir[64], path[96], sched[96], scratch[256];
    int fds[2], status = 0;
    size_t used = 0;

    out[0] = '\0';
    if (access(bin, X_OK) != 0)
        return -ENOENT;
    snprintf(dir, sizeof(dir), "/tmp/cpu-extender-manifests-%d", (int)getpid());
    ck_assert_int_eq(mkdir(dir, 0700) == 0 || errno == EEXIST, 1);
    snprintf(path, sizeof(path), "%s/config.json", dir);
    snprintf(sched, sizeof(sched), "%s/scheduler-config.yaml", dir);
    const char *const files[][2] = {{path, text}, {sched, sched_text}};
    for (size_t i = 0; i < 2; i++) {
        FILE *f = fopen(files[i][0], "w");
        ck_assert_ptr_nonnull(f);
        fputs(files[i][1], f);
        fclose(f);
    }
    ck_assert_int_eq(pipe(fds), 0);
    pid_t pid = fork();
    ck_assert_int_ne(pid, -1);
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        close(fds[1]);
        execl(bin, bin, "config", "check", path, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    for (;;) {
        /* Read all of it, keep what fits: the child must never block on a full pipe. */
        char *dst = used + 1 < out_len ? out + used : scratch;
        size_t room = used + 1 < out_len ? out_len - used - 1 : sizeof(scratch);
        ssize_t r = read(fds[0], dst, room);
        if (r <= 0)
            break;
        if (dst != scratch)
            used += (size_t)r;
    }
    out[used] = '\0';
    close(fds[0]);
    waitpid(pid, &status, 0);
    unlink(path);
    unlink(sched);
    rmdir(dir);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* ---- every document ---- */

START_TEST(manifests_every_document_is_a_current_api_object)
{
    struct manifests m;
    size_t n_objects = 0, n_configs = 0, n_kustomizations = 0, n_prometheus = 0;
    char seen[64][PATH_LEN];

    manifests_load(&m);
    for (size_t i = 0; i < m.n_yaml; i++) {
        for (size_t j = 0; j < m.yaml[i].n_docs; j++) {
            struct obj o = obj_at(&m.yaml[i], j);
            int line;
            const char *dup = ydoc_duplicate_key(o.doc, &line);
            if (dup != NULL)
                ck_abort_msg("%s:%d: key %s appears twice in one mapping", o.file->path, line, dup);
            if (o.root->type != YAML_MAPPING_NODE)
                fail_at(&o, o.root, "document %zu is not a mapping", j + 1);
            if (in_list(o.file->path, prometheus_files,
                        sizeof(prometheus_files) / sizeof(prometheus_files[0]))) {
                /* Prometheus' configuration: no kind, so no apply can take it. */
                if (ydoc_get(o.doc, o.root, "kind") != NULL)
                    fail_at(&o, o.root, "a Prometheus configuration file has no kind");
                n_prometheus++;
                continue;
            }
            const char *kind = need_str(&o, o.root, "document", "kind");
            const char *api = need_str(&o, o.root, kind, "apiVersion");
            if (strcmp(kind, "Kustomization") == 0) {
                /* kubectl apply -k DIR reads it; never applied itself. */
                if (strcmp(api, KUSTOMIZATION_API) != 0 || o.file->n_docs != 1 ||
                    !has_suffix(o.file->path, "/kustomization.yaml"))
                    fail_at(&o, o.root, "want one %s Kustomization in a kustomization.yaml",
                            KUSTOMIZATION_API);
                n_kustomizations++;
                continue;
            }
            if (strcmp(kind, "KubeSchedulerConfiguration") == 0) {
                /* kube-scheduler's --config file: one document, never applied. */
                if (!in_list(api, scheduler_config_versions, 2))
                    fail_at(&o, o.root,
                            "apiVersion %s: want kubescheduler.config.k8s.io/v1 or v1beta3", api);
                if (o.file->n_docs != 1)
                    fail_at(&o, o.root, "a KubeSchedulerConfiguration must be alone in its file");
                n_configs++;
                continue;
            }
            const struct kind_rule *r = kind_rule_of(kind);
            if (r == NULL)
                fail_at(&o, o.root,
                        "kind %s is not expected here (add it to kind_rules with its current "
                        "apiVersion)",
                        kind);
            if (strcmp(api, r->api_version) != 0)
                fail_at(&o, o.root, "%s: apiVersion %s, want %s", kind, api, r->api_version);
            const char *name = need_str(&o, o.root, kind, "metadata.name");
            for (const char *p = name; *p != '\0'; p++) {
                if ((*p < 'a' || *p > 'z') && (*p < '0' || *p > '9') && *p != '-' && *p != '.' &&
                    (*p != ':' || !r->colon_in_name))
                    fail_at(&o, o.root, "%s %s: metadata.name: character '%c' not allowed", kind,
                            name, *p);
            }
            const yaml_node_t *ns = ydoc_path(o.doc, o.root, "metadata.namespace");
            if (r->namespaced && !ydoc_is(ns, "kube-system"))
                fail_at(&o, o.root, "%s %s: metadata.namespace: want kube-system", kind, name);
            if (!r->namespaced && ns != NULL)
                fail_at(&o, ns, "%s %s is cluster-scoped: no metadata.namespace", kind, name);
            ck_assert_uint_lt(n_objects, 64);
            snprintf(seen[n_objects], PATH_LEN, "%s/%s", kind, name);
            for (size_t k = 0; k < n_objects; k++) {
                if (strcmp(seen[k], seen[n_objects]) == 0)
                    fail_at(&o, o.root, "%s is defined twice in manifests/", seen[k]);
            }
            n_objects++;
        }
    }
    for (size_t i = 0; i < m.n_files; i++) {
        /* The other files are JSON: the sidecars' config.json, the dashboard. */
        size_t len;
        if (!has_suffix(m.paths[i], ".json"))
            continue;
        char *text = file_slurp(m.paths[i], &len);
        cJSON *j = cJSON_Parse(text);
        ck_assert_msg(cJSON_IsObject(j), "%s: not a JSON object", m.paths[i]);
        cJSON_Delete(j);
        free(text);
    }
    ck_assert_msg(n_objects >= 15, "only %zu API objects under manifests/", n_objects);
    ck_assert_msg(n_configs == 3, "%zu KubeSchedulerConfiguration files, want 3", n_configs);
    ck_assert_msg(n_kustomizations >= 1, "no kustomization.yaml under manifests/");
    ck_assert_msg(n_prometheus == sizeof(prometheus_files) / sizeof(prometheus_files[0]),
                  "%zu of the Prometheus files under manifests/monitoring", n_prometheus);
    manifests_free(&m);
}
END_TEST

/* ---- kube-scheduler configurations ---- */

static yaml_node_t *need_container(const struct obj *o, const yaml_node_t *spec, const char *name);

/* Whether m->yaml[@i] is applied by `kubectl apply -k @dir`: a file listed
 * under the resources of @dir's kustomization.yaml, or a document one of
 * its generators makes. */
static bool applied_by_kustomization(struct manifests *m, const char *dir, size_t i)
{
    char kpath[PATH_LEN];

    if (m->generated_by[i] != NULL)
        return strcmp(m->generated_by[i], dir) == 0;
    snprintf(kpath, sizeof(kpath), "%skustomization.yaml", dir);
    for (size_t k = 0; k < m->n_yaml; k++) {
        if (m->generated_by[k] != NULL || strcmp(m->yaml[k].path, kpath) != 0)
            continue;
        yaml_document_t *d = &m->yaml[k].docs[0];
        const yaml_node_t *res = ydoc_get(d, ydoc_root(d), "resources");
        for (size_t r = 0; r < ydoc_len(res); r++) {
            const char *rel = ydoc_str(ydoc_item(d, res, r));
            char path[PATH_LEN];
            snprintf(path, sizeof(path), "%s%s", dir, rel != NULL ? rel : "");
            if (strcmp(path, m->yaml[i].path) == 0)
                return true;
        }
    }
    return false;
}

/* Whether kubectl is on PATH. */
static bool have_kubectl(void)
{
    const char *path = getenv("PATH");
    char dir[PATH_LEN];

    for (const char *p = path != NULL ? path : ""; *p != '\0';) {
        size_t n = strcspn(p, ":");
        snprintf(dir, sizeof(dir), "%.*s/kubectl", (int)n, p);
        if (n > 0 && access(dir, X_OK) == 0)
            return true;
        p += n + (p[n] == ':');
    }
    return false;
}

/* `kubectl kustomize @dir` (stdout and stderr), failing the test when it
 * fails; NULL when there is no kubectl, after saying so. */
static char *kubectl_kustomize(const char *dir, size_t *len)
{
    char cmd[PATH_LEN + 64], *out = NULL;
    size_t cap = 0;

    *len = 0;
    if (!have_kubectl()) {
        /* .ci/run installs kubectl (kubernetes-client) before make test. */
        test_skip("`kubectl kustomize %s`: no kubectl on PATH (the "
                  "kustomization was checked from its own fields only)",
                  dir);
        return NULL;
    }
    snprintf(cmd, sizeof(cmd), "kubectl kustomize %s 2>&1", dir);
    FILE *f = popen(cmd, "r");
    ck_assert_msg(f != NULL, "%s: %s", cmd, strerror(errno));
    for (;;) {
        if (*len + 4096 + 1 > cap) {
            cap = cap * 2 + 8192;
            out = realloc(out, cap);
            ck_assert_ptr_nonnull(out);
        }
        size_t r = fread(out + *len, 1, cap - *len - 1, f);
        if (r == 0)
            break;
        *len += r;
    }
    out[*len] = '\0';
    int status = pclose(f);
    ck_assert_msg(status == 0, "`%s` failed (%d): %s", cmd, status, out);
    return out;
}

/* data.@key of ConfigMap @cm is file @path byte for byte. */
static void expect_data_is_file(const struct obj *cm, const char *key, const char *path)
{
    size_t len;
    char *text = file_slurp(path, &len);
    ck_assert_msg(text != NULL, "%s: cannot read", path);
    const yaml_node_t *v = ydoc_get(cm->doc, need(cm, cm->root, "ConfigMap", "data"), key);
    if (v == NULL || v->type != YAML_SCALAR_NODE)
        fail_at(cm, cm->root, "data.%s: missing", key);
    const char *got = ydoc_str(v);
    size_t got_len = v->data.scalar.length, line = 1;
    for (size_t i = 0; i < got_len && i < len && got[i] == text[i]; i++)
        line += got[i] == '\n';
    if (got_len != len || memcmp(got, text, got_len) != 0)
        fail_at(cm, v, "data.%s differs from %s from its line %zu on (%zu bytes, the file %zu)",
                key, path, line, got_len, len);
    free(text);
}

START_TEST(manifests_configmap_embeds_scheduler_config_byte_identical)
{
    struct manifests m;
    struct ydoc_file rendered;
    char err[YDOC_ERR_LEN];
    size_t len;

    /* No hand-kept copy: the kustomization makes the ConfigMap from the files. */
    manifests_load(&m);
    struct obj cm = need_obj(&m, "ConfigMap", CONFIGMAP_NAME);
    size_t at = (size_t)(cm.file - m.yaml);
    ck_assert_msg(m.generated_by[at] != NULL && strcmp(m.generated_by[at], "manifests/") == 0,
                  "%s: ConfigMap %s must come from the configMapGenerator of " KUSTOMIZATION,
                  cm.file->path, CONFIGMAP_NAME);
    expect_data_is_file(&cm, "scheduler-config.yaml", SCHED_CONFIG);
    expect_data_is_file(&cm, "config.json", EXT_CONFIG);

    /* What kustomize itself renders: the same bytes, the same objects. */
    char *text = kubectl_kustomize("manifests/", &len);
    if (text != NULL) {
        ck_assert_msg(ydoc_load_text(&rendered, "kubectl kustomize manifests/", text, len, err) ==
                          0,
                      "%s", err);
        bool found = false;
        for (size_t i = 0; i < rendered.n_docs; i++) {
            struct obj o = obj_at(&rendered, i);
            const char *kind = ydoc_str(ydoc_get(o.doc, o.root, "kind"));
            const char *name = ydoc_str(ydoc_path(o.doc, o.root, "metadata.name"));
            struct obj mine;
            ck_assert_msg(kind != NULL && name != NULL && find_obj(&m, kind, name, &mine),
                          "kubectl kustomize manifests/: %s %s is in no file of manifests/", kind,
                          name);
            const char *ns = ydoc_str(ydoc_path(mine.doc, mine.root, "metadata.namespace"));
            if (ns != NULL)
                expect_str(&o, o.root, kind, "metadata.namespace", ns);
            else if (ydoc_path(o.doc, o.root, "metadata.namespace") != NULL)
                fail_at(&o, o.root, "%s %s: a namespace, and none in manifests/", kind, name);
            if (strcmp(kind, "ConfigMap") == 0 && strcmp(name, CONFIGMAP_NAME) == 0) {
                found = true;
                expect_data_is_file(&o, "scheduler-config.yaml", SCHED_CONFIG);
                expect_data_is_file(&o, "config.json", EXT_CONFIG);
                /* The generatorOptions labels (as strings: JSON above quotes them). */
                const yaml_node_t *want = ydoc_path(cm.doc, cm.root, "metadata.labels");
                const yaml_node_t *got = ydoc_path(o.doc, o.root, "metadata.labels");
                if (ydoc_len(got) != ydoc_len(want))
                    fail_at(&o, o.root, "metadata.labels: %zu, the generatorOptions have %zu",
                            ydoc_len(got), ydoc_len(want));
                for (size_t l = 0; l < ydoc_len(want); l++) {
                    yaml_node_t *key = NULL, *v = NULL;
                    ydoc_pair(cm.doc, want, l, &key, &v);
                    if (!ydoc_is(ydoc_get(o.doc, got, ydoc_str(key)), ydoc_str(v)))
                        fail_at(&o, o.root, "metadata.labels.%s: want %s", ydoc_str(key),
                                ydoc_str(v));
                }
            }
            if (strcmp(kind, "Deployment") == 0) {
                /* The kustomization's images render the images the file names. */
                const yaml_node_t *cs = ydoc_path(o.doc, o.root, "spec.template.spec.containers");
                const yaml_node_t *mspec = ydoc_path(mine.doc, mine.root, "spec.template.spec");
                for (size_t c = 0; c < ydoc_len(cs); c++) {
                    const yaml_node_t *rc = ydoc_item(o.doc, cs, c);
                    const char *cname = need_str(&o, rc, "containers[]", "name");
                    const yaml_node_t *fc = need_container(&mine, mspec, cname);
                    expect_str(&o, rc, cname, "image", need_str(&mine, fc, cname, "image"));
                }
            }
        }
        ck_assert_msg(found, "kubectl kustomize manifests/: no ConfigMap %s", CONFIGMAP_NAME);
        size_t want = 0;
        for (size_t i = 0; i < m.n_yaml; i++)
            want += applied_by_kustomization(&m, "manifests/", i) ? m.yaml[i].n_docs : 0;
        ck_assert_msg(rendered.n_docs == want,
                      "kubectl kustomize manifests/: %zu objects, the resources and generator "
                      "of " KUSTOMIZATION " hold %zu",
                      rendered.n_docs, want);
        ydoc_free(&rendered);
        free(text);
    }

    /* The monitoring kustomization: the dashboard as its file, byte for byte. */
    struct obj dash = need_obj(&m, "ConfigMap", "cpu-extender-dashboard");
    expect_data_is_file(&dash, "dashboard.json", MONITORING_DIR "dashboard.json");
    text = kubectl_kustomize(MONITORING_DIR, &len);
    if (text != NULL) {
        ck_assert_msg(
            ydoc_load_text(&rendered, "kubectl kustomize " MONITORING_DIR, text, len, err) == 0,
            "%s", err);
        size_t want = 0;
        for (size_t i = 0; i < m.n_yaml; i++)
            want += applied_by_kustomization(&m, MONITORING_DIR, i) ? m.yaml[i].n_docs : 0;
        ck_assert_msg(rendered.n_docs == want, "kubectl kustomize %s: %zu objects, want %zu",
                      MONITORING_DIR, rendered.n_docs, want);
        bool found = false;
        for (size_t i = 0; i < rendered.n_docs; i++) {
            struct obj o = obj_at(&rendered, i);
            if (is_kind(&o, "ConfigMap") &&
                ydoc_is(ydoc_path(o.doc, o.root, "metadata.name"), "cpu-extender-dashboard")) {
                found = true;
                expect_data_is_file(&o, "dashboard.json", MONITORING_DIR "dashboard.json");
            }
        }
        ck_assert_msg(found, "kubectl kustomize %s: no dashboard ConfigMap", MONITORING_DIR);
        ydoc_free(&rendered);
        free(text);
    }
    manifests_free(&m);
}
END_TEST

/* ---- monitoring ---- */

START_TEST(manifests_prometheus_rule_holds_the_rules_file)
{
    struct manifests m;
    char where[YDOC_ERR_LEN];

    manifests_load(&m);
    struct obj rules = need_file(&m, MONITORING_DIR "rules.yaml");
    struct obj pr = need_obj(&m, "PrometheusRule", "cpu-extender");
    const yaml_node_t *want = need(&rules, rules.root, "", "groups");
    const yaml_node_t *got = need(&pr, pr.root, "PrometheusRule", "spec.groups");
    if (!ydoc_equal(rules.doc, want, pr.doc, got, where, sizeof(where)))
        fail_at(&pr, got, "spec.groups%s differs from %s", where, rules.file->path);
    if (ydoc_len(pr.root) != 4 || ydoc_len(ydoc_get(pr.doc, pr.root, "spec")) != 1)
        fail_at(&pr, pr.root, "want apiVersion, kind, metadata and spec.groups only");
    manifests_free(&m);
}
END_TEST

/* Which sidecar each scheduler configuration calls, and what it schedules. */
static const struct sched_case {
    const char *path;
    const char *ext_config; /* NULL: the ConfigMap's config.json */
    const char *scheduler_name;
    const char *lease; /* leaderElection.resourceName; NULL: kube-scheduler's default */
} sched_cases[] = {
    {SCHED_CONFIG, NULL, "cpu-extender-scheduler", "cpu-extender-scheduler"},
    {SCHED_CONFIG_V1BETA3, NULL, "cpu-extender-scheduler", "cpu-extender-scheduler"},
    {KUBEADM_SCHED_CONFIG, KUBEADM_EXT_CONFIG, "default-scheduler", NULL},
};

static void check_extender(const struct obj *o, const yaml_node_t *e, const struct ext_cfg *c)
{
    const char *where = "extenders[0]";
    char want_url[300];

    snprintf(want_url, sizeof(want_url), "http://%s%s", c->listen, c->prefix);
    const char *url = need_str(o, e, where, "urlPrefix");
    if (strcmp(url, want_url) != 0)
        fail_at(o, ydoc_get(o->doc, e, "urlPrefix"),
                "%s.urlPrefix: %s, but %s listens on %s with prefix %s: want %s", where, url,
                c->from, c->listen, c->prefix, want_url);
    for (size_t i = 0; i < sizeof(verb_fields) / sizeof(verb_fields[0]); i++) {
        /* bindVerb is optional (docs/manifests.md: not set); the rest are used. */
        if (strcmp(verb_fields[i][0], "bindVerb") == 0 &&
            ydoc_get(o->doc, e, verb_fields[i][0]) == NULL)
            continue;
        expect_str(o, e, where, verb_fields[i][0], verb_fields[i][1]);
    }
    /* The filter: registered exactly when it decides something that
     * kube-scheduler's NodeResourcesFit does not (the sidecar watches the
     * cluster in every shipped setup). */
    const char *need = cfg_filter_need(&c->cfg, true);
    const yaml_node_t *filter = ydoc_get(o->doc, e, "filterVerb");
    if (need != NULL && filter == NULL)
        fail_at(o, e, "%s: no filterVerb, but %s needs the filter (%s)", where, c->from, need);
    if (need == NULL && filter != NULL)
        fail_at(o, filter,
                "%s.filterVerb: the filter is redundant under %s (used = requests, thresholds "
                "100 %%): one call per pod costs kube-scheduler throughput for nothing",
                where, c->from);
    if (filter != NULL)
        expect_str(o, e, where, "filterVerb", "filter");
    long long weight = need_int(o, e, where, "weight");
    if (weight <= 0)
        fail_at(o, ydoc_get(o->doc, e, "weight"), "%s.weight: %lld, want > 0", where, weight);
    long long timeout = duration_ms(need_str(o, e, where, "httpTimeout"));
    if (timeout <= 0)
        fail_at(o, ydoc_get(o->doc, e, "httpTimeout"), "%s.httpTimeout: not a duration", where);
    expect_bool(o, e, where, "enableHTTPS", false); /* http:// above */
    expect_bool(o, e, where, "nodeCacheCapable", true);
    expect_bool(o, e, where, "ignorable", true);
    /* Set once: the sidecar reads them from this file (schedulerConfig),
     * never from a copy of its own that could drift. */
    if (cJSON_GetObjectItemCaseSensitive(c->json, "schedulerTimeoutMs") != NULL ||
        cJSON_GetObjectItemCaseSensitive(c->json, "schedulerWeight") != NULL)
        fail_at(o, e, "%s repeats schedulerWeight or schedulerTimeoutMs: set them here only",
                c->from);
}

START_TEST(manifests_scheduler_configs_call_the_sidecar_routes)
{
    struct manifests m;

    manifests_load(&m);
    for (size_t i = 0; i < m.n_yaml; i++) {
        /* A new configuration must be added to sched_cases to be checked. */
        struct obj o = obj_at(&m.yaml[i], 0);
        bool known = false;
        for (size_t k = 0; k < sizeof(sched_cases) / sizeof(sched_cases[0]); k++)
            known |= strcmp(sched_cases[k].path, o.file->path) == 0;
        if (is_kind(&o, "KubeSchedulerConfiguration") && !known)
            fail_at(&o, o.root, "not in sched_cases of tests/manifests/test_manifests.c");
    }
    for (size_t k = 0; k < sizeof(sched_cases) / sizeof(sched_cases[0]); k++) {
        const struct sched_case *sc = &sched_cases[k];
        struct ext_cfg c;
        struct obj o = need_file(&m, sc->path);

        if (sc->ext_config != NULL)
            ext_cfg_file(&c, sc->ext_config);
        else
            ext_cfg_configmap(&m, &c);
        const yaml_node_t *exts = need(&o, o.root, "KubeSchedulerConfiguration", "extenders");
        if (ydoc_len(exts) != 1 || exts->type != YAML_SEQUENCE_NODE)
            fail_at(&o, exts, "extenders: want one entry, the cpu-extender sidecar");
        check_extender(&o, ydoc_item(o.doc, exts, 0), &c);
        const yaml_node_t *profiles = need(&o, o.root, "KubeSchedulerConfiguration", "profiles");
        if (ydoc_len(profiles) != 1)
            fail_at(&o, profiles, "profiles: want one");
        expect_str(&o, ydoc_item(o.doc, profiles, 0), "profiles[0]", "schedulerName",
                   sc->scheduler_name);
        expect_bool(&o, o.root, "", "leaderElection.leaderElect", true);
        const yaml_node_t *lease = ydoc_path(o.doc, o.root, "leaderElection.resourceName");
        if (sc->lease != NULL)
            expect_str(&o, o.root, "", "leaderElection.resourceName", sc->lease);
        else if (lease != NULL && !ydoc_is(lease, "kube-scheduler"))
            fail_at(
                &o, lease,
                "leaderElection.resourceName: the main scheduler keeps its lease kube-scheduler");
        ext_cfg_free(&c);
    }
    manifests_free(&m);
}
END_TEST

START_TEST(manifests_v1beta3_config_equals_v1_but_api_version)
{
    struct manifests m;
    char where[YDOC_ERR_LEN];

    manifests_load(&m);
    struct obj v1 = need_file(&m, SCHED_CONFIG);
    struct obj b3 = need_file(&m, SCHED_CONFIG_V1BETA3);
    struct obj kubeadm = need_file(&m, KUBEADM_SCHED_CONFIG);
    expect_str(&b3, b3.root, "", "apiVersion", "kubescheduler.config.k8s.io/v1beta3");
    expect_str(&v1, v1.root, "", "apiVersion", "kubescheduler.config.k8s.io/v1");
    expect_str(&kubeadm, kubeadm.root, "", "apiVersion", "kubescheduler.config.k8s.io/v1");
    if (ydoc_len(v1.root) != ydoc_len(b3.root))
        fail_at(&b3, b3.root, "%zu top-level fields, " SCHED_CONFIG " has %zu", ydoc_len(b3.root),
                ydoc_len(v1.root));
    for (size_t i = 0; i < ydoc_len(v1.root); i++) {
        yaml_node_t *k = NULL, *v = NULL;
        ydoc_pair(v1.doc, v1.root, i, &k, &v);
        if (ydoc_is(k, "apiVersion"))
            continue;
        const yaml_node_t *other = need(&b3, b3.root, "", ydoc_str(k));
        if (!ydoc_equal(v1.doc, v, b3.doc, other, where, sizeof(where)))
            fail_at(&b3, other, "%s%s%s differs from " SCHED_CONFIG, ydoc_str(k),
                    where[0] != '\0' && where[0] != '[' ? "." : "", where);
    }
    /* The kubeadm sidecar listens where the Deployment's does: the same stanza. */
    const yaml_node_t *ka = need(&kubeadm, kubeadm.root, "", "extenders");
    if (!ydoc_equal(v1.doc, need(&v1, v1.root, "", "extenders"), kubeadm.doc, ka, where,
                    sizeof(where)))
        fail_at(&kubeadm, ka, "extenders%s differs from " SCHED_CONFIG, where);
    manifests_free(&m);
}
END_TEST

/* ---- the Deployment ---- */

/* Every key of @sel is in @labels with the same value. */
static void expect_selects(const struct obj *so, const yaml_node_t *sel, const char *where,
                           const struct obj *lo, const yaml_node_t *labels, const char *what)
{
    if (ydoc_len(sel) == 0)
        fail_at(so, sel, "%s: empty selector", where);
    for (size_t i = 0; i < ydoc_len(sel); i++) {
        yaml_node_t *k = NULL, *v = NULL;
        ydoc_pair(so->doc, sel, i, &k, &v);
        const yaml_node_t *got = ydoc_get(lo->doc, labels, ydoc_str(k));
        if (got == NULL || !ydoc_is(got, ydoc_str(v)))
            fail_at(so, k, "%s.%s=%s does not select %s (%s:%d)", where, ydoc_str(k), ydoc_str(v),
                    what, lo->file->path, ydoc_line(labels));
    }
}

static yaml_node_t *need_container(const struct obj *o, const yaml_node_t *spec, const char *name)
{
    yaml_node_t *c = ydoc_find(o->doc, ydoc_get(o->doc, spec, "containers"), "name", name);
    if (c == NULL)
        fail_at(o, spec, "containers: no container %s", name);
    return c;
}

/* Every volumeMount of every container has a volume, and every volume is mounted. */
static void expect_mounts_have_volumes(const struct obj *o, const yaml_node_t *spec)
{
    const yaml_node_t *containers = ydoc_get(o->doc, spec, "containers");
    const yaml_node_t *volumes = ydoc_get(o->doc, spec, "volumes");

    for (size_t i = 0; i < ydoc_len(containers); i++) {
        const yaml_node_t *c = ydoc_item(o->doc, containers, i);
        const yaml_node_t *mounts = ydoc_get(o->doc, c, "volumeMounts");
        for (size_t j = 0; j < ydoc_len(mounts); j++) {
            const char *name = ydoc_str(ydoc_get(o->doc, ydoc_item(o->doc, mounts, j), "name"));
            if (name == NULL || ydoc_find(o->doc, volumes, "name", name) == NULL)
                fail_at(o, ydoc_item(o->doc, mounts, j),
                        "containers[%s].volumeMounts[%zu]: no volume named %s",
                        ydoc_str(ydoc_get(o->doc, c, "name")), j, name != NULL ? name : "?");
        }
    }
    for (size_t i = 0; i < ydoc_len(volumes); i++) {
        const char *name = ydoc_str(ydoc_get(o->doc, ydoc_item(o->doc, volumes, i), "name"));
        bool used = false;
        for (size_t j = 0; j < ydoc_len(containers) && !used; j++) {
            const yaml_node_t *c = ydoc_item(o->doc, containers, j);
            used = ydoc_find(o->doc, ydoc_get(o->doc, c, "volumeMounts"), "name",
                             name != NULL ? name : "") != NULL;
        }
        if (!used)
            fail_at(o, ydoc_item(o->doc, volumes, i), "volumes[%s]: mounted by no container",
                    name != NULL ? name : "?");
    }
}

/* readOnlyRootFilesystem, no privilege escalation, no capabilities. */
static void expect_locked_down(const struct obj *o, const yaml_node_t *c, const char *where)
{
    const yaml_node_t *sc = need(o, c, where, "securityContext");
    char w[PATH_LEN];

    snprintf(w, sizeof(w), "%s.securityContext", where);
    expect_bool(o, sc, w, "readOnlyRootFilesystem", true);
    expect_bool(o, sc, w, "allowPrivilegeEscalation", false);
    if (!has_arg(o, need(o, sc, w, "capabilities.drop"), "ALL"))
        fail_at(o, sc, "%s.capabilities.drop: want ALL", w);
}

static struct obj deployment(struct manifests *m, const yaml_node_t **spec)
{
    struct obj d = need_obj(m, "Deployment", DEPLOYMENT_NAME);
    *spec = need(&d, d.root, "Deployment", "spec.template.spec");
    return d;
}

START_TEST(manifests_deployment_wiring_is_consistent)
{
    struct manifests m;
    const yaml_node_t *spec;

    manifests_load(&m);
    struct obj d = deployment(&m, &spec);
    struct obj cm = need_obj(&m, "ConfigMap", CONFIGMAP_NAME);
    const yaml_node_t *data = need(&cm, cm.root, "ConfigMap", "data");

    if (ydoc_path(d.doc, d.root, "spec.selector.matchExpressions") != NULL)
        fail_at(&d, d.root, "spec.selector.matchExpressions: use matchLabels only");
    expect_selects(&d, need(&d, d.root, "", "spec.selector.matchLabels"),
                   "spec.selector.matchLabels", &d,
                   need(&d, d.root, "", "spec.template.metadata.labels"), "the pod template");
    if (need_int(&d, d.root, "", "spec.replicas") < 1)
        fail_at(&d, d.root, "spec.replicas: want at least 1");

    /* The pod's service account is the one rbac.yaml defines and binds. */
    const char *sa = need_str(&d, spec, "spec.template.spec", "serviceAccountName");
    struct obj sa_obj = need_obj(&m, "ServiceAccount", sa);
    const char *ns = need_str(&d, d.root, "Deployment", "metadata.namespace");
    expect_str(&sa_obj, sa_obj.root, "ServiceAccount", "metadata.namespace", ns);

    expect_mounts_have_volumes(&d, spec);
    const yaml_node_t *volumes = ydoc_get(d.doc, spec, "volumes");
    for (size_t i = 0; i < ydoc_len(volumes); i++) {
        /* configMap volumes (and projected ones) name ConfigMaps that exist, with their keys. */
        const yaml_node_t *v = ydoc_item(d.doc, volumes, i);
        const yaml_node_t *cmv = ydoc_get(d.doc, v, "configMap");
        if (cmv == NULL)
            continue;
        expect_str(&d, cmv, "volumes[].configMap", "name", CONFIGMAP_NAME);
        const yaml_node_t *items = ydoc_get(d.doc, cmv, "items");
        for (size_t j = 0; j < ydoc_len(items); j++) {
            const char *key = need_str(&d, ydoc_item(d.doc, items, j), "items", "key");
            if (ydoc_get(cm.doc, data, key) == NULL)
                fail_at(&d, ydoc_item(d.doc, items, j), "volume %s: ConfigMap %s has no key %s",
                        ydoc_str(ydoc_get(d.doc, v, "name")), CONFIGMAP_NAME, key);
        }
    }

    /* Each container's --config is the ConfigMap key meant for it. */
    static const char *const config_of[][3] = {
        {"kube-scheduler", "--config", "scheduler-config.yaml"},
        {"cpu-extender", "--config", "config.json"},
    };
    for (size_t i = 0; i < 2; i++) {
        const yaml_node_t *c = need_container(&d, spec, config_of[i][0]);
        char where[PATH_LEN];
        snprintf(where, sizeof(where), "containers[%s]", config_of[i][0]);
        const char *path = flag_value(&d, need(&d, c, where, "command"), config_of[i][1]);
        if (path == NULL)
            fail_at(&d, c, "%s.command: no %s", where, config_of[i][1]);
        struct source s = resolve(&d, spec, c, where, path);
        if (strcmp(s.key, config_of[i][2]) != 0)
            fail_at(&d, s.mount, "%s: %s %s is ConfigMap key \"%s\", want %s", where,
                    config_of[i][1], path, s.key, config_of[i][2]);
    }

    /* The image is this version's (VERSION), as the kubeadm patch uses too. */
    size_t len;
    char *version = file_slurp("VERSION", &len);
    ck_assert_ptr_nonnull(version);
    version[strcspn(version, "\r\n")] = '\0';
    const yaml_node_t *ext = need_container(&d, spec, "cpu-extender");
    const char *image = need_str(&d, ext, "containers[cpu-extender]", "image");
    const char *tag = strrchr(image, ':');
    if (tag == NULL || strcmp(tag + 1, version) != 0)
        fail_at(&d, ydoc_get(d.doc, ext, "image"),
                "containers[cpu-extender].image %s: want tag %s (VERSION)", image, version);

    /* The kustomization's images: each names a container's image of the
     * Deployment, and renders it as written there (newName:newTag). */
    struct obj k = need_file(&m, KUSTOMIZATION);
    const yaml_node_t *images = need(&k, k.root, "Kustomization", "images");
    const yaml_node_t *containers = need(&d, spec, "spec.template.spec", "containers");
    bool ext_set = false;
    for (size_t i = 0; i < ydoc_len(images); i++) {
        const yaml_node_t *e = ydoc_item(k.doc, images, i);
        const char *name = need_str(&k, e, "images[]", "name");
        const yaml_node_t *nn = ydoc_get(k.doc, e, "newName");
        const char *new_tag = need_str(&k, e, name, "newTag");
        char want[PATH_LEN];
        bool named = false;
        snprintf(want, sizeof(want), "%s:%s", nn != NULL ? ydoc_str(nn) : name, new_tag);
        for (size_t c = 0; c < ydoc_len(containers); c++) {
            const yaml_node_t *ct = ydoc_item(d.doc, containers, c);
            const char *img = need_str(&d, ct, "containers[]", "image");
            size_t n = strlen(name);
            if (strncmp(img, name, n) != 0 || (img[n] != ':' && img[n] != '\0'))
                continue;
            named = true;
            if (strcmp(img, want) != 0)
                fail_at(&k, e, "images[%s] renders %s, %s:%d says %s", name, want, d.file->path,
                        ydoc_line(ydoc_get(d.doc, ct, "image")), img);
            ext_set |= ct == ext;
        }
        if (!named)
            fail_at(&k, e, "images[%s]: no container of the Deployment has that image", name);
    }
    if (!ext_set)
        fail_at(&k, images, "images: none sets the cpu-extender image %s", image);
    free(version);
    manifests_free(&m);
}
END_TEST

START_TEST(manifests_deployment_containers_run_unprivileged)
{
    struct manifests m;
    const yaml_node_t *spec;

    manifests_load(&m);
    struct obj d = deployment(&m, &spec);
    expect_bool(&d, spec, "spec.template.spec", "securityContext.runAsNonRoot", true);
    const yaml_node_t *containers = need(&d, spec, "spec.template.spec", "containers");
    for (size_t i = 0; i < ydoc_len(containers); i++) {
        const yaml_node_t *c = ydoc_item(d.doc, containers, i);
        char where[PATH_LEN];
        snprintf(where, sizeof(where), "containers[%s]", need_str(&d, c, "containers", "name"));
        expect_locked_down(&d, c, where);
        expect_bool(&d, c, where, "securityContext.runAsNonRoot", true);
        if (need_int(&d, c, where, "securityContext.runAsUser") == 0)
            fail_at(&d, c, "%s.securityContext.runAsUser: 0 is root", where);
    }
    manifests_free(&m);
}
END_TEST

START_TEST(manifests_deployment_probes_check_health_and_readiness)
{
    struct manifests m;
    const yaml_node_t *spec;

    manifests_load(&m);
    struct obj d = deployment(&m, &spec);

    /* kube-scheduler: its own /healthz on the secure port. */
    const yaml_node_t *ks = need_container(&d, spec, "kube-scheduler");
    expect_str(&d, ks, "containers[kube-scheduler]", "livenessProbe.httpGet.path", "/healthz");
    expect_str(&d, ks, "containers[kube-scheduler]", "readinessProbe.httpGet.path", "/healthz");

    /* cpu-extender listens on loopback only: `cpu-extender probe` GETs /healthz,
     * `probe --ready` /readyz, from inside the pod, with the container's config. */
    const yaml_node_t *c = need_container(&d, spec, "cpu-extender");
    const char *where = "containers[cpu-extender]";
    const char *config = flag_value(&d, need(&d, c, where, "command"), "--config");
    static const char *const probes[] = {"livenessProbe", "readinessProbe"};
    for (size_t i = 0; i < 2; i++) {
        char w[PATH_LEN];
        snprintf(w, sizeof(w), "%s.%s", where, probes[i]);
        const yaml_node_t *cmd = need(&d, need(&d, c, where, probes[i]), w, "exec.command");
        const char *bin = ydoc_str(ydoc_item(d.doc, cmd, 0));
        if (bin == NULL || !has_suffix(bin, "/cpu-extender") || !has_arg(&d, cmd, "probe"))
            fail_at(&d, cmd, "%s.exec.command: want cpu-extender probe", w);
        if (has_arg(&d, cmd, "--ready") != (i == 1))
            fail_at(&d, cmd, "%s.exec.command: %s", w,
                    i == 1 ? "want --ready (/readyz)" : "no --ready for liveness (/healthz)");
        const char *pc = flag_value(&d, cmd, "--config");
        if (config == NULL || pc == NULL || strcmp(pc, config) != 0)
            fail_at(&d, cmd, "%s.exec.command: --config %s, the container runs with %s", w,
                    pc != NULL ? pc : "(none)", config != NULL ? config : "(none)");
    }
    manifests_free(&m);
}
END_TEST

/* ---- the PodDisruptionBudget ---- */

START_TEST(manifests_pdb_selects_the_deployment_and_never_blocks_a_drain)
{
    struct manifests m;
    const yaml_node_t *spec;

    manifests_load(&m);
    struct obj d = deployment(&m, &spec);
    struct obj p = need_obj(&m, "PodDisruptionBudget", DEPLOYMENT_NAME);
    expect_str(&p, p.root, "PodDisruptionBudget", "metadata.namespace",
               need_str(&d, d.root, "Deployment", "metadata.namespace"));
    expect_selects(&p, need(&p, p.root, "", "spec.selector.matchLabels"),
                   "spec.selector.matchLabels", &d,
                   need(&d, d.root, "", "spec.template.metadata.labels"), "the Deployment's pods");
    long long replicas = need_int(&d, d.root, "", "spec.replicas");
    const yaml_node_t *min = ydoc_path(p.doc, p.root, "spec.minAvailable");
    const yaml_node_t *max = ydoc_path(p.doc, p.root, "spec.maxUnavailable");
    if ((min == NULL) == (max == NULL))
        fail_at(&p, p.root, "spec: want exactly one of minAvailable and maxUnavailable");
    /* With the Deployment's replicas, some pod must stay evictable. */
    if (min != NULL && need_int(&p, p.root, "", "spec.minAvailable") >= replicas)
        fail_at(
            &p, min,
            "spec.minAvailable >= %lld replicas: no eviction is ever allowed, node drains block",
            replicas);
    if (max != NULL && need_int(&p, p.root, "", "spec.maxUnavailable") < 1)
        fail_at(&p, max, "spec.maxUnavailable < 1: node drains block");
    expect_str(&p, p.root, "", "spec.unhealthyPodEvictionPolicy", "AlwaysAllow");
    manifests_free(&m);
}
END_TEST

/* ---- RBAC ---- */

static bool defined_or_bootstrap(struct manifests *m, const char *kind, const char *name)
{
    struct obj o;
    char id[PATH_LEN];

    snprintf(id, sizeof(id), "%s/%s", kind, name);
    return find_obj(m, kind, name, &o) ||
           in_list(id, bootstrap_roles, sizeof(bootstrap_roles) / sizeof(bootstrap_roles[0]));
}

/* Whether @bindings (RoleBinding or ClusterRoleBinding) bind ServiceAccount
 * @sa to @role_kind/@role. */
static bool is_bound(struct manifests *m, const char *sa, const char *role_kind, const char *role)
{
    for (size_t i = 0; i < m->n_yaml; i++) {
        for (size_t j = 0; j < m->yaml[i].n_docs; j++) {
            struct obj o = obj_at(&m->yaml[i], j);
            if (!is_kind(&o, "RoleBinding") && !is_kind(&o, "ClusterRoleBinding"))
                continue;
            if (!ydoc_is(ydoc_path(o.doc, o.root, "roleRef.kind"), role_kind) ||
                !ydoc_is(ydoc_path(o.doc, o.root, "roleRef.name"), role))
                continue;
            if (ydoc_find(o.doc, ydoc_get(o.doc, o.root, "subjects"), "name", sa) != NULL)
                return true;
        }
    }
    return false;
}

START_TEST(manifests_rbac_bindings_resolve)
{
    struct manifests m;
    const yaml_node_t *spec;

    manifests_load(&m);
    for (size_t i = 0; i < m.n_yaml; i++) {
        for (size_t j = 0; j < m.yaml[i].n_docs; j++) {
            struct obj o = obj_at(&m.yaml[i], j);
            bool cluster = is_kind(&o, "ClusterRoleBinding");
            if (!cluster && !is_kind(&o, "RoleBinding"))
                continue;
            const char *name = need_str(&o, o.root, "binding", "metadata.name");
            expect_str(&o, o.root, name, "roleRef.apiGroup", "rbac.authorization.k8s.io");
            const char *rk = need_str(&o, o.root, name, "roleRef.kind");
            const char *rn = need_str(&o, o.root, name, "roleRef.name");
            if (cluster && strcmp(rk, "ClusterRole") != 0)
                fail_at(&o, o.root, "%s: a ClusterRoleBinding refers to a ClusterRole", name);
            if (!defined_or_bootstrap(&m, rk, rn))
                fail_at(&o, o.root,
                        "%s: roleRef %s %s is neither in manifests/ nor a bootstrap role", name, rk,
                        rn);
            const yaml_node_t *subjects = need(&o, o.root, name, "subjects");
            for (size_t k = 0; k < ydoc_len(subjects); k++) {
                const yaml_node_t *s = ydoc_item(o.doc, subjects, k);
                const char *sk = need_str(&o, s, "subjects[]", "kind");
                const char *sn = need_str(&o, s, "subjects[]", "name");
                if (strcmp(sk, "ServiceAccount") == 0) {
                    struct obj sa = need_obj(&m, "ServiceAccount", sn);
                    expect_str(&o, s, "subjects[]", "namespace",
                               need_str(&sa, sa.root, sn, "metadata.namespace"));
                } else if (strcmp(sk, "User") == 0 || strcmp(sk, "Group") == 0) {
                    expect_str(&o, s, "subjects[]", "apiGroup", "rbac.authorization.k8s.io");
                } else {
                    fail_at(&o, s, "%s: subject kind %s", name, sk);
                }
            }
        }
    }

    /* The Deployment's account holds the scheduler's roles and the sidecar's. */
    struct obj d = deployment(&m, &spec);
    const char *sa = need_str(&d, spec, "spec.template.spec", "serviceAccountName");
    static const char *const roles[][2] = {
        {"ClusterRole", "system:kube-scheduler"},
        {"ClusterRole", "system:volume-scheduler"},
        {"ClusterRole", "cpu-extender"},
        {"Role", "extension-apiserver-authentication-reader"},
    };
    for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++) {
        if (!is_bound(&m, sa, roles[i][0], roles[i][1]))
            fail_at(&d, spec, "ServiceAccount %s is not bound to %s %s", sa, roles[i][0],
                    roles[i][1]);
    }

    /* Some Role bound to it covers the scheduler's own lease. */
    struct obj cfg = need_file(&m, SCHED_CONFIG);
    const char *lease = need_str(&cfg, cfg.root, "", "leaderElection.resourceName");
    const char *lease_ns = need_str(&cfg, cfg.root, "", "leaderElection.resourceNamespace");
    bool covered = false, can_create = false;
    for (size_t i = 0; i < m.n_yaml; i++) {
        for (size_t j = 0; j < m.yaml[i].n_docs; j++) {
            struct obj o = obj_at(&m.yaml[i], j);
            const char *rn = ydoc_str(ydoc_path(o.doc, o.root, "metadata.name"));
            if (!is_kind(&o, "Role") || rn == NULL || !is_bound(&m, sa, "Role", rn) ||
                !ydoc_is(ydoc_path(o.doc, o.root, "metadata.namespace"), lease_ns))
                continue;
            const yaml_node_t *rules = ydoc_get(o.doc, o.root, "rules");
            for (size_t k = 0; k < ydoc_len(rules); k++) {
                const yaml_node_t *r = ydoc_item(o.doc, rules, k);
                const yaml_node_t *verbs = ydoc_get(o.doc, r, "verbs");
                const yaml_node_t *names = ydoc_get(o.doc, r, "resourceNames");
                if (!has_arg(&o, ydoc_get(o.doc, r, "apiGroups"), "coordination.k8s.io") ||
                    !has_arg(&o, ydoc_get(o.doc, r, "resources"), "leases"))
                    continue;
                can_create |= has_arg(&o, verbs, "create") && names == NULL;
                covered |= has_arg(&o, verbs, "get") && has_arg(&o, verbs, "update") &&
                           (names == NULL || has_arg(&o, names, lease));
            }
        }
    }
    if (!covered || !can_create)
        fail_at(&cfg, cfg.root,
                "leaderElection: no Role bound to %s in %s grants create, and get and update on "
                "lease %s",
                sa, lease_ns, lease);
    manifests_free(&m);
}
END_TEST

/* Whether ClusterRole rule @r is exactly @want (order of lists ignored). */
static bool rule_is(const struct obj *o, const yaml_node_t *r, const struct rule *want)
{
    size_t n_res = 0, n_verbs = 0;

    while (n_res < 3 && want->resources[n_res] != NULL)
        n_res++;
    while (n_verbs < 4 && want->verbs[n_verbs] != NULL)
        n_verbs++;
    const yaml_node_t *groups = ydoc_get(o->doc, r, "apiGroups");
    const yaml_node_t *res = ydoc_get(o->doc, r, "resources");
    const yaml_node_t *verbs = ydoc_get(o->doc, r, "verbs");
    if (ydoc_len(groups) != 1 || !has_arg(o, groups, want->api_group) || ydoc_len(res) != n_res ||
        ydoc_len(verbs) != n_verbs || ydoc_get(o->doc, r, "resourceNames") != NULL)
        return false;
    for (size_t i = 0; i < n_res; i++) {
        if (!has_arg(o, res, want->resources[i]))
            return false;
    }
    for (size_t i = 0; i < n_verbs; i++) {
        if (!has_arg(o, verbs, want->verbs[i]))
            return false;
    }
    return true;
}

static const struct rule *documented_rule(const struct obj *o, const yaml_node_t *r)
{
    for (size_t i = 0; i < sizeof(cpu_extender_rules) / sizeof(cpu_extender_rules[0]); i++) {
        if (rule_is(o, r, &cpu_extender_rules[i]))
            return &cpu_extender_rules[i];
    }
    return NULL;
}

START_TEST(manifests_cluster_role_cpu_extender_grants_documented_verbs)
{
    struct manifests m;
    size_t n = sizeof(cpu_extender_rules) / sizeof(cpu_extender_rules[0]);

    manifests_load(&m);
    struct obj o = need_obj(&m, "ClusterRole", "cpu-extender");
    const yaml_node_t *rules = need(&o, o.root, "ClusterRole cpu-extender", "rules");
    if (ydoc_len(rules) != n)
        fail_at(&o, rules, "rules: %zu, docs/manifests.md lists %zu", ydoc_len(rules), n);
    for (size_t i = 0; i < n; i++) {
        /* Each documented rule once, nothing else. */
        size_t found = 0;
        for (size_t j = 0; j < ydoc_len(rules); j++)
            found += rule_is(&o, ydoc_item(o.doc, rules, j), &cpu_extender_rules[i]);
        if (found != 1)
            fail_at(&o, rules,
                    "rules: want apiGroups [\"%s\"] resources [%s%s%s] verbs [%s ...] once, as "
                    "docs/manifests.md lists it",
                    cpu_extender_rules[i].api_group, cpu_extender_rules[i].resources[0],
                    cpu_extender_rules[i].resources[1] != NULL ? ", " : "",
                    cpu_extender_rules[i].resources[1] != NULL ? cpu_extender_rules[i].resources[1]
                                                               : "",
                    cpu_extender_rules[i].verbs[0]);
    }

    /* kubeadm: only the documented rules, bound to the scheduler's user. */
    struct obj k = need_obj(&m, "ClusterRoleBinding", "cpu-extender-node-metrics");
    const yaml_node_t *subjects = need(&k, k.root, "ClusterRoleBinding", "subjects");
    if (ydoc_len(subjects) != 1 ||
        ydoc_find(k.doc, subjects, "name", "system:kube-scheduler") == NULL)
        fail_at(&k, subjects,
                "subjects: want the one User system:kube-scheduler (the identity of "
                "/etc/kubernetes/scheduler.conf)");
    expect_str(&k, ydoc_item(k.doc, subjects, 0), "subjects[0]", "kind", "User");
    struct obj kr = need_obj(&m, "ClusterRole", need_str(&k, k.root, "", "roleRef.name"));
    const yaml_node_t *krules = need(&kr, kr.root, "ClusterRole", "rules");
    for (size_t j = 0; j < ydoc_len(krules); j++) {
        if (documented_rule(&kr, ydoc_item(kr.doc, krules, j)) == NULL)
            fail_at(&kr, ydoc_item(kr.doc, krules, j),
                    "rules[%zu]: not one of ClusterRole cpu-extender's rules", j);
    }
    manifests_free(&m);
}
END_TEST

/* ---- kubeadm ---- */

START_TEST(manifests_kubeadm_patch_adds_sidecar_to_static_pod)
{
    struct manifests m;
    const yaml_node_t *dspec;
    struct ext_cfg c;

    manifests_load(&m);
    for (size_t i = 0; i < m.n_files; i++) {
        /* kubeadm applies every file of the patch directory named after a target. */
        if (!has_prefix(m.paths[i], KUBEADM_DIR) || strcmp(m.paths[i], KUBEADM_PATCH) == 0)
            continue;
        const char *base = m.paths[i] + strlen(KUBEADM_DIR);
        for (size_t k = 0; k < sizeof(kubeadm_targets) / sizeof(kubeadm_targets[0]); k++) {
            ck_assert_msg(!has_prefix(base, kubeadm_targets[k]),
                          "%s: kubeadm --patches would apply it as a %s patch; rename it",
                          m.paths[i], kubeadm_targets[k]);
        }
    }
    struct obj p = need_file(&m, KUBEADM_PATCH);
    struct obj d = deployment(&m, &dspec);
    struct obj cfg = need_file(&m, KUBEADM_SCHED_CONFIG);
    ext_cfg_file(&c, KUBEADM_EXT_CONFIG);
    expect_str(&p, p.root, "", "kind", "Pod");
    expect_str(&p, p.root, "Pod", "metadata.name", "kube-scheduler");
    expect_str(&p, p.root, "Pod", "metadata.namespace", "kube-system");
    const yaml_node_t *spec = need(&p, p.root, "Pod", "spec");
    const yaml_node_t *host_net = ydoc_get(p.doc, spec, "hostNetwork");
    if (host_net != NULL)
        expect_bool(&p, spec, "spec", "hostNetwork", true);
    expect_mounts_have_volumes(&p, spec);

    /* kube-scheduler: --config names kubeadm/scheduler-config.yaml on the node;
     * --kubeconfig would be ignored next to it. */
    const yaml_node_t *ks = need_container(&p, spec, "kube-scheduler");
    const yaml_node_t *kcmd = need(&p, ks, "containers[kube-scheduler]", "command");
    if (!ydoc_is(ydoc_item(p.doc, kcmd, 0), "kube-scheduler"))
        fail_at(&p, kcmd,
                "containers[kube-scheduler].command[0]: want kube-scheduler (the patch replaces "
                "the whole command)");
    if (flag_value(&p, kcmd, "--kubeconfig") != NULL ||
        flag_value(&p, kcmd, "--leader-elect") != NULL)
        fail_at(&p, kcmd,
                "containers[kube-scheduler].command: with --config, set the kubeconfig and leader "
                "election in the file");
    const char *sched_config = flag_value(&p, kcmd, "--config");
    if (sched_config == NULL)
        fail_at(&p, kcmd, "containers[kube-scheduler].command: no --config");
    struct source s = resolve(&p, spec, ks, "containers[kube-scheduler]", sched_config);
    const char *slash = strrchr(s.host, '/');
    char repo_path[PATH_LEN];
    snprintf(repo_path, sizeof(repo_path), "%s%s", KUBEADM_DIR, slash != NULL ? slash + 1 : "");
    if (s.host[0] == '\0' || strcmp(repo_path, KUBEADM_SCHED_CONFIG) != 0)
        fail_at(&p, s.mount, "containers[kube-scheduler]: --config %s is not %s on the node",
                sched_config, KUBEADM_SCHED_CONFIG);
    const char *kubeconfig = need_str(&cfg, cfg.root, "", "clientConnection.kubeconfig");
    const char *authn = flag_value(&p, kcmd, "--authentication-kubeconfig");
    if (authn == NULL || strcmp(authn, kubeconfig) != 0)
        fail_at(&p, kcmd,
                "containers[kube-scheduler]: --authentication-kubeconfig is not %s "
                "(clientConnection.kubeconfig of %s)",
                kubeconfig, KUBEADM_SCHED_CONFIG);

    /* cpu-extender: the Deployment's image, kubeadm/config.json, the scheduler's kubeconfig. */
    const char *where = "containers[cpu-extender]";
    const yaml_node_t *ext = need_container(&p, spec, "cpu-extender");
    const char *dimage = need_str(&d, need_container(&d, dspec, "cpu-extender"), "", "image");
    expect_str(&p, ext, where, "image", dimage);
    const yaml_node_t *cmd = need(&p, ext, where, "command");
    const char *ext_config = flag_value(&p, cmd, "--config");
    const char *ext_kubeconfig = flag_value(&p, cmd, "--kubeconfig");
    if (ext_config == NULL || ext_kubeconfig == NULL)
        fail_at(&p, cmd, "%s.command: want --config and --kubeconfig", where);
    s = resolve(&p, spec, ext, where, ext_config);
    slash = strrchr(s.host, '/');
    snprintf(repo_path, sizeof(repo_path), "%s%s", KUBEADM_DIR, slash != NULL ? slash + 1 : "");
    if (s.host[0] == '\0' || strcmp(repo_path, KUBEADM_EXT_CONFIG) != 0)
        fail_at(&p, s.mount, "%s: --config %s is not %s on the node", where, ext_config,
                KUBEADM_EXT_CONFIG);
    if (strcmp(ext_kubeconfig, kubeconfig) != 0)
        fail_at(&p, cmd, "%s: --kubeconfig %s, the scheduler uses %s", where, ext_kubeconfig,
                kubeconfig);
    s = resolve(&p, spec, ext, where, ext_kubeconfig);
    if (strcmp(s.host, "/etc/kubernetes/scheduler.conf") != 0)
        fail_at(&p, s.volume,
                "%s: --kubeconfig is hostPath %s, want kubeadm's /etc/kubernetes/scheduler.conf",
                where, s.host);
    const yaml_node_t *mounts = need(&p, ext, where, "volumeMounts");
    for (size_t i = 0; i < ydoc_len(mounts); i++)
        expect_bool(&p, ydoc_item(p.doc, mounts, i), "volumeMounts[]", "readOnly", true);
    expect_locked_down(&p, ext, where);

    /* On the host network the kubelet reaches the loopback listener itself. */
    const char *colon = strrchr(c.listen, ':');
    ck_assert_ptr_nonnull(colon);
    char host[128];
    snprintf(host, sizeof(host), "%.*s", (int)(colon - c.listen), c.listen);
    static const char *const probes[][2] = {{"livenessProbe", "/healthz"},
                                            {"readinessProbe", "/readyz"}};
    for (size_t i = 0; i < 2; i++) {
        char w[PATH_LEN];
        snprintf(w, sizeof(w), "%s.%s", where, probes[i][0]);
        const yaml_node_t *get = need(&p, ext, where, probes[i][0]);
        expect_str(&p, get, w, "httpGet.path", probes[i][1]);
        expect_str(&p, get, w, "httpGet.host", host);
        expect_str(&p, get, w, "httpGet.port", colon + 1);
        expect_str(&p, get, w, "httpGet.scheme", "HTTP");
    }
    ext_cfg_free(&c);
    manifests_free(&m);
}
END_TEST

/* ---- the sidecar's config.json ---- */

/* Each config.json passes `config check` with the scheduler's file beside
 * it, and the weight and timeout it reports are the scheduler's: set once,
 * in the KubeSchedulerConfiguration (config.json does not repeat them). */
START_TEST(manifests_config_json_is_accepted_by_config_check)
{
    struct manifests m;
    static char out[8192];

    manifests_load(&m);
    struct obj cm = need_obj(&m, "ConfigMap", CONFIGMAP_NAME);
    const yaml_node_t *data = need(&cm, cm.root, "", "data");
    const char *cm_json = ydoc_str(ydoc_get(cm.doc, data, "config.json"));
    const char *cm_sched = ydoc_str(ydoc_get(cm.doc, data, "scheduler-config.yaml"));
    size_t len;
    char *kubeadm_json = file_slurp(KUBEADM_EXT_CONFIG, &len);
    char *kubeadm_sched = file_slurp(KUBEADM_SCHED_CONFIG, &len);
    ck_assert_msg(cm_json != NULL && cm_sched != NULL, "ConfigMap %s: no data.config.json",
                  CONFIGMAP_NAME);
    ck_assert_msg(kubeadm_json != NULL, "%s: cannot read", KUBEADM_EXT_CONFIG);
    const char *const texts[][3] = {
        {"ConfigMap " CONFIGMAP_NAME " data.config.json", cm_json, cm_sched},
        {KUBEADM_EXT_CONFIG, kubeadm_json, kubeadm_sched},
    };
    for (size_t i = 0; i < 2; i++) {
        cJSON *j = cJSON_Parse(texts[i][1]);
        ck_assert_msg(cJSON_IsObject(j), "%s: not a JSON object", texts[i][0]);
        ck_assert_msg(cJSON_GetObjectItemCaseSensitive(j, "schedulerWeight") == NULL &&
                          cJSON_GetObjectItemCaseSensitive(j, "schedulerTimeoutMs") == NULL,
                      "%s: schedulerWeight and schedulerTimeoutMs come from schedulerConfig",
                      texts[i][0]);
        const cJSON *sc = cJSON_GetObjectItemCaseSensitive(j, "schedulerConfig");
        ck_assert_msg(cJSON_IsString(sc) && strcmp(sc->valuestring, "scheduler-config.yaml") == 0,
                      "%s: want schedulerConfig \"scheduler-config.yaml\" (beside it)",
                      texts[i][0]);
        cJSON_Delete(j);
        int rc = config_check(texts[i][1], texts[i][2], out, sizeof(out));
        if (rc == -ENOENT) {
            fprintf(stderr, "manifests: %s not built, config check of %s skipped\n",
                    server_binary(), texts[i][0]);
            continue;
        }
        ck_assert_msg(rc == 0, "%s: `%s config check` exits %d: %s", texts[i][0], server_binary(),
                      rc, out);
        /* the effective values are the scheduler file's weight 1 and 5s */
        ck_assert_msg(strstr(out, "\"schedulerWeight\": 1,") != NULL, "%s: %s", texts[i][0], out);
        ck_assert_msg(strstr(out, "\"schedulerTimeoutMs\": 5000,") != NULL, "%s: %s", texts[i][0],
                      out);
    }
    free(kubeadm_json);
    free(kubeadm_sched);
    manifests_free(&m);
}
END_TEST

/* The container's memory limit, the extender configuration's body cap and
 * its memory budget agree: the budget (memoryBudgetBytes, or derived from
 * the limit as the binary derives it) admits one request of every verb at
 * the largest body the configuration allows, and leaves the headroom the
 * process needs beside it. Then no request the configuration accepts can
 * take the process past its limit: concurrent ones wait or get 503
 * (tests/e2e/test_memory_limits.c runs the worst case in a cgroup). */
static void expect_memory_agrees(const struct obj *o, const yaml_node_t *spec, const char *config)
{
    struct cfg c;
    char err[ERR_LEN];
    const yaml_node_t *ext = need_container(o, spec, "cpu-extender");
    const yaml_node_t *q = need(o, ext, "containers[cpu-extender]", "resources.limits.memory");
    int64_t limit;
    const char *why;
    if (score_quantity_parse(ydoc_str(q), strlen(ydoc_str(q)), SCORE_UNIT_BASE, &limit, &why) != 0)
        fail_at(o, q, "resources.limits.memory %s: %s", ydoc_str(q), why);
    ck_assert_msg(cfg_load_file_only(&c, config, err) == 0, "%s: %s", config, err);
    if (c.memory_budget_bytes < 0)
        fail_at(o, q, "%s: memoryBudgetBytes -1: no budget under a limit of %s", config,
                ydoc_str(q));
    uint64_t budget = c.memory_budget_bytes > 0 ? (uint64_t)c.memory_budget_bytes
                                                : http_budget_derive((uint64_t)limit);
    if (budget == 0 || budget + HTTP_BUDGET_HEADROOM_MIN > (uint64_t)limit)
        fail_at(o, q, "%s: a memory budget of %llu bytes leaves under %llu bytes of the %s limit",
                config, (unsigned long long)budget, (unsigned long long)HTTP_BUDGET_HEADROOM_MIN,
                ydoc_str(q));
    for (int v = 0; v < OPS_VERB_COUNT; v++) {
        size_t charge = verb_memory_charge(v, (size_t)c.max_body_bytes, &c);
        if (charge > budget)
            fail_at(o, q,
                    "%s: a %s request of maxBodyBytes (%lld) needs %zu bytes, more than the "
                    "memory budget (%llu) under the %s limit: lower maxBodyBytes or raise the "
                    "limit",
                    config, ops_verb_name(v), c.max_body_bytes, charge, (unsigned long long)budget,
                    ydoc_str(q));
    }
}

START_TEST(manifests_memory_limit_budget_and_body_cap_agree)
{
    struct manifests m;
    const yaml_node_t *spec;

    manifests_load(&m);
    struct obj d = deployment(&m, &spec);
    expect_memory_agrees(&d, spec, "manifests/scheduler/config.json");
    struct obj p = need_file(&m, KUBEADM_PATCH);
    expect_memory_agrees(&p, need(&p, p.root, "Pod", "spec"), KUBEADM_EXT_CONFIG);
    manifests_free(&m);
}
END_TEST

/* ---- the docs ---- */

/* Whether @path is a file kubectl cannot apply: a kube-scheduler or
 * kustomize configuration, or a Prometheus one (no kind). */
static bool not_an_api_object(struct ydoc_file *f)
{
    struct obj o = obj_at(f, 0);
    return is_kind(&o, "KubeSchedulerConfiguration") || is_kind(&o, "Kustomization") ||
           ydoc_get(o.doc, o.root, "kind") == NULL;
}

/* `kubectl apply -k DIR` in @doc: DIR (with or without its slash) must be a
 * kustomization under manifests/; marks what it applies. */
static void check_apply_k(struct manifests *m, const char *doc, const char *arg, bool *applied)
{
    char dir[PATH_LEN], kpath[PATH_LEN + 32];
    size_t n = strcspn(arg, " `\t|;");

    snprintf(dir, sizeof(dir), "%.*s%s", (int)n, arg, n > 0 && arg[n - 1] == '/' ? "" : "/");
    if (!has_prefix(dir, "manifests/"))
        return;
    snprintf(kpath, sizeof(kpath), "%skustomization.yaml", dir);
    ck_assert_msg(access(kpath, R_OK) == 0, "%s: `kubectl apply -k %s`: no %s", doc, dir, kpath);
    for (size_t i = 0; i < m->n_yaml; i++) {
        if (applied_by_kustomization(m, dir, i))
            applied[i] = true;
    }
}

/* Every `kubectl apply -f FILE` in the fenced code blocks of @doc
 * (continued lines joined): each FILE must exist under manifests/ and hold
 * API objects only; @applied marks the files named. `kubectl apply -k DIR`
 * marks what that kustomization applies. */
static void check_apply_commands(struct manifests *m, const char *doc, bool *applied)
{
    size_t len;
    char *text = file_slurp(doc, &len);
    ck_assert_msg(text != NULL, "%s: cannot read", doc);
    for (char *p = text; *p != '\0'; p++) {
        if (p[0] == '\\' && p[1] == '\n')
            p[0] = p[1] = ' '; /* shell line continuation */
    }
    bool in_code = false;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line != NULL;
         line = strtok_r(NULL, "\n", &save)) {
        /* Commands in fenced blocks only: prose may say what not to run. */
        if (has_prefix(line + strspn(line, " "), "```"))
            in_code = !in_code;
        char *cmd = in_code ? strstr(line, "kubectl apply") : NULL;
        for (char *k = cmd != NULL ? strstr(cmd, " -k ") : NULL; k != NULL; k = strstr(k, " -k ")) {
            k += 4;
            check_apply_k(m, doc, k, applied);
        }
        for (char *f = cmd != NULL ? strstr(cmd, " -f ") : NULL; f != NULL; f = strstr(f, " -f ")) {
            char name[PATH_LEN];
            f += 4;
            size_t n = strcspn(f, " `\t");
            snprintf(name, sizeof(name), "%.*s", (int)n, f);
            if (!has_prefix(name, "manifests/"))
                continue; /* stdin ("-"), or a file the reader makes */
            bool found = false;
            for (size_t i = 0; i < m->n_yaml; i++) {
                if (strcmp(m->yaml[i].path, name) != 0)
                    continue;
                found = true;
                applied[i] = true;
                ck_assert_msg(!not_an_api_object(&m->yaml[i]),
                              "%s: `kubectl apply -f %s`, which is not an API object", doc, name);
            }
            ck_assert_msg(found, "%s: `kubectl apply -f %s`: no such file in manifests/", doc,
                          name);
        }
    }
    free(text);
}

START_TEST(manifests_docs_name_every_file_and_apply_every_object)
{
    struct manifests m;
    bool applied[MAX_FILES] = {false}, ignored[MAX_FILES] = {false};
    size_t len;

    manifests_load(&m);
    char *doc = file_slurp("docs/manifests.md", &len);
    ck_assert_msg(doc != NULL, "docs/manifests.md: cannot read");
    for (size_t i = 0; i < m.n_files; i++) {
        ck_assert_msg(strstr(doc, m.paths[i]) != NULL,
                      "docs/manifests.md does not mention %s (Files table)", m.paths[i]);
    }
    free(doc);
    check_apply_commands(&m, "docs/manifests.md", applied);
    for (size_t i = 0; i < m.n_yaml; i++) {
        /* Everything but configurations and the kubeadm patch gets applied somewhere. */
        if (!applied[i] && !not_an_api_object(&m.yaml[i]) &&
            strcmp(m.yaml[i].path, KUBEADM_PATCH) != 0)
            ck_abort_msg("docs/manifests.md: no `kubectl apply -f %s` (nor -k of a "
                         "kustomization that lists it)",
                         m.yaml[i].path);
    }
    check_apply_commands(&m, "README.md", ignored);
    manifests_free(&m);
}
END_TEST

/* `@cmd` through sh (stdout and stderr) into a malloc'd string; its exit
 * status in *@status (-1 when it did not exit). */
static char *shell_out(const char *cmd, int *status)
{
    char *out = NULL;
    size_t cap = 0, len = 0;
    FILE *f = popen(cmd, "r");
    ck_assert_msg(f != NULL, "%s: %s", cmd, strerror(errno));
    for (;;) {
        if (len + 4096 + 1 > cap) {
            cap = cap * 2 + 8192;
            out = realloc(out, cap);
            ck_assert_ptr_nonnull(out);
        }
        size_t r = fread(out + len, 1, cap - len - 1, f);
        if (r == 0)
            break;
        len += r;
    }
    out[len] = '\0';
    int st = pclose(f);
    *status = st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return out;
}

/* `make manifests IMAGE=@image` in the copy @dir of the repository; the
 * outer make's variables are left out, so that it runs as a person's. */
static char *make_manifests(const char *dir, const char *image, int *status)
{
    char cmd[2 * PATH_LEN];
    snprintf(cmd, sizeof(cmd),
             "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u IMAGE make -s -C %s manifests%s%s 2>&1",
             dir, image != NULL ? " IMAGE=" : "", image != NULL ? image : "");
    return shell_out(cmd, status);
}

/* File @rel of @dir holds the line @line. */
static void expect_line(const char *dir, const char *rel, const char *line)
{
    char path[PATH_LEN];
    size_t len, n = strlen(line);
    snprintf(path, sizeof(path), "%s/%s", dir, rel);
    char *text = file_slurp(path, &len);
    ck_assert_msg(text != NULL, "%s: cannot read", path);
    bool found = false;
    for (const char *p = text; !found && (p = strstr(p, line)) != NULL; p += n)
        found = (p == text || p[-1] == '\n' || p[-1] == ' ') && (p[n] == '\n' || p[n] == '\0');
    ck_assert_msg(found, "%s: no line \"%s\" after make manifests", rel, line);
    free(text);
}

/* One place sets the image: `make manifests IMAGE=...` writes it into the
 * kustomization's images:, the Deployment, the kubeadm patch (which
 * kustomize never reads: before, `kubectl apply -k` pulled the new image
 * and kubeadm the old one) and the chart's values, in a copy of the
 * repository; after it no file of ours names the shipped image, and
 * `kubectl kustomize` renders the new one. */
START_TEST(manifests_make_manifests_writes_the_image_everywhere)
{
    static const char *const old = "registry.example.com/cpu-extender";
    static const char *const digest =
        "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    char dir[] = "/tmp/cpu-extender-manifests-XXXXXX", cmd[3 * PATH_LEN], want[PATH_LEN];
    int status;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(cmd, sizeof(cmd), "cp -r Makefile VERSION scripts manifests charts %s/ 2>&1", dir);
    free(shell_out(cmd, &status));
    ck_assert_int_eq(status, 0);

    /* Refused, with what to write, and nothing changed: no IMAGE, no tag. */
    char *out = make_manifests(dir, NULL, &status);
    ck_assert_msg(status != 0 && strstr(out, "IMAGE=registry/cpu-extender:tag") != NULL,
                  "make manifests without IMAGE: status %d, %s", status, out);
    free(out);
    out = make_manifests(dir, "x.example/y", &status);
    ck_assert_msg(status != 0 && strstr(out, "has no tag") != NULL,
                  "make manifests IMAGE=x.example/y: status %d, %s", status, out);
    free(out);
    snprintf(cmd, sizeof(cmd), "grep -rlF %s %s/manifests/deployment.yaml %s/charts", old, dir,
             dir);
    free(shell_out(cmd, &status));
    ck_assert_msg(status == 0, "a refused make manifests changed the files");

    /* A registry with a port, then a digest over it. */
    static const char *const images[][3] = {
        {"x.example:5000/team/y:z", "x.example:5000/team/y", "newTag: \"z\""},
        {"a.example/b@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
         "a.example/b", "digest: "},
    };
    for (size_t i = 0; i < 2; i++) {
        const char *image = images[i][0], *name = images[i][1];
        out = make_manifests(dir, image, &status);
        ck_assert_msg(status == 0, "make manifests IMAGE=%s: status %d, %s", image, status, out);
        free(out);
        snprintf(cmd, sizeof(cmd), "grep -rnF %s %s/manifests %s/charts", old, dir, dir);
        out = shell_out(cmd, &status);
        ck_assert_msg(status == 1, "after make manifests IMAGE=%s, still %s: %s", image, old, out);
        free(out);
        snprintf(want, sizeof(want), "image: %s", image);
        expect_line(dir, "manifests/deployment.yaml", want);
        expect_line(dir, "manifests/kubeadm/kube-scheduler+strategic.yaml", want);
        snprintf(want, sizeof(want), "- name: %s", name);
        expect_line(dir, "manifests/kustomization.yaml", want);
        snprintf(want, sizeof(want), "newName: %s", name);
        expect_line(dir, "manifests/kustomization.yaml", want);
        snprintf(want, sizeof(want), "%s%s", images[i][2], i == 0 ? "" : digest);
        expect_line(dir, "manifests/kustomization.yaml", want);
        snprintf(want, sizeof(want), "repository: %s", name);
        expect_line(dir, "charts/cpu-extender/values.yaml", want);
        snprintf(want, sizeof(want), "%s: \"%s\"", i == 0 ? "tag" : "digest",
                 i == 0 ? "z" : digest);
        expect_line(dir, "charts/cpu-extender/values.yaml", want);

        size_t len;
        snprintf(want, sizeof(want), "%s/manifests", dir);
        char *text = kubectl_kustomize(want, &len);
        if (text != NULL) {
            snprintf(want, sizeof(want), "image: %s\n", image);
            ck_assert_msg(strstr(text, want) != NULL && strstr(text, old) == NULL,
                          "kubectl kustomize after make manifests IMAGE=%s: %s", image, text);
            free(text);
        }
    }
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    free(shell_out(cmd, &status));
}
END_TEST

/* The chart cannot read files outside its directory, so it holds copies:
 * the two files of the ConfigMap, and the API objects that need no values
 * (rbac.yaml, pdb.yaml, kubeadm/rbac.yaml) as templates that are the file
 * between one `{{- if` line and `{{- end }}`. They stay byte-identical to
 * manifests/ (tests/cluster/t_helm.sh compares the rendered objects). */
START_TEST(manifests_chart_copies_are_byte_identical)
{
    static const char *const copies[][2] = {
        {"charts/cpu-extender/files/scheduler-config.yaml", SCHED_CONFIG},
        {"charts/cpu-extender/files/config.json", EXT_CONFIG},
        {"charts/cpu-extender/templates/rbac.yaml", "manifests/rbac.yaml"},
        {"charts/cpu-extender/templates/pdb.yaml", "manifests/pdb.yaml"},
        {"charts/cpu-extender/templates/kubeadm-rbac.yaml", KUBEADM_DIR "rbac.yaml"},
    };
    for (size_t i = 0; i < sizeof(copies) / sizeof(copies[0]); i++) {
        size_t len, want_len;
        char *text = file_slurp(copies[i][0], &len), *want = file_slurp(copies[i][1], &want_len);
        ck_assert_msg(text != NULL && want != NULL, "%s or %s: cannot read", copies[i][0],
                      copies[i][1]);
        char *body = text;
        if (strstr(copies[i][0], "/templates/") != NULL) {
            static const char end[] = "{{- end }}\n";
            char *nl = strchr(text, '\n');
            ck_assert_msg(strncmp(text, "{{- if ", 7) == 0 && nl != NULL,
                          "%s: the first line is not {{- if ...}}", copies[i][0]);
            ck_assert_msg(len >= sizeof(end) - 1 &&
                              strcmp(text + len - (sizeof(end) - 1), end) == 0,
                          "%s: the last line is not %s", copies[i][0], end);
            body = nl + 1;
            len -= (size_t)(body - text) + sizeof(end) - 1;
        }
        ck_assert_msg(len == want_len && memcmp(body, want, len) == 0,
                      "%s is not %s byte for byte: copy it again", copies[i][0], copies[i][1]);
        free(text);
        free(want);
    }
}
END_TEST

/* Every container of the Deployment requests CPU and memory and has a
 * memory limit: kube-scheduler had none, so nothing bounded its memory
 * and the scheduler placed the pod as if it needed none. */
START_TEST(manifests_every_container_requests_memory_and_has_a_limit)
{
    struct manifests m;
    const yaml_node_t *spec;

    manifests_load(&m);
    struct obj d = deployment(&m, &spec);
    const yaml_node_t *containers = need(&d, spec, "spec.template.spec", "containers");
    for (size_t i = 0; i < ydoc_len(containers); i++) {
        const yaml_node_t *c = ydoc_item(d.doc, containers, i);
        char where[PATH_LEN];
        snprintf(where, sizeof(where), "containers[%s]", need_str(&d, c, "containers", "name"));
        need_str(&d, c, where, "resources.requests.cpu");
        need_str(&d, c, where, "resources.requests.memory");
        need_str(&d, c, where, "resources.limits.memory");
    }
    manifests_free(&m);
}
END_TEST

Suite *manifests_suite(void)
{
    Suite *s = suite_create("manifests");
    TCase *tc = tcase_create("manifests");
    tcase_add_test(tc, manifests_every_document_is_a_current_api_object);
    tcase_add_test(tc, manifests_configmap_embeds_scheduler_config_byte_identical);
    tcase_add_test(tc, manifests_prometheus_rule_holds_the_rules_file);
    tcase_add_test(tc, manifests_scheduler_configs_call_the_sidecar_routes);
    tcase_add_test(tc, manifests_v1beta3_config_equals_v1_but_api_version);
    tcase_add_test(tc, manifests_deployment_wiring_is_consistent);
    tcase_add_test(tc, manifests_deployment_containers_run_unprivileged);
    tcase_add_test(tc, manifests_deployment_probes_check_health_and_readiness);
    tcase_add_test(tc, manifests_pdb_selects_the_deployment_and_never_blocks_a_drain);
    tcase_add_test(tc, manifests_rbac_bindings_resolve);
    tcase_add_test(tc, manifests_cluster_role_cpu_extender_grants_documented_verbs);
    tcase_add_test(tc, manifests_kubeadm_patch_adds_sidecar_to_static_pod);
    tcase_add_test(tc, manifests_config_json_is_accepted_by_config_check);
    tcase_add_test(tc, manifests_memory_limit_budget_and_body_cap_agree);
    tcase_add_test(tc, manifests_docs_name_every_file_and_apply_every_object);
    tcase_add_test(tc, manifests_make_manifests_writes_the_image_everywhere);
    tcase_add_test(tc, manifests_chart_copies_are_byte_identical);
    tcase_add_test(tc, manifests_every_container_requests_memory_and_has_a_limit);
    suite_add_tcase(s, tc);
    return s;
}

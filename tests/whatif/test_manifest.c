/*
 * whatif/manifest.c: the pinned pod `rank` prints (server-set fields
 * gone, pinned by the node's own hostname label, or by matchFields on its
 * name in every term), the patch for a controller's template, and the YAML
 * and JSON writers: libyaml must read the YAML back as the same data, every
 * string a string (never a number, a bool or null).
 */
#include "whatif/manifest.h"

#include <check.h>
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/suites.h"
#include "tests/support/yaml_doc.h"

static const char *const running_pod =
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"web-7d9f-x2k4p\","
    "\"generateName\":\"web-7d9f-\",\"namespace\":\"shop\",\"uid\":\"6f0c\","
    "\"resourceVersion\":\"81234\",\"generation\":1,\"creationTimestamp\":\"2026-05-01T10:00:00Z\","
    "\"labels\":{\"app\":\"web\"},\"ownerReferences\":[{\"kind\":\"ReplicaSet\",\"name\":"
    "\"web-7d9f\",\"controller\":true}],\"managedFields\":[{\"manager\":\"kube-controller-"
    "manager\"}]},\"spec\":{\"nodeName\":\"node-a\",\"nodeSelector\":{\"disk\":\"ssd\","
    "\"kubernetes.io/hostname\":\"old\"},\"containers\":[{\"name\":\"app\",\"image\":\"web:1\","
    "\"resources\":{\"requests\":{\"cpu\":\"500m\"}}}]},\"status\":{\"phase\":\"Running\"}}";

static cJSON *get(cJSON *o, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", path);
    cJSON *at = o;
    for (char *k = strtok(buf, "."); k != NULL && at != NULL; k = strtok(NULL, "."))
        at = cJSON_IsArray(at) ? cJSON_GetArrayItem(at, atoi(k))
                               : cJSON_GetObjectItemCaseSensitive(at, k);
    return at;
}

START_TEST(pinned_pod_drops_server_fields_and_pins_by_hostname_label)
{
    const struct whatif_pin pin = {.node = "node-b", .hostname = "ip-10-0-0-7"};
    cJSON *m;
    ck_assert_int_eq(whatif_pinned_pod(running_pod, strlen(running_pod), &pin, &m), 0);
    const char *gone[] = {"metadata.uid",
                          "metadata.resourceVersion",
                          "metadata.generation",
                          "metadata.creationTimestamp",
                          "metadata.ownerReferences",
                          "metadata.managedFields",
                          "metadata.generateName", /* the name stays: apply needs it */
                          "spec.nodeName",
                          "status"};
    for (size_t i = 0; i < sizeof(gone) / sizeof(gone[0]); i++)
        ck_assert_msg(get(m, gone[i]) == NULL, "%s kept", gone[i]);
    ck_assert_str_eq(get(m, "metadata.name")->valuestring, "web-7d9f-x2k4p");
    ck_assert_str_eq(get(m, "metadata.labels.app")->valuestring, "web");
    /* the node's own label value, not its name; the pod's other selector kept */
    ck_assert_str_eq(
        cJSON_GetObjectItemCaseSensitive(get(m, "spec.nodeSelector"), "kubernetes.io/hostname")
            ->valuestring,
        "ip-10-0-0-7");
    ck_assert_str_eq(get(m, "spec.nodeSelector.disk")->valuestring, "ssd");
    ck_assert_int_eq(cJSON_GetArraySize(get(m, "spec.nodeSelector")), 2);
    ck_assert_ptr_null(get(m, "spec.affinity"));
    cJSON_Delete(m);
}
END_TEST

START_TEST(pinned_pod_without_hostname_label_uses_match_fields_in_every_term)
{
    const struct whatif_pin pin = {.node = "node-b", .hostname = NULL};
    const char *pod =
        "{\"metadata\":{\"generateName\":\"job-\"},\"spec\":{\"affinity\":{\"nodeAffinity\":{"
        "\"requiredDuringSchedulingIgnoredDuringExecution\":{\"nodeSelectorTerms\":["
        "{\"matchExpressions\":[{\"key\":\"zone\",\"operator\":\"In\",\"values\":[\"a\"]}]},"
        "{\"matchExpressions\":[{\"key\":\"zone\",\"operator\":\"In\",\"values\":[\"b\"]}],"
        "\"matchFields\":[{\"key\":\"metadata.name\",\"operator\":\"NotIn\",\"values\":[\"x\"]}]}"
        "]}}}}}";
    cJSON *m;
    ck_assert_int_eq(whatif_pinned_pod(pod, strlen(pod), &pin, &m), 0);
    /* no name: generateName is all it has, and stays */
    ck_assert_str_eq(get(m, "metadata.generateName")->valuestring, "job-");
    ck_assert_str_eq(get(m, "kind")->valuestring, "Pod");
    ck_assert_str_eq(get(m, "apiVersion")->valuestring, "v1");
    cJSON *terms = get(m, "spec.affinity.nodeAffinity."
                          "requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms");
    ck_assert_int_eq(cJSON_GetArraySize(terms), 2);
    /* terms are ORed: each one carries the pin, its own requirements kept */
    ck_assert_str_eq(get(terms, "0.matchFields.0.key")->valuestring, "metadata.name");
    ck_assert_str_eq(get(terms, "0.matchFields.0.operator")->valuestring, "In");
    ck_assert_str_eq(get(terms, "0.matchFields.0.values.0")->valuestring, "node-b");
    ck_assert_str_eq(get(terms, "0.matchExpressions.0.key")->valuestring, "zone");
    ck_assert_str_eq(get(terms, "1.matchFields.0.operator")->valuestring, "NotIn");
    ck_assert_str_eq(get(terms, "1.matchFields.1.values.0")->valuestring, "node-b");
    cJSON_Delete(m);
    /* no terms at all: one term of the pin */
    ck_assert_int_eq(whatif_pinned_pod("{}", 2, &pin, &m), 0);
    terms = get(m, "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
                   "nodeSelectorTerms");
    ck_assert_int_eq(cJSON_GetArraySize(terms), 1);
    ck_assert_str_eq(get(terms, "0.matchFields.0.values.0")->valuestring, "node-b");
    cJSON_Delete(m);
    ck_assert_int_eq(whatif_pinned_pod("[]", 2, &pin, &m), -EINVAL);
    ck_assert_ptr_null(m);
}
END_TEST

START_TEST(pin_patch_is_the_template_affinity)
{
    const struct whatif_pin label = {.node = "node-b", .hostname = "node-b.example"};
    cJSON *p;
    ck_assert_int_eq(whatif_pin_patch(running_pod, strlen(running_pod), &label, &p), 0);
    ck_assert_int_eq(cJSON_GetArraySize(p), 1); /* spec, nothing else */
    cJSON *terms = get(p, "spec.template.spec.affinity.nodeAffinity."
                          "requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms");
    ck_assert_int_eq(cJSON_GetArraySize(terms), 1);
    ck_assert_str_eq(get(terms, "0.matchExpressions.0.key")->valuestring, "kubernetes.io/hostname");
    ck_assert_str_eq(get(terms, "0.matchExpressions.0.values.0")->valuestring, "node-b.example");
    ck_assert_ptr_null(get(terms, "0.matchFields"));
    cJSON_Delete(p);
}
END_TEST

/* Would a plain scalar @s read as something other than a string in YAML
 * 1.1 or 1.2 (what Kubernetes' decoder and others resolve)? */
static bool resolves_as_non_string(const char *s)
{
    static const char *const patterns[] = {
        "^[-+]?[0-9][0-9_]*$",
        "^[-+]?(\\.[0-9]+|[0-9][0-9_]*(\\.[0-9_]*)?)([eE][-+]?[0-9]+)?$",
        "^0x[0-9a-fA-F_]+$",
        "^0o?[0-7_]+$",
        "^[-+]?\\.(inf|Inf|INF)$",
        "^\\.(nan|NaN|NAN)$",
        "^(y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$",
        "^(~|null|Null|NULL|)$",
        "^[0-9]+:[0-5]?[0-9](:[0-5]?[0-9])*$",
    };
    for (size_t i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++) {
        regex_t re;
        ck_assert_int_eq(regcomp(&re, patterns[i], REG_EXTENDED | REG_NOSUB), 0);
        int hit = regexec(&re, s, 0, NULL, 0) == 0;
        regfree(&re);
        if (hit)
            return true;
    }
    return false;
}

/* @y (from libyaml) holds the same data as @j. */
static void same(yaml_document_t *d, const yaml_node_t *y, const cJSON *j, const char *at)
{
    ck_assert_msg(y != NULL, "%s: missing", at);
    if (cJSON_IsObject(j)) {
        ck_assert_msg(y->type == YAML_MAPPING_NODE, "%s: not a mapping", at);
        ck_assert_int_eq(ydoc_len(y), cJSON_GetArraySize(j));
        const cJSON *m;
        cJSON_ArrayForEach(m, j)
        {
            char sub[256];
            snprintf(sub, sizeof(sub), "%s.%s", at, m->string);
            same(d, ydoc_get(d, y, m->string), m, sub);
        }
    } else if (cJSON_IsArray(j)) {
        ck_assert_msg(y->type == YAML_SEQUENCE_NODE, "%s: not a sequence", at);
        ck_assert_int_eq(ydoc_len(y), cJSON_GetArraySize(j));
        for (int i = 0; i < cJSON_GetArraySize(j); i++) {
            char sub[256];
            snprintf(sub, sizeof(sub), "%s[%d]", at, i);
            same(d, ydoc_item(d, y, (size_t)i), cJSON_GetArrayItem(j, i), sub);
        }
    } else if (cJSON_IsString(j)) {
        ck_assert_msg(ydoc_is(y, j->valuestring), "%s: \"%s\" read as \"%s\"", at, j->valuestring,
                      ydoc_str(y));
        ck_assert_msg(!ydoc_is_plain(y) || !resolves_as_non_string(j->valuestring),
                      "%s: \"%s\" is plain", at, j->valuestring);
    } else {
        char *text = cJSON_PrintUnformatted(j);
        ck_assert_msg(ydoc_is(y, text) && ydoc_is_plain(y), "%s: %s read as %s", at, text,
                      ydoc_str(y));
        cJSON_free(text);
    }
}

static char *write_to_string(int (*fn)(const cJSON *, FILE *), const cJSON *v)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fn(v, f), 0);
    fclose(f);
    return buf;
}

START_TEST(yaml_reads_back_as_the_same_data)
{
    const char *json =
        "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"web\",\"labels\":{"
        "\"app.kubernetes.io/name\":\"web\",\"version\":\"1.10\",\"enabled\":\"true\",\"flag\":"
        "\"yes\",\"off\":\"off\",\"n\":\"N\",\"empty\":\"\",\"nil\":\"null\",\"tilde\":\"~\","
        "\"dash\":\"-x\",\"colon\":\"a: b\",\"hash\":\"a #b\",\"lead\":\" x\",\"trail\":\"x \","
        "\"quote\":\"\\\"q'\",\"nl\":\"a\\nb\",\"tab\":\"a\\tb\",\"uni\":\"z\\u00fcrich\","
        "\"ctl\":\"\\u0001\",\"star\":\"*x\",\"amp\":\"&x\",\"bang\":\"!x\",\"pct\":\"%x\","
        "\"at\":\"@x\",\"tick\":\"`x\",\"brace\":\"{x}\",\"bracket\":\"[x]\",\"comma\":\"a,b\","
        "\"question\":\"?x\",\"pipe\":\"|x\",\"gt\":\">x\",\"octal\":\"0755\",\"hex\":\"0x1f\","
        "\"float\":\"1e3\",\"inf\":\".inf\",\"time\":\"12:30\",\"neg\":\"-1\","
        "\"123\":\"numeric key\",\"true\":\"bool key\",\"a b\":\"space key\"}},"
        "\"spec\":{\"priority\":1000,\"ratio\":0.5,\"hostNetwork\":false,\"x\":null,"
        "\"containers\":[{\"name\":\"app\",\"args\":[\"--port\",\"8080\"],\"env\":[],"
        "\"resources\":{}},{\"name\":\"b\",\"ports\":[{\"containerPort\":80}]}],"
        "\"matrix\":[[1,2],[\"a\"],[]],\"objects\":[{}]}}";
    cJSON *v = cJSON_Parse(json);
    ck_assert_ptr_nonnull(v);
    char *yaml = write_to_string(whatif_write_yaml, v);
    struct ydoc_file f;
    char err[YDOC_ERR_LEN];
    ck_assert_msg(ydoc_load_text(&f, "out", yaml, strlen(yaml), err) == 0, "%s\n%s", err, yaml);
    ck_assert_uint_eq(f.n_docs, 1);
    same(&f.docs[0], ydoc_root(&f.docs[0]), v, "");
    /* names and paths stay plain, as kubectl prints them; no tab anywhere */
    ck_assert_msg(strstr(yaml, "\n  name: web\n") != NULL, "%s", yaml);
    ck_assert_msg(strstr(yaml, "app.kubernetes.io/name: web\n") != NULL, "%s", yaml);
    ck_assert_msg(strstr(yaml, "\n  containers:\n  - name: app\n    args:\n    - \"--port\"\n") !=
                      NULL,
                  "%s", yaml);
    ck_assert_ptr_null(strchr(yaml, '\t'));
    ydoc_free(&f);
    free(yaml);
    /* the JSON writer: two spaces, and the same data */
    char *text = write_to_string(whatif_write_json, v);
    cJSON *back = cJSON_Parse(text);
    ck_assert(cJSON_Compare(back, v, true));
    ck_assert_ptr_null(strchr(text, '\t'));
    ck_assert_msg(strncmp(text, "{\n  \"apiVersion\": \"v1\",\n", 24) == 0, "%s", text);
    cJSON_Delete(back);
    free(text);
    cJSON_Delete(v);
}
END_TEST

Suite *codec_manifest_suite(void)
{
    Suite *s = suite_create("codec_manifest");
    TCase *tc = tcase_create("codec_manifest");
    tcase_add_test(tc, pinned_pod_drops_server_fields_and_pins_by_hostname_label);
    tcase_add_test(tc, pinned_pod_without_hostname_label_uses_match_fields_in_every_term);
    tcase_add_test(tc, pin_patch_is_the_template_affinity);
    tcase_add_test(tc, yaml_reads_back_as_the_same_data);
    suite_add_tcase(s, tc);
    return s;
}

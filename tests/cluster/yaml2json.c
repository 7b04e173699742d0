/*
 * cluster-yaml2json FILE: every document of a YAML file as one line of
 * compact JSON, for tests/cluster/run.sh (which reads the manifests with
 * jq; Debian's yq would be another dependency, and kubectl only converts
 * API kinds, not kube-scheduler's configuration).
 *
 * Plain scalars are typed as Kubernetes' YAML decoder (sigs.k8s.io/yaml,
 * YAML 1.1 through go-yaml v2) types the ones the manifests use: null, ~
 * and the empty scalar are null, true/false (any case) and yes/no/on/off
 * are booleans, decimal integers and floats are numbers (written with
 * their own digits, so -2147483648 stays exact); anything quoted or in
 * block style is a string. Exit 0, or 1 with the file and line of a YAML
 * error on stderr.
 */
#include <regex.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "tests/support/yaml_doc.h"

#define DEPTH_MAX 64

static bool is_one_of(const char *s, const char *const *words)
{
    for (size_t i = 0; words[i] != NULL; i++)
        if (strcasecmp(s, words[i]) == 0)
            return true;
    return false;
}

static cJSON *scalar(const yaml_node_t *n)
{
    static const char *const nulls[] = {"null", "~", "", NULL};
    static const char *const yes[] = {"true", "yes", "on", "y", NULL};
    static const char *const no[] = {"false", "no", "off", "n", NULL};
    const char *s = ydoc_str(n);
    if (!ydoc_is_plain(n))
        return cJSON_CreateString(s);
    if (is_one_of(s, nulls))
        return cJSON_CreateNull();
    if (is_one_of(s, yes))
        return cJSON_CreateTrue();
    if (is_one_of(s, no))
        return cJSON_CreateFalse();
    regex_t re;
    /* A JSON number: what YAML 1.1 reads as int or float and JSON can say. */
    if (regcomp(&re, "^-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][-+]?[0-9]+)?$", REG_EXTENDED) != 0)
        return NULL;
    bool number = regexec(&re, s, 0, NULL, 0) == 0;
    regfree(&re);
    return number ? cJSON_CreateRaw(s) : cJSON_CreateString(s);
}

static cJSON *convert(yaml_document_t *d, const yaml_node_t *n, int depth)
{
    if (n == NULL || depth > DEPTH_MAX)
        return NULL;
    if (n->type == YAML_SCALAR_NODE)
        return scalar(n);
    if (n->type == YAML_SEQUENCE_NODE) {
        cJSON *a = cJSON_CreateArray();
        for (size_t i = 0; a != NULL && i < ydoc_len(n); i++) {
            cJSON *item = convert(d, ydoc_item(d, n, i), depth + 1);
            if (item == NULL) {
                cJSON_Delete(a);
                return NULL;
            }
            cJSON_AddItemToArray(a, item);
        }
        return a;
    }
    cJSON *o = cJSON_CreateObject();
    for (size_t i = 0; o != NULL && i < ydoc_len(n); i++) {
        yaml_node_t *k, *v;
        cJSON *item = NULL;
        if (ydoc_pair(d, n, i, &k, &v) && ydoc_str(k) != NULL)
            item = convert(d, v, depth + 1);
        if (item == NULL) {
            cJSON_Delete(o);
            return NULL;
        }
        cJSON_AddItemToObject(o, ydoc_str(k), item);
    }
    return o;
}

int main(int argc, char **argv)
{
    struct ydoc_file f;
    char err[YDOC_ERR_LEN];
    int rc = 0;

    if (argc != 2) {
        fprintf(stderr, "usage: cluster-yaml2json FILE\n");
        return 2;
    }
    if (ydoc_load(&f, argv[1], err) != 0) {
        fprintf(stderr, "cluster-yaml2json: %s\n", err);
        return 1;
    }
    for (size_t i = 0; i < f.n_docs && rc == 0; i++) {
        cJSON *j = convert(&f.docs[i], ydoc_root(&f.docs[i]), 0);
        char *text = j != NULL ? cJSON_PrintUnformatted(j) : NULL;
        if (text == NULL) {
            fprintf(stderr, "cluster-yaml2json: %s: document %zu: cannot convert\n", argv[1],
                    i + 1);
            rc = 1;
        } else {
            puts(text);
        }
        cJSON_free(text);
        cJSON_Delete(j);
    }
    ydoc_free(&f);
    return rc;
}

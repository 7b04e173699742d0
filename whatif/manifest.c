#include "whatif/manifest.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <stdint.h>
#include <strings.h>
#include <yaml.h>

#include "server/codec/json.h"

#define REQUIRED       "requiredDuringSchedulingIgnoredDuringExecution"
#define HOSTNAME_LABEL "kubernetes.io/hostname"

/* Removes every member @key of @obj, duplicates included. */
static void delete_all(cJSON *obj, const char *key)
{
    cJSON *gone = cJSON_DetachItemFromObjectCaseSensitive(obj, key);
    while (gone != NULL) {
        cJSON_Delete(gone);
        gone = cJSON_DetachItemFromObjectCaseSensitive(obj, key);
    }
}

/* The object (@array: array) member @key of @obj (the last of duplicates,
 * as Go reads it), made an empty one when absent or of another type. NULL
 * when out of memory. */
static cJSON *member_at(cJSON *obj, const char *key, bool array)
{
    cJSON *m = codec_json_member(obj, key);
    if (array ? cJSON_IsArray(m) : cJSON_IsObject(m))
        return m;
    delete_all(obj, key);
    return array ? cJSON_AddArrayToObject(obj, key) : cJSON_AddObjectToObject(obj, key);
}

/* The requirement that pins to @pin: In [value] on the hostname label, or
 * on metadata.name. */
static cJSON *pin_requirement(const struct whatif_pin *pin, bool field)
{
    const char *value = field ? pin->node : pin->hostname;
    cJSON *r = cJSON_CreateObject(), *values = cJSON_CreateStringArray(&value, 1);
    if (r != NULL && values != NULL &&
        cJSON_AddStringToObject(r, "key", field ? "metadata.name" : HOSTNAME_LABEL) != NULL &&
        cJSON_AddStringToObject(r, "operator", "In") != NULL &&
        cJSON_AddItemToObject(r, "values", values))
        return r;
    cJSON_Delete(values); /* not in r: adding it was the last step */
    cJSON_Delete(r);
    return NULL;
}

/* @terms (an array, in place) with the pin ANDed into each term, or one
 * term of the pin when it holds none. The terms are ORed, so every one
 * must carry it. Returns 0 or -ENOMEM. */
static int pin_terms(cJSON *terms, const struct whatif_pin *pin, bool field)
{
    const char *list = field ? "matchFields" : "matchExpressions";
    cJSON *term;
    if (cJSON_GetArraySize(terms) == 0) {
        term = cJSON_CreateObject();
        if (term == NULL || !cJSON_AddItemToArray(terms, term))
            return -ENOMEM;
    }
    cJSON_ArrayForEach(term, terms)
    {
        if (!cJSON_IsObject(term))
            continue; /* the decoder refused such a pod before it was ranked */
        cJSON *reqs = member_at(term, list, true);
        cJSON *r = reqs != NULL ? pin_requirement(pin, field) : NULL;
        if (r == NULL || !cJSON_AddItemToArray(reqs, r)) {
            cJSON_Delete(r);
            return -ENOMEM;
        }
    }
    return 0;
}

/* The pod's required node affinity terms (a copy), or an empty array. */
static cJSON *own_terms(const cJSON *pod)
{
    const cJSON *req = codec_json_field(
        codec_json_field(codec_json_field(codec_json_field(pod, "spec"), "affinity"),
                         "nodeAffinity"),
        REQUIRED);
    const cJSON *terms = codec_json_field(req, "nodeSelectorTerms");
    return cJSON_IsArray(terms) ? cJSON_Duplicate(terms, true) : cJSON_CreateArray();
}

static int pin(cJSON *pod, const struct whatif_pin *p)
{
    static const char *const server_set[] = {
        "uid",
        "resourceVersion",
        "managedFields",
        "generation",
        "creationTimestamp",
        "selfLink",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "ownerReferences",
    };
    cJSON *meta = member_at(pod, "metadata", false), *spec = member_at(pod, "spec", false);
    if (meta == NULL || spec == NULL)
        return -ENOMEM;
    for (size_t i = 0; i < sizeof(server_set) / sizeof(server_set[0]); i++)
        delete_all(meta, server_set[i]);
    /* A controller's pods carry generateName and the name made from it:
     * the name is what `kubectl apply` needs. */
    const cJSON *name = codec_json_member(meta, "name");
    if (cJSON_IsString(name) && name->valuestring[0] != '\0')
        delete_all(meta, "generateName");
    delete_all(pod, "status");
    delete_all(spec, "nodeName");
    if (p->hostname != NULL) {
        cJSON *sel = member_at(spec, "nodeSelector", false);
        if (sel == NULL)
            return -ENOMEM;
        delete_all(sel, HOSTNAME_LABEL);
        if (cJSON_AddStringToObject(sel, HOSTNAME_LABEL, p->hostname) == NULL)
            return -ENOMEM;
    } else {
        cJSON *aff = member_at(spec, "affinity", false);
        cJSON *na = aff != NULL ? member_at(aff, "nodeAffinity", false) : NULL;
        cJSON *req = na != NULL ? member_at(na, REQUIRED, false) : NULL;
        cJSON *terms = req != NULL ? member_at(req, "nodeSelectorTerms", true) : NULL;
        if (terms == NULL || pin_terms(terms, p, true) != 0)
            return -ENOMEM;
    }
    if (codec_json_member(pod, "apiVersion") == NULL &&
        cJSON_AddStringToObject(pod, "apiVersion", "v1") == NULL)
        return -ENOMEM;
    if (codec_json_member(pod, "kind") == NULL &&
        cJSON_AddStringToObject(pod, "kind", "Pod") == NULL)
        return -ENOMEM;
    return 0;
}

/* @pod_json as a tree of its own, malloc'd (editing it frees the members
 * it drops); NULL when it is not a JSON object. */
static cJSON *parse_object(const char *pod_json, size_t len)
{
    cJSON *pod = cJSON_ParseWithLength(pod_json, len);
    if (cJSON_IsObject(pod))
        return pod;
    cJSON_Delete(pod);
    return NULL;
}

int whatif_pinned_pod(const char *pod_json, size_t len, const struct whatif_pin *p, cJSON **out)
{
    cJSON *pod = parse_object(pod_json, len);
    *out = NULL;
    if (pod == NULL)
        return -EINVAL;
    int rc = pin(pod, p);
    if (rc != 0) {
        cJSON_Delete(pod);
        return rc;
    }
    *out = pod;
    return 0;
}

int whatif_pin_patch(const char *pod_json, size_t len, const struct whatif_pin *p, cJSON **out)
{
    cJSON *pod = parse_object(pod_json, len), *patch = NULL, *terms = NULL;
    int rc = -ENOMEM;

    *out = NULL;
    if (pod == NULL)
        return -EINVAL;
    terms = own_terms(pod);
    patch = cJSON_CreateObject();
    if (terms == NULL || patch == NULL || pin_terms(terms, p, p->hostname == NULL) != 0)
        goto out_free;
    cJSON *at = patch;
    const char *const path[] = {"spec", "template", "spec", "affinity", "nodeAffinity", REQUIRED};
    for (size_t i = 0; i < sizeof(path) / sizeof(path[0]) && at != NULL; i++)
        at = cJSON_AddObjectToObject(at, path[i]);
    if (at == NULL || !cJSON_AddItemToObject(at, "nodeSelectorTerms", terms))
        goto out_free;
    terms = NULL;
    *out = patch;
    patch = NULL;
    rc = 0;

out_free:
    cJSON_Delete(terms);
    cJSON_Delete(patch);
    cJSON_Delete(pod);
    return rc;
}

/* ---- writers ------------------------------------------------------------- */

/* Can @s stand as a plain YAML scalar and read back as this string? Only
 * names, paths and words: a leading digit, sign or dot could read as a
 * number, and YAML 1.1 reads yes/no/on/off as booleans. */
static bool plain_ok(const char *s)
{
    static const char *const words[] = {"y",     "n",  "yes", "no",  "true",
                                        "false", "on", "off", "null"};
    size_t n = strlen(s);
    if (n == 0 || n > 256 || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '/'))
        return false;
    for (const char *c = s; *c != '\0'; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '.' || *c == '_' || *c == '/' || *c == '-'))
            return false;
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
        if (strcasecmp(s, words[i]) == 0)
            return false;
    return true;
}

/* One scalar event: @text plain when it reads back as itself (@plain),
 * else double-quoted; libyaml escapes what must be. */
static int emit_scalar(yaml_emitter_t *e, const char *text, bool plain)
{
    yaml_event_t ev;
    yaml_char_t *t = (yaml_char_t *)(uintptr_t)text; /* libyaml copies it */
    if (!yaml_scalar_event_initialize(&ev, NULL, NULL, t, (int)strlen(text), plain, !plain,
                                      plain ? YAML_PLAIN_SCALAR_STYLE
                                            : YAML_DOUBLE_QUOTED_SCALAR_STYLE))
        return -ENOMEM;
    return yaml_emitter_emit(e, &ev) ? 0 : -EIO;
}

/* @v and what it holds: objects and arrays in block style (libyaml writes
 * an empty one as {} or [], and a list at its key's indentation), strings
 * quoted unless plain_ok(), numbers, bools and null as cJSON prints them. */
static int emit_value(yaml_emitter_t *e, const cJSON *v)
{
    yaml_event_t ev;
    const cJSON *m;
    bool obj = cJSON_IsObject(v);
    if (cJSON_IsString(v))
        return emit_scalar(e, v->valuestring, plain_ok(v->valuestring));
    if (!obj && !cJSON_IsArray(v)) {
        char *text = cJSON_PrintUnformatted(v);
        int rc = text != NULL ? emit_scalar(e, text, true) : -ENOMEM;
        cJSON_free(text);
        return rc;
    }
    if (obj ? !yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE)
            : !yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE))
        return -ENOMEM;
    if (!yaml_emitter_emit(e, &ev))
        return -EIO;
    cJSON_ArrayForEach(m, v)
    {
        int rc = obj ? emit_scalar(e, m->string, plain_ok(m->string)) : 0;
        if (rc == 0)
            rc = emit_value(e, m);
        if (rc != 0)
            return rc;
    }
    if (obj)
        yaml_mapping_end_event_initialize(&ev);
    else
        yaml_sequence_end_event_initialize(&ev);
    return yaml_emitter_emit(e, &ev) ? 0 : -EIO;
}

/* The stream around @v: one document, without "---" or "...". */
static int emit_document(yaml_emitter_t *e, const cJSON *v)
{
    yaml_event_t ev;
    int rc = 0;
    if (!yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING) ||
        !yaml_emitter_emit(e, &ev) ||
        !yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1) ||
        !yaml_emitter_emit(e, &ev))
        return -EIO;
    rc = emit_value(e, v);
    if (rc == 0 && (!yaml_document_end_event_initialize(&ev, 1) || !yaml_emitter_emit(e, &ev) ||
                    !yaml_stream_end_event_initialize(&ev) || !yaml_emitter_emit(e, &ev)))
        rc = -EIO;
    return rc;
}

int whatif_write_yaml(const cJSON *v, FILE *out)
{
    yaml_emitter_t e;
    if (!yaml_emitter_initialize(&e))
        return -ENOMEM;
    yaml_emitter_set_output_file(&e, out);
    yaml_emitter_set_unicode(&e, 1); /* UTF-8 as it is, as kubectl prints it */
    yaml_emitter_set_width(&e, -1);  /* a long string stays on its line */
    int rc = emit_document(&e, v);
    if (rc == 0 && !yaml_emitter_flush(&e))
        rc = -EIO;
    yaml_emitter_delete(&e);
    return rc == 0 && ferror(out) ? -EIO : rc;
}

static void json_scalar(const cJSON *v, FILE *out)
{
    char *text = cJSON_PrintUnformatted(v);
    fputs(text != NULL ? text : "null", out);
    cJSON_free(text);
}

/* @v at indentation @at: an object or array with members over several
 * lines, anything else (an empty one is {} or []) as cJSON prints it. */
static void json_value(const cJSON *v, int at, FILE *out)
{
    const cJSON *m;
    bool obj = cJSON_IsObject(v);
    if ((!obj && !cJSON_IsArray(v)) || v->child == NULL) {
        json_scalar(v, out);
        return;
    }
    fputc(obj ? '{' : '[', out);
    cJSON_ArrayForEach(m, v)
    {
        fprintf(out, "\n%*s", at + 2, "");
        if (obj) {
            cJSON *key = cJSON_CreateStringReference(m->string);
            json_scalar(key, out);
            cJSON_Delete(key);
            fputs(": ", out);
        }
        json_value(m, at + 2, out);
        if (m->next != NULL)
            fputc(',', out);
    }
    fprintf(out, "\n%*s%c", at, "", obj ? '}' : ']');
}

int whatif_write_json(const cJSON *v, FILE *out)
{
    json_value(v, 0, out);
    fputc('\n', out);
    return ferror(out) ? -EIO : 0;
}

int whatif_print_pin(const char *pod_json, size_t len, const struct whatif_pin *pin, bool patch,
                     bool as_json, FILE *out)
{
    cJSON *doc;
    int rc = patch ? whatif_pin_patch(pod_json, len, pin, &doc)
                   : whatif_pinned_pod(pod_json, len, pin, &doc);
    if (rc != 0)
        return rc;
    rc = as_json ? whatif_write_json(doc, out) : whatif_write_yaml(doc, out);
    cJSON_Delete(doc);
    return rc;
}

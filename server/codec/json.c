#include "server/codec/json.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/err.h"
#include "server/codec/scan.h"

/* A number keeps its bytes in valuestring: the integer checks read them
 * (ints.h), as Go reads 1e2 or 1.0 for an int field. strtod sees a
 * NUL-terminated copy; no setlocale() runs, so its decimal point is '.'. */
static int number(struct arena *a, struct codec_scan *s, cJSON *n)
{
    struct codec_span num;
    if (codec_scan_number(s, &num) != 0)
        return -EINVAL;
    if ((n->valuestring = arena_strndup(a, num.p, num.len)) == NULL)
        return -ENOMEM;
    n->valuedouble = strtod(n->valuestring, NULL);
    n->valueint = n->valuedouble >= INT_MAX   ? INT_MAX
                  : n->valuedouble <= INT_MIN ? INT_MIN
                                              : (int)n->valuedouble;
    return 0;
}

static int children(struct arena *a, struct codec_scan *s, cJSON *parent);

int codec_json_value(struct arena *a, struct codec_scan *s, cJSON **out)
{
    struct codec_str str;
    char c = codec_scan_peek(s);
    int type = c == '{'   ? cJSON_Object
               : c == '[' ? cJSON_Array
               : c == '"' ? cJSON_String
               : c == 't' ? cJSON_True
               : c == 'f' ? cJSON_False
               : c == 'n' ? cJSON_NULL
                          : cJSON_Number;
    cJSON *n = *out = arena_calloc(a, 1, sizeof(*n));

    if (n == NULL)
        return -ENOMEM;
    n->type = type;
    switch (type) {
    case cJSON_Object:
    case cJSON_Array:
        return children(a, s, n);
    case cJSON_String:
        if (codec_scan_string(s, &str) != 0)
            return -EINVAL;
        return (n->valuestring = codec_str_copy(a, str)) != NULL ? 0 : -ENOMEM;
    case cJSON_Number:
        if (c == '-' || (c >= '0' && c <= '9'))
            return number(a, s, n);
        break;
    }
    return codec_scan_skip(s); /* true, false, null: checked as it passes; else its error */
}

/* The members or elements of the container at the scan point, in order,
 * linked as cJSON links them (the first child's prev is the last). */
static int children(struct arena *a, struct codec_scan *s, cJSON *parent)
{
    bool object = parent->type == cJSON_Object, more;
    struct codec_str key;
    cJSON *last = NULL, *child;

    if ((object ? codec_scan_object(s) : codec_scan_array(s)) != 0)
        return -EINVAL;
    for (bool first = true;; first = false) {
        if ((object ? codec_scan_member(s, first, &key, &more)
                    : codec_scan_element(s, first, &more)) != 0)
            return -EINVAL;
        if (!more)
            return 0;
        int rc = codec_json_value(a, s, &child);
        if (rc != 0)
            return rc;
        if (object && (child->string = codec_str_copy(a, key)) == NULL)
            return -ENOMEM;
        if (last == NULL)
            parent->child = child;
        else {
            last->next = child;
            child->prev = last;
        }
        parent->child->prev = last = child;
    }
}

int codec_json_tree(struct arena *a, const char *body, size_t len, cJSON **out, char *err)
{
    struct codec_scan s;
    int rc;

    codec_scan_init(&s, body, len);
    if (s.why == NULL && (rc = codec_json_value(a, &s, out)) == -ENOMEM)
        return err_fail(err, rc, "out of memory");
    if (s.why != NULL || codec_scan_end(&s) != 0) {
        codec_scan_error(&s, err);
        return -EINVAL;
    }
    return 0;
}

int codec_json_parse(struct arena *a, const char *body, size_t len, const char *what, cJSON **out,
                     char *err)
{
    cJSON *root;
    int rc;

    *out = NULL;
    if (len == 0)
        return err_fail(err, -EINVAL, "empty body: want %s JSON", what);
    if ((rc = codec_json_tree(a, body, len, &root, err)) != 0)
        return rc;
    if (!cJSON_IsObject(root))
        return err_fail(err, -EINVAL, "want a JSON object (%s)", what);
    *out = root;
    return 0;
}

/* The last member of @obj named @key, its case folded when @fold. */
static cJSON *member(const cJSON *obj, const char *key, bool fold)
{
    cJSON *found = NULL, *item;
    cJSON_ArrayForEach(item, obj)
    {
        if (item->string != NULL &&
            (fold ? codec_name_folds(item->string, strlen(item->string), key)
                  : strcmp(item->string, key) == 0))
            found = item;
    }
    return cJSON_IsNull(found) ? NULL : found;
}

cJSON *codec_json_member(const cJSON *obj, const char *key)
{
    return member(obj, key, false);
}

cJSON *codec_json_field(const cJSON *obj, const char *key)
{
    return member(obj, key, true);
}

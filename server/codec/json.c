#include "server/codec/json.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/arena.h"
#include "base/err.h"
#include "server/codec/scan.h"

/* The arena cJSON allocates from on this thread during codec_json_parse(),
 * and whether an allocation failed there. */
static _Thread_local struct arena *bound;
static _Thread_local bool bound_failed;

static void *hook_malloc(size_t size)
{
    if (bound == NULL)
        return malloc(size);
    void *p = arena_alloc(bound, size);
    if (p == NULL)
        bound_failed = true; /* written on failure only: this is the hot path */
    return p;
}

static void hook_free(void *p)
{
    /* While bound, everything cJSON frees (a partial tree on a parse
     * error) came from the arena and goes with it. */
    if (bound == NULL)
        free(p);
}

void codec_json_install_hooks(void)
{
    cJSON_Hooks hooks = {.malloc_fn = hook_malloc, .free_fn = hook_free};
    cJSON_InitHooks(&hooks);
}

int codec_json_tree(struct arena *a, const char *body, size_t len, cJSON **out, size_t *at)
{
    const char *end = NULL;

    bound = a;
    bound_failed = false;
    /* The length is the value's own: it may stand inside a larger body. */
    *out = cJSON_ParseWithLengthOpts(body, len, &end, 0);
    bound = NULL;
    if (bound_failed)
        return -ENOMEM;
    if (*out == NULL) {
        *at = end != NULL && end >= body ? (size_t)(end - body) : 0;
        return -EINVAL;
    }
    return 0;
}

int codec_json_parse(struct arena *a, const char *body, size_t len, const char *what, cJSON **out,
                     char *err)
{
    cJSON *root;
    size_t at;

    *out = NULL;
    if (len == 0) {
        err_set(err, "empty body: want %s JSON", what);
        return -EINVAL;
    }
    struct codec_scan s;
    if (codec_scan_validate(body, len, &s) != 0) {
        codec_scan_error(&s, err);
        return -EINVAL;
    }
    int rc = codec_json_tree(a, body, len, &root, &at);
    if (rc == -ENOMEM) {
        err_set(err, "out of memory");
        return rc;
    }
    if (rc != 0) {
        err_set(err, "malformed JSON near byte %zu of %zu", at, len);
        return rc;
    }
    if (!cJSON_IsObject(root)) {
        err_set(err, "want a JSON object (%s)", what);
        return -EINVAL;
    }
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

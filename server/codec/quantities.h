/*
 * ResourceList decoding (requests, overhead, allocatable, usage): the cpu
 * and memory quantities of a JSON object, as Quantity.UnmarshalJSON reads
 * them (strings, trimmed of surrounding space; null is zero).
 */
#ifndef SERVER_CODEC_QUANTITIES_H
#define SERVER_CODEC_QUANTITIES_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "scoring/quantity.h"
#include "scoring/resources.h"

/* Parses the quantity text @p (@len bytes, as it stands between the
 * quotes) as Quantity.UnmarshalJSON does: strings.TrimSpace (Unicode
 * white space included), then ParseQuantity. Returns 0 or -EINVAL / -ERANGE
 * with a static reason in *@why. */
int codec_quantity_text(const char *p, size_t len, enum score_unit unit, int64_t *out,
                        const char **why);

/* Reads cpu and memory of a container's or pod's ResourceList @list (NULL:
 * absent) into @c, noting which keys are present (a null value counts as
 * present). @path names the list in messages ("Pod.spec.overhead").
 * Returns 0 or -EINVAL with @err. */
int codec_resource_list(const cJSON *list, struct score_container *c, const char *path, char *err);

#endif

/*
 * The options of struct cfg, one table: each known under three names
 * derived from its flag (--cpu-weight, "cpuWeight", CPU_EXTENDER_CPU_WEIGHT),
 * each value checked the same way whatever layer it came from. For
 * config.c, which applies the layers.
 */
#ifndef CONFIG_OPTIONS_H
#define CONFIG_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "config/config.h"

struct cfg_opt;

/* The option of flag @name (@len bytes, without "--"), of JSON key @key,
 * of environment variable @name (@len bytes; its canonical name is left in
 * @canonical, @n bytes); NULL for none. */
const struct cfg_opt *cfg_opt_by_flag(const char *name, size_t len);
const struct cfg_opt *cfg_opt_by_key(const char *key);
const struct cfg_opt *cfg_opt_by_env(const char *name, size_t len, char *canonical, size_t n);

/* The flag of @o (without "--"); whether it is a boolean (a flag that may
 * stand without a value). */
const char *cfg_opt_flag(const struct cfg_opt *o);
bool cfg_opt_is_bool(const struct cfg_opt *o);

/* The bit of @o in struct cfg's given. */
cfg_bits cfg_opt_bit(const struct cfg_opt *o);

/* @o's place in the table: its bit's index, its file_at entry. */
int cfg_opt_index(const struct cfg_opt *o);

/* The JSON key of @o ("cpuWeight") into @out (@n bytes). */
void cfg_opt_key(const struct cfg_opt *o, char *out, size_t n);

/* The known key nearest to the unknown @key (by edit distance, a swap of
 * two neighbours counting one) into @out (@n bytes), when one is near
 * enough to be a typo of it: "cpuWieght" -> "cpuWeight". Returns whether
 * there is one. */
bool cfg_opt_nearest_key(const char *key, char *out, size_t n);

/* Sets @o in @c from the text @v (a flag or environment value) or from the
 * JSON value @item (the config file). Returns 0 or -EINVAL with the reason
 * in @why (@n bytes). */
int cfg_opt_set_text(struct cfg *c, const struct cfg_opt *o, const char *v, char *why, size_t n);
int cfg_opt_set_json(struct cfg *c, const struct cfg_opt *o, const cJSON *item, char *why,
                     size_t n);

#endif

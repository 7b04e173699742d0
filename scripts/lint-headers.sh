#!/bin/sh
# Every product header compiles alone (it includes what it uses) and has
# the include guard named after its path (server/codec/types.h:
# SERVER_CODEC_TYPES_H), and every product .c but main's has a header named
# like it. Run by make lint with the compiler flags.
set -eu
cd "$(dirname "$0")/.."
fail=0
for h in $(scripts/product-files.sh h); do
    [ -f "$h" ] || continue
    want=$(echo "$h" | tr 'a-z/.' 'A-Z__')
    grep -q "^#ifndef $want\$" "$h" || { echo "$h: include guard is not $want" >&2; fail=1; }
    # shellcheck disable=SC2086
    printf '#include "%s"\n' "$h" | ${CC:-cc} -std=c11 -D_GNU_SOURCE -I. $CFLAGS -fsyntax-only \
        -Wall -Werror -xc - || { echo "$h: does not compile on its own" >&2; fail=1; }
done
for c in $(scripts/product-files.sh c); do
    [ "$c" = cli/main.c ] || [ -f "${c%.c}.h" ] || { echo "$c: has no header of its own (${c%.c}.h)" >&2; fail=1; }
done
[ $fail = 0 ] && echo "headers: every one guarded by its path and self-contained; every .c has its own"
exit $fail

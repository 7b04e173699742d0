#!/bin/sh
# One key style in every log line, camelCase as the configuration keys: every
# key the sources give a log field (LOG_STR, LOG_INT, LOG_UINT, LOG_SECONDS,
# LOG_BOOL, LOG_NSNAME; base/log.h), each string of a conditional one
# included. The tests' runs check the lines they make
# (tests/support/server_proc.c); this reads the calls no test makes too.
# A key that is not a string literal fails: it could be anything.
# Usage: tests/e2e/log_keys.sh   (from the repository root)
set -eu
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT HUP INT TERM

# The first argument of every call (calls are on one line, as
# clang-format leaves them: a call split after "(" fails below). The
# macros' own definitions in base/log.h take a parameter, k.
grep -rnE --include='*.c' --include='*.h' 'LOG_(STR|INT|UINT|SECONDS|BOOL|NSNAME)\(' \
    base scoring config kube server |
    grep -v '^base/log\.h:[0-9]*:#define ' >"$work/calls" || true
n=$(wc -l <"$work/calls")
if [ "$n" -ge 50 ]; then ok; else bad "only $n log fields found in the sources"; fi

grep -nE 'LOG_(STR|INT|UINT|SECONDS|BOOL|NSNAME)\($' "$work/calls" >"$work/split" || true
if [ -s "$work/split" ]; then bad "a call split after its parenthesis: $(cat "$work/split")"; else ok; fi

# Each call's first argument, up to its first comma, and the strings in it.
while IFS= read -r line; do
    where=$(printf '%s\n' "$line" | sed -E 's/^([^:]*:[0-9]*):.*/\1/')
    printf '%s\n' "$line" | grep -oE 'LOG_(STR|INT|UINT|SECONDS|BOOL|NSNAME)\([^,]*,' |
        while IFS= read -r arg; do
            arg=${arg#*(}
            arg=${arg%,}
            keys=$(printf '%s\n' "$arg" | grep -oE '"[^"]*"' || true)
            if [ -z "$keys" ]; then
                echo "$where: key not a string literal: $arg"
                continue
            fi
            for k in $keys; do
                k=${k#\"}
                k=${k%\"}
                printf '%s\n' "$k" | grep -qE '^[a-z][a-zA-Z0-9]*$' || echo "$where: \"$k\" is not camelCase"
            done
        done
done <"$work/calls" >"$work/bad"
if [ -s "$work/bad" ]; then
    while IFS= read -r b; do bad "$b"; done <"$work/bad"
else
    ok
fi

echo "log_keys: $n calls, $pass passed, $fail failed"
[ "$fail" -eq 0 ]

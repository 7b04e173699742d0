#!/bin/sh
# Runs the README's simulate example (the ```sh block whose one line is
# `build/release/cpu-extender simulate ...`) with the binary under test and
# compares its standard output with the ```text block printed under it;
# also checks that examples/cluster/generate.sh still writes the committed
# files byte for byte.
# Usage: tests/e2e/readme_simulate.sh path/to/cpu-extender   (from the repository root)
set -eu
unset KUBECONFIG KUBERNETES_SERVICE_HOST
export HOME=/nonexistent
bin=${1:?usage: readme_simulate.sh BINARY}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT HUP INT TERM
fail=0
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

awk -v dir="$work" '
    /^```sh$/ { in_sh = 1; cmd = ""; next }
    in_sh && /^```$/ { in_sh = 0; want = (cmd != ""); next }
    in_sh { if ($0 ~ /^build\/release\/cpu-extender simulate /) cmd = $0; else cmd = ""; next }
    want && /^```text$/ { n++; in_text = 1; print cmd > (dir "/cmd." n); next }
    in_text && /^```$/ { in_text = 0; want = 0; next }
    in_text { print > (dir "/want." n); next }
    { if ($0 != "") want = 0 }
    END { print n + 0 > (dir "/count") }
' README.md
n=$(cat "$work/count")
[ "$n" -ge 1 ] || bad "README.md has no simulate example"
for c in "$work"/cmd.*; do
    [ -e "$c" ] || break
    k=${c##*.}
    cmd=$(sed "s|^build/release/cpu-extender|$bin|" "$c")
    rc=0
    sh -c "$cmd" >"$work/got.$k" 2>"$work/err.$k" || rc=$?
    # 3: some pod fits nowhere, which the example shows on purpose
    [ "$rc" = 0 ] || [ "$rc" = 3 ] || bad "$(cat "$c"): exit $rc: $(cat "$work/err.$k")"
    if cmp -s "$work/got.$k" "$work/want.$k"; then :; else
        bad "$(cat "$c"): the output differs from the README:"
        diff "$work/want.$k" "$work/got.$k" >&2 || true
    fi
done

# The committed example is what its script writes.
examples/cluster/generate.sh "$work" 2>/dev/null
for f in nodes.json existing.json pods.json; do
    cmp -s "$work/$f" "examples/cluster/$f" || bad "examples/cluster/$f is not what generate.sh writes"
done

echo "readme simulate: $n example(s), $fail failed"
[ "$fail" -eq 0 ]

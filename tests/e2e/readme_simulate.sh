#!/bin/sh
# Runs the docs' offline examples with the binary under test and compares
# each one's standard output with the ```text block printed under it:
# every ```sh block of README.md and docs/*.md whose one line is
# `build/release/cpu-extender simulate ...` or `... rank ...` (at least one
# of each must be found: the README's rank, docs/usage.md's simulate).
# Between the two blocks only blank lines and the <details>/<summary> tags
# that fold a long output may stand. Also checks that
# examples/cluster/generate.sh still writes the committed files byte for
# byte.
#
# When the binary's wording changes on purpose, write its new output into
# the docs (then read the diff before committing it):
#   REGENERATE=1 tests/e2e/readme_simulate.sh build/release/cpu-extender
# Usage: tests/e2e/readme_simulate.sh path/to/cpu-extender   (from the repository root)
set -eu
unset KUBECONFIG KUBERNETES_SERVICE_HOST
export HOME=/nonexistent
bin=${1:?usage: readme_simulate.sh BINARY}
regenerate=${REGENERATE:-0}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT HUP INT TERM
fail=0
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# scan MODE DOC PREFIX: finds DOC's examples. MODE list: writes PREFIX.N.cmd
# and PREFIX.N.want (the text block as written) for each and prints their
# count; MODE replace: prints DOC with each text block replaced by
# PREFIX.N.got.
scan() {
    awk -v mode="$1" -v pre="$3" '
        function out(line) { if (mode == "replace") print line }
        /^```sh$/ { in_sh = 1; cmd = ""; lines = 0; out($0); next }
        in_sh && /^```$/ { in_sh = 0; want = (cmd != "" && lines == 1); out($0); next }
        in_sh { lines++; if ($0 ~ /^build\/release\/cpu-extender (simulate|rank) /) cmd = $0; out($0); next }
        want && /^```text$/ {
            n++; in_text = 1; out($0)
            if (mode == "list") { print cmd > (pre "." n ".cmd"); printf "" > (pre "." n ".want") }
            else { f = pre "." n ".got"; while ((getline l < f) > 0) print l; close(f) }
            next
        }
        in_text && /^```$/ { in_text = 0; want = 0; if (mode == "list") close(pre "." n ".want"); out($0); next }
        in_text { if (mode == "list") print > (pre "." n ".want"); next }
        want && /^(<details>|<summary>.*|<\/summary>|<details><summary>.*<\/summary>)$/ { out($0); next }
        { if ($0 != "") want = 0; out($0) }
        END { if (mode == "list") print n + 0 }
    ' "$2"
}

n_simulate=0
n_rank=0
for doc in README.md docs/*.md; do
    id=$(echo "$doc" | tr -c 'A-Za-z0-9\n' _)
    n=$(scan list "$doc" "$work/$id")
    [ "$n" -gt 0 ] || continue
    k=0
    while [ "$k" -lt "$n" ]; do
        k=$((k + 1))
        c=$work/$id.$k
        line=$(cat "$c.cmd")
        case $line in
        *" simulate "*) n_simulate=$((n_simulate + 1)) ;;
        *) n_rank=$((n_rank + 1)) ;;
        esac
        cmd=$(echo "$line" | sed "s|^build/release/cpu-extender|$bin|")
        rc=0
        sh -c "$cmd" >"$c.got" 2>"$c.err" || rc=$?
        # simulate: 3 when some pod fits nowhere, which its example shows
        # on purpose (docs/usage.md says so beside it); rank: 0, a node fits
        case $line:$rc in
        *" simulate "*:0 | *" simulate "*:3 | *" rank "*:0) ;;
        *) bad "$doc: $line: exit $rc: $(cat "$c.err")" ;;
        esac
        if ! cmp -s "$c.got" "$c.want"; then
            if [ "$regenerate" = 1 ]; then
                echo "readme_simulate: $doc: rewriting the output of: $line" >&2
            else
                bad "$doc: $line: the output differs from the block under it (REGENERATE=1 $0 $1 rewrites it):"
                diff "$c.want" "$c.got" >&2 || true
            fi
        fi
    done
    if [ "$regenerate" = 1 ]; then
        scan replace "$doc" "$work/$id" >"$work/$id.new"
        cmp -s "$work/$id.new" "$doc" || cat "$work/$id.new" >"$doc"
    fi
done
[ "$n_simulate" -ge 1 ] || bad "no simulate example in README.md or docs/*.md"
[ "$n_rank" -ge 1 ] || bad "no rank example in README.md or docs/*.md"

# The committed example is what its script writes.
examples/cluster/generate.sh "$work" 2>/dev/null
for f in nodes.json existing.json pods.json; do
    cmp -s "$work/$f" "examples/cluster/$f" || bad "examples/cluster/$f is not what generate.sh writes"
done

echo "readme simulate: $n_simulate simulate and $n_rank rank example(s), $fail failed"
[ "$fail" -eq 0 ]

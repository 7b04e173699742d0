#!/bin/bash
# Puts the table of the last `make bench-placement` (build/bench/placement.md)
# between bench/placement-intro.md (the scenario) and
# bench/placement-analysis.md (by hand, from the recorded run) into the
# section of docs/performance.md between its two markers (bench/run.sh,
# which writes docs/performance.md anew, keeps that section).
#
#   bench/placement_doc.sh
set -euo pipefail
cd "$(dirname "$0")/.."
doc=docs/performance.md
section=$(mktemp)
trap 'rm -f "$section"' EXIT
begin='<!-- bench-placement: begin (bench/placement_doc.sh writes this section) -->'
end='<!-- bench-placement: end -->'
[ -s build/bench/placement.md ] || { echo "no build/bench/placement.md: run make bench-placement" >&2; exit 1; }
{
    echo "$begin"
    echo
    cat bench/placement-intro.md
    echo
    cat build/bench/placement.md
    echo
    cat bench/placement-analysis.md
    echo
    echo "$end"
} >"$section"
if grep -qF "$begin" "$doc"; then
    awk -v b="$begin" -v e="$end" -v f="$section" '
        $0 == b { while ((getline line < f) > 0) print line; skip = 1; next }
        $0 == e { skip = 0; next }
        !skip' "$doc" >"$doc.tmp"
    mv "$doc.tmp" "$doc"
else
    { echo; cat "$section"; } >>"$doc"
fi
echo "wrote the bench-placement section of $doc" >&2

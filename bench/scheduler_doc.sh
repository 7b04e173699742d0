#!/bin/bash
# Puts the tables of the last `make bench-scheduler` (build/bench/scheduler-VERSION.md, one per
# release), between bench/scheduler-intro.md and bench/scheduler-analysis.md (by hand, from
# the recorded run), into the section of docs/performance.md between its two markers, so that
# the figures stand beside make bench's without a rerun of it (bench/run.sh, which writes
# docs/performance.md anew, keeps that section).
#
#   bench/scheduler_doc.sh VERSION...
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || { echo "usage: bench/scheduler_doc.sh VERSION..." >&2; exit 2; }
doc=docs/performance.md
section=$(mktemp)
trap 'rm -f "$section"' EXIT
begin='<!-- bench-scheduler: begin (bench/scheduler_doc.sh writes this section) -->'
end='<!-- bench-scheduler: end -->'
for v in "$@"; do
    [ -s "build/bench/scheduler-$v.md" ] || { echo "no build/bench/scheduler-$v.md: run make bench-scheduler" >&2; exit 1; }
done
{
    echo "$begin"
    echo
    cat bench/scheduler-intro.md
    for v in "$@"; do
        echo
        cat "build/bench/scheduler-$v.md"
    done
    echo
    cat bench/scheduler-analysis.md
    echo
    echo "$end"
} >"$section"
if grep -qF "$begin" "$doc"; then
    # Replace the old section in place.
    awk -v b="$begin" -v e="$end" -v f="$section" '
        $0 == b { while ((getline line < f) > 0) print line; skip = 1; next }
        $0 == e { skip = 0; next }
        !skip' "$doc" >"$doc.tmp"
    mv "$doc.tmp" "$doc"
else
    { echo; cat "$section"; } >>"$doc"
fi
echo "wrote the bench-scheduler section of $doc" >&2

#!/bin/sh
# Instruction counts of one request, in-process, for every body and mode:
# one line "LABEL MODE IR" each on stdout. Usage (from the repo root):
#   bench/callgrind.sh BENCH-ONCE DATA-DIR MODE...
# DATA-DIR holds bench-gen's bodies (nodes-N.json, names-N.json); the
# captured bodies come from tests/fixtures/captured. run.sh calls it for the
# current tree; bench/callgrind-before.txt was written by it for the commit
# before the scanner (its header says how), so that both count the same
# bodies with the same command.
set -eu
once=$1
data=$2
shift 2
captured=tests/fixtures/captured
bodies="nodes-100 nodes-500 nodes-1000 nodes-5000 names-500 names-5000
nocache-3nodes/raw/000001-filter nocache-3nodes/raw/000002-prioritize cache-3nodes/raw/000001-filter"
for b in $bodies; do
    case "$b" in
    */*) file=$captured/$b.req.json ;;
    *) file=$data/$b.json ;;
    esac
    [ -f "$file" ] || { echo "callgrind.sh: missing $file" >&2 && exit 1; }
    for mode in "$@"; do
        ir=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect=bench_run \
            "$once" "$mode" "$file" 2>&1 | sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
        [ -n "$ir" ] || { echo "callgrind.sh: no count for $once $mode $file" >&2 && exit 1; }
        echo "$b $mode $ir"
    done
done

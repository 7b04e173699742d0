#!/bin/sh
# The product's source files: those directly in a room folder of
# scripts/architecture.rules (tests, bench and tools are not product).
#   scripts/product-files.sh [EXT...]     (default: c h)
# One place for the list, so the lints and the map check cannot disagree.
set -eu
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- c h
awk '!/^#/ && NF { print $1 }' scripts/architecture.rules | while read -r room; do
    for ext in "$@"; do
        for f in "$room"/*."$ext"; do [ -f "$f" ] && echo "$f"; done
    done
done | sort

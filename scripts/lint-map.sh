#!/bin/sh
# The map agrees with the house (make lint): docs/architecture.md and the
# code map of docs/development.md (its first ```text block after
# "## The code map", which the README links to) each name every product
# file, and every product file they name exists.
# A product file is a .c in a room of scripts/architecture.rules, or a
# header with no .c of its own (a room's internal types); a header with a
# .c is named by its .c.
set -eu
cd "$(dirname "$0")/.."
tmp=${TMPDIR:-/tmp}/lint-map.$$
trap 'rm -f "$tmp".*' EXIT
rooms=$(awk '!/^#/ && NF { print $1 }' scripts/architecture.rules)
scripts/product-files.sh c h | while read -r f; do
    case "$f" in
    *.h) [ -f "${f%.h}.c" ] || echo "$f" ;;
    *) echo "$f" ;;
    esac
done | sort >"$tmp.want"

# docs/architecture.md names files by their whole path, anywhere in it.
room_re=$(echo "$rooms" | sed 's/[.]/\\./g' | paste -sd'|' -)
grep -oE "(^|[^a-z_/])($room_re)/[a-z0-9_]+\.[ch]\b" docs/architecture.md |
    sed -E 's/^[^a-z]//' | sort -u >"$tmp.arch"

# The code map: a line starting with a room folder opens that
# room; the file names on it and on the indented lines below belong to it.
awk -v rooms="$rooms" '
    BEGIN { n = split(rooms, r, /[ \n]+/); for (i = 1; i <= n; i++) isroom[r[i] "/"] = 1 }
    /^## The code map/ { dev = 1; next }
    dev && /^```text/ && !done { inmap = 1; next }
    inmap && /^```/ { inmap = 0; done = 1; next }
    inmap {
        if ($0 !~ /^ /) room = isroom[$1] ? $1 : ""
        if (room == "") next
        line = $0; if ($0 !~ /^ /) sub(/^[^ ]+/, "", line)
        while (match(line, /[a-z0-9_]+\.[ch]([^a-z0-9_]|$)/)) {
            f = substr(line, RSTART, RLENGTH); sub(/[^a-z0-9_.]$/, "", f); sub(/\.$/, "", f)
            print room f; line = substr(line, RSTART + RLENGTH - 1)
        }
    }' docs/development.md | sort -u >"$tmp.codemap"

fail=0
check() { # NAME FILE: both directions
    comm -23 "$tmp.want" "$2" | sed "s|^|$1: does not name |" >"$tmp.out"
    comm -13 "$tmp.want" "$2" | while read -r f; do
        [ -f "$f" ] || echo "$1: names $f, which does not exist"
    done >>"$tmp.out"
    if [ -s "$tmp.out" ]; then cat "$tmp.out" >&2; fail=1; fi
}
check docs/architecture.md "$tmp.arch"
check "docs/development.md (code map)" "$tmp.codemap"
[ $fail = 0 ] && echo "map: docs/architecture.md and docs/development.md's code map name all $(wc -l <"$tmp.want") product files, and only those"
exit $fail

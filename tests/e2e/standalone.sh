#!/bin/sh
# The repository stands alone: nothing in it points at files it does not
# hold.
#   - no reference to the material it was written from (the shared
#     documents beside the clone);
#   - every "§N.N" names a section of docs/protocol.md (a standard's own
#     sections, "RFC 9112 §6.1", excepted);
#   - every relative link of the README and docs/*.md, and every
#     docs/FILE.md#anchor a source file or script names, reaches a file and,
#     with an anchor, a heading of it (GitHub's anchors: lower case,
#     punctuation dropped, spaces as hyphens).
# Usage: tests/e2e/standalone.sh   (from the repository root)
set -eu
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT HUP INT TERM

# Text files under version control (or new), without the captured requests.
git ls-files -co --exclude-standard | grep -v '^tests/fixtures/' | while read -r f; do
    [ -f "$f" ] && grep -Iq . "$f" 2>/dev/null && echo "$f"
done >"$work/files"
test -s "$work/files" && ok || bad "no files listed (not a git tree?)"

# 1. The shared material: spelt in pieces, so that this file does not match.
s=shared
for pat in "$s/docs" "../$s/" "extender-proto""col.md" "c-plat""form.md"; do
    hits=$(xargs grep -n -F -- "$pat" <"$work/files" || true)
    if [ -z "$hits" ]; then ok; else bad "references to $pat: $hits"; fi
done

# Headings of a markdown file as anchors (not the comments of its code).
anchors() {
    awk '/^```/ { code = !code; next }
        !code && /^#+ / { s = tolower($0); sub(/^#+ /, "", s); gsub(/[^a-z0-9 _-]/, "", s)
            gsub(/ /, "-", s); print s }' "$1"
}

# 2. Section marks.
anchors docs/protocol.md >"$work/protocol.anchors"
sed -n 's/^##* \([0-9][0-9.]*\)[. ].*/\1/p' docs/protocol.md | sed 's/\.$//' >"$work/sections"
test -s "$work/sections" && ok || bad "docs/protocol.md has no numbered sections"
xargs grep -n -o -E '(RFC [0-9]+ )?§[0-9]+(\.[0-9]+)*' <"$work/files" >"$work/marks" || true
test -s "$work/marks" && ok || bad "no § marks found at all"
while IFS= read -r m; do
    case $m in *RFC*) continue ;; esac
    n=${m##*§}
    if grep -qx -- "$n" "$work/sections"; then ok; else bad "${m%%:*}: §$n is not a section of docs/protocol.md"; fi
done <"$work/marks"

# 3. Links. check_link FROM TARGET: TARGET relative to FROM's directory.
check_link() {
    from=$1 target=$2
    case $target in http://* | https://* | mailto:*) return 0 ;; esac
    path=${target%%#*}
    anchor=""
    case $target in *'#'*) anchor=${target#*#} ;; esac
    if [ -z "$path" ]; then
        file=$from
    else
        file=$(dirname "$from")/$path
    fi
    if [ ! -e "$file" ]; then
        bad "$from: link $target: no $file"
        return 0
    fi
    if [ -n "$anchor" ]; then
        case $file in
        *.md)
            if anchors "$file" | grep -qx -- "$anchor"; then ok; else bad "$from: link $target: no heading #$anchor in $file"; fi
            return 0
            ;;
        esac
    fi
    ok
}
for doc in README.md docs/*.md; do
    # [text](target) outside code spans; targets without spaces
    grep -o -E '\]\([^) ]+\)' "$doc" | sed 's/^](\(.*\))$/\1/' | while read -r t; do
        check_link "$doc" "$t"
    done
done >"$work/links.out" 2>&1 || true
# (the loop ran in subshells: count what it printed)
fails=$(grep -c '^FAIL' "$work/links.out" || true)
cat "$work/links.out" >&2
fail=$((fail + fails))
pass=$((pass + 1))
# docs/FILE.md#anchor in sources and scripts (log lines point there)
xargs grep -h -o -E 'docs/[a-z]+\.md#[a-z0-9_-]+' <"$work/files" | sort -u >"$work/refs" || true
while read -r r; do
    check_link README.md "$r"
done <"$work/refs"

echo "standalone: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

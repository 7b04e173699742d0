#!/bin/sh
# The architecture, checked (make lint): every product file includes only
# headers of the rooms scripts/architecture.rules allows it, exports only
# symbols with its room's prefix, and no two .c files call each other.
#   scripts/lint-architecture.sh OBJDIR     (e.g. build/release/obj)
# Prints each violation and exits 1 when there is one.
set -eu
cd "$(dirname "$0")/.."
obj=${1:?usage: lint-architecture.sh OBJDIR}
rules=scripts/architecture.rules
fail=0
say() { printf '%s\n' "$*" >&2; fail=1; }

# The room of a product file: the longest room folder that holds it.
room_of() {
    awk -v f="$1" '!/^#/ && NF { if (index(f, $1 "/") == 1 && length($1) > length(best)) best = $1 }
        END { print best }' "$rules"
}
field() { # ROOM N: the Nth column of the room's line (3 = folders, after | = libraries)
    awk -v r="$1" -v n="$2" '!/^#/ && $1 == r {
        split($0, halves, "|"); split(halves[1], w, " ");
        if (n == "libs") print halves[2]; else if (n == 2) print w[2];
        else { s = ""; for (i = 3; i in w; i++) s = s " " w[i]; print s } }' "$rules"
}

files=$(scripts/product-files.sh)

# 1. includes
for f in $files; do
    room=$(room_of "$f")
    [ -n "$room" ] || { say "$f: in no room of $rules"; continue; }
    folders=$(field "$room" 3)
    libs=$(field "$room" libs)
    grep -n '^#include' "$f" | while IFS= read -r line; do
        inc=$(printf '%s' "$line" | sed -n 's/.*#include *["<]\([^">]*\)[">].*/\1/p')
        case "$line" in
        *'"'*)
            [ "$inc" = version.h ] && continue
            dir=${inc%/*}
            ok=0
            for d in $folders; do [ "$dir" = "$d" ] && ok=1; done
            [ $ok = 1 ] || echo "$f:${line%%:*}: $room may not include \"$inc\""
            ;;
        *)
            lib=""
            case "$inc" in
            cjson/*) lib=cjson ;; curl/*) lib=curl ;; yaml.h) lib=yaml ;;
            microhttpd.h) lib=microhttpd ;; gnutls/*) lib=gnutls ;; openssl/*) lib=openssl ;;
            check.h) lib=check ;;
            esac
            [ -z "$lib" ] && continue
            ok=0
            for l in $libs; do [ "$lib" = "$l" ] && ok=1; done
            [ $ok = 1 ] || echo "$f:${line%%:*}: $room may not include <$inc>"
            ;;
        esac
    done
done >"${TMPDIR:-/tmp}/lint-arch.$$"
if [ -s "${TMPDIR:-/tmp}/lint-arch.$$" ]; then
    cat "${TMPDIR:-/tmp}/lint-arch.$$" >&2
    fail=1
fi
rm -f "${TMPDIR:-/tmp}/lint-arch.$$"

# 2. exported symbols carry their room's prefix; 3. no two objects call each other
objs=$(for f in $files; do case "$f" in *.c) echo "$obj/${f%.c}.o" ;; esac; done)
for o in $objs; do
    [ -f "$o" ] || { say "$o: missing (build first)"; continue; }
done
tab=${TMPDIR:-/tmp}/lint-syms.$$
: >"$tab"
for o in $objs; do
    [ -f "$o" ] || continue
    src=${o#"$obj"/}
    src=${src%.o}.c
    room=$(room_of "$src")
    prefixes=$(field "$room" 2)
    libs=$(field "$room" libs)
    nm "$o" | awk -v src="$src" -v pre="$prefixes" -v libs="$libs" '
        BEGIN { n = split(pre, p, ",")
                # the prefix of the symbols of each library
                sym["cjson"] = "cJSON_"; sym["curl"] = "curl_"; sym["yaml"] = "yaml_"
                sym["microhttpd"] = "MHD_"; sym["gnutls"] = "gnutls_"
                split(libs, l, " "); for (i in l) allowed[l[i]] = 1 }
        $1 == "U" {
            for (k in sym) if (index($2, sym[k]) == 1 && !(k in allowed))
                print "BADLIB", src, $2 " (" k ")"
            print "U", src, $2; next }
        NF == 3 && $2 ~ /^[TDBR]$/ {
            ok = 0
            for (i = 1; i <= n; i++) if (index($3, p[i]) == 1) ok = 1
            if (!ok) print "BADNAME", src, $3
            print "D", src, $3 }' >>"$tab"
done
awk '$1 == "BADNAME" { printf "%s: exports %s without its room prefix\n", $2, $3 }
     $1 == "BADLIB" { printf "%s: calls %s %s, a library its room may not use\n", $2, $3, $4 }' "$tab" |
    sort -u >"$tab.bad"
awk '$1 == "D" { def[$3] = $2 } $1 == "U" { use[NR] = $2 " " $3 }
     END { for (k in use) { split(use[k], u, " "); if (u[2] in def && def[u[2]] != u[1])
               edge[u[1] " " def[u[2]]] = 1 }
           for (e in edge) { split(e, x, " "); if ((x[2] " " x[1]) in edge && x[1] < x[2])
               printf "%s and %s call each other\n", x[1], x[2] } }' "$tab" >>"$tab.bad"
if [ -s "$tab.bad" ]; then
    cat "$tab.bad" >&2
    fail=1
fi
rm -f "$tab" "$tab.bad"
[ $fail = 0 ] && echo "architecture: $(echo "$files" | wc -l) files in their rooms, no call cycles"
exit $fail

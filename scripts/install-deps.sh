#!/bin/sh
# Installs the Debian packages of the lists given (default:
# scripts/debian-packages.txt, what building and running need) that are
# missing. As root it runs apt-get; otherwise it names the command to run and
# fails. With --dry-run it prints the packages it would install, one a line,
# and installs nothing.
#
# A -dev package asks for its library at exactly its own version
# (libcurl4-openssl-dev: libcurl4 (= V)): installing the newest -dev would
# upgrade the library, and with it every package pinned to it (curl). When
# apt still has the -dev at the version of the library installed, that
# version is asked for, so nothing already installed is upgraded.
#
#   scripts/install-deps.sh [--dry-run] [LIST...]
set -eu
dry_run=0
if [ "${1:-}" = --dry-run ]; then
    dry_run=1
    shift
fi
[ $# -gt 0 ] || set -- "$(dirname "$0")/debian-packages.txt"
missing=""
for list in "$@"; do
    [ -r "$list" ] || { echo "install-deps: $list: no such list" >&2; exit 2; }
    for pkg in $(cat "$list"); do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' ||
            missing="$missing $pkg"
    done
done
[ -z "$missing" ] && exit 0
if [ "$dry_run" = 1 ]; then
    printf '%s\n' $missing
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "missing Debian packages:$missing" >&2
    echo "run: sudo apt-get install -y$missing" >&2
    exit 1
fi

# installed_version PKG: its version, empty when it is not installed.
installed_version() {
    dpkg-query -W -f='${Status} ${Version}' "$1" 2>/dev/null |
        sed -n 's/^install ok installed //p'
}

# pinned PKG: PKG=V when its candidate depends on a library at exactly a
# version other than the one installed and apt has PKG at the installed
# one; PKG otherwise.
pinned() {
    deps=$(apt-cache show --no-all-versions "$1" 2>/dev/null | sed -n 's/^Depends: //p' | tr ',' '\n' |
        sed -n 's/^ *\([^ ]*\) (= \([^)]*\)).*/\1 \2/p')
    echo "$deps" | while read -r lib want; do
        [ -n "$lib" ] || continue
        have=$(installed_version "$lib")
        if [ -n "$have" ] && [ "$have" != "$want" ] && apt-cache show "$1=$have" >/dev/null 2>&1; then
            echo "$1=$have"
            return 0
        fi
    done | head -n 1 | grep . || echo "$1"
}

echo "installing:$missing" >&2
DEBIAN_FRONTEND=noninteractive apt-get update -qq
asked=""
for pkg in $missing; do
    asked="$asked $(pinned "$pkg")"
done
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $asked >/dev/null

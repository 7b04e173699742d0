#!/bin/sh
# Installs the Debian packages of scripts/debian-packages.txt (or of the list
# given) that are missing. As root it runs apt-get; otherwise it names the
# command to run and fails.
set -eu
list=${1:-$(dirname "$0")/debian-packages.txt}
missing=""
for pkg in $(cat "$list"); do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' ||
        missing="$missing $pkg"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
    echo "missing Debian packages:$missing" >&2
    echo "run: sudo apt-get install -y$missing" >&2
    exit 1
fi
echo "installing:$missing" >&2
DEBIAN_FRONTEND=noninteractive apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null

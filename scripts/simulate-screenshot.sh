#!/bin/sh
# Makes docs/simulate-page.png: the page `simulate --html` writes for the
# example cluster of examples/cluster, rendered by headless Chromium from a
# file (nothing listens, nothing is fetched).
# Usage: scripts/simulate-screenshot.sh BINARY OUT.png
set -eu
unset KUBECONFIG KUBERNETES_SERVICE_HOST
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:?usage: simulate-screenshot.sh BINARY OUT.png}
out=${2:?usage: simulate-screenshot.sh BINARY OUT.png}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT HUP INT TERM
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
cd "$here" # the page names the files as the README's command does
rc=0
HOME=/nonexistent "$bin" simulate --nodes examples/cluster/nodes.json \
    --existing examples/cluster/existing.json --pods examples/cluster/pods.json \
    --html "$tmp/simulate.html" >/dev/null || rc=$?
[ "$rc" = 0 ] || [ "$rc" = 3 ] || exit "$rc"
chromium --headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars \
    --user-data-dir="$tmp/profile" --window-size=1100,1400 \
    --screenshot="$out" "file://$tmp/simulate.html" 2>/dev/null
echo "wrote $out"

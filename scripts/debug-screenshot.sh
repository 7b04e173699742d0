#!/bin/sh
# Makes docs/debug-page.png: the /debug page after the README's example
# requests, rendered by headless Chromium. Loopback only.
# Usage: scripts/debug-screenshot.sh BINARY OUT.png
set -eu
unset KUBECONFIG KUBERNETES_SERVICE_HOST
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/tests/support/server.sh"
bin=${1:?usage: debug-screenshot.sh BINARY OUT.png}
out=${2:?usage: debug-screenshot.sh BINARY OUT.png}
tmp=$(mktemp -d)
pid=""
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT HUP INT TERM
HOME=/nonexistent "$bin" --listen 127.0.0.1:0 --debug-endpoints 2>"$tmp/log" & # no ~/.kube/config
pid=$!
port=$(wait_port "$tmp/log")
for verb in filter prioritize; do
    curl -sf -o /dev/null -H 'Content-Type: application/json' \
        --data-binary @"$here/examples/$verb.json" "http://127.0.0.1:$port/scheduler/$verb"
done
chromium --headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars \
    --user-data-dir="$tmp/profile" --window-size=1100,1000 \
    --screenshot="$out" "http://127.0.0.1:$port/debug" 2>/dev/null
echo "wrote $out"

#!/bin/sh
# The soak: SOAK_SECONDS (default 600) at 80 % of the capacity measured first,
# against the release binary on 127.0.0.1, on two connections: a 100-node
# NodeList filter (the nodeCacheCapable: false path) and 500-name prioritize
# calls. Passes with zero answers other than 200 and a flat RSS.
# Usage: bench/soak.sh build/release   (from the repo root; not part of make test)
set -eu
# Loopback only: never a cluster from the environment.
unset KUBECONFIG KUBERNETES_SERVICE_HOST
. "$(dirname "$0")/../tests/support/server.sh"
B=${1:-build/release}
secs=${SOAK_SECONDS:-600}
data=build/bench
mkdir -p "$data"
[ -f "$data/nodes-100.json" ] || "$B/bench-gen" "$data" 100 500
tmp=$(mktemp -d)
pid=""
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT HUP INT TERM
HOME=/nonexistent "$B/cpu-extender" --listen 127.0.0.1:0 2>"$tmp/log" & # no ~/.kube/config
pid=$!
port=$(wait_port "$tmp/log")

# Capacity of each workload alone, then 80 % of it for both at once.
cap() { "$B/bench-driver" case "$port" "$pid" "$1" "$2" "$3" 5 1 | awk -F'|' '{gsub(/ /,"",$15); print $15}'; }
c1=$(cap filter "$data/nodes-100.json" 100)
c2=$(cap prioritize "$data/names-500.json" 500)
r1=$(awk -v c="$c1" 'BEGIN{printf "%d", c * 0.4}')
r2=$(awk -v c="$c2" 'BEGIN{printf "%d", c * 0.4}')
echo "capacity: filter nodes-100 $c1/s, prioritize names-500 $c2/s alone;" \
    "soaking at $r1/s + $r2/s (80 % shared by both) for $secs s" >&2
status=0
"$B/bench-driver" soak "$port" "$pid" "$data/nodes-100.json" filter "$r1" "$secs" >"$tmp/a" &
a=$!
"$B/bench-driver" soak "$port" "$pid" "$data/names-500.json" prioritize "$r2" "$secs" >"$tmp/b" || status=1
wait "$a" || status=1
cat "$tmp/a" "$tmp/b"
grep -c '"level":"error"' "$tmp/log" | sed 's/^/server error lines: /'
exit $status

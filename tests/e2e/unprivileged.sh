#!/bin/sh
# What the Containerfile promises, tested here since no image can be built on
# this machine: the installed binary serves as an unprivileged user (65532)
# from a read-only tree, with no writable path, and stops cleanly.
# Usage: tests/e2e/unprivileged.sh path/to/cpu-extender   (needs root for setpriv)
set -eu
# Loopback only: never a cluster from the environment (nor ~/.kube/config).
unset KUBECONFIG KUBERNETES_SERVICE_HOST
export HOME=/nonexistent
. "$(dirname "$0")/../support/server.sh"
bin=${1:?usage: unprivileged.sh BINARY}
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null; then
    echo "unprivileged: 0 passed, 0 failed (needs root and setpriv; skipped)"
    exit 0
fi
root=$(mktemp -d)
log=$(mktemp)
pid=""
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null
    chmod -R u+w "$root"
    rm -rf "$root" "$log"
}
trap cleanup EXIT HUP INT TERM
install -D -m 0755 "$bin" "$root/usr/local/bin/cpu-extender" # as make install does
chmod -R a-w "$root"
cd /
nobody="setpriv --reuid=65532 --regid=65532 --clear-groups --inh-caps=-all"
# setpriv execs the binary: $! is the server itself
$nobody "$root/usr/local/bin/cpu-extender" --listen 127.0.0.1:0 2>"$log" &
pid=$!
port=$(wait_port "$log" || true)
pass=0
fail=0
check() { if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $*" >&2; fi; }
check test -n "$port"
check $nobody "$root/usr/local/bin/cpu-extender" probe --ready --listen "127.0.0.1:$port"
check test "$(ps -o uid= -p "$pid" | tr -d ' ')" = 65532
kill "$pid"
rc=0
wait "$pid" || rc=$?
pid=""
check test "$rc" -eq 0
echo "unprivileged: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

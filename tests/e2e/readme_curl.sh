#!/bin/sh
# Runs the README's curl examples verbatim against the binary serving with
# `make run`'s defaults (127.0.0.1:8888) and compares each answer with the
# json block printed under it. Also checks what the README, the docs and
# the manifests promise:
#   - the README's example log line is the line the server wrote for the
#     first request of that verb (its time and duration aside);
#   - every option of `--help` has a row in docs/configuration.md's table;
#   - that page's example config file and the ConfigMap's config.json
#     (manifests/scheduler/config.json) pass
#     `cpu-extender config check`.
# Usage: tests/e2e/readme_curl.sh path/to/cpu-extender   (from the repository root)
set -eu
. "$(dirname "$0")/../support/readme.sh"
# Loopback only: never a cluster from the environment (nor ~/.kube/config).
unset KUBECONFIG KUBERNETES_SERVICE_HOST
export HOME=/nonexistent
bin=${1:?usage: readme_curl.sh BINARY}
work=$(mktemp -d)
pid=""
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT HUP INT TERM
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

if curl -s -o /dev/null --max-time 1 http://127.0.0.1:8888/healthz; then
    echo "readme_curl: 127.0.0.1:8888 is already in use (a 'make run' still up?)" >&2
    exit 1
fi
"$bin" --debug-endpoints 2>"$work/server.log" & # as make run
pid=$!
i=0
until curl -s -o /dev/null --max-time 1 http://127.0.0.1:8888/healthz; do
    i=$((i + 1))
    [ $i -lt 100 ] || { cat "$work/server.log" >&2; echo "server did not start" >&2; exit 1; }
    sleep 0.1
done

readme_examples README.md "$work" >/dev/null

n=0
for c in "$work"/cmd.*; do
    [ -e "$c" ] || break
    k=${c##*.}
    n=$((n + 1))
    got=$(sh "$c")
    want=$(cat "$work/want.$k")
    if [ "$got" = "$want" ]; then ok; else bad "$(cat "$c") -> got: $got want: $want"; fi
done
[ "$n" -ge 4 ] || bad "found only $n curl examples in README.md"

# The example log line: the ```text block of the README that is one access
# line, against the server's first access line of the same verb. The time
# and the duration differ from run to run; everything else is compared.
mask() { sed -e 's/"time":"[^"]*"/"time":"…"/' -e 's/"durationSeconds":[0-9.e+-]*/"durationSeconds":…/'; }
awk '/^```text$/ { t = 1; next } t && /^\{"time":.*"msg":"request"/ { print; exit } { t = 0 }' \
    README.md >"$work/log.want"
verb=$(sed -n 's/.*"msg":"request","verb":"\([a-z]*\)".*/\1/p' "$work/log.want")
if [ -z "$verb" ]; then
    bad "README.md has no example access line (a \`\`\`text block whose line is {\"time\":…,\"msg\":\"request\",\"verb\":…})"
else
    grep -m1 "\"msg\":\"request\",\"verb\":\"$verb\"" "$work/server.log" | mask >"$work/log.got" || true
    if [ "$(mask <"$work/log.want")" = "$(cat "$work/log.got")" ]; then ok; else
        bad "README's example log line: $(cat "$work/log.want") -> the server wrote: $(cat "$work/log.got")"
    fi
fi

for flag in $("$bin" --help | sed -n 's/^  \(--[a-z-]*\)  (.*/\1/p'); do
    if grep -q -- "| \`$flag\` |" docs/configuration.md; then ok; else bad "docs/configuration.md has no row for $flag"; fi
done

awk '/^Example file/ { f = 1 } f && /^```json$/ { g = 1; next } g && /^```$/ { exit } g { print }' \
    docs/configuration.md >"$work/example.json"
if [ -s "$work/example.json" ] && "$bin" config check "$work/example.json" >/dev/null 2>&1; then ok; else
    bad "docs/configuration.md's example config file"
fi

if "$bin" config check manifests/scheduler/config.json >/dev/null 2>&1; then ok; else bad "ConfigMap config.json"; fi

echo "readme: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

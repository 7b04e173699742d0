#!/bin/sh
# make bench: replays generated and captured requests against the release
# binary on 127.0.0.1, side by side with the parse floor, and writes
# docs/performance.md. Usage: bench/run.sh build/release   (from the repo root)
# BENCH_SECONDS scales the time per case (default 5). Loopback only; every
# loop is bounded in time or count.
#
# The cluster cases start bench-apiserver (the fake kube-apiserver of
# tests/support, HTTPS on 127.0.0.1, filled with 5000 nodes and
# BENCH_PODS_PER_NODE pods each, default 30) and a second cpu-extender that
# lists and watches it, and replay the NodeNames bodies against both.
# Each case runs against a server without a cluster and at once after against
# the cluster one. BENCH_ONLY=cluster runs just these and writes their
# section to build/bench/cluster.md instead of docs/performance.md.
set -eu
. "$(dirname "$0")/../tests/support/server.sh"
B=${1:-build/release}
secs=${BENCH_SECONDS:-5}
data=build/bench
out=docs/performance.md
captured=tests/fixtures/captured
only=${BENCH_ONLY:-}
cluster_nodes=5000
pods_per_node=${BENCH_PODS_PER_NODE:-30}
case "$only" in
"" | cluster) ;;
*) echo "BENCH_ONLY: only 'cluster' is known" >&2 && exit 2 ;;
esac
mkdir -p "$data" docs
tmp=$(mktemp -d)
pid=""
cpid=""
api_pid=""
npid=""
qpid=""
lpid=""
dpid=""
cleanup() {
    for p in $cpid $npid $api_pid $pid $qpid $lpid $dpid; do
        kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
    done
    rm -rf "$tmp"
}
trap cleanup EXIT HUP INT TERM

[ -f "$data/nodes-5000.json" ] || "$B/bench-gen" "$data" 100 500 1000 5000

rows="$tmp/rows"
: >"$rows"
row() { "$B/bench-driver" "$@" | tee -a "$rows"; }

# request_only LOG: starts the release binary without a cluster, whatever
# the environment names, its log in LOG; its pid in $started.
request_only() {
    env -u KUBECONFIG -u KUBERNETES_SERVICE_HOST HOME=/nonexistent \
        "$B/cpu-extender" --listen 127.0.0.1:0 --max-body-bytes 134217728 2>"$1" &
    started=$!
}

# is_request_only LOG: the server of LOG says it has no cluster (it says
# so right after "listening").
is_request_only() {
    for _ in $(seq 50); do
        grep -q 'request-only mode' "$1" && return 0
        grep -q 'cluster mode' "$1" && break
        sleep 0.1
    done
    echo "the server is not in request-only mode" >&2
    cat "$1" >&2
    return 1
}

if [ "$only" != cluster ]; then
    request_only "$tmp/server.log"
    pid=$started
    port=$(wait_port "$tmp/server.log")
    is_request_only "$tmp/server.log"

    echo "server pid $pid on port $port" >&2
    "$B/bench-driver" idle "$pid" >"$tmp/idle-start"

    for n in 100 500 1000 5000; do
        s=$secs
        [ "$n" -ge 5000 ] && s=$((secs * 3))
        for verb in prioritize filter; do
            row case "$port" "$pid" "$verb" "$data/nodes-$n.json" "$n" "$s" 1
        done
    done
    for n in 100 500 1000 5000; do
        for verb in prioritize filter; do
            row case "$port" "$pid" "$verb" "$data/names-$n.json" "$n" "$secs" 1
        done
    done
    row case "$port" "$pid" prioritize "$data/names-500.json" 500 "$secs" 2
    row case "$port" "$pid" filter "$data/names-500.json" 500 "$secs" 2
    for f in nocache-3nodes/raw/000001-filter nocache-3nodes/raw/000002-prioritize \
        cache-3nodes/raw/000001-filter; do
        verb=${f##*-}
        [ -f "$captured/$f.req.json" ] || { echo "bench: missing $captured/$f.req.json" >&2 && exit 1; }
        row case "$port" "$pid" "$verb" "$captured/$f.req.json" 3 "$secs" 1
    done

    # Operations overhead: the same cases against three servers side by
    # side: no access log (--log-level warn), the access log (the default,
    # one JSON line per request into a file), and the access log plus every
    # decision recorded for /debug (--debug-endpoints).
    ops_server() { # LOG FLAGS...: starts one, its pid in $started and port in $started_port
        _log=$1
        shift
        env -u KUBECONFIG -u KUBERNETES_SERVICE_HOST HOME=/nonexistent \
            "$B/cpu-extender" --listen 127.0.0.1:0 --max-body-bytes 134217728 "$@" 2>"$_log" &
        started=$!
        started_port=$(wait_port "$_log")
    }
    # The quiet one starts at info (its port is in the "listening" line) and
    # is reloaded to warn.
    echo '{"logLevel": "info"}' >"$tmp/quiet.json"
    ops_server "$tmp/ops-quiet.log" --config "$tmp/quiet.json"
    qpid=$started qport=$started_port
    echo '{"logLevel": "warn"}' >"$tmp/quiet.json"
    kill -HUP "$qpid"
    for _ in $(seq 100); do
        curl -s "http://127.0.0.1:$qport/metrics" |
            grep -q '^cpu_extender_config_reloads_total{result="accepted"} 1$' && break
        sleep 0.1
    done
    ops_server "$tmp/ops-log.log"
    lpid=$started lport=$started_port
    ops_server "$tmp/ops-debug.log" --debug-endpoints
    dpid=$started dport=$started_port
    : >"$tmp/ops-quiet"
    : >"$tmp/ops-log"
    : >"$tmp/ops-debug"
    for body in names-500 nodes-500; do
        for verb in prioritize filter; do
            "$B/bench-driver" case "$qport" "$qpid" "$verb" "$data/$body.json" 500 "$secs" 1 >>"$tmp/ops-quiet"
            "$B/bench-driver" case "$lport" "$lpid" "$verb" "$data/$body.json" 500 "$secs" 1 >>"$tmp/ops-log"
            "$B/bench-driver" case "$dport" "$dpid" "$verb" "$data/$body.json" 500 "$secs" 1 >>"$tmp/ops-debug"
        done
    done
    "$B/bench-driver" idle "$dpid" >"$tmp/idle-debug"
    ops_lines=$(grep -c '"msg":"request"' "$tmp/ops-log.log" || true)
    ops_bytes=$(wc -c <"$tmp/ops-log.log")
    for p in $qpid $lpid $dpid; do
        kill "$p"
        wait "$p" 2>/dev/null || true
    done
    qpid="" lpid="" dpid=""

    "$B/bench-driver" healthz "$port" "$data/nodes-5000.json" >"$tmp/healthz"
    "$B/bench-driver" growth "$port" "$pid" "$data/names-500.json" 100000 >"$tmp/growth"
    "$B/bench-driver" idle "$pid" >"$tmp/idle-end"
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    pid=""
fi

# The cluster for the cluster cases. Storing it takes minutes (the fake
# finds objects by a linear search, so the fill is quadratic in the number
# of objects); it runs while callgrind counts instructions, which time on
# the other core does not change.
tests/e2e/make_certs.sh "$tmp/pki" >/dev/null
token="bench-token-$$"
"$B/bench-apiserver" "$tmp/pki/server.pem" "$tmp/pki/server.key" "$token" \
    "$cluster_nodes" "$pods_per_node" 7200 >"$tmp/apiserver.out" 2>"$tmp/apiserver.log" &
api_pid=$!

# Instruction counts: one request of each size, in-process, stable on a
# noisy machine (valgrind counts instructions, not time).
: >"$tmp/callgrind"
if [ "$only" != cluster ] && command -v valgrind >/dev/null 2>&1; then
    for n in 100 500 1000 5000; do
        line="| nodes-$n.json |"
        for mode in parse prioritize filter; do
            ir=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect=bench_run \
                "$B/bench-once" "$mode" "$data/nodes-$n.json" 2>&1 |
                sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
            line="$line $ir |"
            eval "ir_$mode=$ir"
        done
        # shellcheck disable=SC2154
        line="$line $(awk -v a="$ir_prioritize" -v b="$ir_parse" 'BEGIN{printf "%.3f", a/b}') |"
        # shellcheck disable=SC2154
        line="$line $(awk -v a="$ir_filter" -v b="$ir_parse" 'BEGIN{printf "%.3f", a/b}') |"
        echo "$line" | tee -a "$tmp/callgrind"
    done
fi

# ---- NodeNames from cluster state ----

# up_seconds: seconds since boot, with hundredths (for durations).
up_seconds() { cut -d' ' -f1 /proc/uptime; }

# readyz PORT: the status code of GET /readyz (000 when there is no answer).
readyz() {
    curl -s -o "$tmp/readyz" -w '%{http_code}' --max-time 5 "http://127.0.0.1:$1/readyz" || true
}

echo "waiting for bench-apiserver to store the cluster" >&2
api_port=""
for _ in $(seq 1200); do
    api_port=$(sed -n 's/^port=\([0-9]*\)$/\1/p' "$tmp/apiserver.out")
    [ -n "$api_port" ] && break
    kill -0 "$api_pid" 2>/dev/null || break
    sleep 1
done
if [ -z "$api_port" ]; then
    echo "bench-apiserver gave no port within 20 minutes" >&2
    cat "$tmp/apiserver.log" >&2
    exit 1
fi
cat "$tmp/apiserver.log" >&2

cat >"$tmp/kubeconfig" <<EOF
apiVersion: v1
kind: Config
current-context: bench
clusters:
- name: bench
  cluster:
    server: https://127.0.0.1:$api_port
    certificate-authority: $tmp/pki/ca.pem
users:
- name: extender
  user:
    token: $token
contexts:
- name: bench
  context:
    cluster: bench
    user: extender
EOF
t0=$(up_seconds)
"$B/cpu-extender" --listen 127.0.0.1:0 --max-body-bytes 134217728 --kubeconfig "$tmp/kubeconfig" \
    2>"$tmp/cluster.log" &
cpid=$!
cport=$(wait_port "$tmp/cluster.log")
code=""
for _ in $(seq 600); do
    code=$(readyz "$cport")
    [ "$code" = 200 ] && break
    kill -0 "$cpid" 2>/dev/null || break
    sleep 0.5
done
if [ "$code" != 200 ]; then
    echo "the cluster server was not ready within 5 minutes" >&2
    cat "$tmp/readyz" "$tmp/cluster.log" >&2
    exit 1
fi
load_seconds=$(awk -v a="$t0" -v b="$(up_seconds)" 'BEGIN { printf "%.1f", b - a }')
cp "$tmp/readyz" "$tmp/readyz-loaded"
echo "cluster server pid $cpid on port $cport, ready after $load_seconds s: $(cat "$tmp/readyz")" >&2
# Scores from the state, not the unknown-node path: some node must score.
curl -s --max-time 10 --data-binary "@$data/names-500.json" \
    "http://127.0.0.1:$cport/scheduler/prioritize" | grep -q '"Score":[1-9]' ||
    { echo "NodeNames answered from cluster state score nothing" >&2 && exit 1; }
"$B/bench-driver" idle "$cpid" >"$tmp/idle-cluster"

# Beside it a server without a cluster: each case runs on both, back to
# back, so that both see the same machine.
request_only "$tmp/nocluster.log"
npid=$started
nport=$(wait_port "$tmp/nocluster.log")
is_request_only "$tmp/nocluster.log"
"$B/bench-driver" idle "$npid" >"$tmp/idle-nocluster"

nrows="$tmp/rows-nocluster"
crows="$tmp/rows-cluster"
: >"$nrows"
: >"$crows"
# pair VERB NAMES CONNECTIONS: names-NAMES.json without, then with the cluster.
pair() {
    "$B/bench-driver" case "$nport" "$npid" "$1" "$data/names-$2.json" "$2" "$secs" "$3" |
        tee -a "$nrows"
    "$B/bench-driver" case "$cport" "$cpid" "$1" "$data/names-$2.json" "$2" "$secs" "$3" |
        tee -a "$crows"
}
for n in 500 5000; do
    for verb in prioritize filter; do
        pair "$verb" "$n" 1
    done
done
pair prioritize 500 2
pair filter 500 2
"$B/bench-driver" idle "$cpid" >"$tmp/idle-cluster-end"
[ "$(readyz "$cport")" = 200 ] || { echo "the cluster server is no longer ready" >&2 && exit 1; }
cp "$tmp/readyz" "$tmp/readyz-end"
for p in $cpid $npid; do
    kill "$p"
    wait "$p" 2>/dev/null || true
done
cpid=""
npid=""
kill "$api_pid"
wait "$api_pid" 2>/dev/null || true
api_pid=""

# A driver line "| a | b | c |" as one table cell "a; b; c" (fields from $2).
cell() { cut -d'|' -f"$2"- "$1" | sed 's/^ *//; s/ *| *$//; s/ *| */; /g'; }

# Column 2 of a row is "verb file"; p50/floor is column 10, p99 column 8.
pick() { awk -F'|' -v c="$1" -v col="$2" '$2 ~ c { gsub(/ /, "", $col); print $col; exit }' "$rows"; }

# compare NOCLUSTER CLUSTER: each row of CLUSTER beside the row of NOCLUSTER
# with the same verb, body and connections (p50 column 7, p99 8, req/s 13),
# with the ratios and the extra p50 per name.
compare() {
    awk -F'|' '
    function num(s) { gsub(/[^0-9.]/, "", s); return s + 0 }
    function trim(s) { gsub(/^ +| +$/, "", s); return s }
    FILENAME == ARGV[1] { k = trim($2) "/" num($5); p50[k] = num($7); p99[k] = num($8); rps[k] = num($13); next }
    {
        k = trim($2) "/" num($5)
        split(trim($2), w, " ")
        n = w[2]; gsub(/[^0-9]/, "", n)
        if (!(k in p50) || p50[k] == 0 || rps[k] == 0 || n == 0) {
            printf "| %s | %s | %d | no row | %.3f ms | | | %.3f ms | | %.0f | | |\n", w[1], n, num($5), num($7), num($8), num($13)
            next
        }
        printf "| %s | %d | %d | %.3f ms | %.3f ms | %.2f × | %.3f ms | %.3f ms | %.0f | %.0f | %.2f × | %.2f µs |\n",
            w[1], n, num($5), p50[k], num($7), num($7) / p50[k], p99[k], num($8), rps[k], num($13),
            num($13) / rps[k], (num($7) - p50[k]) * 1000 / n
    }' "$1" "$2"
}

# The section on NodeNames from cluster state, beside the same requests
# without a cluster.
cluster_section() {
    cat <<EOF
## NodeNames from cluster state ($cluster_nodes nodes, $((cluster_nodes * pods_per_node)) pods)

With \`nodeCacheCapable: true\` kube-scheduler sends node names only and the extender scores them
from the state its informers keep. \`bench-apiserver\` (\`bench/apiserver.c\`: the fake
kube-apiserver of \`tests/support\`, HTTPS on 127.0.0.1) holds $cluster_nodes nodes named as in
\`names-N.json\` (4-32 CPUs, 4 GiB per CPU) and $pods_per_node pods per node
($(sed -n 's/.*pods (\(.*\)) stored.*/\1/p' "$tmp/apiserver.log"); requests fill each node
to 20-90 %). A second release binary started with \`--kubeconfig\` listed and watched it over
TLS and answered \`/readyz\` 200 after $load_seconds s: \`$(cat "$tmp/readyz-loaded")\`.
Each case ran, driven as above, first against a fresh server without a cluster (every name passes
with score 0, no lookup) and at once after against this one (per name a hash lookup under the
state's read lock, a copy of the node's sums, the fit and the score); the ratios compare the two.

| verb | names | conns | p50 no cluster | p50 cluster | p50 ratio | p99 no cluster | p99 cluster | req/s no cluster | req/s cluster | req/s ratio | extra p50 per name |
|---|---|---|---|---|---|---|---|---|---|---|---|
$(compare "$nrows" "$crows")

| memory | value |
|---|---|
| without a cluster, idle | $(cell "$tmp/idle-nocluster" 3) |
| with the state loaded, idle | $(cell "$tmp/idle-cluster" 3) |
| with the state loaded, after the cases | $(cell "$tmp/idle-cluster-end" 3) |
| \`/readyz\` after the cases | \`$(cat "$tmp/readyz-end")\` |

The cluster cases as the driver reports them:

| case | body | bytes/node | conns | requests | p50 | p99 | floor p50 | p50/floor | transport p50 | p50/(floor+transport) | req/s | MB/s | peak RSS | peak/body | errors |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
$(cat "$crows")
EOF
}

if [ "$only" = cluster ]; then
    cluster_section >"$data/cluster.md"
    cat "$data/cluster.md"
    echo "wrote $data/cluster.md (BENCH_ONLY=cluster: $out unchanged)" >&2
    exit 0
fi

{
    cat <<EOF
# Performance

Generated by \`make bench\` (\`bench/run.sh\`) on $(date -u +%Y-%m-%d), $(nproc) cores,
$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), commit
$(git describe --always --dirty 2>/dev/null || echo unknown). Every number below comes from
one run of that command; the machine is shared, so differences under about 15 % are noise.

## How it is measured

- \`bench-gen\` writes the bodies kube-scheduler sends: NodeLists of 100, 500, 1000 and 5000
  Node objects that look like a kubelet's (13 labels, 6 annotations with one of 200-600 bytes,
  capacity/allocatable with 7 quantities, 4 conditions, addresses, nodeInfo, 30-50 images with
  long digest names; the bytes per node are in the table), a pod with an init container and
  three containers, and NodeNames bodies with the same candidates. The captured bodies in
  \`tests/fixtures/captured\` run too.
- \`bench-driver\` replays one body over one keep-alive connection to the release binary
  (\`127.0.0.1\`, thread per connection) and reports p50/p99 of the round trip, requests/s,
  MB/s and the server's peak RSS during the case (VmHWM, reset before each case).
- **Floor**: \`cJSON_ParseWithLengthOpts\` of the same body into a warm arena, in the driver's
  process, no scoring, no answer; sampled in blocks of 32 between the requests so that both
  see the same machine. **Transport**: the same body POSTed to \`/healthz\` (read and dropped,
  405): what moving the bytes over loopback costs.
- **Cluster state**: the NodeNames bodies once more, against a second binary that watches
  \`bench-apiserver\` (5000 nodes and their pods over HTTPS on 127.0.0.1) and scores from
  that state; see the section of that name.
- Instruction counts: \`valgrind --tool=callgrind --toggle-collect=bench_run bench-once MODE
  FILE\` for one request in-process: \`parse\` is the floor, \`prioritize\` and \`filter\` the
  whole handler (parse, decode, score, answer).

## Requests

| case | body | bytes/node | conns | requests | p50 | p99 | floor p50 | p50/floor | transport p50 | p50/(floor+transport) | req/s | MB/s | peak RSS | peak/body | errors |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
EOF
    cat "$rows"
    echo
    cat <<EOF
## Operations overhead: access log and decision recording

The same cases against three request-only servers started side by side, each case run against
the three back to back: without the access log (log level \`warn\`), with it (the default:
one JSON line per request, here into a file; $ops_lines lines, $ops_bytes bytes in that run),
and with it plus every decision recorded in the ring for \`/debug\` (\`--debug-endpoints\`;
idle after the cases: $(cell "$tmp/idle-debug" 3)). Ratios are against the first.

Access log on, against off:

| verb | nodes | conns | p50 off | p50 on | p50 ratio | p99 off | p99 on | req/s off | req/s on | req/s ratio | extra p50 per node |
|---|---|---|---|---|---|---|---|---|---|---|---|
$(compare "$tmp/ops-quiet" "$tmp/ops-log")

Access log and decisions recorded, against neither:

| verb | nodes | conns | p50 off | p50 on | p50 ratio | p99 off | p99 on | req/s off | req/s on | req/s ratio | extra p50 per node |
|---|---|---|---|---|---|---|---|---|---|---|---|
$(compare "$tmp/ops-quiet" "$tmp/ops-debug")

EOF
    cluster_section
    cat <<EOF

## Instructions for one request (callgrind)

| body | parse (floor) | prioritize | filter | prioritize/parse | filter/parse |
|---|---|---|---|---|---|
EOF
    cat "$tmp/callgrind"
    cat <<EOF

## Memory and responsiveness

| measurement | value |
|---|---|
| idle at start | $(cell "$tmp/idle-start" 3) |
| idle at the end (after every case) | $(cell "$tmp/idle-end" 3) |
| /healthz while 5000-node requests are scored | $(cell "$tmp/healthz" 3) |
| growth | $(cell "$tmp/growth" 2) |

## Targets

| target | measured |
|---|---|
| prioritize, 500-node NodeList: p50 ≤ 1.25 × parse floor | $(pick "prioritize nodes-500.json" 10) × |
| filter, 500-node NodeList: p50 ≤ 1.25 × parse floor | $(pick "filter nodes-500.json" 10) × |
| prioritize, 5000-node NodeList | $(pick "prioritize nodes-5000.json" 10) × |
| filter, 5000-node NodeList | $(pick "filter nodes-5000.json" 10) × |
| NodeNames, 500 names: p99 ≤ 0.3 ms | prioritize $(pick "prioritize names-500.json" 8), filter $(pick "filter names-500.json" 8) |
| NodeNames, 500 names: ≥ 10 000 requests/s (2 connections) | prioritize $(awk -F'|' '$2 ~ /prioritize names-500.json/ && $5+0 == 2 { gsub(/ /,"",$13); print $13 }' "$rows"), filter $(awk -F'|' '$2 ~ /filter names-500.json/ && $5+0 == 2 { gsub(/ /,"",$13); print $13 }' "$rows") |
| idle RSS ≤ 12 MiB, RssAnon ≤ 4 MiB | $(cell "$tmp/idle-start" 3) |
| peak RSS ≤ 4 × largest body in flight | see peak/body |
| no growth over 100 000 requests | $(cell "$tmp/growth" 3) |
| /healthz ≤ 5 ms while a 5000-node request is scored | $(cell "$tmp/healthz" 4) |

EOF
    cat bench/analysis.md
} >"$out"
echo "wrote $out" >&2

#!/bin/sh
# make test-monitoring: Prometheus as the usage source (usageProvider:
# prometheus), against Debian's Prometheus, all on loopback.
#   - prom-cluster (tests/monitoring/prom_cluster.c) serves the fake
#     kube-apiserver with three nodes whose InternalIPs are 127.0.0.2-4, an
#     exporter of node-exporter's series on each of those addresses (the
#     busy cores the test writes, iowait that the default query leaves
#     out, memory in use), and a socket that never answers;
#   - Prometheus scrapes the exporters every second (each target also
#     labelled node=NAME, for prometheusNodeLabel: node);
#   - cpu-extender reads usage from it with the default node-exporter
#     queries, matched by instance (the InternalIP, port stripped), and:
#     the cores it stores are the driven ones (to rate()'s noise) and what
#     Prometheus itself answers; the memory is exact; a hot node scores
#     below a cool one in prioritize over HTTP; a node absent from the
#     answer, bad PromQL, a stopped Prometheus (by pid) and a Prometheus
#     that never answers (prometheusTimeoutSeconds) each leave the usage
#     stale (stalePolicy applies), never 0, and /readyz says the provider
#     and its last error (ready all the same); prometheusNodeLabel: node
#     matches by name.
# Usage: tests/monitoring/test_usage_prometheus.sh BUILD_DIR   (from the repository root)
set -eu
B=${1:?usage: test_usage_prometheus.sh BUILD_DIR}
bin=$B/cpu-extender
. "$(dirname "$0")/../support/server.sh"
# shellcheck source=tests/monitoring/prometheus_start.sh
. "$(dirname "$0")/prometheus_start.sh"
unset KUBECONFIG KUBERNETES_SERVICE_HOST
for tool in prometheus promtool jq curl; do
    command -v "$tool" >/dev/null || { echo "test_usage_prometheus: $tool is missing (make ship-deps)" >&2; exit 1; }
done
work=$(mktemp -d)
pids=""
cleanup() {
    for p in $pids; do
        if kill "$p" 2>/dev/null; then wait "$p" 2>/dev/null || true; fi
    done
    [ -n "${KEEP_WORK:-}" ] && echo "kept $work" >&2 || rm -rf "$work"
}
trap cleanup EXIT
# forget PID: it was stopped and waited for; the EXIT trap must not signal
# its number again (the kernel may have given it to another process).
# shellcheck disable=SC2086 # the pids, one word each
forget() { pids=$(printf ' %s ' $pids | sed "s/ $1 / /g"); }
# A signal ends the script (the EXIT trap then stops what it started).
trap 'exit 1' HUP INT TERM
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
same() { if [ "$2" = "$3" ]; then ok; else bad "$1: got '$2', want '$3'"; fi; }
# near WHAT GOT WANT TOLERANCE: integers within TOLERANCE of each other.
near() {
    if [ "$2" -ge $(($3 - $4)) ] 2>/dev/null && [ "$2" -le $(($3 + $4)) ]; then ok
    else bad "$1: got '$2', want $3 +- $4"; fi
}

# ---- the cluster: API server, exporters, the silent stand-in ----
mkdir -p "$work/drive"
echo 3.5 >"$work/drive/cpu-0"    # node-0: hot
echo 0.5 >"$work/drive/cpu-1"    # node-1: cool
echo 1.25 >"$work/drive/cpu-2"   # node-2: to be dropped from the answers
tests/e2e/make_certs.sh "$work/pki" >/dev/null
token="prom-$$"
"$B/prom-cluster" "$work/pki/server.pem" "$work/pki/server.key" "$token" 3 "$work/drive" 900 \
    >"$work/cluster.out" 2>"$work/cluster.log" &
pids="$pids $!"
for _ in $(seq 100); do
    grep -q '^silent=' "$work/cluster.out" 2>/dev/null && break
    sleep 0.1
done
grep -q '^silent=' "$work/cluster.out" || { cat "$work/cluster.log" >&2; echo "prom-cluster did not start" >&2; exit 1; }
api_port=$(sed -n 's/^port=//p' "$work/cluster.out")
silent=$(sed -n 's/^silent=//p' "$work/cluster.out")
exporter() { sed -n "s/^exporter=$1 //p" "$work/cluster.out"; }
write_kubeconfig "$work/kubeconfig" "$api_port" "$work/pki/ca.pem" "$token"

# ---- Prometheus, scraping the exporters ----
{
    printf 'global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: node\n    static_configs:\n'
    for i in 0 1 2; do
        printf '      - targets: ["%s"]\n        labels:\n          node: node-%s\n' "$(exporter $i)" "$i"
    done
} >"$work/prometheus.yml"
promtool check config "$work/prometheus.yml" >/dev/null || { echo "bad prometheus.yml" >&2; exit 1; }
prometheus_start "$work" 11
purl="http://127.0.0.1:$pport"
prom_started=$(date +%s)
query() { curl -s --max-time 10 --get --data-urlencode "query=$1" "$purl/api/v1/query"; }
# The defaults, as the binary prints them: the test queries what it queries.
cpu_q=$(echo '{}' | "$bin" config check - 2>/dev/null | jq -r .prometheusCpuQuery)
mem_q=$(echo '{}' | "$bin" config check - 2>/dev/null | jq -r .prometheusMemoryQuery)
case $cpu_q in *node_cpu_seconds_total*'[2m]'*) ok ;; *) bad "default CPU query: $cpu_q" ;; esac
# The same queries over 10 s instead of 2 min, so that a change of load
# shows within seconds (rate() over a range divides by the whole range:
# the default's answer is right once Prometheus holds 2 min of samples,
# checked at the end).
fast_q=$(printf '%s' "$cpu_q" | sed 's/\[2m\]/[10s]/')
json_str() { printf '%s' "$1" | jq -Rs .; }
# rate() is the load only once its range is full of samples: wait until
# every exporter has been scraped over the last 10 s (9 scrapes at least,
# a loaded machine may miss one).
for _ in $(seq 150); do
    [ "$(query 'min(count_over_time(up{job="node"}[10s])) >= bool 9' | jq -r '.data.result[0].value[1]')" = 1 ] && break
    sleep 0.2
done
same "series of the CPU query" "$(query "$fast_q" | jq '.data.result | length')" 3

# ---- the extender ----
ext_pid=""
ext_port=""
# start_extender NAME URL JSON: the extender reading Prometheus at URL,
# with the base config and JSON's members; its port in ext_port, its pid
# in ext_pid.
start_extender() {
    base='"listen":"127.0.0.1:0","debugEndpoints":true,"cpuUsedSource":"usage","memoryUsedSource":"usage","usageProvider":"prometheus","prometheusIntervalSeconds":1,"usageMaxAgeSeconds":3,"inFlightSeconds":0'
    printf '{%s,"prometheusURL":"%s"%s}\n' "$base" "$2" "$3" >"$work/$1.json"
    "$bin" --config "$work/$1.json" --kubeconfig "$work/kubeconfig" 2>"$work/$1.log" &
    ext_pid=$!
    pids="$pids $ext_pid"
    ext_port=$(wait_port "$work/$1.log")
    for _ in $(seq 100); do
        [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$ext_port/readyz")" = 200 ] && break
        sleep 0.1
    done
}
stop_extender() {
    if kill "$ext_pid" 2>/dev/null; then wait "$ext_pid" 2>/dev/null || true; fi
    forget "$ext_pid"
}
pod='{"metadata":{"name":"p","namespace":"default","uid":"u-1"},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"100m","memory":"64Mi"}}}]}}'
# prioritize: the HostPriorityList of the three nodes.
prioritize() {
    curl -s --max-time 10 -H 'Content-Type: application/json' \
        --data-binary "{\"Pod\":$pod,\"NodeNames\":[\"node-0\",\"node-1\",\"node-2\"]}" \
        "http://127.0.0.1:$ext_port/scheduler/prioritize"
}
score() { prioritize | jq -r --arg n "$1" '.[] | select(.Host == $n) | .Score'; }
# decided NODE FIELD: resources.FIELD (cpu.used, cpu.usedFrom, ...) of
# NODE in a new prioritize decision.
decided() {
    prioritize >/dev/null
    curl -s "http://127.0.0.1:$ext_port/debug/decisions" |
        jq -r --arg n "$1" --arg f "$2" \
            '.decisions[0].nodes[] | select(.name == $n) | .resources | getpath($f | split("."))'
}
# wait_for NODE FIELD VALUE: up to 15 s for decided NODE FIELD to be VALUE.
wait_for() {
    for _ in $(seq 75); do
        [ "$(decided "$1" "$2")" = "$3" ] && return 0
        sleep 0.2
    done
    return 0
}

# By instance (the default label): node-N's series carry 127.0.0.(N+2):PORT.
start_extender instance "$purl" ",\"prometheusCpuQuery\":$(json_str "$fast_q")"
wait_for node-0 cpu.usedFrom usage
same "node-0 used from" "$(decided node-0 cpu.usedFrom)" usage
same "node-0 outcome" "$(decided node-0 cpu.usedOutcome)" fresh
near "node-0's CPU used (millicores) by instance" "$(decided node-0 cpu.used)" 3500 70
near "node-1's CPU used (millicores) by instance" "$(decided node-1 cpu.used)" 500 10
readyz() { curl -s "http://127.0.0.1:$ext_port/readyz" | jq -r .reason; }
same "/readyz names the provider" "$(readyz)" "serving from cluster state; usage from prometheus: ok"
same "node-0's memory used (bytes, exact)" "$(decided node-0 memory.used)" 1073741824
same "node-2's memory used (bytes, exact)" "$(decided node-2 memory.used)" 3221225472
s0=$(score node-0)
s1=$(score node-1)
if [ "$s1" -gt "$s0" ] 2>/dev/null; then ok; else bad "the cool node scores above the hot one: node-1 $s1, node-0 $s0"; fi
# The load moves: node-0 cools, node-1 heats; the scores follow.
echo 0.25 >"$work/drive/cpu-0"
echo 3.75 >"$work/drive/cpu-1"
for _ in $(seq 100); do
    [ "$(score node-0)" -gt "$(score node-1)" ] 2>/dev/null && break
    sleep 0.2
done
if [ "$(score node-0)" -gt "$(score node-1)" ]; then ok; else bad "scores did not follow the load"; fi

# A node absent from the answer: its exporter fails, Prometheus marks the
# series stale, the node gets no sample and ages into stale; stalePolicy
# requests (the default) makes it fall back to its pods' requests (none
# here: 0 from requests, not a usage of 0); the others stay fresh.
echo 1 >"$work/drive/down-2"
wait_for node-2 cpu.usedOutcome fell-back
same "node-2 absent: outcome" "$(decided node-2 cpu.usedOutcome)" fell-back
same "node-2 absent: used from" "$(decided node-2 cpu.usedFrom)" requests
same "node-2 absent: used (its requests, not a 0 usage)" "$(decided node-2 cpu.used)" 0
same "node-1 still fresh" "$(decided node-1 cpu.usedOutcome)" fresh
grep -q '"msg":"nodes without a Prometheus series, their usage goes stale","nodes":1' "$work/instance.log" &&
    ok || bad "no log line for the node without a series"
rm -f "$work/drive/down-2"
wait_for node-2 cpu.usedOutcome fresh
same "node-2 back: outcome" "$(decided node-2 cpu.usedOutcome)" fresh
stop_extender

# stalePolicy full: a stale node is refused by the filter, not scored on 0.
echo 1 >"$work/drive/down-2"
start_extender full "$purl" ",\"stalePolicy\":\"full\",\"prometheusCpuQuery\":$(json_str "$fast_q")"
for _ in $(seq 75); do
    filtered=$(curl -s --max-time 10 -H 'Content-Type: application/json' \
        --data-binary "{\"Pod\":$pod,\"NodeNames\":[\"node-0\",\"node-1\",\"node-2\"]}" \
        "http://127.0.0.1:$ext_port/scheduler/filter")
    [ "$(printf '%s' "$filtered" | jq -c '.NodeNames')" = '["node-0","node-1"]' ] && break
    sleep 0.2
done
same "stalePolicy full: the filter passes" "$(printf '%s' "$filtered" | jq -c '.NodeNames')" '["node-0","node-1"]'
case $(printf '%s' "$filtered" | jq -r '.FailedNodes["node-2"]') in
*tale*) ok ;;
*) bad "stalePolicy full: node-2's reason: $(printf '%s' "$filtered" | jq -c .FailedNodes)" ;;
esac
stop_extender
rm -f "$work/drive/down-2"

# prometheusNodeLabel: node, with queries by node (as for the kubelet's
# metrics): matched by name.
node_cpu_q=$(printf '%s' "$fast_q" | sed 's/by (instance)/by (node)/')
node_mem_q=$(printf '%s' "$mem_q" | sed 's/by (instance)/by (node)/')
# node-1's load changed above: wait for a range that holds only the new one.
for _ in $(seq 100); do
    m=$(query "$fast_q" | jq -r --arg i "$(exporter 1)" \
        '.data.result[] | select(.metric.instance == $i) | .value[1] | tonumber * 1000 | ceil')
    [ "${m:-0}" -ge 3700 ] 2>/dev/null && break
    sleep 0.2
done
start_extender node "$purl" ",\"prometheusNodeLabel\":\"node\",\"prometheusCpuQuery\":$(json_str "$node_cpu_q"),\"prometheusMemoryQuery\":$(json_str "$node_mem_q")"
wait_for node-1 cpu.usedFrom usage
same "by node: node-1 used from" "$(decided node-1 cpu.usedFrom)" usage
near "by node: node-1's CPU used (millicores)" "$(decided node-1 cpu.used)" 3750 75
same "by node: node-1's memory used" "$(decided node-1 memory.used)" 2147483648
stop_extender

# Bad PromQL: Prometheus answers 400 bad_data; nothing is stored, every
# node is stale from the start, never 0.
start_extender badql "$purl" ',"prometheusCpuQuery":"sum by (instance) (rate("'
sleep 2
same "bad PromQL: node-0 outcome" "$(decided node-0 cpu.usedOutcome)" fell-back
same "bad PromQL: node-0 used from" "$(decided node-0 cpu.usedFrom)" requests
grep -q 'HTTP 400 from Prometheus: status error: bad_data' "$work/badql.log" && ok ||
    bad "bad PromQL: no log line with Prometheus's error"
case $(readyz) in
"serving from cluster state; usage from prometheus: prometheusCpuQuery: HTTP 400 from Prometheus: status error: bad_data:"*) ok ;;
*) bad "bad PromQL: /readyz says $(readyz)" ;;
esac
same "bad PromQL: still ready" "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$ext_port/readyz")" 200
stop_extender

# A Prometheus that never answers: the query times out after
# prometheusTimeoutSeconds, the nodes stay stale.
start_extender silent "http://127.0.0.1:$silent" ',"prometheusTimeoutSeconds":1'
sleep 3
same "silent Prometheus: node-0 outcome" "$(decided node-0 cpu.usedOutcome)" fell-back
grep -q '"msg":"node metrics unavailable, usage goes stale","source":"prometheus","error":"prometheusCpuQuery: .*' "$work/silent.log" &&
    ok || bad "silent Prometheus: no log line for the timeout"
# A reload that points at the real Prometheus: the client is made again
# from the new URL and the usage turns fresh.
sed "s|http://127.0.0.1:$silent|$purl|" "$work/silent.json" >"$work/silent.json.new"
mv "$work/silent.json.new" "$work/silent.json"
kill -HUP "$ext_pid"
wait_for node-0 cpu.usedOutcome fresh
same "reloaded to the real Prometheus: node-0 outcome" "$(decided node-0 cpu.usedOutcome)" fresh
same "reloaded: /readyz" "$(readyz)" "serving from cluster state; usage from prometheus: ok"
stop_extender

# The default node-exporter queries, once Prometheus holds the 2 minutes
# their rate() reads. node-2's load (1.25 cores) never changed; its
# exporter's counters count through the scrapes it failed, so its rate is
# 1.25 cores over any window.
while [ $(($(date +%s) - prom_started)) -lt 130 ]; do sleep 2; done
# Prometheus's own answer, in millicores rounded up as the extender does.
prom_milli=$(query "$cpu_q" | jq -r --arg i "$(exporter 2)" \
    '.data.result[] | select(.metric.instance == $i) | .value[1] | tonumber * 1000 | ceil')
near "the default CPU query answers node-2's cores (millicores)" "$prom_milli" 1250 25
start_extender stopped "$purl" ''
wait_for node-2 cpu.usedFrom usage
used=$(decided node-2 cpu.used)
near "default queries: node-2's CPU used (millicores)" "$used" 1250 25
near "default queries: the extender reads what Prometheus answers" "$used" "$prom_milli" 13
same "default queries: node-2's memory used" "$(decided node-2 memory.used)" 3221225472
# Prometheus stopped (by its pid) under the running extender: stale once
# usageMaxAgeSeconds pass without a sample, never 0; logged once.
kill "$prom" && wait "$prom" 2>/dev/null || true
forget "$prom"
wait_for node-2 cpu.usedOutcome fell-back
same "Prometheus stopped: node-2 outcome" "$(decided node-2 cpu.usedOutcome)" fell-back
same "Prometheus stopped: node-2 used from" "$(decided node-2 cpu.usedFrom)" requests
sleep 2
same "Prometheus stopped: logged once" \
    "$(grep -c '"msg":"node metrics unavailable, usage goes stale","source":"prometheus"' "$work/stopped.log")" 1
stop_extender

echo "test_usage_prometheus: $pass passed, $fail failed"
[ "$fail" = 0 ]

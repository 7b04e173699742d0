#!/bin/bash
# make bench-placement: how hot kube-scheduler leaves the nodes, with and
# without cpu-extender, when what the nodes use is not what their pods
# request. The scenario and the result are in docs/performance.md
# ("Placement quality").
#
#   [K8S_VERSION=V] bench/placement.sh BUILD_DIR
#
# The control plane, kube-scheduler and the extender in-cluster are those
# of tests/cluster and bench/scheduler.sh (their functions are sourced, not
# copied), and so is the metrics pipeline: the real metrics-server behind
# the real kube-apiserver's aggregation layer, scraping the kubelet
# stand-in (tests/cluster/README.md, "The metrics pipeline"), the only
# fake. Everything listens on 127.0.0.1 and is stopped by process id
# (k8s_stop_all from the EXIT trap).
#
# The scenario (bench/placement_scenario.awk, seed BENCH_SEED, default 22):
# 50 nodes of 8 CPUs, 10 of them hot by a background no pod requests, 5
# spiky (the same background 20 s of every 40 s), 35 quiet; 500 pods of
# 200m to 800m that use 50-90 % of their request. A usage driver (a loop
# around bench/placement_usage.awk, every BENCH_TICK = 2 s) reads the
# pods' bindings from a watch on the API server and writes each node's
# usage file = background + Σ request × the pod's factor. The pods come in
# BENCH_WAVES (10) waves, one every BENCH_WAVE_SECONDS (8 s), so that usage
# reaches the extender between waves.
#
# Each setup (BENCH_SETUPS) runs with a fresh kube-scheduler, extender,
# driver and pods; after its last wave (and until no pod binds for 10 s),
# the model says each node's usage at its peak. Writes the Markdown table to
# stdout and to BENCH_OUT (default build/bench/placement.md); progress on
# stderr.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
B=${1:?usage: bench/placement.sh BUILD_DIR}
SEED=${BENCH_SEED:-22}
NODES=50
PODS=${BENCH_PODS:-500}
WAVES=${BENCH_WAVES:-10}
WAVE_SECONDS=${BENCH_WAVE_SECONDS:-8}
TICK=${BENCH_TICK:-2}
# Between setups: pods deleted, the driver back at the background; the
# time metrics-server needs to see it (two scrapes at its resolution).
SETTLE=${BENCH_SETTLE:-20}
# kube-scheduler's weight for the extender. The shipped 1 makes its 0..10
# worth one in-tree plugin, and NodeResourcesFit and
# NodeResourcesBalancedAllocation both count requests: a nudge that cannot
# outvote them (docs/performance.md, "Placement quality").
WEIGHT=${BENCH_EXT_WEIGHT:-5}
# The usage threshold of the threshold setups: low enough that the last
# waves find every node over it (the cluster ends near 60 % by usage).
THRESHOLD=${BENCH_THRESHOLD:-60}
# The extender's polling of metrics.k8s.io and its window.
EXT_INTERVAL=5
WINDOW=40
NS=bench

# What tests/cluster's functions read (as tests/cluster/run.sh sets them).
# shellcheck disable=SC2034 # read by t_scheduler.sh
SCHEDULER_CONFIG_YAML=manifests/scheduler/scheduler-config.yaml
RBAC_YAML=manifests/rbac.yaml
CONFIG_JSON=manifests/scheduler/config.json
EXT=$B/cpu-extender
# shellcheck disable=SC2034 # read by t_scheduler.sh
Y2J=$B/cluster-yaml2json

# shellcheck source=tests/cluster/k8s.sh
. tests/cluster/k8s.sh
OUT=${BENCH_OUT:-build/bench/placement.md}
# shellcheck source=tests/support/server.sh
. tests/support/server.sh
# shellcheck source=tests/cluster/lib.sh
. tests/cluster/lib.sh
# shellcheck source=tests/cluster/t_manifests.sh
. tests/cluster/t_manifests.sh # create_object
# shellcheck source=tests/cluster/t_scheduler.sh
. tests/cluster/t_scheduler.sh # sched_config, sched_start
# shellcheck source=bench/cluster_bench.sh
. bench/cluster_bench.sh # say, die, curl_all, delete_pods, watch_start

for f in "$EXT" "$Y2J"; do
    [ -x "$f" ] || { echo "bench/placement.sh: $f is missing (make bench-placement builds it)" >&2; exit 2; }
done
# The metrics pipeline is tests/cluster's (lib.sh): without it there is
# no usage to place by, and the usage rows would silently be request rows.
for f in k8s_kubelet_standin_start mk_kubelet_node ms_start; do
    declare -F "$f" >/dev/null ||
        { echo "bench/placement.sh: tests/cluster/lib.sh has no $f (the metrics pipeline): cannot run" >&2; exit 2; }
done

# ---- the setups ----

read -r -a SETUPS <<<"${BENCH_SETUPS:-none requests usage window target usage-th usage-th-uaf window-th window-th-uaf}"
declare -A TITLE=(
    [none]="no extender"
    [requests]="ours, on requests (spread)"
    [usage]="ours, on usage: latest (spread)"
    [window]="ours, on usage: p90 over ${WINDOW} s (spread)"
    [target]="ours, on usage: latest, \`target\` 60 %"
    [usage-th]="ours, usage latest + threshold ${THRESHOLD} %, policy \`always\`"
    [usage-th-uaf]="ours, usage latest + threshold ${THRESHOLD} %, \`unlessAllFail\`"
    [window-th]="ours, usage p90 + threshold ${THRESHOLD} %, policy \`always\`"
    [window-th-uaf]="ours, usage p90 + threshold ${THRESHOLD} %, \`unlessAllFail\`"
)
for s in "${SETUPS[@]}"; do [ -n "${TITLE[$s]:-}" ] || die "BENCH_SETUPS: no setup $s"; done

# ext_flags SETUP: the extender's flags over the shipped config.json.
ext_flags() {
    local -a f=()
    case "$1" in
    requests) f+=(--cpu-used-source requests) ;;
    *) f+=(--cpu-used-source usage --metrics-interval-seconds "$EXT_INTERVAL") ;;
    esac
    case "$1" in window*) f+=(--usage-window-seconds "$WINDOW" --usage-aggregation p90) ;; esac
    case "$1" in target) f+=(--strategy target --target-percent 60) ;; esac
    case "$1" in *-th*) f+=(--cpu-threshold-percent "$THRESHOLD") ;; esac
    case "$1" in *-uaf) f+=(--threshold-policy unlessAllFail) ;; esac
    echo "${f[@]}"
}

# sched_over SETUP: jq over tests/cluster's scheduler configuration.
sched_over() {
    case "$1" in
    none) echo 'del(.extenders)' ;;
    *-th*) echo ".extenders[0].weight = $WEIGHT | .extenders[0].filterVerb = \"filter\"" ;;
    *) echo ".extenders[0].weight = $WEIGHT" ;;
    esac
}

T0=$SECONDS
k8s_build || exit 1
k8s_work_dir bench-placement bench/placement.sh

# ---- the scenario ----

awk -v seed="$SEED" -v nodes="$NODES" -v pods="$PODS" -v nodes_out="$T/nodes" -v pods_out="$T/pods" \
    -f bench/placement_scenario.awk </dev/null || die "bench/placement_scenario.awk failed"
# The usage files: three generations written in turn, the stand-in's
# DIR/usage a symbolic link to the newest, replaced by rename: a scrape
# never reads a file half written, and the 50 files change at once.
KS=$T/kubelet
mkdir -p "$KS/gen-0" "$KS/gen-1" "$KS/gen-2"
ln -s gen-0 "$KS/usage"
T_START=$EPOCHSECONDS
awk -v mode=tick -v now=0 -v dir="$KS/gen-0" -f bench/placement_usage.awk "$T/nodes" "$T/pods" /dev/null ||
    die "bench/placement_usage.awk failed"

# ---- the cluster ----

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
k8s_init "$T/k8s"
k8s_certs
k8s_start_etcd || exit 1
# No audit log: its writes would slow every Binding on the shared cores.
k8s_start_apiserver --audit-log-path= || exit 1
k8s_start_controller_manager
k8s_wait 60 "ServiceAccount default/default with a token" sa_has_token default default ||
    die "kube-controller-manager: no token for default/default"
say "control plane up on $K8S_SERVER"

mk_namespace "$NS" || die "namespace $NS"
while read -r doc; do create_object "$doc"; done < <("$Y2J" "$RBAC_YAML")
sa_token kube-system cpu-extender-scheduler "$T/sa/scheduler" || die "no token for cpu-extender-scheduler"
no_failures "setup"

mapfile -t NODE_NAMES < <(cut -d' ' -f1 "$T/nodes")
k8s_kubelet_standin_start "$KS" "${NODE_NAMES[@]}" || die "kubelet stand-in did not start"
while read -r name cores mem _; do
    mk_kubelet_node "$name" "$cores" "$mem"
done <"$T/nodes"
no_failures "creating nodes"
ms_start 10s || die "metrics-server did not start"
ms_nodes() {
    api GET /apis/metrics.k8s.io/v1beta1/nodes
    [ "$CODE" = 200 ] && [ "$(jq '.items | length' <<<"$RESP")" = "$NODES" ]
}
k8s_wait 120 "metrics.k8s.io with all $NODES nodes" ms_nodes || die "metrics.k8s.io: HTTP $CODE $(head -c 300 <<<"$RESP")"
say "metrics pipeline up: metrics.k8s.io has all $NODES nodes"

# ---- the usage driver ----

# driver_start LOG: every TICK seconds, each node's usage file from the
# bindings in the watch log LOG. One process, stopped by its id (the sleep
# with it).
driver_start() {
    k8s_run usage-driver bash -c '
        dir=$1 nodes=$2 pods=$3 log=$4 t0=$5 tick=$6 s="" g=0
        trap '\''[ -n "$s" ] && kill "$s" 2>/dev/null; exit 0'\'' TERM
        while :; do
            g=$(((g + 1) % 3))
            awk -v mode=tick -v now=$((EPOCHSECONDS - t0)) -v dir="$dir/gen-$g" \
                -f bench/placement_usage.awk "$nodes" "$pods" "$log" &&
                ln -sfn "gen-$g" "$dir/usage.new" && mv -T "$dir/usage.new" "$dir/usage"
            sleep "$tick" &
            s=$!
            wait "$s"
            s=""
        done' usage-driver "$KS" "$T/nodes" "$T/pods" "$1" "$T_START" "$TICK"
}

# ---- the pods, in waves ----

PER_WAVE=$(((PODS + WAVES - 1) / WAVES))
mkdir -p "$T/wave"
i=0
while read -r name cpu mem _; do
    w=$((i / PER_WAVE))
    [ -f "$T/wave/$w.curl" ] || : >"$T/wave/$w.curl"
    pod_json "$NS" "$name" ".spec.schedulerName = \"cpu-extender-scheduler\" |
        .spec.containers[0].resources.requests = {cpu: \"${cpu}m\", memory: \"$mem\"}" >"$T/wave/$name.json"
    curl_op "$T/wave/$w.curl" "$K8S_SERVER/api/v1/namespaces/$NS/pods" POST "@$T/wave/$name.json" application/json
    i=$((i + 1))
done <"$T/pods"

bound_now() { awk '$2 == "DELETED" { delete b[$3]; next } $4 != "-" { b[$3] = 1 } END { print length(b) }' "$WATCH_LOG"; }

# After the last wave: until every pod is bound, or none has bound for 10 s
# (a threshold with policy always leaves some Pending), at most 120 s.
wait_settled() {
    local last=-1 same=0 n deadline=$((SECONDS + 120))
    while [ "$SECONDS" -lt "$deadline" ]; do
        n=$(bound_now)
        [ "$n" = "$PODS" ] && return 0
        if [ "$n" = "$last" ]; then same=$((same + 1)); else same=0 last=$n; fi
        [ "$same" -ge 10 ] && return 0
        sleep 1
    done
}

# The hottest node by metrics.k8s.io now (its percent of allocatable): a
# check that the pipeline carried what the model says.
ms_hottest() {
    api GET /apis/metrics.k8s.io/v1beta1/nodes
    jq -r '.items[] | .usage.cpu' <<<"$RESP" | awk '
        /n$/ { v = substr($0, 1, length($0) - 1) / 1e6 } /u$/ { v = substr($0, 1, length($0) - 1) / 1e3 }
        /m$/ { v = substr($0, 1, length($0) - 1) + 0 } /^[0-9.]+$/ { v = $0 * 1000 }
        { if (v > m) m = v } END { printf "%.1f\n", m * 100 / 8000 }'
}

# run_one SETUP: appends to $T/results "SETUP BOUND MAX% STDDEV OVER80
# HOT SPIKY QUIET MS-MAX% LET-THROUGH".
run_one() {
    local s=$1 over ext_port=1 w t_wave flags
    say "$s: ${TITLE[$s]}"
    watch_start "watch-$s"
    driver_start "$WATCH_LOG"
    sleep "$SETTLE"
    if [ "$s" != none ]; then
        read -r -a flags <<<"$(ext_flags "$s")"
        ext_start "ext-$s" "$T/sa/scheduler" --config "$PWD/$CONFIG_JSON" --metrics-listen 127.0.0.1:0 \
            "${flags[@]}" || die "extender: $(tail -n 5 "$K8S_DIR/logs/ext-$s.log")"
        k8s_wait 30 "ext-$s ready" ext_counts_are "$NODES" 0 || die "extender not ready: $ERESP"
        ext_port=$EXT_PORT
        if [ "$s" != requests ]; then
            # usage from metrics.k8s.io before the first pod (else the
            # first wave is placed by requests, stalePolicy requests)
            ext_has_usage() { ext GET /metrics && grep -q '^cpu_extender_usage_sample_age_seconds ' <<<"$ERESP"; }
            k8s_wait 60 "ext-$s has usage" ext_has_usage || die "ext-$s: no usage from metrics.k8s.io in 60 s"
            case "$s" in window*) sleep "$WINDOW" ;; esac
        fi
    fi
    over=$(sched_over "$s")
    sched_config "$T/sched-$s.json" "$ext_port" "$over"
    sched_start "sched-$s" "$T/sched-$s.json"
    no_failures "kube-scheduler $s"
    for w in $(seq 0 $((WAVES - 1))); do
        t_wave=$SECONDS
        [ -f "$T/wave/$w.curl" ] && curl_all "$T/wave/$w.curl" 201
        [ "$w" -lt $((WAVES - 1)) ] && sleep $((t_wave + WAVE_SECONDS - SECONDS > 0 ? t_wave + WAVE_SECONDS - SECONDS : 0))
    done
    wait_settled
    local r ms passed=0
    r=$(awk -v mode=final -v out="$T/final-$s" -f bench/placement_usage.awk "$T/nodes" "$T/pods" "$WATCH_LOG")
    ms=$(ms_hottest)
    [ "$s" = none ] || passed=$(grep -c 'every candidate is over a threshold' "$K8S_DIR/logs/ext-$s.log")
    local by_class
    by_class=$(awk '$6 > 80 { c[$2]++ } END { printf "%d %d %d", c["hot"], c["spiky"], c["quiet"] }' "$T/final-$s")
    echo "$s $r $by_class $ms $passed" >>"$T/results"
    say "$s: bound, max %, stddev, over 80 %: $r (hot spiky quiet over 80: $by_class); metrics-server's hottest now $ms %"
    k8s_stop "sched-$s"
    [ "$s" = none ] || k8s_stop "ext-$s"
    k8s_stop usage-driver
    k8s_stop "watch-$s-curl"
    k8s_stop "watch-$s-jq"
    delete_pods
}

: >"$T/results"
for s in "${SETUPS[@]}"; do run_one "$s"; done
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

# ---- the report ----

col() { awk -v s="$1" -v c="$2" '$1 == s { print $c }' "$T/results"; }
{
    echo "| setup | pods bound | hottest node, % of CPU | std dev across nodes, points | nodes over 80 % (hot / spiky / quiet) | metrics-server's hottest at the end, % | \`unlessAllFail\` let all through, calls |"
    echo "|---|---|---|---|---|---|---|"
    for s in "${SETUPS[@]}"; do
        printf '| %s | %s / %s | %s | %s | %s (%s / %s / %s) | %s | %s |\n' "${TITLE[$s]}" "$(col "$s" 2)" "$PODS" \
            "$(col "$s" 3)" "$(col "$s" 4)" "$(col "$s" 5)" "$(col "$s" 6)" "$(col "$s" 7)" "$(col "$s" 8)" \
            "$(col "$s" 9)" "$(col "$s" 10)"
    done
    echo
    echo "\`bench/placement.sh $B\` (\`make bench-placement\`) at $(git describe --always --dirty 2>/dev/null),"
    echo "$(date -u +%Y-%m-%d), in $((SECONDS - T0)) s; seed $SEED; $PODS pods in $WAVES waves $WAVE_SECONDS s apart;"
    echo "extender weight $WEIGHT, metricsIntervalSeconds $EXT_INTERVAL; usage driver every $TICK s."
    echo "$(nproc) cores ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)), $(uname -sr), shared"
    echo "with other jobs: load average $LOAD_BEFORE before, $LOAD_AFTER after."
    echo "kube-scheduler and kube-apiserver $("$K8S_BIN/kube-scheduler" --version 2>&1 | sed 's/^Kubernetes //'),"
    echo "metrics-server $MS_VERSION, $("$EXT" --version 2>&1 | head -n1)."
} >"$T/report.md"
mkdir -p "$(dirname "$OUT")"
cp "$T/report.md" "$OUT"
for s in "${SETUPS[@]}"; do sed "s/^/$s /" "$T/final-$s"; done >"${OUT%.md}.nodes"
cat "$T/report.md"
say "done in $((SECONDS - T0)) s; $OUT, per node in ${OUT%.md}.nodes"

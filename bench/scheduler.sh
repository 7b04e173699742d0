#!/bin/bash
# make bench-scheduler: kube-scheduler's throughput with and without
# cpu-extender, side by side on one real control plane, for the release
# K8S_VERSION names (tests/cluster/k8s.sh: 1.37.2 by default, or 1.20.2;
# make bench-scheduler runs each of K8S_VERSIONS). The result is in
# docs/performance.md ("kube-scheduler's throughput").
#
#   [K8S_VERSION=V] bench/scheduler.sh BUILD_DIR
#
# The control plane, the nodes, the extender in-cluster and kube-scheduler
# are those of tests/cluster (its functions are sourced, not copied; the
# Kubernetes binaries come from its cache, built by tests/cluster/k8s.sh the
# first time). Everything listens on 127.0.0.1 and is stopped by process id
# (k8s_stop_all from the EXIT trap).
#
# For each node count of BENCH_NODE_COUNTS (default "100 5000"; 4/8/12/16
# CPUs with 4 GiB per CPU, created in parallel), then for each run a batch
# of BENCH_PODS pods (default 500, five request shapes) created at once in
# parallel over one HTTP/2 connection. A run's pods/s is BENCH_PODS over the
# time from the first pod's ADDED event to the event that shows the last
# pod's spec.nodeName, both as a watch on the pods receives them (the same
# watcher's clock at both ends). The setups (BENCH_SETUPS) run in turn,
# BENCH_REPEATS rounds (default 3) at the first node count and
# BENCH_REPEATS_LARGE (default 1) at the others, each run with a fresh
# kube-scheduler and extender; the pods are deleted between runs. Then, at
# the first node count, one round at kube-scheduler's default client limits
# (BENCH_DEFAULT_QPS=0 skips it). Writes the Markdown tables to stdout and
# to BENCH_OUT (default build/bench/scheduler-VERSION.md); progress on
# stderr.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
B=${1:?usage: bench/scheduler.sh BUILD_DIR}
read -r -a NODE_COUNTS <<<"${BENCH_NODE_COUNTS:-100 5000}"
PODS=${BENCH_PODS:-500}
REPEATS=${BENCH_REPEATS:-3}
REPEATS_LARGE=${BENCH_REPEATS_LARGE:-1}
DEFAULT_QPS_ROUND=${BENCH_DEFAULT_QPS:-1}
# kube-scheduler's client limits in the measured rounds. Its defaults (qps
# 50, burst 100) cap the Bindings at 50/s and hide every other cost; the
# default-limits round shows that. 5000 is what upstream's scheduler_perf
# uses.
QPS=5000
NS=bench

# What tests/cluster's functions read (as tests/cluster/run.sh sets them).
# shellcheck disable=SC2034 # read by t_scheduler.sh
SCHEDULER_CONFIG_YAML=manifests/scheduler/scheduler-config.yaml
RBAC_YAML=manifests/rbac.yaml
# The extender runs with the shipped config.json (flags: --listen from
# ext_start, --mode for the passthrough setups).
CONFIG_JSON=manifests/scheduler/config.json
EXT=$B/cpu-extender
# shellcheck disable=SC2034 # read by t_scheduler.sh
Y2J=$B/cluster-yaml2json

# shellcheck source=tests/cluster/k8s.sh
. tests/cluster/k8s.sh
OUT=${BENCH_OUT:-build/bench/scheduler-$K8S_VERSION.md}
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
    [ -x "$f" ] || { echo "bench/scheduler.sh: $f is missing (make bench-scheduler builds it)" >&2; exit 2; }
done

T0=$SECONDS
k8s_build || exit 1
k8s_work_dir bench-sched bench/scheduler.sh

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
k8s_init "$T/k8s"
k8s_certs
k8s_start_etcd || exit 1
# No audit log (the suite's policy logs every request): its writes would
# be part of every Binding and pod creation measured here.
k8s_start_apiserver --audit-log-path= || exit 1
k8s_start_controller_manager
k8s_wait 60 "ServiceAccount default/default with a token" sa_has_token default default ||
    die "kube-controller-manager: no token for default/default"
say "control plane up on $K8S_SERVER"

# The manifests' RBAC objects and the account of the Deployment (both its
# containers use it), as tests/cluster's setup does.
mk_namespace "$NS" || die "namespace $NS"
while read -r doc; do create_object "$doc"; done < <("$Y2J" "$RBAC_YAML")
sa_token kube-system cpu-extender-scheduler "$T/sa/scheduler" || die "no token for cpu-extender-scheduler"
no_failures "setup"

# What the shipped config.json needs, in config check's words (the report
# quotes it; config check starts each line with the file's name).
FILTER_NEED=$("$EXT" config check "$CONFIG_JSON" 2>&1 >/dev/null |
    sed -n "s|^$CONFIG_JSON: \(filter verb, with cluster state:.*\)|\1|p" | grep .) ||
    die "cpu-extender config check $CONFIG_JSON: no verdict on the filter verb"

# ---- nodes and pods ----

# grow_nodes N: creates nodes until there are N (bn-00001 ...) as mk_node
# makes them (a kubelet's status, then without the not-ready taint), in
# parallel: 5000 one at a time would take minutes.
NODES=0
grow_nodes() {
    local i c name create=$T/nodes.curl untaint=$T/nodes-patch.curl
    : >"$create"
    : >"$untaint"
    for i in $(seq $((NODES + 1)) "$1"); do
        c=$((4 * (1 + (i - 1) % 4)))
        name=$(printf 'bn-%05d' "$i")
        jq -nc --arg n "$name" --arg c "$c" --arg m "$((4 * c))Gi" '{apiVersion: "v1", kind: "Node",
            metadata: {name: $n, labels: {"kubernetes.io/hostname": $n, "kubernetes.io/os": "linux"}},
            status: {capacity: {cpu: $c, memory: $m, pods: "110"}, allocatable: {cpu: $c, memory: $m, pods: "110"},
                     conditions: [{type: "Ready", status: "True", reason: "KubeletReady", message: "ready"}]}}' \
            >"$T/node-$name.json"
        curl_op "$create" "$K8S_SERVER/api/v1/nodes" POST "@$T/node-$name.json" application/json
        curl_op "$untaint" "$K8S_SERVER/api/v1/nodes/$name" PATCH '{\"spec\":{\"taints\":null}}' \
            application/merge-patch+json
    done
    curl_all "$create" 201
    curl_all "$untaint" 200
    rm -f "$T"/node-*.json
    NODES=$1
}

# Five request shapes in turn; at 100 nodes and 500 pods the cluster ends
# about 38 % requested in CPU, 10 % in memory: every pod fits somewhere and
# the filters reject little, as in a cluster with room.
SHAPES=("100m 128Mi" "250m 256Mi" "500m 512Mi" "1 1Gi" "2 2Gi")
mkdir -p "$T/pods"
CURLCFG=$T/pods/create.curl
: >"$CURLCFG"
for i in $(seq 1 "$PODS"); do
    read -r cpu mem <<<"${SHAPES[$(((i - 1) % ${#SHAPES[@]}))]}"
    name=$(printf 'bp-%04d' "$i")
    pod_json "$NS" "$name" ".spec.schedulerName = \"cpu-extender-scheduler\" |
        .spec.containers[0].resources.requests = {cpu: \"$cpu\", memory: \"$mem\"}" >"$T/pods/$name.json"
    curl_op "$CURLCFG" "$K8S_SERVER/api/v1/namespaces/$NS/pods" POST "@$T/pods/$name.json" application/json
done

# The pods of one run, all at once: one curl, 50 requests in flight over
# one HTTP/2 connection. Prints the seconds it took.
create_pods() {
    local t0=$EPOCHREALTIME
    curl_all "$CURLCFG" 201
    awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }'
}

# ---- the watch that times a run ----

# Every half second (not k8s_wait's tenth: the poll competes with the
# scheduler for the 2 cores; the rate comes from the watch's own stamps).
wait_bound() {
    local deadline=$((SECONDS + 300))
    until [ "$(bound_count)" = "$PODS" ]; do
        [ "$SECONDS" -lt "$deadline" ] || return 1
        sleep 0.5
    done
}

# pods/s, first ADDED to the last pod's first event with a node.
watch_rate() {
    awk -v n="$PODS" '
        $2 == "ADDED" && (first == "" || $1 < first) { first = $1 }
        $4 != "-" && !($3 in b) { b[$3] = $1; if ($1 > last) last = $1 }
        END { if (length(b) != n || last <= first) { print "-"; exit 1 }
              printf "%.1f %.2f\n", n / (last - first), last - first }' "$WATCH_LOG"
}

# ---- metrics ----

# hist_p50 METRICS-FILE NAME LABEL-MATCH: the median of a Prometheus
# histogram as histogram_quantile computes it (linear within the bucket),
# in ms; LABEL-MATCH is a regular expression the bucket lines must match.
hist_p50() {
    grep "^$2_bucket{" "$1" | grep -E "$3" | sed 's/.*le="\([^"]*\)"} \(.*\)/\1 \2/' |
        awk '{ le[NR] = ($1 == "+Inf") ? 1e30 : $1; c[NR] = $2 }
             END { t = c[NR] / 2; lo = 0; plo = 0
                   if (c[NR] == 0) { print "-"; exit }
                   for (i = 1; i <= NR; i++) {
                       if (c[i] >= t) {
                           if (le[i] == 1e30) { printf "> %.2f\n", lo * 1000; exit }
                           printf "%.3f\n", (lo + (le[i] - lo) * (t - plo) / (c[i] - plo)) * 1000; exit }
                       lo = le[i]; plo = c[i] } }'
}

# The exact median of one verb's durationSeconds in the extender's access
# log, in ms: to check the histogram's interpolation against.
log_p50() {
    ext_log_requests "$1" "$2" | jq -rs 'map(.durationSeconds) | sort |
        if length == 0 then "-" else (.[(length - 1) / 2 | floor] * 1e6 | round / 1e3) end'
}

# The scheduler's own numbers: pods scheduled, attempts that were not, and
# the mean of scheduler_scheduling_algorithm_duration_seconds in ms: the
# part of each pod's cycle that runs one pod at a time (snapshot, the
# filter and score plugins, the extender's calls, picking the node), which
# bounds the throughput. Not scheduler_e2e_scheduling_duration_seconds:
# in 1.20 it ends after the Binding, which runs in parallel with the next
# pods' cycles, so it grows with the load and says nothing per pod.
sched_numbers() {
    awk '
        /^scheduler_schedule_attempts_total\{/ { if ($1 ~ /result="scheduled"/) s += $2; else o += $2 }
        /^scheduler_scheduling_algorithm_duration_seconds_sum / { sum = $2 }
        /^scheduler_scheduling_algorithm_duration_seconds_count / { cnt = $2 }
        END { printf "%d %d %s\n", s, o, cnt ? sprintf("%.3f", sum / cnt * 1000) : "-" }' "$1"
}

# cpu_ms NAME: the CPU time (user + system) the process K8S_PIDS[NAME] has
# used so far, in ms (0 without one). For an extender that is cpu-extender
# itself: env, unshare and sh exec into it.
CLK_TCK=$(getconf CLK_TCK)
cpu_ms() {
    local pid=${K8S_PIDS[$1]:-}
    if [ -z "$pid" ] || [ ! -r "/proc/$pid/stat" ]; then echo 0; return 0; fi
    awk -v t="$CLK_TCK" '{ sub(/^.*\) /, ""); print ($12 + $13) * 1000 / t }' "/proc/$pid/stat"
}

# ---- the setups ----

# NodeNames (nodeCacheCapable: true, the shipped stanza) and whole
# NodeLists (false: kube-scheduler sends every candidate Node object).
read -r -a SETUPS <<<"${BENCH_SETUPS:-none prioritize filter-prioritize prioritize-nodelist filter-prioritize-nodelist}"
declare -A TITLE=(
    [none]="no extender"
    [filter-prioritize]="filter + prioritize, NodeNames"
    [prioritize]="prioritize only, NodeNames (shipped)"
    [filter-prioritize-nodelist]="filter + prioritize, NodeLists"
    [prioritize-nodelist]="prioritize only, NodeLists"
    [passthrough-filter-prioritize]="filter + prioritize, NodeNames, passthrough"
    [passthrough-prioritize]="prioritize only, NodeNames, passthrough"
)
for s in "${SETUPS[@]}"; do [ -n "${TITLE[$s]:-}" ] || die "BENCH_SETUPS: no setup $s"; done

# The shipped stanza must be prioritize-only, or the "shipped" row would
# measure something else.
"$Y2J" "$SCHEDULER_CONFIG_YAML" | jq -e '.extenders[0] | .prioritizeVerb == "prioritize" and
    (has("filterVerb") | not) and .nodeCacheCapable == true' >/dev/null ||
    die "$SCHEDULER_CONFIG_YAML: the stanza is not prioritize-only with nodeCacheCapable: true"

# run_one SETUP ROUND QPS: one measured run on $NODES nodes; appends a line
# to $T/results-$NODES:
# SETUP ROUND QPS PODS/S SECONDS CREATE-S SCHED-MEAN-MS FILTER-P50 PRIO-P50
# FILTER-LOG-P50 PRIO-LOG-P50 FILTER-CALLS PRIO-CALLS, then CPU ms per pod:
# SCHEDULER EXTENDER APISERVER+ETCD
run_one() {
    local s=$1 r=$2 qps=$3 id="$1-$2-q$3-n$NODES" over ext_port=1 mode=enforce
    case "$s" in
    none) over='del(.extenders)' ;;
    *filter-prioritize*) over='.extenders[0].filterVerb = "filter"' ;;
    *) over=. ;;
    esac
    case "$s" in *-nodelist) over="$over | .extenders[0].nodeCacheCapable = false" ;; esac
    case "$s" in passthrough-*) mode=passthrough ;; esac
    if [ "$qps" != default ]; then
        over="$over | .clientConnection.qps = $qps | .clientConnection.burst = $qps"
    fi
    if [ "$s" != none ]; then
        # (its metrics listener on loopback too, not the pod's 0.0.0.0:8889)
        ext_start "ext-$id" "$T/sa/scheduler" --config "$PWD/$CONFIG_JSON" --mode "$mode" \
            --metrics-listen 127.0.0.1:0 || die "extender: $(tail -n 5 "$K8S_DIR/logs/ext-$id.log")"
        k8s_wait 30 "ext-$id ready" ext_counts_are "$NODES" 0 || die "extender not ready: $ERESP"
        ext_port=$EXT_PORT
        # config.json's debugEndpoints: true, as a sign that it was read.
        ext GET /debug/decisions
        [ "$ECODE" = 200 ] || die "ext-$id: GET /debug/decisions answered $ECODE: $CONFIG_JSON not in effect?"
    fi
    sched_config "$T/sched-$id.json" "$ext_port" "$over"
    sched_start "sched-$id" "$T/sched-$id.json"
    no_failures "kube-scheduler $id"
    watch_start "watch-$id"
    local create_s c0 c1
    c0="$(cpu_ms "sched-$id") $(cpu_ms "ext-$id") $(cpu_ms kube-apiserver) $(cpu_ms etcd)"
    create_s=$(create_pods) || exit 1
    wait_bound || die "$id: $(bound_count) of $PODS pods bound in 300 s"
    c1="$(cpu_ms "sched-$id") $(cpu_ms "ext-$id") $(cpu_ms kube-apiserver) $(cpu_ms etcd)"
    # CPU ms per pod from the creation to the last bound pod (up to the
    # half second of wait_bound more): kube-scheduler, the extender,
    # kube-apiserver + etcd.
    local cpu
    cpu=$(awk -v n="$PODS" -v a="$c0" -v b="$c1" 'BEGIN { split(a, x, " "); split(b, y, " ")
        printf "%.3f %.3f %.3f", (y[1] - x[1]) / n, (y[2] - x[2]) / n, (y[3] + y[4] - x[3] - x[4]) / n }')
    local rate
    rate=$(watch_rate) || die "$id: no rate from $WATCH_LOG"
    curl -skf --max-time 10 "$SCHED_METRICS" >"$T/sched-$id.metrics" || die "scheduler metrics"
    local sn fp pp fl pl fc pc
    read -r -a sn < <(sched_numbers "$T/sched-$id.metrics")
    { [ "${sn[0]}" = "$PODS" ] && [ "${sn[1]}" = 0 ]; } ||
        die "$id: kube-scheduler counts ${sn[0]} pods scheduled and ${sn[1]} other attempts, wanted $PODS and 0"
    fp=- pp=- fl=- pl=- fc=0 pc=0
    if [ "$s" != none ]; then
        ext GET /metrics
        printf '%s\n' "$ERESP" >"$T/ext-$id.metrics"
        fp=$(hist_p50 "$T/ext-$id.metrics" cpu_extender_request_duration_seconds 'verb="filter",status="200"')
        pp=$(hist_p50 "$T/ext-$id.metrics" cpu_extender_request_duration_seconds 'verb="prioritize",status="200"')
        fl=$(log_p50 "ext-$id" filter)
        pl=$(log_p50 "ext-$id" prioritize)
        fc=$(ext_log_requests "ext-$id" filter | wc -l)
        pc=$(ext_log_requests "ext-$id" prioritize | wc -l)
    fi
    # kube-scheduler looked at every node for every pod
    # (percentageOfNodesToScore 100; 1.20's default of 0 also means every
    # node up to 100 nodes).
    local evaluated
    evaluated=$(grep -c "\"Successfully bound pod to node\".* evaluatedNodes=$NODES " "$K8S_DIR/logs/sched-$id.log")
    [ "$evaluated" = "$PODS" ] || die "$id: $evaluated of $PODS pods bound with evaluatedNodes=$NODES"
    # One call per pod and verb, or the rates say nothing about the verbs.
    local want_f=0 want_p=$PODS
    case "$s" in none) want_p=0 ;; *filter*) want_f=$PODS ;; esac
    { [ "$fc" = "$want_f" ] && [ "$pc" = "$want_p" ]; } ||
        die "$id: $fc filter and $pc prioritize calls, wanted $want_f and $want_p"
    echo "$s $r $qps $rate $create_s ${sn[2]} $fp $pp $fl $pl $fc $pc $cpu" >>"$T/results-$NODES"
    say "$id: $(cut -d' ' -f2 <<<"$rate") s → ${rate%% *} pods/s (created in $create_s s; algorithm mean ${sn[2]} ms; extender p50 filter $fp prioritize $pp ms)"
    k8s_stop "watch-$id-curl"
    k8s_stop "watch-$id-jq"
    k8s_stop "sched-$id"
    [ "$s" = none ] || k8s_stop "ext-$id"
    delete_pods
}

# Each round starts one setup later than the one before, so that none is
# always first after the control plane's start or always after the same
# neighbour.
for n in "${NODE_COUNTS[@]}"; do
    say "growing to $n nodes"
    grow_nodes "$n"
    no_failures "creating nodes"
    rounds=$REPEATS
    [ "$n" = "${NODE_COUNTS[0]}" ] || rounds=$REPEATS_LARGE
    : >"$T/results-$n"
    say "$rounds rounds of ${#SETUPS[@]} setups, $PODS pods on $n nodes each"
    for r in $(seq 1 "$rounds"); do
        for k in $(seq 0 $((${#SETUPS[@]} - 1))); do
            run_one "${SETUPS[$(((r - 1 + k) % ${#SETUPS[@]}))]}" "$r" "$QPS"
        done
    done
    if [ "$DEFAULT_QPS_ROUND" = 1 ] && [ "$n" = "${NODE_COUNTS[0]}" ]; then
        say "one round at kube-scheduler's default client limits (qps 50, burst 100)"
        for s in none filter-prioritize prioritize; do run_one "$s" 1 default; done
    fi
done
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

# ---- the report ----

# median and range of column COL for SETUP at QPS, in $RESULTS (one node
# count's runs)
stats() {
    awk -v s="$1" -v q="$2" -v c="$3" '$1 == s && $3 == q && $c != "-" { v[++n] = $c }
        END { if (!n) { print "-"; exit }
              for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
              m = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
              if (n == 1) print m; else printf "%s (%s–%s)\n", m, v[1], v[n] }' "$RESULTS"
}
median() { stats "$@" | cut -d' ' -f1; }
# p50s SETUP HIST-COL LOG-COL: "exact / histogram" medians, or — for a
# verb the setup does not register.
p50s() {
    local h l
    h=$(median "$1" "$QPS" "$2")
    l=$(median "$1" "$QPS" "$3")
    if [ "$h" = - ]; then echo —; else echo "$l / $h"; fi
}

# report_nodes N ROUNDS: the tables of the runs on N nodes.
report_nodes() {
    local n=$1 rounds=$2 s m am rel over base abase e
    RESULTS=$T/results-$n
    base=$(median none "$QPS" 4)
    abase=$(median none "$QPS" 7)
    echo "#### $n nodes, $PODS pods per run, $rounds round(s)"
    echo
    echo "| setup | pods/s, median (range) | vs no extender | kube-scheduler algorithm per pod, ms | over no extender, ms | extender p50 per call, ms (log / histogram): filter | prioritize |"
    echo "|---|---|---|---|---|---|---|"
    for s in "${SETUPS[@]}"; do
        m=$(median "$s" "$QPS" 4)
        am=$(median "$s" "$QPS" 7)
        rel=$(awk -v a="$m" -v b="$base" 'BEGIN { printf "%.0f %%", a / b * 100 }')
        over=$(awk -v a="$am" -v b="$abase" 'BEGIN { printf "%+.2f", a - b }')
        [ "$s" = none ] && over=—
        printf '| %s | %s | %s | %s | %s | %s | %s |\n' "${TITLE[$s]}" "$(stats "$s" "$QPS" 4)" "$rel" \
            "$(stats "$s" "$QPS" 7)" "$over" "$(p50s "$s" 8 10)" "$(p50s "$s" 9 11)"
    done
    echo
    echo "CPU time per pod, ms (median of the runs), from the first pod created to the last bound:"
    echo
    echo "| setup | kube-scheduler | extender | kube-apiserver + etcd |"
    echo "|---|---|---|---|"
    for s in "${SETUPS[@]}"; do
        e=$(median "$s" "$QPS" 15)
        [ "$s" = none ] && e=—
        printf '| %s | %s | %s | %s |\n' "${TITLE[$s]}" "$(median "$s" "$QPS" 14)" "$e" "$(median "$s" "$QPS" 16)"
    done
    echo
    echo "Creating the $PODS pods took $(awk 'NR == 1 || $6 < lo { lo = $6 } NR == 1 || $6 > hi { hi = $6 }
        END { printf "%s–%s s", lo, hi }' "$RESULTS") per run."
    echo
    if [ "$DEFAULT_QPS_ROUND" = 1 ] && [ "$n" = "${NODE_COUNTS[0]}" ]; then
        echo "At kube-scheduler's default client limits (clientConnection qps 50, burst 100), one run each:"
        echo
        echo "| setup | pods/s | kube-scheduler algorithm per pod, ms |"
        echo "|---|---|---|"
        for s in none filter-prioritize prioritize; do
            printf '| %s | %s | %s |\n' "${TITLE[$s]}" "$(median "$s" default 4)" "$(median "$s" default 7)"
        done
        echo
    fi
}

{
    echo "### Kubernetes $K8S_VERSION"
    echo
    for n in "${NODE_COUNTS[@]}"; do
        rounds=$REPEATS
        [ "$n" = "${NODE_COUNTS[0]}" ] || rounds=$REPEATS_LARGE
        report_nodes "$n" "$rounds"
    done
    echo "Extender p50: from its access log's durationSeconds (exact), then from the"
    echo "cpu_extender_request_duration_seconds histogram as histogram_quantile reads it (linear"
    echo "within its buckets, the first two end at 25 and 50 µs); median of the runs."
    echo "\`K8S_VERSION=$K8S_VERSION bench/scheduler.sh $B\` (\`make bench-scheduler\`) at"
    echo "$(git describe --always --dirty 2>/dev/null), $(date -u +%Y-%m-%d), in $((SECONDS - T0)) s. The setups in"
    echo "turn, each round starting one later; a fresh kube-scheduler and extender for each run;"
    echo "clientConnection qps and burst $QPS; percentageOfNodesToScore 100; the extender with"
    echo "$CONFIG_JSON (\`config check\`: \"$FILTER_NEED\")."
    echo "Every run checked: $PODS calls per registered verb, every pod scheduled at its first attempt"
    echo "with all nodes evaluated."
    echo "$(nproc) cores ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)), $(uname -sr), shared"
    echo "with other jobs: load average $LOAD_BEFORE before, $LOAD_AFTER after."
    echo "kube-scheduler and kube-apiserver $("$K8S_BIN/kube-scheduler" --version 2>&1 | sed 's/^Kubernetes //'), etcd"
    echo "$("$K8S_ETCD" --version 2>&1 | sed -n 's/^etcd Version: //p'), $("$EXT" --version 2>&1 | head -n1)."
} >"$T/report.md"
mkdir -p "$(dirname "$OUT")"
cp "$T/report.md" "$OUT"
cat "$T"/results-* >"${OUT%.md}.runs"
cat "$T/report.md"
say "done in $((SECONDS - T0)) s; $OUT, runs in ${OUT%.md}.runs"

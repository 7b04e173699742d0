# shellcheck shell=bash
# The real metrics pipeline: the kubelet stand-in (the only fake) serving
# /metrics/resource for each node, metrics-server v0.8.0 scraping it and
# registered behind kube-apiserver's aggregation layer (APIService
# v1beta1.metrics.k8s.io, the front-proxy client certificate), `kubectl top
# nodes`, and cpu-extender with cpuUsedSource usage reading
# /apis/metrics.k8s.io/v1beta1/nodes through the API server, as in a
# cluster. README.md "The metrics pipeline".

MP_RESOLUTION=10 # metrics-server's --metric-resolution: the least it accepts
MP_INTERVAL=1    # the extender's metricsIntervalSeconds
MP_MAX_AGE=25    # the extender's usageMaxAgeSeconds: two resolutions and some

# mp_node_metric NODE: "CPU MEMORY" of NODE in metrics.k8s.io, or nothing.
mp_node_metric() {
    api GET "/apis/metrics.k8s.io/v1beta1/nodes/$1"
    [ "$CODE" = 200 ] && jq -r '"\(.usage.cpu) \(.usage.memory)"' <<<"$RESP"
}

# mp_metric_is NODE CPU-CORES: metrics.k8s.io reports NODE at CPU-CORES
# (within a millicore: the stand-in's clock and metrics-server's window
# are both real time).
mp_metric_is() {
    local m
    m=$(mp_node_metric "$1") || return 1
    awk -v q="${m%% *}" -v want="$2" 'BEGIN {
        v = q; s = q; sub(/[0-9.]+/, "", s)
        if (s == "n") v /= 1e9; else if (s == "u") v /= 1e6; else if (s == "m") v /= 1e3
        d = v - want; if (d < 0) d = -d; exit !(d <= 0.001) }'
}

# mp_scores EXT-PORT NODE...: the extender's prioritize answer for a pod
# of 1 CPU and MP_MEM (1Gi), "node:score" by node.
mp_scores() {
    local EXT_PORT=$1
    shift
    verb prioritize "$(incoming_pod 1 "${MP_MEM:-1Gi}")" "$@" | jq -r 'map("\(.Host):\(.Score)") | join(" ")'
}

mp_scores_are() { [ "$(mp_scores "$1" "${@:3}")" = "$2" ]; }

# mp_bound_are PREFIX N: N pods named PREFIX-* are bound.
mp_bound_are() {
    [ "$(spread_of "$1" | tr ' ' '\n' | awk -F: '$1 != "null" { s += $2 } END { print s + 0 }')" = "$2" ]
}

# The seconds since an epoch time with a fraction (date +%s.%N).
mp_since() { awk -v t0="$1" -v t="$(date +%s.%N)" 'BEGIN { printf "%.1f", t - t0 }'; }

t_metrics_pipeline() {
    local gi=1073741824 nodes="mp-1 mp-2" n
    k8s_kubelet_standin_start "$T/standin" mp-1 mp-2 || { fail "kubelet stand-in did not start"; return 1; }
    for n in $nodes; do
        kubelet_usage "$n" 1 $((2 * gi)) || return 1
        mk_kubelet_node "$n" 4 8Gi || return 1
    done
    api GET /api/v1/nodes/mp-1
    check_eq "mp-1 as a kubelet reports it: InternalIP and kubeletEndpoint.Port" \
        "127.0.0.1 ${KUBELET_STANDIN_PORT[mp-1]}" \
        "$(jq -r '"\(.status.addresses[] | select(.type == "InternalIP") | .address) \(.status.daemonEndpoints.kubeletEndpoint.Port)"' <<<"$RESP")"
    check "the stand-in serves the kubelet's /metrics/resource for mp-1" \
        grep -q '^node_cpu_usage_seconds_total [0-9.e+]* [0-9]*$' <(curl -sf --cacert "$K8S_PKI/ca.crt" \
            "https://127.0.0.1:${KUBELET_STANDIN_PORT[mp-1]}/metrics/resource")

    local t0=$SECONDS
    ms_start "${MP_RESOLUTION}s" || { fail "metrics-server did not become Available"; return 1; }
    ok "APIService v1beta1.metrics.k8s.io Available after $((SECONDS - t0)) s (metrics-server on 127.0.0.1:$MS_PORT)"
    # Two scrapes make the first rate: up to two resolutions.
    k8s_wait 60 "metrics.k8s.io has mp-1 and mp-2" eval 'mp_metric_is mp-1 1 && mp_metric_is mp-2 1' ||
        { fail "no node metrics within 60 s: $(tail -n 5 "$K8S_DIR/logs/metrics-server.log")"; return 1; }
    ok "metrics.k8s.io: both nodes at 1 core (the stand-in's files) after $((SECONDS - t0)) s"
    check_eq "metrics.k8s.io memory of mp-1: the file's bytes" "2Gi" "$(mp_node_metric mp-1 | cut -d' ' -f2)"

    # kubectl top nodes: the percentages are of allocatable (4 CPUs, 8Gi).
    local top
    top=$(KUBECONFIG=$K8S_ADMIN_KUBECONFIG "$K8S_BIN/kubectl" top nodes --no-headers 2>&1 | awk '{$1 = $1; print}')
    check_eq "kubectl top nodes" "mp-1 1000m 25% 2048Mi 25%
mp-2 1000m 25% 2048Mi 25%" "$top"

    # The extenders: usage polled every second through the API server.
    # Scores for a pod of 1 CPU/1Gi, spread, cpu 3 memory 1, on 4 CPUs/8Gi:
    #   usage 1 core, 2Gi: cpu (4-1-1)/4 = 50, memory (8-2-1)/8 = 62,
    #     (150+62)/4 = 53, score (53+5)/10 = 5;
    #   usage 2.5 cores: cpu (4-2.5-1)/4 = 12, (36+62)/4 = 24, score 2;
    #   requests (no pods): cpu 75, memory 87, (225+87)/4 = 78, score 8.
    local -a use=(--cpu-used-source usage --memory-used-source usage
        --metrics-interval-seconds "$MP_INTERVAL" --usage-max-age-seconds "$MP_MAX_AGE")
    ext_start ext-mp "$T/sa/scheduler" "${use[@]}" --stale-policy requests || return 1
    local port_req=$EXT_PORT
    ext_start ext-mp-full "$T/sa/scheduler" "${use[@]}" --stale-policy full || return 1
    local port_full=$EXT_PORT
    EXT_PORT=$port_req k8s_wait 20 "ext-mp ready" ext_ready || { fail "ext-mp not ready: $ERESP"; return 1; }
    k8s_wait 10 "ext-mp scores by usage" mp_scores_are "$port_req" "mp-1:5 mp-2:5" mp-1 mp-2
    check_eq "(a) prioritize on usage, both nodes at 1 core" "mp-1:5 mp-2:5" "$(mp_scores "$port_req" mp-1 mp-2)"

    # (a) mp-1's load rises: within one resolution (the next scrape) plus
    # one poll of the extender, mp-1 scores lower.
    local t1
    t1=$(date +%s.%N)
    kubelet_usage mp-1 2.5 $((2 * gi)) || return 1
    k8s_wait $((MP_RESOLUTION + MP_INTERVAL + 10)) "mp-1 scores lower" \
        mp_scores_are "$port_req" "mp-1:2 mp-2:5" mp-1 mp-2
    local took
    took=$(mp_since "$t1")
    check_eq "(a) mp-1 at 2.5 cores scores lower" "mp-1:2 mp-2:5" "$(mp_scores "$port_req" mp-1 mp-2)"
    check_le "(a) seconds from the usage file to the lower score (one resolution + one poll + 2 s)" \
        $((MP_RESOLUTION + MP_INTERVAL + 2)) "$took"
    check "metrics.k8s.io says 2.5 cores for mp-1" mp_metric_is mp-1 2.5
    check_eq "(b) filter with stalePolicy full while fresh: both pass" '["mp-1","mp-2"]' \
        "$(EXT_PORT=$port_full verb filter "$(incoming_pod 1 1Gi)" mp-1 mp-2 | jq -c .NodeNames)"

    # (b) metrics-server stopped (by its pid): the API server answers 503
    # for metrics.k8s.io; the last sample ages past usageMaxAgeSeconds and
    # the stale policy applies.
    local last
    last=$(mp_node_metric mp-1 >/dev/null && jq -r .timestamp <<<"$RESP")
    k8s_stop metrics-server
    t1=$(date +%s.%N)
    api GET /apis/metrics.k8s.io/v1beta1/nodes
    check_eq "metrics.k8s.io with metrics-server stopped: HTTP" 503 "$CODE"
    check_eq "(b) right after: still the last usage" "mp-1:2 mp-2:5" "$(mp_scores "$port_req" mp-1 mp-2)"
    k8s_wait $((MP_MAX_AGE + 15)) "usage stale: requests" mp_scores_are "$port_req" "mp-1:8 mp-2:8" mp-1 mp-2
    took=$(mp_since "$t1")
    check_eq "(b) stalePolicy requests: scored by requests once stale" "mp-1:8 mp-2:8" "$(mp_scores "$port_req" mp-1 mp-2)"
    info "stale $took s after metrics-server stopped (last sample $last, usageMaxAgeSeconds $MP_MAX_AGE)"
    check_le "(b) stale no later than usageMaxAgeSeconds + one resolution after the stop" \
        $((MP_MAX_AGE + MP_RESOLUTION + 2)) "$took"
    check_eq "(b) stalePolicy full: filter rejects both" \
        '{"NodeNames":[],"FailedNodes":{"mp-1":"Stale cpu data (usage)","mp-2":"Stale cpu data (usage)"}}' \
        "$(EXT_PORT=$port_full verb filter "$(incoming_pod 1 1Gi)" mp-1 mp-2 | jq -c '{NodeNames, FailedNodes}')"
    check_eq "(b) stalePolicy full: prioritize scores 0" "mp-1:0 mp-2:0" "$(mp_scores "$port_full" mp-1 mp-2)"

    # metrics-server back: usage again.
    ms_start "${MP_RESOLUTION}s" || { fail "metrics-server did not start again"; return 1; }
    k8s_wait 60 "usage again" mp_scores_are "$port_req" "mp-1:2 mp-2:5" mp-1 mp-2
    check_eq "(b) metrics-server started again: usage again" "mp-1:2 mp-2:5" "$(mp_scores "$port_req" mp-1 mp-2)"
    k8s_stop ext-mp
    k8s_stop ext-mp-full
    del_node mp-1
    del_node mp-2
    mp_burst
}

# (c) a burst bound by the real kube-scheduler through the extender:
# three nodes of 16 CPUs, mp-cold nearly idle by usage (0.5 core), mp-hot1
# and mp-hot2 at 4 cores, no pods on any (requests say all three are
# empty). Twelve pods of 1 CPU created at once, with a profile where only
# the extender scores (every in-tree score plugin off: NodeResourcesFit's
# LeastAllocated would spread by requests on its own). Without in-flight
# damping (inFlightSeconds 0) every pod sees mp-cold as the idle node and
# all twelve land there; with it (inFlightSeconds 60) each pod bound to
# mp-cold counts with its request until a sample includes it (the
# stand-in's usage never does), so the burst spreads.
mp_burst_round() {
    local name=$1 inflight=$2 i
    ext_start "ext-$name" "$T/sa/scheduler" --cpu-used-source usage --metrics-interval-seconds "$MP_INTERVAL" \
        --usage-max-age-seconds "$MP_MAX_AGE" --in-flight-seconds "$inflight" || return 1
    k8s_wait 20 "ext-$name ready" ext_ready || { fail "ext-$name not ready"; return 1; }
    # Usage read: mp-cold 9, a hot node 8 (worked in mp_burst).
    MP_MEM=128Mi k8s_wait 20 "ext-$name has usage" mp_scores_are "$EXT_PORT" "mp-cold:9 mp-hot1:8" mp-cold mp-hot1 ||
        { fail "ext-$name: no usage scores: $(MP_MEM=128Mi mp_scores "$EXT_PORT" mp-cold mp-hot1)"; return 1; }
    sched_config "$T/sched-$name.json" "$EXT_PORT" \
        '.profiles[0].plugins = {score: {disabled: [{name: "*"}]}}'
    sched_start "sched-$name" "$T/sched-$name.json" || return 1
    for i in $(seq 12); do sched_pod "$name-$i" 1 128Mi || return 1; done
    k8s_wait 60 "12 pods bound" mp_bound_are "$name" 12 ||
        fail "$name: not all 12 bound within 60 s: $(spread_of "$name")"
    MP_SPREAD=$(spread_of "$name")
    k8s_stop "sched-$name"
    k8s_stop "ext-$name"
    del_pods "$name"
}

mp_burst() {
    local gi=1073741824 n cold
    # The stand-in serves the new nodes: a new process (the nodes file is
    # read at its start).
    k8s_stop kubelet-standin
    k8s_kubelet_standin_start "$T/standin-burst" mp-cold mp-hot1 mp-hot2 ||
        { fail "kubelet stand-in did not start"; return 1; }
    kubelet_usage mp-cold 0.5 "$gi" && kubelet_usage mp-hot1 4 "$gi" && kubelet_usage mp-hot2 4 "$gi" || return 1
    for n in mp-cold mp-hot1 mp-hot2; do mk_kubelet_node "$n" 16 32Gi || return 1; done
    # The new nodes reach metrics.k8s.io within two resolutions.
    k8s_wait 60 "metrics.k8s.io has the burst's nodes" eval \
        'mp_metric_is mp-cold 0.5 && mp_metric_is mp-hot1 4 && mp_metric_is mp-hot2 4' ||
        { fail "no metrics for the burst's nodes within 60 s"; return 1; }

    mp_burst_round burst0 0 || return 1
    local undamped=$MP_SPREAD
    cold=$(tr ' ' '\n' <<<"$undamped" | awk -F: '$1 == "mp-cold" {print $2}')
    check_eq "(c) inFlightSeconds 0: the whole burst on the node that looks idle ($undamped)" 12 "${cold:-0}"

    mp_burst_round burst60 60 || return 1
    local damped=$MP_SPREAD
    cold=$(tr ' ' '\n' <<<"$damped" | awk -F: '$1 == "mp-cold" {print $2}')
    # Worked: spread, cpu 3 memory 1 (memory by requests), 16 CPUs/32Gi,
    # pod 1 CPU/128Mi: mp-cold with k pods in flight scores
    # ((3 * (16-0.5-k-1)*100/16 + 99)/4 + 5)/10: 9 for k = 0, 1, 8 for
    # k = 2, 3; a hot node with j: 8, 7 for j = 1, 2 ... Usage plus
    # in-flight evens out at 0.5 + k = 4 + j, k + 2j = 12: k about 6.
    # Ties go to kube-scheduler's random pick, and a prioritize may come
    # before the pod watch showed the bind before it: mp-cold at most 8.
    check "(c) inFlightSeconds 60: the burst spreads ($damped): mp-cold holds at most 8 of 12" \
        [ "${cold:-0}" -le 8 ]
    check "(c) the hot nodes get some of the burst ($damped)" [ "${cold:-0}" -lt 12 ]
    del_node mp-cold
    del_node mp-hot1
    del_node mp-hot2
}

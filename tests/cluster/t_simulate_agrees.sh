# shellcheck shell=bash
# `cpu-extender simulate` and `rank` against the real kube-scheduler: the
# same cluster (nodes with taints, a cordon, labels, a pod cap, pods
# bound already) and the same pods, in the same order, placed by
# kube-scheduler with a profile made of the plugins our placement model
# implements (placement/constraints.h) and by simulate.
#
# The profile. Filters: NodeName, NodeUnschedulable, TaintToleration,
# NodeAffinity and NodeResourcesFit (with the PreFilters of the last two,
# whose Filters read their state), in the default order; every other
# plugin of every extension point is disabled (multiPoint "*"), preemption
# included, so a FitError message carries no "preemption:" part. Score:
# NodeResourcesFit alone. Its score is
#   Σ_r w_r · value_r / Σ_r w_r   (integer division, resource_allocation.go
#                                  with least_allocated.go/most_allocated.go)
# with value_r = (alloc − req)·100/alloc (LeastAllocated) or
# min(req, alloc)·100/alloc (MostAllocated), req = the node's non-zero
# requests + the pod's (100m/200Mi defaults per container): exactly
# simulate's 0..100 value for spread and pack with the same resource
# weights (cpu 3, memory 1, our defaults, passed to both sides below). No
# NormalizeScore follows, and the node's total is that score × the
# plugin's weight; with weight 1 the total is the value itself, so
# kube-scheduler's order of nodes is simulate's. TaintToleration's score
# (PreferNoSchedule), NodeAffinity's (preferred terms),
# BalancedAllocation, ImageLocality, PodTopologySpread and InterPodAffinity
# are not in our model's value, so they are off. One kube-scheduler serves
# both strategies as two profiles (schedulerName sim-spread, sim-pack).
#
# The comparison, step by step: simulate places pod i alone on the state
# kube-scheduler had left when pod i was created (the nodes read back
# from the API, the pods bound before the test and the pods 1..i-1 where
# kube-scheduler bound them, as --existing), giving simulate's node and
# its value; rank on that same state gives the value of the node
# kube-scheduler then binds. kube-scheduler picks at random among equal
# totals, simulate the first name: values are compared, not names, and
# the real placements are fed back so that the two never drift apart.
# A pod neither places must have the same reasons: the nodes counted per
# reason of kube-scheduler's message (PodScheduled's) and simulate's, with
# the taint texts as one class (1.37 says "node(s) had untolerated
# taint(s)", the model names the taint as earlier releases did).
# OpportunisticBatching (beta, on by default since 1.35) stays on: it
# reuses the last cycle's scores for a pod identical to the one before
# only where they cannot have changed, so the decisions are the same.
#
# Pods with pod-level requests (spec.resources) are bound before the test
# but never placed by it: kube-scheduler 1.37.2 disagrees with itself on
# them. NodeInfo charges a node with the pod-level requests (PodInfo.
# CalculateResource), and so does the Filter, but NodeResourcesFit's
# scorer is made by getScorer without enablePodLevelResources (fit.go
# NewFit sets it on Fit, not on its resourceAllocationScorer, where
# BalancedAllocation sets it), so calculatePodResourceRequest skips the
# pod-level requests and scores the pod to place as the sum of its
# containers with the 100m/200Mi defaults. Seen at --v=10 for a pod
# {cpu 1, memory 1Gi} over containers {cpu 500m} and {}: every node
# scored as for 600m/400Mi (sa-a1 68 where 1000m/1Gi gives 63), and the
# pod went to a node one point below simulate's best. Our model scores
# the pod-level requests (resource.PodRequests, as NodeInfo and the
# filter do); the bound pod checks the node side, which agrees.

SA_PODS=${SA_PODS:-320}        # pods per strategy
SA_WEIGHTS=(--cpu-weight 3 --memory-weight 1)
SA_MAX_SHOWN=5                 # disagreements printed in full per strategy

# NAME CPU MEMORY LABELS-JSON SPEC-PATCH-JSON [PODS]: mk_node, then the
# taints and cordon (mk_node clears taints), then the pod cap in status.
sa_node() {
    mk_node "$1" "$2" "$3" "$4" || return 1
    [ "$5" = '{}' ] || CT=application/merge-patch+json must PATCH "/api/v1/nodes/$1" "{\"spec\":$5}" 200 || return 1
    [ -z "${6:-}" ] || CT=application/merge-patch+json must PATCH "/api/v1/nodes/$1/status" \
        "{\"status\":{\"capacity\":{\"pods\":\"$6\"},\"allocatable\":{\"pods\":\"$6\"}}}" 200
}

# Sizes that differ in both resources (fewer ties), sized so that the
# cluster fills in the last fifth (spread) to quarter (pack) of the pods:
# the FitError counts of full nodes ("Too many pods" on sa-c1's cap of
# 20, "Insufficient cpu/memory") get compared too, besides the pods that
# fit nowhere by design.
sa_nodes() {
    local z=topology.kubernetes.io/zone
    sa_node sa-a1 8 16Gi "{\"$z\":\"a\",\"disktype\":\"ssd\",\"gen\":\"2\"}" '{}' &&
        sa_node sa-a2 24 48Gi "{\"$z\":\"a\",\"gen\":\"4\"}" '{}' &&
        sa_node sa-b1 12 48Gi "{\"$z\":\"b\",\"disktype\":\"ssd\",\"gen\":\"5\"}" '{}' &&
        sa_node sa-b2 48 96Gi "{\"$z\":\"b\",\"gen\":\"3\"}" '{}' &&
        sa_node sa-c1 24 24Gi "{\"$z\":\"c\",\"gen\":\"6\"}" '{}' 20 &&
        sa_node sa-c2 24 32Gi "{\"$z\":\"c\"}" '{"taints":[{"key":"soft","value":"yes","effect":"PreferNoSchedule"}]}' &&
        sa_node sa-gpu 32 128Gi "{\"$z\":\"a\",\"accel\":\"gpu\"}" \
            '{"taints":[{"key":"nvidia.com/gpu","value":"true","effect":"NoSchedule"}]}' &&
        sa_node sa-edge 4 8Gi "{\"$z\":\"b\",\"tier\":\"edge\"}" '{"taints":[{"key":"edge","effect":"NoExecute"}]}' &&
        sa_node sa-cord 16 32Gi "{\"$z\":\"c\"}" '{"unschedulable":true}'
}

# Pods bound before the test (ce-b, spec.nodeName set at creation): plain,
# BestEffort, with a sidecar, on the tainted and cordoned nodes, two that
# ended (Succeeded, Failed), which neither side counts, and one with
# pod-level requests that replace its containers' (memory 2Gi where its
# containers would be charged 100m + 200Mi x 2).
sa_existing() {
    local r='.spec.containers[0].resources.requests'
    mk_pod ce-b ex-1 ".spec.nodeName = \"sa-a1\" | $r = {cpu: \"2\", memory: \"4Gi\"}" &&
        mk_pod ce-b ex-2 '.spec.nodeName = "sa-b2"' &&
        mk_pod ce-b ex-3 ".spec.nodeName = \"sa-c1\" | $r = {cpu: \"500m\"} |
            .spec.initContainers = [{name: \"p\", image: \"registry.invalid/pause:3.2\", restartPolicy: \"Always\",
                                    resources: {requests: {cpu: \"250m\", memory: \"64Mi\"}}}]" &&
        mk_pod ce-b ex-4 ".spec.nodeName = \"sa-c1\" | $r = {memory: \"6Gi\"}" &&
        mk_pod ce-b ex-5 ".spec.nodeName = \"sa-gpu\" | $r = {cpu: \"8\", memory: \"16Gi\"}" &&
        mk_pod ce-b ex-6 ".spec.nodeName = \"sa-cord\" | $r = {cpu: \"1\", memory: \"1Gi\"}" &&
        mk_pod ce-b ex-7 ".spec.nodeName = \"sa-b1\" | $r = {cpu: \"10\", memory: \"40Gi\"}" &&
        set_phase ce-b ex-7 Succeeded &&
        mk_pod ce-b ex-8 ".spec.nodeName = \"sa-a2\" | $r = {cpu: \"12\"}" &&
        set_phase ce-b ex-8 Failed &&
        mk_pod ce-b ex-9 ".spec.nodeName = \"sa-c2\" | .spec.resources.requests = {cpu: \"2\", memory: \"2Gi\"} |
            $r = {cpu: \"500m\"} | .spec.containers += [{name: \"log\", image: \"registry.invalid/pause:3.2\"}]"
}

# FILE: the KubeSchedulerConfiguration (v1), both profiles; SCHED_PORT and
# SCHED_HEALTHZ for sched_start. The manifests' leaderElection (the lease
# sched_start waits for); qps/burst raised so that a pod a few
# milliseconds after the last is not throttled.
sa_config() {
    SCHED_PORT=$(k8s_free_port)
    SCHED_HEALTHZ=https://127.0.0.1:$SCHED_PORT/healthz
    "$Y2J" "$SCHEDULER_CONFIG_YAML" | jq --arg kc "$T/scheduler.kubeconfig" '
        def profile($name; $type): {
            schedulerName: $name,
            plugins: {
                multiPoint: {disabled: [{name: "*"}]},
                queueSort: {enabled: [{name: "PrioritySort"}]},
                preFilter: {enabled: [{name: "NodeAffinity"}, {name: "NodeResourcesFit"}]},
                filter: {enabled: [{name: "NodeName"}, {name: "NodeUnschedulable"}, {name: "TaintToleration"},
                                   {name: "NodeAffinity"}, {name: "NodeResourcesFit"}]},
                preScore: {enabled: [{name: "NodeResourcesFit"}]},
                score: {enabled: [{name: "NodeResourcesFit", weight: 1}]},
                bind: {enabled: [{name: "DefaultBinder"}]}},
            pluginConfig: [{name: "NodeResourcesFit", args: {scoringStrategy: {type: $type,
                resources: [{name: "cpu", weight: 3}, {name: "memory", weight: 1}]}}}]};
        {apiVersion: "kubescheduler.config.k8s.io/v1", kind: "KubeSchedulerConfiguration",
         clientConnection: {kubeconfig: $kc, qps: 100, burst: 200},
         leaderElection: .leaderElection,
         percentageOfNodesToScore: 100,
         profiles: [profile("sim-spread"; "LeastAllocated"), profile("sim-pack"; "MostAllocated")]}' >"$1"
}

# Decisions come from one watch of ce-a's pods, not from polls (a request
# costs a TLS handshake and a jq, as long as a whole scheduling cycle):
# curl streams the events into a FIFO, jq (its own process, so that both
# are stopped by process id) turns each that shows a decision into one
# line "NAME<TAB>bound NODE<TAB>POD-JSON" or "NAME<TAB>unplaced MESSAGE<TAB>
# POD-JSON" on the FIFO the test reads as fd 7. Opened read-write by the
# test first, so that neither open blocks.
sa_watch_start() {
    local w=$T/sim-watch
    rm -f "$w.events" "$w.lines"
    mkfifo "$w.events" "$w.lines" || return 1
    exec 7<>"$w.lines"
    curl -sS -N --cacert "$K8S_PKI/ca.crt" --cert "$K8S_PKI/admin.crt" --key "$K8S_PKI/admin.key" \
        "$K8S_SERVER/api/v1/namespaces/ce-a/pods?watch=1&allowWatchBookmarks=false" \
        >"$w.events" 2>>"$K8S_DIR/logs/sim-watch.log" &
    K8S_PIDS[sim-watch]=$!
    jq --unbuffered -rc 'select(.type != "DELETED") | .object as $p |
        (if ($p.spec.nodeName // "") != "" then "bound \($p.spec.nodeName)"
         else ([$p.status.conditions[]? | select(.type == "PodScheduled" and .status == "False")] |
               if length > 0 then "unplaced \(.[0].message)" else empty end) end) as $d |
        "\($p.metadata.name)\t\($d)\t\($p | tojson)"' <"$w.events" >"$w.lines" 2>>"$K8S_DIR/logs/sim-watch.log" &
    K8S_PIDS[sim-watch-jq]=$!
}

sa_watch_stop() {
    k8s_stop sim-watch
    k8s_stop sim-watch-jq
    exec 7<&-
}

# NAME: reads fd 7 until NAME's decision, within 20 s; sets SA_DECISION
# and SA_POD (the pod as decided, bound or not). Lines of other pods (a
# pod whose condition is written again) are skipped.
sa_wait_decision() {
    local deadline=$((SECONDS + 20)) name left
    while left=$((deadline - SECONDS)) && [ "$left" -gt 0 ]; do
        IFS=$'\t' read -r -t "$left" -u 7 name SA_DECISION SA_POD || return 1
        [ "$name" != "$1" ] || return 0
    done
    return 1
}

# MESSAGE: the reason classes of a "0/N nodes are available: ..." message,
# as "N|count text;count text..." sorted by text; every taint text is one
# class (see the top).
sa_reasons() {
    awk '{
        n = $0; sub(/ nodes are available: .*/, "", n); sub(/^0\//, "", n)
        m = $0; sub(/^0\/[0-9]+ nodes are available: /, "", m); sub(/\.$/, "", m)
        k = split(m, e, ", ")
        for (i = 1; i <= k; i++) {
            t = e[i]; c = 0
            if (match(t, /^[0-9]+ /)) { c = substr(t, 1, RLENGTH - 1) + 0; t = substr(t, RLENGTH + 1) }
            if (t ~ /^node\(s\) had untolerated taint/) t = "node(s) had untolerated taint(s)"
            count[t] += c
        }
        for (t in count) print n "|" count[t] " " t
    }' <<<"$1" | sort -t'|' -k2,2 | awk -F'|' '{ n = $1; s = s (s == "" ? "" : ";") $2 } END { print n "|" s }'
}

# STRATEGY DIR I K: simulate and rank for pod I (DIR/step-I.pod) on the
# state's first K lines, the state kube-scheduler had left when pod I was
# created (head -n K: the test appends pod I's line while this may still
# run in the background). Writes DIR/step-I.{csv,sim,rank,rc}.
sa_model() {
    local s=$1 p=$2/step-$3 rc
    head -n "$4" "$2/state.jsonl" | "$EXT" simulate --pods "$p.pod" --nodes "$2/nodes.json" --existing - \
        --strategy "$s" "${SA_WEIGHTS[@]}" --placements "$p.csv" >"$p.sim" 2>&1
    rc=$?
    head -n "$4" "$2/state.jsonl" | "$EXT" rank --pod "$p.pod" --nodes "$2/nodes.json" --existing - \
        --strategy "$s" "${SA_WEIGHTS[@]}" -o table >"$p.rank" 2>&1
    echo "$rc" >"$p.rc"
}

# DIR I: sa_model's results for pod I: SIM_NODE, SIM_VALUE (empty when it
# fits nowhere) and SIM_MSG (kube-scheduler's words, when it fits nowhere).
sa_read_model() {
    local p=$1/step-$2 rc
    rc=$(<"$p.rc")
    [ "$rc" = 0 ] || [ "$rc" = 3 ] || { fail "simulate exited $rc: $(tail -n 3 "$p.sim")"; return 1; }
    { read -r _ && IFS=, read -r _ _ SIM_NODE SIM_VALUE _; } <"$p.csv"
    SIM_MSG=""
    [ -n "$SIM_NODE" ] || SIM_MSG=$(sed -n 's/^  1 pod: //p' "$p.sim")
    [ -n "$SIM_NODE" ] || [ -n "$SIM_MSG" ] || { fail "simulate: neither a node nor a message: $(cat "$p.sim")"; return 1; }
}

# FILE NODE: "VERDICT VALUE" of NODE in rank's table FILE ("fits 87"; a
# refused node has the rule and "-").
sa_rank_value() {
    awk -v n="$2" '$1 == n && NF > 3 { print $2, $(NF - 2); exit }' "$1"
}

# NAME DIR I DECISION: compares kube-scheduler's DECISION for pod I with
# simulate's and rank's (sa_read_model); counts into
# SA_AGREED, SA_DISAGREED, SA_UNPLACEABLE, SA_TIES and logs a
# disagreement with both sides in DIR/disagreements.txt.
sa_compare() {
    local name=$1 d=$2 node rv why="" SA_DECISION=$4
    sa_read_model "$d" "$3" || return 1
    case "$SA_DECISION" in
    bound\ *)
        node=${SA_DECISION#bound }
        rv=$(sa_rank_value "$d/step-$3.rank" "$node")
        if [ -z "$SIM_NODE" ]; then
            why="kube-scheduler bound it to $node (rank: $rv), simulate: $SIM_MSG"
        elif [ "$rv" != "fits $SIM_VALUE" ]; then
            why="kube-scheduler: $node ($rv), simulate: $SIM_NODE ($SIM_VALUE)"
        elif [ "$node" != "$SIM_NODE" ]; then
            SA_TIES=$((SA_TIES + 1))
        fi
        ;;
    unplaced\ *)
        if [ -n "$SIM_NODE" ]; then
            why="kube-scheduler: ${SA_DECISION#unplaced }; simulate: $SIM_NODE ($SIM_VALUE)"
        elif [ "$(sa_reasons "${SA_DECISION#unplaced }")" != "$(sa_reasons "$SIM_MSG")" ]; then
            why="kube-scheduler: ${SA_DECISION#unplaced }; simulate: $SIM_MSG"
        else
            SA_UNPLACEABLE=$((SA_UNPLACEABLE + 1))
        fi
        ;;
    esac
    if [ -z "$why" ]; then
        SA_AGREED=$((SA_AGREED + 1))
        return 0
    fi
    SA_DISAGREED=$((SA_DISAGREED + 1))
    [ "$SA_DISAGREED" -gt "$SA_MAX_SHOWN" ] || info "disagreement on $name: $why"
    { echo "== $name: $why"; cat "$d/step-$3.pod"; echo; cat "$d/step-$3.rank"; } >>"$d/disagreements.txt"
}

# POD-JSON FILE: creates the pod in ce-a and writes it as the API server
# returned it (with what admission added) to FILE; one curl, no jq.
sa_create() {
    local code
    code=$(curl -sS --max-time 30 --cacert "$K8S_PKI/ca.crt" --cert "$K8S_PKI/admin.crt" \
        --key "$K8S_PKI/admin.key" -H 'Content-Type: application/json' --data-binary "$1" \
        -o "$2" -w '%{http_code}' "$K8S_SERVER/api/v1/namespaces/ce-a/pods")
    [ "$code" = 201 ] || { fail "POST pod: HTTP $code: $(head -c 400 "$2")"; return 1; }
}

# STRATEGY DIR PREFIX: every pod of DIR/pods.jsonl (named PREFIX-001...)
# in turn: created; judged by simulate and rank in the background on the
# state so far; its decision awaited, and when bound it is added to the
# state as the API server has it; the next pod created at once. Pod I's
# comparison waits for its model after pod I+1 was created, so that the
# model of one pod runs while kube-scheduler decides the next.
sa_place_all() {
    local s=$1 d=$2 line i=0 k pid prev_pid="" prev_decision=""
    k=$(wc -l <"$d/state.jsonl")
    while IFS= read -r line; do
        i=$((i + 1))
        sa_create "$line" "$d/step-$i.pod" || { [ -z "$prev_pid" ] || wait "$prev_pid"; return 1; }
        printf '%s\n' "$(<"$d/step-$i.pod")" >>"$d/input.jsonl"
        sa_model "$s" "$d" "$i" "$k" &
        pid=$!
        if [ -n "$prev_pid" ]; then
            wait "$prev_pid"
            sa_compare "$(printf '%s-%03d' "$3" $((i - 1)))" "$d" $((i - 1)) "$prev_decision" ||
                { wait "$pid"; return 1; }
        fi
        sa_wait_decision "$(printf '%s-%03d' "$3" "$i")" ||
            { wait "$pid"; fail "pod $i: no decision by kube-scheduler within 20 s"; return 1; }
        SA_N=$((SA_N + 1))
        prev_pid=$pid prev_decision=$SA_DECISION
        [ "${SA_DECISION%% *}" = unplaced ] ||
            { printf '%s\n' "$SA_POD" >>"$d/state.jsonl"; k=$((k + 1)) SA_BOUND=$((SA_BOUND + 1)); }
    done <"$d/pods.jsonl"
    [ -z "$prev_pid" ] || { wait "$prev_pid"; sa_compare "$(printf '%s-%03d' "$3" "$i")" "$d" "$i" "$prev_decision"; }
}

# STRATEGY SEED: one strategy's run in $T/sim-STRATEGY: the input files,
# the placements, the summary line and its checks; then its pods deleted
# (one deletecollection) and gone before the next strategy.
sa_strategy() {
    local s=$1 d=$T/sim-$1 t0=$SECONDS bound whole
    mkdir -p "$d"
    cp "$T/sim-nodes.json" "$d/nodes.json"
    cp "$T/sim-existing.jsonl" "$d/state.jsonl"
    cp "$T/sim-existing.jsonl" "$d/existing.jsonl"
    : >"$d/input.jsonl"
    awk -v n="$SA_PODS" -v seed="$2" -v prefix="sa-$s" -v sched="sim-$s" \
        -f tests/cluster/simulate_pods.awk >"$d/pods.jsonl"
    SA_N=0 SA_BOUND=0 SA_AGREED=0 SA_DISAGREED=0 SA_UNPLACEABLE=0 SA_TIES=0
    sa_place_all "$s" "$d" "sa-$s"
    echo "   $s: pods $SA_N, agreed $SA_AGREED, disagreed $SA_DISAGREED, unplaceable $SA_UNPLACEABLE" \
        "(of the agreed, $SA_TIES on another node of the same value); $((SECONDS - t0)) s"
    check_eq "$s: every pod decided" "$SA_PODS" "$SA_N"
    check_eq "$s: disagreements (details in $d/disagreements.txt)" 0 "$SA_DISAGREED"
    check "$s: some pods unplaceable in both ($SA_UNPLACEABLE)" [ "$SA_UNPLACEABLE" -gt 0 ]
    # Nothing bound after its decision (an unplaceable pod retried later):
    # the API server's bound pods are the state the comparison used.
    api GET /api/v1/namespaces/ce-a/pods
    bound=$(jq '[.items[] | select((.spec.nodeName // "") != "")] | length' <<<"$RESP")
    check_eq "$s: pods bound now, as decided" "$SA_BOUND" "$bound"
    # The whole input at once, simulate breaking its own ties: not
    # compared (the states drift apart at the first tie), shown.
    whole=$("$EXT" simulate --pods "$d/input.jsonl" --nodes "$d/nodes.json" --existing "$d/existing.jsonl" \
        --strategy "$s" "${SA_WEIGHTS[@]}" | awk '/^pods placed/ { p = $NF } /^pods not placed/ { u = $NF } END { print p, u }')
    info "simulate on the whole input alone: placed, not placed: $whole (kube-scheduler: $bound $((SA_N - bound)))"
    must DELETE "/api/v1/namespaces/ce-a/pods?gracePeriodSeconds=0" 200 &&
        k8s_wait 30 "ce-a empty" sa_ns_empty
}

sa_ns_empty() {
    api GET /api/v1/namespaces/ce-a/pods
    [ "$CODE" = 200 ] && [ "$(jq '.items | length' <<<"$RESP")" = 0 ]
}

# The input both sides read: the nodes and the bound pods as the API server
# returns them (kind and apiVersion put back on the list's items).
sa_inputs() {
    api GET /api/v1/nodes
    jq '{apiVersion: "v1", kind: "NodeList", items: [.items[] | select(.metadata.name | startswith("sa-"))]}' \
        <<<"$RESP" >"$T/sim-nodes.json"
    api GET /api/v1/namespaces/ce-b/pods
    jq -c '.items[] | .kind = "Pod" | .apiVersion = "v1"' <<<"$RESP" >"$T/sim-existing.jsonl"
    check_eq "nodes and pods bound before" "9 9" \
        "$(jq '.items | length' "$T/sim-nodes.json") $(wc -l <"$T/sim-existing.jsonl")"
}

t_simulate_agrees() {
    local t0=$SECONDS
    sa_nodes && sa_existing || return 1
    sa_inputs
    sa_config "$T/sched-sim.json"
    sched_start sched-sim "$T/sched-sim.json" || return 1
    sa_watch_start || return 1
    sa_strategy spread 1
    sa_strategy pack 7
    sa_watch_stop
    info "both strategies, $((2 * SA_PODS)) pods, in $((SECONDS - t0)) s"
    k8s_stop sched-sim
    local n
    for n in 1 2 3 4 5 6 7 8 9; do del_pod ce-b "ex-$n"; done
    for n in a1 a2 b1 b2 c1 c2 gpu edge cord; do del_node "sa-$n"; done
}
